# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 4's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

import lzma
import os
import re

from kasan.modes import SW_TAGS

HERE = os.path.dirname(os.path.abspath(__file__))
STUDENT_C = "labs/module/kasan_student.c"
GEN, SW = "ex-student-generic", "ex-student-swtags"
TAGS_STEP = SW_TAGS.variant     # lab 4's step on the swtags kernel is named after it
ONLY_GEN, ONLY_SW = "student-generic-only", "student-tags-only"
STAMP = re.compile(r"^\[\s*(\d+\.\d+)\] ", re.M)


def stored(step):
    with lzma.open(os.path.join(HERE, "runs", step + ".serial.xz"), "rt") as f:
        return f.read()


def report(step, scn):
    """The lines of the (first) KASAN report of scenario scn in a stored
    run, from its opening ===== line to its closing one."""
    text = stored(step)
    seg = text[text.index("KT-SCENARIO-BEGIN %s\n" % scn):text.index("KT-SCENARIO-END %s\n" % scn)]
    lines = seg.splitlines()
    marks = [i for i, ln in enumerate(lines) if re.search(r"\] ={60,}$", ln)]
    return lines[marks[0]:marks[1] + 1]


def moved(lines, fn, to, module="kasan_lab"):
    """Frames of fn [module] become frames of the student's function."""
    pat = re.compile(r"\b%s(\+0x[0-9a-f]+/0x[0-9a-f]+) \[%s\]" % (re.escape(fn), module))
    return [pat.sub(lambda m: "%s%s [kasan_student]" % (to, m.group(1)), ln) for ln in lines]


def in_scenario(scn, report_lines, value=True):
    """A run alteration: the scenario's lines between its begin and end
    lines become report_lines (or what it returns, read only when a run is
    altered; none: the kernel misses the bug) and its value line, stamped
    after the begin line (the later lines' stamps move with them); the
    first report of a boot taints the kernel (B)."""
    def alter(text):
        lines_of_report = report_lines() if callable(report_lines) else report_lines
        begin = text.index("KT-SCENARIO-BEGIN %s\n" % scn)
        end = text.index("KT-SCENARIO-END %s\n" % scn)
        lines = text[begin:end].splitlines()
        first = "BUG: KASAN" not in text[:begin]
        body = [re.sub(r"Tainted: G    B ", "Tainted: G      ", ln) if first else
                re.sub(r"Tainted: G      ", "Tainted: G    B ", ln) for ln in lines_of_report]
        if body and first:
            body.append("[0.0] Disabling lock debugging due to kernel taint")
        body += (["[0.0] kasan_lab: %s value=0" % scn] if value else []) + lines[-1:]
        t0 = float(STAMP.match(lines[1]).group(1))
        body = [STAMP.sub("[%12.6f] " % (t0 + 0.000024 * (i + 1)), ln) for i, ln in enumerate(body)]
        shift = t0 + 0.000024 * len(body) - float(STAMP.match(lines[-1]).group(1))
        rest = STAMP.sub(lambda m: "[%12.6f] " % (float(m.group(1)) + shift), text[end:])
        if first and lines_of_report and "BUG: KASAN" not in text[begin:end]:
            # a later report is no longer the boot's first
            rest = re.sub(r"Tainted: G      ", "Tainted: G    B ", rest)
            rest = re.sub(r"^.*Disabling lock debugging due to kernel taint\n", "", rest,
                          count=1, flags=re.M)
        assert not (first and not lines_of_report and "BUG: KASAN" in rest), \
            "the first report of the boot removed: the next one would taint"
        return text[:begin] + "\n".join(lines[:2] + body) + "\n" + rest
    return alter


def uaf_generic(to):
    return moved(report("generic", "uaf"), "lab_uaf", to)


def uaf_tags(to, reused):
    return moved(report(TAGS_STEP, "uaf-realloc"), "lab_uaf_realloc", to) if reused else \
        moved(report(TAGS_STEP, "uaf"), "lab_uaf", to)


def last_granule_generic(size, index):
    """Generic's report of kmalloc(size), read of p[index] (size <= index
    < 128): the lab's oob-in-granule report, its numbers those of the plant."""
    lines = moved(report("generic", "oob-in-granule"), "lab_oob_in_granule", "student_generic_only")
    obj = 0xffffff8001bb1600
    cells = ["00"] * (size // 8) + (["%02x" % (size % 8)] if size % 8 else [])
    cells += ["fc"] * (16 - len(cells))
    out = []
    for ln in lines:
        ln = ln.replace("addr %x " % (obj + 125), "addr %x " % (obj + index))
        ln = ln.replace("located 125 bytes inside", "located %d bytes inside" % index)
        if re.search(r">%x: " % obj, ln):
            ln = ln[:ln.index(">")] + ">%x: %s" % (obj, " ".join(cells))
        elif re.search(r"\]\s+\^$", ln):
            ln = ln[:ln.index("]") + 2] + " " * (19 + 3 * (index // 8)) + "^"
        out.append(ln)
    return out


def read_not_write(lines):
    return [ln.replace("Write of size", "Read of size").replace("report_store1", "report_load1")
            for ln in lines]


# The solution's scenarios, each replaced whole by a plant.
GLOBAL_READ = """\tstatic char table[10];
\tsize_t i = sizeof(table);

\tHIDE(i);
\tpr_info("%s value=%d\\n", scn, READ_ONCE(table[i]));
"""
NEIGHBOUR_READ = """\tchar *a = kmalloc(256, GFP_KERNEL), *b = NULL, *p;
\tint tries;

\tfor (tries = 0; a && tries < 16; tries++) {
\t\tb = kmalloc(256, GFP_KERNEL);
\t\tif (!b || ((unsigned long)a >> 56) != ((unsigned long)b >> 56))
\t\t\tbreak;
\t\tkfree(b);
\t\tb = NULL;
\t}
\tif (a && b) {
\t\tp = a + ((unsigned long)kasan_reset_tag(b) -
\t\t\t (unsigned long)kasan_reset_tag(a));
\t\tHIDE(p);
\t\tpr_info("%s value=%d\\n", scn, READ_ONCE(p[8]));
\t}
\tkfree(b);
\tkfree(a);
"""

# What students write instead.
LAST_GRANULE = """\tchar *p = kmalloc(40, GFP_KERNEL);

\tif (!p)
\t\treturn;
\tHIDE(p);
\tpr_info("%s value=%d\\n", scn, READ_ONCE(p[44]));
\tkfree(p);
"""
FREED_READ = """\tchar *p = kmalloc(128, GFP_KERNEL);

\tif (!p)
\t\treturn;
\tkfree(p);
\tHIDE(p);
\tpr_info("%s value=%d\\n", scn, READ_ONCE(p[0]));
"""
REUSED_READ = """\tchar *p = kmalloc(128, GFP_KERNEL), *q;

\tif (!p)
\t\treturn;
\tkfree(p);
\t/* the slot is taken again: its memory is valid once more */
\tq = kmalloc(128, GFP_KERNEL);
\tHIDE(p);
\tpr_info("%s value=%d\\n", scn, READ_ONCE(p[0]));
\tkfree(q);
"""
NEIGHBOUR_SWAPPED = """\tchar *a = kmalloc(256, GFP_KERNEL), *b = kmalloc(256, GFP_KERNEL), *p;

\tif (a && b) {
\t\tp = a + ((unsigned long)kasan_reset_tag(b) - (unsigned long)kasan_reset_tag(a));
\t\tHIDE(p);
\t\tpr_info("%s value=%d\\n", scn, READ_ONCE(p[8]));
\t}
\tkfree(b);
\tkfree(a);
"""
DRAINED_REUSE = """\tchar *p = kmalloc(128, GFP_KERNEL), *q = NULL;
\tint tries;

\tif (!p)
\t\treturn;
\tkfree(p);
\t/* allocate until the slot comes back: generic, once its quarantine drained */
\tfor (tries = 0; tries < 1000000; tries++) {
\t\tq = kmalloc(128, GFP_KERNEL);
\t\tif (!q || kasan_reset_tag(q) == kasan_reset_tag(p))
\t\t\tbreak;
\t\tkfree(q);
\t\tq = NULL;
\t}
\tif (q) {
\t\tHIDE(p);
\t\tpr_info("%s value=%d\\n", scn, READ_ONCE(p[0]));
\t\tkfree(q);
\t}
"""
PAST_THE_END = """\tchar *a = kmalloc(128, GFP_KERNEL), *b = kmalloc(128, GFP_KERNEL);

\t/* b is the next object: read its first byte through a */
\tif (a && b) {
\t\tHIDE(a);
\t\tpr_info("%s value=%d\\n", scn, READ_ONCE(a[128]));
\t}
\tkfree(b);
\tkfree(a);
"""


def global_swapped():
    """Generic's report of the global read in student_tags_only: the
    solution's report of student_generic_only's, at the second table (32
    bytes on: 10 bytes and their redzone)."""
    out = []
    for ln in moved(report(GEN, ONLY_GEN), "student_generic_only", "student_tags_only", "kasan_student"):
        ln = ln.replace("student_generic_only.table", "student_tags_only.table")
        ln = ln.replace("addr ffffffc00050400a ", "addr ffffffc00050402a ")
        if ">ffffffc000504000: " in ln:
            ln = ln[:ln.index(">")] + ">ffffffc000504000: 00 02 f9 f9 00 02 f9 f9" + " 00" * 8
        elif re.search(r"\]\s+\^$", ln):
            ln = ln[:ln.index("]") + 2] + " " * (19 + 3 * 5) + "^"
        out.append(ln)
    return out


PLANTS = [
    # -- 4.1: student_generic_only ---------------------------------------
    {"mistake": "generic-only-last-granule",
     "edits": [(STUDENT_C, GLOBAL_READ, LAST_GRANULE)],
     "runs": {GEN: {"serial": in_scenario(ONLY_GEN, lambda: last_granule_generic(40, 44))}}},
    {"mistake": "generic-only-freed-read",
     "edits": [(STUDENT_C, GLOBAL_READ, FREED_READ)],
     "runs": {GEN: {"serial": in_scenario(ONLY_GEN, lambda: uaf_generic("student_generic_only"))},
              SW: {"serial": in_scenario(ONLY_GEN, lambda: uaf_tags("student_generic_only", False))}}},
    {"mistake": "generic-only-reused-slot",
     "edits": [(STUDENT_C, GLOBAL_READ, REUSED_READ)],
     "runs": {GEN: {"serial": in_scenario(ONLY_GEN, lambda: uaf_generic("student_generic_only"))},
              SW: {"serial": in_scenario(ONLY_GEN, lambda: uaf_tags("student_generic_only", True))}}},
    {"mistake": "generic-only-modes-swapped",
     "edits": [(STUDENT_C, GLOBAL_READ, NEIGHBOUR_SWAPPED)],
     "runs": {GEN: {"serial": in_scenario(ONLY_GEN, [])},
              SW: {"serial": in_scenario(ONLY_GEN, lambda: moved(
                  report(SW, ONLY_SW), "student_tags_only", "student_generic_only", "kasan_student"))}}},
    # -- 4.2: student_tags_only ------------------------------------------
    {"mistake": "tags-only-lab-uaf-realloc",
     "edits": [(STUDENT_C, NEIGHBOUR_READ, DRAINED_REUSE)],
     "runs": {GEN: {"serial": in_scenario(ONLY_SW, [])},
              SW: {"serial": in_scenario(ONLY_SW, lambda: uaf_tags("student_tags_only", True))}}},
    {"mistake": "tags-only-quarantine-forgotten",
     "edits": [(STUDENT_C, NEIGHBOUR_READ, REUSED_READ)],
     "runs": {GEN: {"serial": in_scenario(ONLY_SW, lambda: uaf_generic("student_tags_only"))},
              SW: {"serial": in_scenario(ONLY_SW, lambda: uaf_tags("student_tags_only", True))}}},
    {"mistake": "tags-only-redzone-hit",
     "edits": [(STUDENT_C, NEIGHBOUR_READ, PAST_THE_END)],
     "runs": {GEN: {"serial": in_scenario(ONLY_SW, lambda: read_not_write(moved(
                 report("generic", "oob-right"), "lab_oob_right", "student_tags_only")))},
              SW: {"serial": in_scenario(ONLY_SW, lambda: read_not_write(moved(
                  report(TAGS_STEP, "oob-right"), "lab_oob_right", "student_tags_only")))}}},
    {"mistake": "tags-only-modes-swapped",
     "edits": [(STUDENT_C, NEIGHBOUR_READ, GLOBAL_READ)],
     "runs": {GEN: {"serial": in_scenario(ONLY_SW, global_swapped)},
              SW: {"serial": in_scenario(ONLY_SW, [])}}},
]
