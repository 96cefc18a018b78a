# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb commands for what the kernel printed and trapped on: reports and the brk ESR.

kasan-report decodes the KASAN reports of the kernel log (read with the
kernel's own lx-dmesg) with report.py; kasan-esr decodes the ESR of the
`brk #0x9xx` an inline tag check traps with, with the constants of the
tree (tags.decode_esr).  Both parsers need no gdb and are tested offline.
"""

import gdb

from kasan import report, tags
from kasan.gdbutils import KasanCommand, esr_constants, value_to_int


class KasanEsr(KasanCommand):
    """Decode the ESR of a KASAN brk: kasan-esr [ESR]

With inline instrumentation (and hwasan-inline-all-checks=1) clang emits
`brk #0x9xx` after a failed tag check.  The immediate encodes the access:
0x900 KASAN_BRK_IMM | 0x20 recoverable | 0x10 write | log2(size) in the low
4 bits.  The constants are read from the kernel tree (brk-imm.h, traps.c).
Without an argument, the `esr` variable of the current frame is used (as
in kasan_handler(regs, esr))."""

    name = "kasan-esr"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def run(self, arg):
        c = esr_constants()
        if arg.strip():
            esr = value_to_int(arg, self.name)
        else:
            try:
                esr = tags.to_u64(int(gdb.parse_and_eval("esr")))
            except gdb.error:
                raise tags.KasanError("no `esr` in this frame; give ESR or break in "
                                      "kasan_handler")
        d = tags.decode_esr(esr, c)
        gdb.write("\n".join(tags.format_esr(d, c)) + "\n")


class KasanReport(KasanCommand):
    """Decode the last KASAN report in the kernel log: kasan-report [all]

Reads the log buffer with the kernel's own lx-dmesg and decodes the last
report (or every report with `all`): bug type, access, address, pointer
and memory tag, object, cache and offset, who allocated and freed it."""

    name = "kasan-report"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA)

    def run(self, arg):
        try:
            text = gdb.execute("lx-dmesg", to_string=True)
        except gdb.error as e:
            raise tags.KasanError("lx-dmesg failed (is vmlinux-gdb.py loaded?): %s" % e)
        reps = report.parse_reports(text)
        if not reps:
            raise tags.KasanError("no KASAN report in the kernel log")
        for r in reps if arg.strip() == "all" else reps[-1:]:
            gdb.write(report.summary(r) + "\n")


KasanEsr()
KasanReport()
