# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A forgery at a wrong stop earns 0, in every gdb exercise, and says why.

The proxy refuses every write of a student's gdb (vm/student_gdb.py; the
live refusals: tests/test_gdb_writes.py, make check's integrity class).
Here, offline: each gdb exercise's plants that stop the VM in the wrong
place (labs/NN/planted.py), with the student's session showing what gdb
prints when the proxy refuses a register write, a memory write, a `call`,
a `jump` or a `return`.  The exercise must earn 0 (its key check: the
stop) and a BAD line must say the write was refused."""
import pytest

from labs import lab, mistakes, points
from labs.grade import refused
from tests.graderlib import solution_only
from tests.test_mistakes import PLANTS, exercise, graded_plant

NO = "remote failure reply '%s'" % "E.kt: the VM is read-only while grading (no register or memory writes)"
# What gdb 13 prints for each, the proxy refusing (tests/test_gdb_writes.py)
FORGERIES = {
    "register": 'Could not write register "x0"; ' + NO,
    "memory": "Cannot access memory at address 0xffffff8000b9b200  (" + NO + ")",
    "call": 'Could not write register "x30"; ' + NO,
    "jump": 'Could not write register "pc"; ' + NO,
    "return": 'Could not write register "x29"; ' + NO,
}
GDB_EXERCISES = ("1.3", "2.2", "7.1", "7.2", "7.3")


def forged(res, line):
    class Run:
        gdb = "KT-GDB student\n%s\nKT-GDB stop\n" % line
    return list(res) + refused(Run())


def wrong_stops(tmp_path):
    """(exercise, plant, results) of each plant that misses its exercise's
    point (a key check BAD) in a gdb exercise."""
    out = []
    for folder, plant in PLANTS:
        ex_id = next(m["exercise"] for m in mistakes.catalogue(lab.load_lab(folder))
                     if m["id"] == plant["mistake"])
        if ex_id not in GDB_EXERCISES:
            continue
        res, _ = graded_plant(folder, plant, tmp_path / plant["mistake"])
        ex = exercise(folder, ex_id)
        if points.credit(ex["points"], res, ex["key"]) == 0:
            out.append((ex, plant["mistake"], res))
    return out


@solution_only
@pytest.mark.parametrize("kind", sorted(FORGERIES))
def test_a_forgery_at_a_wrong_stop_earns_0_and_says_why(kind, tmp_path):
    stops = wrong_stops(tmp_path)
    assert {ex["id"] for ex, _, _ in stops} == set(GDB_EXERCISES), [e["id"] for e, _, _ in stops]
    for ex, mistake, res in stops:
        got = forged(res, FORGERIES[kind])
        assert points.credit(ex["points"], got, ex["key"]) == 0, (ex["id"], mistake)
        why = [w for n, ok, w in got if ok is False and "refused" in w]
        assert why and "read-only while grading" in why[0], (ex["id"], mistake, got[-1])
