# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Copies and claims in the class summary (classroom/copies.py), without a
kernel: what counts as the same work, and where the summary shows it."""
import csv
import json

from classroom import copies, summary

PY = "labs/01-tag-assignment/student/tagmath.py"
GDB = "labs/01-tag-assignment/student/tagstop.gdb"
EXS = {"1.1": [PY], "1.3": [GDB]}
ANN_PY = "def access_ok(p, s, a, t):\n    # mine\n    return p > 0  # ok\n"
ANN_GDB = "break lab_uaf\ncontinue\n# a note\nfinish\n"
STUB_PY = "def access_ok(p, s, a, t):\n    return None\n"
STUB_GDB = "# TODO 1.3: your gdb commands\n# END TODO\n"
STUBS = {PY: copies.digest(PY, STUB_PY), GDB: copies.digest(GDB, STUB_GDB)}


def test_comments_and_whitespace_do_not_hide_a_copy():
    other = "def access_ok(p, s, a, t):\n\n        return p > 0\n"
    assert copies.digest(PY, ANN_PY) == copies.digest(PY, other)
    assert copies.digest(PY, ANN_PY) != copies.digest(PY, other.replace(">", ">="))
    assert copies.digest(PY, "x = '# not a comment'\n") != copies.digest(PY, "x = ''\n")
    assert copies.digest(GDB, ANN_GDB) == copies.digest(GDB, "break lab_uaf\n continue\nfinish")
    assert copies.digest("m.c", "int x; /* a */ // b\n") == copies.digest("m.c", "int x;")


def test_groups_per_exercise_and_whole():
    work = {"ann": {PY: ANN_PY, GDB: ANN_GDB},
            "carol": {PY: ANN_PY.replace("# mine", ""), GDB: ANN_GDB},
            "bob": {PY: ANN_PY, GDB: "break kfree\n"},
            "dan": {PY: STUB_PY, GDB: STUB_GDB}, "eve": {PY: STUB_PY, GDB: STUB_GDB}}
    g = copies.groups({n: copies.work_digests(f, EXS, STUBS) for n, f in work.items()})
    assert g["ann"] == {"whole": ["carol"], "1.1": ["bob", "carol"], "1.3": ["carol"]}
    assert g["carol"] == {"whole": ["ann"], "1.1": ["ann", "bob"], "1.3": ["ann"]}
    assert g["bob"] == {"1.1": ["ann", "carol"]}
    assert "dan" not in g and "eve" not in g          # the stub is no one's work
    assert copies.describe(g["ann"], ["1.1", "1.3"]) == "whole: carol; 1.1: bob, carol; 1.3: carol"


def test_claimed_other():
    assert copies.claimed_other("carol", {"id": "ann"}) == "ann"
    assert copies.claimed_other("ann", {"id": "ann"}) == ""
    assert copies.claimed_other("ann", {}) == ""


def row(name, claimed=None, same=None):
    return {"student": name, "result": {
        "seed": 5, "claimed": claimed or {}, "copies": same or {},
        "exercises": {"done": 1, "total": 1, "list": [
            {"id": "1.1", "points": 2, "max_points": 2, "done": True}]},
        "checks": []}}


def test_the_summary_names_the_copies_and_the_claim(tmp_path):
    rows = [row("ann", same={"whole": ["carol"]}),
            row("carol", claimed={"id": "ann", "hints": "1.1:last-byte-unchecked:3 1.2:x:2"},
                same={"whole": ["ann"]}),
            row("bob")]
    summary.summary(rows, str(tmp_path))
    got = {r["student"]: r for r in csv.DictReader(open(tmp_path / "summary.csv"))}
    assert got["ann"]["same work as"] == "whole: carol" and got["ann"]["claimed id"] == ""
    assert got["carol"]["same work as"] == "whole: ann" and got["carol"]["claimed id"] == "ann"
    assert got["bob"]["same work as"] == ""
    # every hint shown counts: three of one mistake, two of another
    assert got["carol"]["hints seen"] == "5"
    assert got["carol"]["hints"].split()[:3] == ["1.1:last-byte-unchecked:%d" % n
                                                 for n in (1, 2, 3)]
    j = json.load(open(tmp_path / "summary.json"))
    assert "same work as" in j["columns"] and "claimed id" in j["columns"]
    assert "whole: ann" in (tmp_path / "summary.html").read_text()
