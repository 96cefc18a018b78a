#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-why`: how long kasan-why takes at each lab 7 report (a
benchmark, not a test: it prints figures, it asserts nothing).

For each scenario whose report lab 7 explains (uaf, uaf-realloc,
oob-right, uaf-field) it records the run (or reuses its recording),
replays it under gdb, stops in kasan_report and times `kasan-why` there:
the wall time of the command, from the report back to the causes and
forward again.  The issue's bound is 60 s per report.
"""

import os
import re
import tempfile
import time

import vm
from bench import run_main
from kasan.modes import SW_TAGS

SCENARIOS = ("uaf", "uaf-realloc", "oob-right", "uaf-field")
BOUND = 60.0
GDB = """break do_init_module
continue
kasan-modsyms
delete
break kasan_report
continue
delete
python import time; _t = time.time()
kasan-why
python print("KT-WHY-SECONDS %.1f" % (time.time() - _t))
"""


def one(bdir, scenario, tmp):
    cmdline = "kunit.enable=0 kt_run=%s" % scenario
    try:
        rdir, _, initrd = vm.find_recording(SW_TAGS.variant, cmdline)
    except vm.KtError:
        rdir, _ = vm.record_run(SW_TAGS.variant, cmdline)
        initrd = os.path.join(rdir, "initramfs.cpio")
    gfile = os.path.join(tmp, "why.gdb")
    with open(gfile, "w") as f:
        f.write(GDB)
    t = time.time()
    b, out = vm.boot_gdb(bdir, gfile, cmdline, 300, os.path.join(tmp, scenario + ".log"),
                         initrd=initrd, rr=("replay", rdir), cache=False)
    m = re.search(r"^KT-WHY-SECONDS ([\d.]+)$", out, re.M)
    verdict = next((ln[len("verdict: "):] for ln in out.splitlines()
                    if ln.startswith("verdict: ")), "no verdict (%s)" % b.status)
    return (float(m.group(1)) if m else None), time.time() - t, verdict


def main():
    bdir = vm.build_kernel(SW_TAGS.variant)
    print("kasan-why at each lab 7 report (%s, SEED=%d), bound %.0f s" % (
        SW_TAGS.variant, vm.run_seed(), BOUND))
    print("%-12s %9s %9s  %s" % ("scenario", "kasan-why", "session", "verdict"))
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for s in SCENARIOS:
            secs, total, verdict = one(bdir, s, tmp)
            worst = max(worst, secs or BOUND * 10)
            print("%-12s %8s %8.1fs  %s" % (s, "%.1fs" % secs if secs is not None else "-",
                                            total, verdict), flush=True)
    print("slowest: %.1f s (%s the %.0f s bound)" % (
        worst, "within" if worst <= BOUND else "OVER", BOUND))


if __name__ == "__main__":
    run_main(main)
