# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
# kasan-tags: arm64 software tag-based KASAN, built, booted and explored.
#
#   make            deps + the default kernel + the site + lab 1's first step, live
#   make transcripts  every lab graded, its transcripts captured again (teachers)
#   make check      the quick tier of the tests (lint, KUnit gate, scenarios, gdb, labs, site);
#                   TIER=all: every test, the slower tier too (classes, images, plants)
#   make test       the quick loop: unit tests and lint, no VM
#
# The logic lives in vm/, labs/, gdb-scripts/, bench/; this file only names
# jobs.  The import root is set here, once: the checkout (packages vm, labs,
# bench, tests, Documentation.tools) and gdb-scripts/ (package kasan).

PY      := /usr/bin/python3
export PYTHONPATH := $(CURDIR):$(CURDIR)/gdb-scripts
KT      := $(PY) -m vm
VARIANT ?= swtags
export VARIANT
CMDLINE ?=
SCENARIO ?=
N ?=
# Every boot is deterministic (vm/qemu.py: -icount, -seed): the same
# command with the same SEED prints the same bytes.  Unset: the default
# seed; SEED=random draws one and prints it.
SEED ?=
export SEED

# What `make lint` reads: every Python file and shell script of the checkout.
SHELL_SCRIPTS := vm/deps .ci/run gdb-scripts/kasan-decode $(wildcard labs/*/*.sh) classroom/ci/grade-class.slurm \
	classroom/pl-grade classroom/enter-userland
TYPED := vm/ktap.py vm/variant.py vm/metrics.py vm/base.py vm/dist.py vm/record.py vm/runcache.py \
	gdb-scripts/kasan/report.py gdb-scripts/kasan/report_format.py gdb-scripts/kasan/report_summary.py gdb-scripts/kasan/tags.py labs/lab.py classroom/handout.py labs/edition.py labs/student.py classroom/secret.py classroom/submit.py labs/mistakes.py bench/table.py \
	Documentation/tools/pictures.py Documentation/tools/provenance.py Documentation/tools/outcome_target.py shared/tables.py gdb-scripts/kasan/modes.py \
	vm/rsp.py classroom/copies.py classroom/prairielearn.py tests/jobcache.py

.PHONY: all first-step image deps doctor kernel builddir boot run shell qemu-gdb gdb record replay lab grade handout test decode \
	submit hint grade-class grade-merge autograder bench-class bench-gradescope \
	transcripts site check lint mutation bench bench-keep bench-setup bench-collisions bench-decode bench-why fixtures clean \
	dist import

# A newcomer's first hour: the packages, the default kernel, the site (from
# the transcripts and runs kept in the checkout) and one live proof that
# they are this machine's: lab 1's first step prints its kept transcript.
# Every other kernel is built on its first use (or comes from make import).
all: deps kernel site first-step

first-step:
	@$(PY) -m labs.grade --first-step

deps:
	@vm/deps

doctor:
	@$(KT) doctor

kernel:
	@$(KT) kernel

# The build directory of VARIANT's kernel (its .config, vmlinux), built or not
builddir:
	@$(KT) builddir

TIMEOUT ?= 300
MACHINE ?=
boot:
	@$(KT) boot --timeout $(TIMEOUT) --cmdline "$(CMDLINE)" $(if $(MACHINE),--machine "$(MACHINE)") $(if $(BUSYBOX),--busybox)

run:
	@$(KT) boot --timeout $(TIMEOUT) --run "$(SCENARIO)" --cmdline "kunit.enable=0 $(CMDLINE)" $(if $(MACHINE),--machine "$(MACHINE)")

shell:
	@$(KT) boot --shell $(if $(GDB),--gdb) $(if $(CMD),--cmd "$$CMD") --cmdline "kunit.enable=0 $(CMDLINE)"

qemu-gdb:
	@$(KT) boot --gdb --cmdline "$(CMDLINE)"

gdb:
	@$(KT) gdb

# Record a run, then replay it halted for `make gdb`, which can then run it
# backwards (vm/record.py; lab 7).  The same SCENARIO=, CMDLINE=, SEED= for both.
record:
	@$(KT) record --run "$(SCENARIO)" --cmdline "kunit.enable=0 $(CMDLINE)"

replay:
	@$(KT) replay --run "$(SCENARIO)" --cmdline "kunit.enable=0 $(CMDLINE)"

# make check runs the quick tier and names the slower one, TIER=all both
# (tests/check.py: SLOW); LIST=1 names the checks; ONLY=a,b runs those, SKIP=a,b the rest;
# a job that passed on the very same inputs is shown as kept (tests/jobcache.py),
# FRESH=1 runs every job.
check:
	@$(PY) -m tests.check $(if $(LIST),--list) --only "$(ONLY)" --skip "$(SKIP)"

# The quick loop, no VM: the unit tests and lint.
test:
	@$(PY) -m pytest -q -p no:cacheprovider tests gdb-scripts/tests labs
	@$(MAKE) -s lint

# flake8 and shellcheck clean, mypy on the typed leaf modules (TYPED), and
# every file's licence and copyright known (reuse lint: README, Licence).
lint:
	@flake8 && echo "lint: flake8 clean"
	@shellcheck $(SHELL_SCRIPTS) && echo "lint: shellcheck clean ($(words $(SHELL_SCRIPTS)) scripts)"
	@mypy --no-error-summary --disallow-untyped-defs $(TYPED) && echo "lint: mypy clean ($(words $(TYPED)) modules)"
	@command -v reuse >/dev/null || { echo "lint: reuse is not installed (Debian package reuse); run make deps" >&2; exit 1; }
	@out=$$(reuse lint 2>&1) && echo "lint: reuse clean ($$(echo "$$out" | sed -n 's/^\* Files with license information: //p') files with licence and copyright)" || \
		{ echo "$$out" >&2; echo "lint: reuse lint failed: give each file above its two SPDX lines or a .reuse/dep5 entry (README: Licence)" >&2; exit 1; }

clean:
	rm -rf build

# A classroom: the teacher's built kernels to every student (vm/dist.py);
# by default the kernels the labs need (labs/lab.py: needed_variants).
DIST_FILE ?= build/kasan-tags-kernels.tar.zst
dist:
	@mkdir -p $(dir $(DIST_FILE))
	@$(KT) dist --variants $(if $(VARIANTS),$(VARIANTS),$$($(PY) -m labs.grade --list-variants)) $(DIST_FILE)

import:
	@$(if $(FILE),,echo "kasan-tags: error: make import needs FILE=<archive from make dist>"; exit 2)
	@$(KT) import $(FILE)

# make fixtures N=3: store lab 3's runs of the last `make grade` in its runs/;
# without N: boot the variants again for the logs gdb-scripts/tests read.
fixtures:
	@$(if $(N),$(PY) -m tests.fixtures labs $(N),$(PY) -m tests.fixtures && $(PY) -m tests.fixtures forms)

# Labs: `make lab N=1 [STEP=slab]` interactive; `make grade [N=2]` graded.
lab:
	@$(PY) -m labs.grade --interactive $(if $(N),-n $(N)) $(if $(STEP),--step $(STEP))

# Its results (every check, GOOD or BAD) go to OUT=, by default to
# build/grade/results[-N[-STEP]].json: the site's :outcome: sentences
# (Documentation/tools/ktoutcome.py) are checked against the last grading.
# DEMOS=no: the exercises' steps only (grade-class grades the demonstrations
# once per class).  JOBS=2: the labs in two processes at once (labs/gradejobs.py).
grade:
	@mkdir -p build/grade
	@$(PY) -m labs.grade $(if $(N),-n $(N)) $(if $(STEP),--step $(STEP)) $(if $(filter no,$(DEMOS)),--exercises-only) $(if $(JOBS),--jobs $(JOBS)) \
		--out $(or $(OUT),build/grade/results$(if $(N),-$(N))$(if $(STEP),-$(STEP)).json)

# The next, more specific hint for a known mistake the last `make grade` of
# exercise EX found (labs/mistakes.py; the hints shown go into the grade JSON).
hint:
	@$(PY) -m labs.mistakes "$(N)" "$(EX)"

# The student tree: solutions replaced by their TODO stubs (classroom/handout.py).
# ID=alice: the tree's student.toml gets the id and its seed (from the
# course secret); ROSTER=file: DEST/ID for each id of the file.
handout:
	@$(if $(DEST),,echo "kasan-tags: error: make handout needs DEST=<directory>"; exit 2)
	@$(PY) -m classroom.handout $(if $(FORCE),--force) $(if $(ID),--id "$(ID)") $(if $(ROSTER),--roster "$(ROSTER)") $(DEST)

# A class: the student's archive; the teacher grades every archive (or
# student tree) of CLASS in fresh handouts of this checkout (classroom/gradeclass.py).
submit:
	@$(PY) -m classroom submit

grade-class:
	@$(if $(CLASS),,echo "kasan-tags: error: make grade-class needs CLASS=<dir of submissions> OUT=<dir>"; exit 2)
	@$(if $(OUT),,echo "kasan-tags: error: make grade-class needs OUT=<dir for the results>"; exit 2)
	@$(PY) -m classroom grade-class "$(CLASS)" "$(OUT)" $(if $(N),-n $(N)) \
		$(if $(JOBS),--jobs "$(JOBS)") $(if $(SHARD),--shard "$(SHARD)")

# Gradescope: build/autograder.zip (setup.sh, run_autograder, this checkout,
# the kernels of make dist -- or KERNELS=archive --, the Debian 12 userland
# it runs in on any base -- USERLAND=none leaves it out -- and the course secret;
# AUTOGRADER_ZIP=path writes it elsewhere), laid out as Gradescope extracts it
autograder:
	@$(PY) -m classroom.autograder build $(if $(KERNELS),--kernels "$(KERNELS)") \
		$(if $(AUTOGRADER_ZIP),--out "$(AUTOGRADER_ZIP)") $(if $(USERLAND),--userland "$(USERLAND)")

# The course as OCI images from Debian's packages (classroom/image.py):
# FLAVOUR=student or grader, both by default; build/images/*.tar for docker load
image:
	@$(PY) -m classroom.image $(FLAVOUR)

# Students per hour, each lab's time at one CPU, a grading's peak memory
bench-class:
	@$(PY) -m classroom.bench_class $(BENCH_CLASS)

# One Gradescope submission's time and peak memory at half a CPU and 768 MB
bench-gradescope:
	@$(PY) -m classroom.bench_gradescope

# The slices of SHARD=i/n gradings, copied into one OUT: one summary
grade-merge:
	@$(if $(OUT),,echo "kasan-tags: error: make grade-merge needs OUT=<dir of grade-class results>"; exit 2)
	@$(PY) -m classroom grade-merge "$(OUT)"

# The captured outputs the lab pages include are the grading runs' outputs.
transcripts:
	@mkdir -p build/transcripts
	@$(PY) -m labs.grade --out build/transcripts/grade.json || \
		echo "transcripts: some lab checks failed (see above); pages show what was captured"
	@$(PY) -m labs.grade --store-transcripts

# EDITION=teacher adds the answers (`.. only:: teacher`) in build/site-teacher.
SITE_OUT = build/site$(if $(filter teacher,$(EDITION)),-teacher)
SITE_DOCTREES = build/doctrees/$(or $(EDITION),student)
site:
	@$(if $(filter-out student teacher,$(or $(EDITION),student)),echo "kasan-tags: error: EDITION must be student or teacher (not $(EDITION))"; exit 2)
	@$(PY) -m Documentation.tools.gensite
	@# Sphinx rebuilds only the pages that changed; after a build that warned,
	@# the next one reads every page again, so that it warns again (-W).
	@# Its doctrees (every page whole, teacher blocks included) stay out of the site.
	@rm -rf $(SITE_OUT)/_sources $(SITE_OUT)/.doctrees
	@/usr/bin/sphinx-build -q -W --keep-going -b html $(if $(filter teacher,$(EDITION)),-t teacher) \
		-d $(SITE_DOCTREES) . $(SITE_OUT) || { rm -rf $(SITE_DOCTREES); exit 1; }
	@echo "site: $(SITE_OUT)/index.html"

# Benchmarks print measured figures; they are not tests.
bench:
	@$(PY) -m bench.kasan_modes

# Keep the last `make bench` in bench/stored/: the performance page shows
# it in every tree until its reader runs make bench.
bench-keep:
	@$(PY) -m bench.kasan_modes --keep

# BENCH_SETUP=--debug-info, --rebuild, --first-lab or --cold-ci: the long sections
# (bench/setup_costs.py); by default the builds this cache recorded.
bench-setup:
	@$(PY) -m bench.pipeline_times
	@$(PY) -m bench.setup_costs $(BENCH_SETUP)

# kasan-decode on a serial log, with the vmlinux of VARIANT (make decode LOG=file)
decode:
	@$(if $(LOG),,echo "kasan-tags: error: make decode needs LOG=<serial log>"; exit 2)
	@gdb-scripts/kasan-decode --vmlinux "$$($(KT) builddir)/vmlinux" "$(LOG)"

# How often a reused slot gets its old tag back, over seeds 1..SEEDS
SEEDS ?= 20
bench-collisions:
	@$(PY) -m bench.collisions --seeds $(SEEDS)

# kasan-why's time at each lab 7 report (recorded and replayed), bound 60 s
bench-why:
	@$(PY) -m bench.why

# kasan-decode vs scripts/decode_stacktrace.sh, and a 250 MiB log streamed
bench-decode:
	@$(PY) -m bench.decode

# Do the offline tests notice a change of meaning?  (seeded, time-bounded;
# not part of make check: about 10 minutes on 2 cores)
mutation:
	@$(PY) -m tests.mutation $(if $(SEED),--seed $(SEED)) $(if $(MAX),--max $(MAX))
