# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 4's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

import json
from labs.grade import Run
from tests.graderlib import load, named, this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("4.1", "ex-student-generic", "serial", r"BUG: KASAN: global-out-of-bounds", "BUG: nothing"),
    ("4.2", "ex-student-generic", "serial", r"KT-SCENARIO-END student-tags-only",
     "BUG: KASAN: use-after-free in student_tags_only+0x1/0x2 [kasan_student]\n"
     "Read of size 1 at addr ffffff8000000000 by task init/1\n"
     "KT-SCENARIO-END student-tags-only"),
]


def table():
    return json.loads(load(FOLDER, "table", "json"))


def test_lab4_table_good_then_each_gap_bad():
    check = LAB.module.check_table_data
    assert all(ok for _, ok, _ in check(table()))
    for alter in (lambda t: t["bugs"]["uaf-realloc"].update(generic=["use-after-free"]),
                  lambda t: t["bugs"]["oob-in-granule"].update(swtags=None),
                  lambda t: t["bugs"]["uaf-realloc"].update(generic=None),
                  lambda t: t.update(collision={}),
                  lambda t: t["collision"].update({"1": [5000, 10000]}),
                  lambda t: t["memory"]["swtags"].update(shadow_fraction=1 / 8),
                  lambda t: t["memory"]["generic"].update(slab=1)):
        t = table()
        alter(t)
        assert not all(ok for _, ok, _ in check(t)), alter
    assert not all(ok for _, ok, _ in check({}))


def test_lab4_check_table_reads_its_file(tmp_path):
    check = LAB.module.check_table
    r = Run(FOLDER, "table", "<cache>/build/x")
    r.paths = [str(tmp_path / "table.serial.log")]
    res = check(r)
    assert res[0][0] == "table computed" and res[0][1] is False
    (tmp_path / "table.json").write_text(json.dumps(table()))
    assert all(ok for _, ok, _ in check(r))


def test_lab4_binomial_band_edges():
    check = LAB.module.check_table_data
    for k, ok in ((123, True), (124, False), (34, True), (33, False)):
        t = table()
        t["collision"]["1"] = [k, 10000]
        got = dict((n, o) for n, o, _ in check(t))
        assert got["tag collisions, one allocation in between: within the binomial band of 1/127"] is ok, k
    t = table()
    t["collision"]["1"] = [0, 0]
    assert not all(ok for _, ok, _ in check(t))


def test_lab4_band_at_large_n_and_tiny_n():
    check = LAB.module.check_table_data
    name = "tag collisions, one allocation in between: within the binomial band of 1/127"
    t = table()
    t["collision"]["1"] = [925, 100000]     # inside 1/127's band, outside 1/128's
    assert named(check(t))[name] is True
    t["collision"]["1"] = [0, 1]
    assert named(check(t))[name] is True


def test_lab4_lab_idea_is_an_overflow_into_the_last_granule():
    """6.1's generic report measures 'inside' against the cache's object
    size: kmalloc(123)'s byte 125 is 'inside' a 128-byte region, and its
    shadow says where the 123 bytes end."""
    from labs import exercises
    idea = LAB.module.lab_idea
    gen = load(FOLDER, "generic", "serial")
    own = exercises.reports_of(gen, "oob-in-granule")[0]
    assert own["relation"] == "inside" and LAB.module.accessible(own) == 123
    assert [idea("4.1", dict(own, offset=n)) for n in (122, 123, 127, 128)] == [False, True, True, False]
    assert not idea("4.1", dict(own, memory_state=[]))
    assert not idea("4.1", dict(own, object=None))
    right = exercises.reports_of(gen, "oob-right")[0]
    assert right["relation"] == "to the right" and not idea("4.1", right)
    # an object whose size is not a multiple of 16 (a kmem_cache's): past its end
    assert [idea("4.1", dict(right, object_size=40, offset=n)) for n in (40, 47, 48)] == [True, True, False]
    assert not idea("4.1", dict(own, bug_type="use-after-free"))
    assert idea("4.2", dict(own, bug_type="use-after-free")) and not idea("4.2", own)
