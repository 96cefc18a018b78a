#!/usr/bin/python3
"""`make fixtures`: capture the logs the offline tests read.

    python3 -m tests.fixtures          boot swtags and generic once each (KASAN
                                       KUnit suite + every lab scenario) and store
                                       the serial logs in gdb-scripts/tests/fixtures/
    python3 -m tests.fixtures labs     store what the last `make grade` captured
                                       for each graded step in tests/data/labs/

Everything is xz-compressed, with this machine's cache and checkout paths
replaced by <cache> and <repo>.  The tests then parse real reports and
real gdb sessions of this project's own kernels, not hand-written ones.
"""

import lzma
import os
import sys

import vm
from labs import scenarios

REPO = vm.REPO

DEST = os.path.join(REPO, "gdb-scripts", "tests", "fixtures")
LAB_DATA = os.path.join(REPO, "tests", "data", "labs")
GRADE = os.path.join(REPO, "build", "grade")
# What a check reads: the serial log (or a host step's output), the gdb
# transcript; lab 4's table step reads the table.json its host step wrote;
# a step with a control also keeps the control's serial log (lab 5's
# predictions compare with it).
KINDS = {"serial": ".serial.log", "gdb": ".serial.gdb.txt"}


def scrub(text):
    """No machine paths in the repository: <cache>/..., <repo>/..."""
    if text.startswith("# kt boot:"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return text.replace(vm.cache_root(), "<cache>").replace(REPO, "<repo>")


def store_labs():
    from labs import lab
    n = 0
    for x in lab.load_all():
        # The exercises' steps, and the runs their checks read (ex-*).
        graded_by_exercise = {ex["step"] for ex in x.exercises} | {
            s["name"] for s in x.steps if s["name"].startswith("ex-")}
        for step in x.steps:
            if not step.get("checks", True) and step["name"] not in graded_by_exercise:
                continue
            names = [(k, step["name"] + suffix) for k, suffix in KINDS.items()]
            if step.get("control"):
                names.append(("control", step["name"] + ".control.serial.log"))
            if x.folder.startswith("04") and step["name"] == "table":
                names = [("json", "table.json")]
            for kind, name in names:
                src = os.path.join(GRADE, x.folder, name)
                if not os.path.exists(src):
                    if kind == "serial" or kind == "json":
                        print("fixtures: no %s (run `make grade N=%d`)" % (src, x.number))
                    continue
                out = os.path.join(LAB_DATA, x.folder, "%s.%s.xz" % (step["name"], kind))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with lzma.open(out, "wt", preset=9) as f:
                    f.write(scrub(open(src, errors="replace").read()))
                n += 1
    print("fixtures: %d files in %s" % (n, os.path.relpath(LAB_DATA, REPO)))


def main():
    os.makedirs(DEST, exist_ok=True)
    names = ",".join(scenarios.load_expected())
    for variant in ("swtags", "generic"):
        bdir = vm.build_kernel(variant)
        b = vm.boot(bdir, vm.scenario_cmdline(names), 300)
        if not b.ok:
            print(b.tail())
            raise vm.KtError("%s boot failed (%s)" % (variant, b.status))
        # Drop the "# kt boot:" header line: it names this machine's paths.
        text = b.text.split("\n", 1)[1]
        out = os.path.join(DEST, "%s.log.xz" % variant)
        with lzma.open(out, "wt", preset=9) as f:
            f.write(text)
        print("fixtures: %s (%d lines)" % (os.path.relpath(out, REPO), text.count("\n")))


if __name__ == "__main__":
    try:
        if sys.argv[1:] == ["labs"]:
            store_labs()
        else:
            main()
    except vm.KtError as e:
        sys.exit("kasan-tags: error: %s" % e)
