# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 7's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

from tests.graderlib import this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (step, kind, regex, replacement): each alteration of a stored run must be
# graded BAD (tests/test_graders.py runs them).
ALTER = [
    # lab 7: kasan-history naming the wrong function, value, order or return
    ("uaf", "gdb", r"kfree <- lab_uaf", "kmalloc <- lab_uaf"),
    ("uaf", "gdb", r"^(write 1: )fe", r"\g<1>00"),
    ("uaf", "gdb", r"^back at instruction (\d+)", r"back at instruction 1\1"),
    ("uaf", "gdb", r"^stopped: write", "stopped after"),
    ("realloc", "gdb", r"^(write 2: )fe  free      ", r"\g<1>fe  allocation"),
    ("realloc", "gdb", r"<- lab_uaf_realloc$", "<- lab_other"),
    ("redzone", "gdb", r"^(write 1: [0-9a-f]{2}\s+)[\w-]+", r"\1other"),
    ("redzone", "gdb", r"^stopped.*$", ""),
    # kasan-why: another line, another bug, other tags, another order, not back
    ("why", "gdb", r"(verdict: .*after kfree at kasan_lab\.c:)(\d+)",
     lambda m: m.group(1) + str(int(m.group(2)) + 1)),
    ("why", "gdb", r"^verdict: use after free, the slot reused", "verdict: out of bounds"),
    ("why", "gdb", r"pointer tag ([0-9a-f]{2}), memory tag", "pointer tag 00, memory tag"),
    ("why", "gdb", r'\A((?:.|\n)*?"icount": )(\d+)',
     lambda m: m.group(1) + str(int(m.group(2)) + 10**8)),
    ("why", "gdb", r"^back at instruction (\d+)", r"back at instruction 1\1"),
    # kasan-object: another cache, a stack that is not the report's
    ("why", "gdb", r"^(kasan-object .*: cache )kmalloc-128,", r"\1kmalloc-64,"),
    ("why", "gdb", r"^ (lab_uaf_realloc\+0x)([0-9a-f]+)( \[kasan_lab\])$",
     lambda m: m.group(1) + "%x" % (int(m.group(2), 16) + 4) + m.group(3)),
    ("why", "gdb", r"^Freed by task 1:\n kasan_save_stack\+0x\w+\n", "Freed by task 1:\n"),
]


ALTER += [
    # the uaf-field scenario: kasan-why's store, load or access on another line
    ("field", "gdb", r"(stored at kasan_lab\.c:)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1)),
    ("field", "gdb", r"(loaded at kasan_lab\.c:)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) - 1)),
    ("field", "gdb", r"^verdict: use after free: ", "verdict: out of bounds: "),
    ("field", "gdb", r"^(kasan-object .*: cache )kmalloc-128,", r"\1kmalloc-64,"),
]


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("7.1", "ex-freed", "gdb", r"(kasan_lab\.c:)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1)),
    ("7.2", "ex-tagwrite", "gdb", r"(instruction count = )(\d+)",
     lambda m: m.group(1) + str(int(m.group(2)) - 1)),
    ("7.3", "ex-field", "gdb", r"^(load: 0x)([0-9a-f]+)$",
     lambda m: m.group(1) + "%016x" % (int(m.group(2), 16) + 4)),
    ("7.3", "ex-field", "gdb", r"^(store: 0x)([0-9a-f]+)$",
     lambda m: m.group(1) + "%016x" % (int(m.group(2), 16) - 4)),
    ("7.3", "ex-field", "gdb", r"(<lab_holder_set\+\d+>:\s+)str", r"\1ldr"),
]
