# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 8's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

from tests.graderlib import solution_only, this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (step, kind, regex, replacement): each alteration of a stored run must be
# graded BAD (tests/test_graders.py runs them).
ALTER = [
    # lab 8: the planted site missing, a same-tag site recorded, sites lost, a verdict gone
    ("sites", "serial", r"^.*ptrcmp site .* at lab_ptr_compare\+.*$", ""),
    ("sites", "serial", r"at lab_ptr_compare\+", "at lab_ptr_same_tag+"),
    ("sites", "serial", r"lost=0", "lost=3"),
    ("sites", "serial", r"workload done", "workload failed"),
    ("table", "host", r"^  is_kernel_rodata .*$", ""),
    ("table", "host", r"(lab_ptr_compare\+\S+ \[kasan_lab\]\s+)\S+", r"\1?"),
]


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("8.1", "table", "serial", r"^(\s*\d+\s+\S+\s+)kset_find_obj", r"\1other_fn"),
    ("8.2", "ex-student", "serial", r"at student_ptrcmp\+", "at other_fn+"),
]


@solution_only
def test_lab8_table_shows_the_exercise_not_its_answer():
    """The student site shows sites.py's table: an exercise 8.1 site is
    printed as the exercise, never with the kind the student must find."""
    import importlib.util
    path = LAB.path("sites.py")
    spec = importlib.util.spec_from_file_location("lab8_sites", path)
    sites = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sites)
    answers = LAB.module.load("answers.toml")["site"]
    asked = [a for a in answers if a.get("exercise")]
    assert len(asked) == 3
    shown = sites.kinds()
    for a in asked:
        assert shown[a["function"]] == "exercise-8.1", a


def test_lab8_kinds_read_off_a_source_line():
    import importlib.util
    path = LAB.path("sites.py")
    spec = importlib.util.spec_from_file_location("lab8_sites_rules", path)
    sites = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sites)
    assert sites.kind_of_line("\tlist_for_each_entry(k, &kset->list, entry) {") == "identity"
    assert sites.kind_of_line("\tif (task != stopper->thread)") == "identity"
    assert sites.kind_of_line("\tif (inode1 > inode2)") == "ordering"
    assert sites.kind_of_line("\tx = p->next;") == "unclassified", "-> is not a comparison"
    assert sites.kind_of_line("\ty = a << 2;") == "unclassified"
    assert sites.source_line("/nonexistent", "mm/x.c:0") == ""
