# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make grade JOBS=2` (labs/gradejobs.py): the labs split into groups of
about equal cost, and the groups' results merged as one process writes
them."""
import pytest

from labs import grade, gradejobs
from labs import lab as labdata
from labs.points import Tally


def test_groups_split_every_lab_once_by_cost():
    folders = labdata.folders()
    parts = gradejobs.groups(folders, 2)
    assert len(parts) == 2
    assert sorted(f for g in parts for f in g) == sorted(folders)
    for g in parts:
        assert g == sorted(g)
    load = [sum(gradejobs.cost(f) for f in g) for g in parts]
    # the costliest lab (lab 7's eight replays) alone outweighs no group by much
    assert max(load) - min(load) <= max(gradejobs.cost(f) for f in folders)
    assert gradejobs.groups(folders, 1) == [folders]
    assert gradejobs.groups(folders[:1], 4) == [folders[:1]]


def test_groups_by_a_given_cost():
    cost = {"01-a": 5, "02-b": 1, "03-c": 1, "04-d": 3}.get
    assert gradejobs.groups(["01-a", "02-b", "03-c", "04-d"], 2, cost) == \
        [["01-a"], ["02-b", "03-c", "04-d"]]


def exercise(ex_id, points=2):
    return {"id": ex_id, "title": "t" + ex_id, "files": [], "points": points, "key": []}


def graded(labs):
    """A Tally's summary of LABS: [(folder, step, ok, exercise or None)]."""
    t = Tally()
    for folder, step, ok, ex in labs:
        t.add(folder, step, [("c " + step, ok, "" if ok else "no")], 1.0, exercise=ex)
        t.took(folder, 1.0)
    return t.summary()


def test_merge_is_what_one_process_writes(capsys):
    one = [("01-x", "a", True, None), ("01-x", "e", True, exercise("1.1")),
           ("02-y", "b", False, None), ("03-z", "c", None, None),
           ("03-z", "f", False, exercise("3.1", 3))]
    whole = graded(one)
    # the groups end in any order; the merge is in the labs' order
    parts = [graded([r for r in one if r[0] != "02-y"]), graded([r for r in one if r[0] == "02-y"])]
    merged = gradejobs.merge(parts[::-1], ["01-x", "02-y", "03-z"])
    for k in ("score", "total", "demonstrations", "teacher_only", "exercises", "points",
              "checks", "seconds", "seed"):
        assert merged[k] == whole[k], k
    capsys.readouterr()


@pytest.mark.parametrize("bad", ["0", "abc", "9", "-1"])
def test_jobs_must_be_a_small_number(bad, capsys, monkeypatch):
    monkeypatch.setattr(grade.vm, "install_signal_handlers", lambda: None)
    monkeypatch.setenv("SEED", "1")
    assert grade.main(["--jobs", bad]) == 2
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["kasan-tags: error: JOBS=%s: give a number of processes from 1 to 8" % bad]
