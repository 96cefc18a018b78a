#!/usr/bin/python3
"""`make check`: every test of the project, one line per check.

    PASS name (seconds)
    FAIL name (seconds): why

and a last line "N passed, N failed".  Boots are shared: one boot per
variant runs the KUnit suite and every lab scenario.  Logs of every boot
are kept under build/check/.  The checks live by concern:
  check_kernels.py    tooling, each kernel's boot, reproducibility, gdb, decode
  check_processes.py  no process outlives a timeout or a signal
  check_class.py      the labs, the pages' commands, the site, the handout, a class
and checklib.py holds what they share (the record of results, make as a user).
"""

import inspect
import os
import sys
import time

import vm
from tests import checklib
from tests.check_class import (check_classroom, check_grade, check_grade_class,
                               check_grade_student, check_handout, check_page_commands,
                               check_published_transcript, check_site)
from tests.check_kernels import (check_checkpatch, check_decode, check_gdb_live,
                                 check_gdb_live_hw, check_lint, check_record,
                                 check_reproducible, check_shell, check_tooling, check_variant)
from tests.check_processes import check_cleanup, check_signals
from tests.checklib import HANDOUT, OUT


# Every check of `make check`, by name, in the order they run: `make check
# LIST=1` prints them, ONLY=a,b runs those, SKIP=a,b all but those.  A
# check that reads another's output (decode reads variant-swtags' log,
# transcript-again the transcripts grade writes) says so when run alone.
CHECKS = [
    ("pytest", check_tooling),
    ("lint", check_lint),
    ("checkpatch", check_checkpatch),
    # started here, collected last: it runs beside everything below
    ("handout", lambda: check_handout(n_exercises())),
    ("grade-class", check_grade_class),
    ("variant-swtags", lambda: check_variant("swtags", "sw_tags")),
    ("variant-generic", lambda: check_variant("generic", "generic")),
    ("variant-none", lambda: check_variant("none", None)),
    ("variant-hwtags", lambda: check_variant("hwtags", "hw_tags")),
    ("reproducible-swtags", lambda: check_reproducible("swtags")),
    ("reproducible-hwtags", lambda: check_reproducible("hwtags")),
    ("record", check_record),
    ("decode", check_decode),
    ("gdb-live", check_gdb_live),
    ("gdb-live-hw", check_gdb_live_hw),
    ("shell", check_shell),
    ("cleanup", check_cleanup),
    ("signals", check_signals),
    ("classroom", check_classroom),
    ("grade", check_grade),
    ("transcript-again", check_published_transcript),
    ("site", check_site),
    # after pytest, lint and site: their make test and make site are not run again
    ("page-commands", check_page_commands),
]


# What a student tree's own make check runs (labs/HANDOUT).
HANDOUT_CHECKS = ("pytest", "lint", "checkpatch", "grade-student")


def n_exercises():
    from labs import lab as labdata
    return sum(len(lab.exercises) for lab in labdata.load_all())


def selected(only, skip, handout=HANDOUT):
    """The (name, function) pairs ONLY/SKIP pick, or a one-line error."""
    table = ([(n, f) for n, f in CHECKS if n in HANDOUT_CHECKS] +
             [("grade-student", check_grade_student)]) if handout else list(CHECKS)
    names = [n for n, _ in table]
    want = [x for x in only.split(",") if x] if only else names
    drop = [x for x in skip.split(",") if x]
    unknown = [x for x in want + drop if x not in names]
    if unknown:
        raise vm.KtError("no check named %s (make check LIST=1 lists them: %s)"
                         % (unknown[0], ", ".join(names)))
    return [(n, f) for n, f in table if n in want and n not in drop]


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="tests/check.py")
    ap.add_argument("--only", default=os.environ.get("ONLY", ""))
    ap.add_argument("--skip", default=os.environ.get("SKIP", ""))
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    vm.install_signal_handlers()
    t0 = time.time()
    try:
        checks = selected(a.only, a.skip)
        if a.list:
            print("\n".join(n for n, _ in checks))
            return 0
        vm.preflight()
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    os.makedirs(OUT, exist_ok=True)
    beside = []
    for name, fn in checks:
        t1 = time.time()
        started = fn()
        if inspect.isgenerator(started):
            # a check that goes on beside the others until the end
            next(started, None)
            beside.append((name, started, t1))
            print("  [%s: started; goes on beside the checks below]" % name, flush=True)
            continue
        print("  [%s: %.0f s]" % (name, time.time() - t1), flush=True)
    for name, started, t1 in beside:
        for _ in started:
            pass
        print("  [%s: %.0f s, beside the others]" % (name, time.time() - t1), flush=True)
    return summary(t0)


def summary(t0):
    res = checklib.results
    npass = sum(res)
    print("%d passed, %d failed  (%.0f s)" % (npass, len(res) - npass, time.time() - t0))
    return 0 if all(res) else 1


if __name__ == "__main__":
    sys.exit(main())
