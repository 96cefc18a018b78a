# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 2's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

import re

from labs.mistakes import alter_once

ESR = "student/esr.py"
HANDLER = "student/handler.gdb"
LINE = '425\t\tpr_info("%s value=%d\\n", scn, READ_ONCE(p[0]));'


def stopped_in_lab_uaf(text):
    """The run of a file that stops at the bad read's line in lab_uaf
    (`break kasan_lab.c:425` instead of kasan_handler): its printf of
    regs fails there; the grader's gdb finds lab_uaf in frame 0, its
    kasan-esr finds no esr and its file ends (gdb -batch exits non-zero:
    the VM is reaped before the read, no report)."""
    mod = re.search(r"^Breakpoint 2, (lab_uaf \(.*\) at (\S+kasan_lab\.c)):\d+$", text, re.M)
    where, src = mod.group(1), mod.group(2)
    stop = "%s:425\n%s" % (where, LINE)
    loaded = re.search(r"^loaded .*$", text, re.M).group(0)
    trusted = re.search(r"^(\S+/trusted\.gdb):", text, re.M).group(1)
    student = text[:text.index("Breakpoint 3 at ")] + (
        "Breakpoint 3 at 0xffffffc000821750: file %s, line 425.\n\n"
        "Breakpoint 3, %s\n"
        "/sandbox/part.gdb:5: Error in sourced command file:\n"
        "/sandbox/labs/02-brk-dispatch/student/handler.gdb:18: Error in sourced command file:\n"
        "No symbol \"regs\" in current context.\n" % (src, stop))
    return student + (
        "%s\n%s\nKT-GDB stop\n#0  %s\nKT-GDB kernel\n"
        "%s:6: Error in sourced command file:\n"
        "kasan-esr: No symbol \"esr\" in current context.\n" % (stop, loaded, stop, trusted))


def cut_before_the_read(text):
    """The serial of a VM reaped at the stop before lab_uaf's read."""
    m = re.search(r"^.*kasan_lab: uaf access read .*\n", text, re.M)
    return text[:m.end()]


def handler_x0(text):
    """addr from $x0 at kasan_handler's breakpoint: still its first
    argument there, regs (the frame line shows it)."""
    regs = re.search(r"^Breakpoint 3, kasan_handler \(regs=(0x[0-9a-f]+)", text, re.M).group(1)
    return alter_once(r"^addr: 0x[0-9a-f]+$", lambda m: "addr: " + regs)(text)


def handler_pc(text):
    """pc from $pc at kasan_handler's breakpoint: where gdb put it."""
    bp = re.search(r"^Breakpoint 3 at 0x([0-9a-f]+): file \S+traps\.c", text, re.M).group(1)
    return alter_once(r"^pc: 0x[0-9a-f]+$", lambda m: "pc: 0x%016x" % int(bp, 16))(text)


PLANTS = [
    {"mistake": "ec-in-the-wrong-bits",
     "edits": [(ESR, "(0x3C << 26)", "(0x3C << 25)")]},
    {"mistake": "esr-is-the-immediate",
     "edits": [(ESR, "return (0x3C << 26) | (1 << 25) | imm", "return imm")]},
    {"mistake": "size-in-bytes",
     "edits": [(ESR, "(size.bit_length() - 1)", "size")]},
    {"mistake": "size-zero-encoded",
     "edits": [(ESR, "if size < 1 or size > 1 << 15 or size & (size - 1):",
                "if size > 1 << 15 or size & (size - 1):")]},
    {"mistake": "sizes-capped-at-16",
     "edits": [(ESR, "size > 1 << 15", "size > 16")]},
    {"mistake": "write-recover-swapped",
     "edits": [(ESR, "(0x20 if recover else 0) | (0x10 if write else 0)",
                "(0x10 if recover else 0) | (0x20 if write else 0)")]},
    {"mistake": "stopped-at-the-brk",
     "edits": [(HANDLER, "break kasan_handler\n", "break kasan_lab.c:425\n")],
     "runs": {"ex-handler": {"gdb": stopped_in_lab_uaf, "serial": cut_before_the_read}}},
    {"mistake": "address-from-handler-x0",
     "edits": [(HANDLER, "regs->regs[0]", "$x0")],
     "runs": {"ex-handler": {"gdb": handler_x0}}},
    {"mistake": "size-field-printed",
     "edits": [(HANDLER, "1 << (esr & 0xf)", "esr & 0xf")],
     "runs": {"ex-handler": {"gdb": alter_once(r"^size: 1$", lambda m: "size: 0")}}},
    {"mistake": "pc-of-the-handler",
     "edits": [(HANDLER, "regs->pc\n", "$pc\n")],
     "runs": {"ex-handler": {"gdb": handler_pc}}},
]
