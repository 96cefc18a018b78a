# kasan-tags: arm64 software tag-based KASAN, built, booted and explored.
#
#   make            deps + kernel + lab transcripts + site (the main job)
#   make check      every test (KUnit gate, lab scenarios, gdb, labs, site)
#
# The logic lives in vm/, labs/, gdb-scripts/; this file only names jobs.

PY      := /usr/bin/python3
KT      := $(PY) vm/kt.py
VARIANT ?= swtags
export VARIANT
CMDLINE ?=
SCENARIO ?=
N ?=

.PHONY: all deps doctor kernel boot run shell qemu-gdb gdb lab grade \
	transcripts site check test-tools bench bench-setup fixtures clean

all: deps kernel transcripts site

deps:
	@vm/deps

doctor:
	@$(KT) doctor

kernel:
	@$(KT) kernel

boot:
	@$(KT) boot --cmdline "$(CMDLINE)"

run:
	@$(KT) boot --run "$(SCENARIO)" --cmdline "kunit.enable=0 $(CMDLINE)"

shell:
	@$(KT) boot --shell $(if $(GDB),--gdb) --cmdline "kunit.enable=0 $(CMDLINE)"

qemu-gdb:
	@$(KT) boot --gdb --cmdline "$(CMDLINE)"

bench-setup:
	@$(PY) tests/bench.py

gdb:
	@$(KT) gdb

check:
	@$(PY) tests/check.py

clean:
	rm -rf build

fixtures:
	@$(PY) tests/fixtures.py

# Labs: `make lab N=1 [STEP=slab]` interactive; `make grade [N=2]` graded.
lab:
	@$(PY) labs/grade.py --interactive $(if $(N),-n $(N)) $(if $(STEP),--step $(STEP))

grade:
	@$(PY) labs/grade.py $(if $(N),-n $(N))

# The captured outputs the lab pages include are the grading runs' outputs.
transcripts:
	@$(PY) labs/grade.py || echo "transcripts: some lab checks failed (see above); pages show what was captured"

site:
	@$(PY) Documentation/tools/gensite.py
	@/usr/bin/sphinx-build -q -W --keep-going -b html . build/site
	@echo "site: build/site/index.html"

# Benchmarks print measured figures; they are not tests.
bench:
	@$(PY) tests/perf.py
