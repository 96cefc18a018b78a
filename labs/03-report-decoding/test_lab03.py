# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 3's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

import re

from tests.graderlib import grade, load, named, solution_only, this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (step, kind, regex, replacement): each alteration of a stored run must be
# graded BAD (tests/test_graders.py runs them).
ALTER = [
    ("reports", "gdb", r"(memory tag:\s+)([0-9a-f]{2})", r"\g<1>00"),
    ("reports", "serial", r"lab_uaf_realloc", "lab_uaf_reelloc"),
    ("reports", "gdb", r"^(pointer:\s+0x)([0-9a-f])", lambda m: m.group(1) + (
        "0" if m.group(2) != "0" else "1")),
    ("generic", "serial", r"BUG: KASAN: use-after-free", "BUG: KASAN: slab-out-of-bounds"),
    ("decode-generic", "host", r"generic mode: no tags", "sw_tags mode"),
    ("history", "serial", r"BUG: KASAN: use-after-free in lab_oob_history",
     "BUG: KASAN: invalid-access in lab_oob_history"),
    ("history", "serial", r"BUG: KASAN: invalid-access in lab_oob_right",
     "BUG: KASAN: use-after-free in lab_oob_right"),
    ("history", "serial", r"oob-history result found=1", "oob-history result found=0"),
    ("history", "serial", r"retake_slot\+", "other_fn+"),
    ("history", "serial", r"(oob-history ptr name=neighbour \S+ tag=)([0-9a-f]{2})",
     lambda m: m.group(1) + "%02x" % ((int(m.group(2), 16) + 1) % 254)),
]


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("3.1", "mystery", "serial", r"Write of size 8", "Write of size 4"),
    ("3.2", "mystery", "serial", r"mystery_rec_put", "mystery_rec_drop"),
    ("3.3", "mystery", "serial", r"cache mystery_session", "cache kmalloc-128"),
]


def test_lab3_each_check_on_its_own():
    data = {k: load(FOLDER, "reports", k) for k in ("serial", "gdb")}
    first = data["gdb"].index("KT-GDB hit")
    second = data["gdb"].index("KT-GDB hit", first + 1)
    one_less = dict(data, gdb=data["gdb"][:first] + data["gdb"][second:])
    assert named(grade(FOLDER, "reports", one_less))[
        "gdb stopped before each report"] is False
    noaddr = dict(data, serial=re.sub(r"^.*(Read|Write) of size .*$", "", data["serial"],
                                      count=1, flags=re.M))
    res = named(grade(FOLDER, "reports", noaddr))
    assert [v for k, v in res.items() if k.endswith("address in the report == x0 at the stop")
            ][0] is False
    empty = named(grade(FOLDER, "generic", {"serial": "", "gdb": ""}))
    assert empty["generic reports carry no tags"] is False


def test_lab3_a_stop_reported_twice_counts_once():
    """gdb may stop twice at the breakpoint it resumes from: the same
    hit block twice in a row is one stop, not a sixth report."""
    gdb = load(FOLDER, "reports", "gdb")
    first = "KT-GDB hit" + gdb.split("KT-GDB hit")[1]
    data = {"serial": load(FOLDER, "reports", "serial"),
            "gdb": gdb.replace(first, first + first, 1)}
    assert all(ok for _, ok, _ in grade(FOLDER, "reports", data))
    # A hit that saw something else is not folded away.
    other = re.sub(r"(pointer:\s+0x)([0-9a-f])", lambda m: m.group(1) + (
        "0" if m.group(2) != "0" else "1"), first, count=1)
    data["gdb"] = gdb.replace(first, first + other, 1)
    assert not all(ok for _, ok, _ in grade(FOLDER, "reports", data))


@solution_only
def test_mystery_cause_and_fix_are_judged():
    """cause and fix are graded against answers.toml: the right pair is GOOD,
    a wrong cause BAD, and without answers.toml (a student tree) BAD with
    the reason, never GOOD by default."""
    judged = LAB.module.judged
    assert all(ok for _, ok, _ in judged("mystery-a", {"cause": "loop-bound",
                                                       "fix": "stop-at-n"}))
    res = named(judged("mystery-a", {"cause": "wrong-size", "fix": "stop-at-n"}))
    assert res == {"mystery-a: cause": False, "mystery-a: fix": True}
    assert not all(ok for _, ok, _ in judged("mystery-z", {}))


def test_mystery_without_answers_is_the_teachers(tmp_path):
    """check.py in a folder without answers.toml, as in a student tree:
    neither GOOD nor BAD (None), left to the teacher's grading."""
    import importlib.util
    import shutil
    shutil.copy(LAB.path("check.py"), tmp_path / "check.py")
    spec = importlib.util.spec_from_file_location("lab3_copy", tmp_path / "check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = mod.judged("mystery-a", {"cause": "loop-bound", "fix": "stop-at-n"})
    assert res == [("mystery-a: cause and fix", None,
                    "graded by your teacher's make grade-class (the lab's answers are not "
                    "in your copy)")]
