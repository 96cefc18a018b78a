# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: a grade means what it says.  A class of four lab-1 handouts
is graded by `make grade-class`, and one of them by its own `make grade`:

  bob     1.3 solved                                  1.3's points
  erin    bob's files byte for byte, her student.toml 1.3's points; both rows
          claiming she is bob                         name the other, hers the claim
  dave    1.3 stopped at __kasan_kmalloc's entry,     0 for 1.3, and a BAD line
          its three lines right, then `set $x0 = $obj` saying the write was refused
  frank   the same stop, then `set $pc = $x30` and    0 for 1.3
          `set $x0 = $obj`: a return faked

The proxy between a student's gdb and QEMU refuses every write
(vm/student_gdb.py), and 1.3's point is its stop (steps.toml key): a forged
register earns nothing, here and in the student's own make grade.
"""

import csv
import json
import os
import shutil
import time

from labs.lab import by_number
from tests.check_sandbox import ex_points, grade_class, make
from tests.checklib import OUT, REPO, record

TOP = os.path.join(OUT, "integrity")
SOLVED_STOP = "finish\nset $obj = (unsigned long)$\n"
# at __kasan_kmalloc's entry x1 is the object already tagged: the three
# lines come out right, only the stop is wrong
AT_ENTRY = "set $obj = (unsigned long)$x1\n"


def forged(solution, writes):
    """The solution's tagstop.gdb stopped at the entry, its lines printed,
    then the writes that would make the stop look right."""
    assert SOLVED_STOP in solution
    return solution.replace(SOLVED_STOP, AT_ENTRY).replace(
        "# END TODO", "".join(w + "\n" for w in writes) + "# END TODO")


def points_13(res):
    return next((e["points"] for e in res["exercises"]["list"] if e["id"] == "1.3"), None)


def check_integrity():
    from classroom import handout
    t0 = time.time()
    shutil.rmtree(TOP, ignore_errors=True)
    trees, results = os.path.join(TOP, "trees"), os.path.join(TOP, "results")
    tagstop = os.path.join("labs", by_number(1).folder, "student", "tagstop.gdb")
    sol = open(os.path.join(REPO, tagstop)).read()
    texts = {"bob": sol, "erin": sol,
             "dave": forged(sol, ["set $x0 = $obj"]),
             "frank": forged(sol, ["set $pc = $x30", "set $x0 = $obj"])}
    for name, text in texts.items():
        handout.make_handout(os.path.join(trees, name))
        with open(os.path.join(trees, name, tagstop), "w") as f:
            f.write(text)
    with open(os.path.join(trees, "erin", "student.toml"), "w") as f:
        f.write('id = "bob"\nseed = 2\n')
    env, rc, out = grade_class(TOP, trees, results)
    got = {}
    for name in texts:
        try:
            got[name] = json.load(open(os.path.join(results, name + ".json")))
        except (OSError, ValueError):
            got[name] = None
    pts = {n: r and points_13(r) for n, r in got.items()}
    full = ex_points("1.3")
    want = {"bob": full, "erin": full, "dave": 0, "frank": 0}
    record("integrity: grade-class: 1.3 solved and its copy keep their points at both seeds; "
           "a register write, and a pc write, at a wrong stop earn 0", rc == 0 and pts == want,
           "1.3 points %s" % pts, time.time() - t0,
           [] if pts == want else out.strip().splitlines()[-10:])
    why = [c["why"] for c in (got["dave"] or {}).get("checks", [])
           if c.get("exercise") == "1.3" and c["ok"] is False]
    record("integrity: the forgery's BAD lines say the write was refused and the stop is wrong",
           any("refused" in w for w in why) and any("call into kmalloc" in w for w in why),
           "; ".join(why)[:300] or "no BAD line")
    try:
        rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(results,
                                                                          "summary.csv")))}
    except OSError:
        rows = {}
    same = {n: rows.get(n, {}).get("same work as", "?") for n in texts}
    record("integrity: summary.csv names bob and erin as each other's copy, and erin's "
           "claim to be bob", "whole: erin" in same["bob"] and "whole: bob" in same["erin"]
           and rows.get("erin", {}).get("claimed id") == "bob"
           and not same["dave"].startswith("whole"),
           "same work as %s; erin claims %r" % (same, rows.get("erin", {}).get("claimed id")))
    t1 = time.time()
    mine = os.path.join(TOP, "dave-grade.json")
    rc, out = make(["grade", "N=1", "OUT=" + mine], os.path.join(trees, "dave"),
                   os.path.join(TOP, "dave-grade.out"), env)
    try:
        res = json.load(open(mine))
    except (OSError, ValueError):
        res = None
    lines = [ln for ln in out.splitlines() if "exercise 1.3" in ln]
    record("integrity: dave's own make grade: 1.3 earns 0 and is not GOOD",
           res is not None and points_13(res) == 0 and lines
           and not lines[-1].startswith("GOOD"), "; ".join(lines) or "no 1.3 line",
           time.time() - t1)
