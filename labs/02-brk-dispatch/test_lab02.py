# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 2's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

from tests.graderlib import grade, named, this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (step, kind, regex, replacement): each alteration of a stored run must be
# graded BAD (tests/test_graders.py runs them).
ALTER = [
    ("count", "host", r"^swtags: \d+ calls", "swtags: 0 calls"),
    ("count", "host", r"^swtags-brk: (\d+) calls to __hwasan_check_\*, \d+ brk",
     r"swtags-brk: \1 calls to __hwasan_check_*, 0 brk"),
    ("brk", "gdb", r"call_break_hook", "call_brake_hook"),
    ("brk", "gdb", r"(pc after=0x[0-9a-f]+?)([0-9a-f])\b",
     lambda m: m.group(1) + "%x" % ((int(m.group(2), 16) + 8) % 16)),
    ("outline", "gdb", r"kasan_tag_mismatch", "kasan_tag_mizmatch"),
    ("outline", "gdb", r"lab_uaf", "lab_other"),
]


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("2.2", "ex-handler", "gdb", r"^size: 1$", "size: 2"),
    ("2.2", "ex-handler", "gdb", r"^access: read$", "access: write"),
    ("2.2", "ex-handler", "gdb", r"^(pc: 0x[0-9a-f]+?)[0-9a-f]$", r"\g<1>9"),
]


def offline(check):
    """Exercise 2.1 reads the ESR constants from the graded kernel's tree;
    offline, 6.1's values (which kasan.tags pins) stand in."""
    from kasan import tags
    check.tree_constants = lambda run: tags.ESR_CONSTANTS_6_1


def test_lab2_count_edges():
    def count(text):
        return named(grade(FOLDER, "count", {"serial": text, "gdb": ""}))
    ok = count("swtags: 1 calls to __hwasan_check_*, 0 brk #0x9xx; Image 5 MiB, vmlinux 44 MiB\n"
               "swtags-brk: 0 calls to __hwasan_check_*, 1 brk #0x9xx; Image 11 MiB, "
               "vmlinux 55 MiB\n")
    assert all(ok.values()), ok
    same = count("swtags: 1 calls to __hwasan_check_*, 0 brk #0x9xx; Image 5 MiB, vmlinux 44 MiB\n"
                 "swtags-brk: 0 calls to __hwasan_check_*, 1 brk #0x9xx; Image 5 MiB, "
                 "vmlinux 55 MiB\n")
    assert same["inlining every check makes the Image larger"] is False
    assert count("swtags: 1 calls to __hwasan_check_*, 0 brk #0x9xx\n") == {
        "counted checks in both modules": False}
    bad = count("swtags: 0 calls to __hwasan_check_*, 1 brk #0x9xx\n"
                "swtags-brk: 1 calls to __hwasan_check_*, 0 brk #0x9xx\n")
    assert not any(bad.values())
