# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 5's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

from labs.grade import Run
from tests.graderlib import this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (step, kind, regex, replacement): each alteration of a stored run must be
# graded BAD (tests/test_graders.py runs them).
ALTER = [
    ("no-tbi", "gdb", r"far=0xef", "far=0x00"),
    ("no-tbi", "serial", r"\A", "[    0.000000] Booting Linux on physical CPU 0x0\n"),
    ("fixed-tag", "serial", r"same_tag=10000", "same_tag=9999"),
    ("fixed-tag", "serial", r"not ok (\d+) kmalloc_uaf2", r"ok \1 kmalloc_uaf2"),
    ("no-untag-phys", "serial", r"pc : handle_mm_fault", "pc : other_fn"),
    ("no-redzone-tag", "serial", r"(uaf shadow of=freed granule=16 granules=8 shadow=)"
     r"[0-9a-f]{2}", r"\1fe"),
    ("no-redzone-tag", "serial", r"BUG: KASAN: invalid-access", "BUG: KASAN: use-after-free"),
    ("no-brk-hook", "serial", r"Unexpected kernel BRK exception", "Expected BRK"),
]


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("5.1", "no-tbi", "serial", r"\A", "[    0.000000] Booting Linux on physical CPU 0x0\n"),
    # the control reports nothing either: then fixed-tag missed nothing
    ("5.2", "fixed-tag", "control", r"BUG: KASAN", "BUG: nothing"),
    ("5.5", "no-brk-hook", "serial", r"\Z", "\nKT-INIT-START\nKT-INIT-END\n"),
]


def test_serial_absent_needs_a_captured_run():
    check = LAB.module.check_experiment
    step = {"name": "x", "serial_absent": ["Booting Linux"]}
    r = Run(FOLDER, "x", "<cache>/build/x")
    assert check(r, step) == [("serial log has no /Booting Linux/", False,
                               "nothing was captured (no serial, no gdb)")]
    r.gdb = "far=0xef00000000000000"
    assert check(r, step)[0][1] is True
    r.serial = "[ 0.0] Booting Linux on physical CPU 0x0"
    assert check(r, step)[0][1] is False


def test_outcome_classes():
    outcome = LAB.module.outcome
    for serial, want in (("", "silent"), ("Booting Linux", "dies-booting"),
                         ("Booting Linux\nKT-INIT-START", "dies-at-bug")):
        assert outcome(serial, None) == want
    ended = "Booting Linux\nKT-INIT-START\nKT-INIT-END"
    assert outcome(ended, None) is None  # a boot that ends needs its control
    assert outcome(ended, ended) == "same"
