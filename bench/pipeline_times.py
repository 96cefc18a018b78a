#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-setup`: how long the pipeline takes here (a benchmark, not a test).

Prints a table: extract, config+build (cold, from the cache's own record or
measured with --cold in a fresh temporary cache), reuse (warm), boot to
/init and the KASAN KUnit suite (kernel timestamps), the same boot without
determinism (its cost as a ratio), lab 8's ptrcmp kernel (build, boot), `make run SCENARIO=uaf`
warm (median of --runs) and the rebuild-and-rerun time after an edit of
the lab module's source.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

import vm
from bench import run_main
from kasan.modes import HW_TAGS, SW_TAGS

SW, HW = SW_TAGS.variant, HW_TAGS.variant

REPO = vm.REPO


def stamp(text, pattern):
    m = re.search(r"\[\s*(\d+\.\d+)\][^\n]*" + pattern, text)
    return float(m.group(1)) if m else None


def timed(fn, *a, **kw):
    t0 = time.perf_counter()
    r = fn(*a, **kw)
    return r, time.perf_counter() - t0


def make_run(scenario):
    p = subprocess.run(["make", "-s", "run", "SCENARIO=" + scenario], cwd=REPO,
                       capture_output=True, text=True)
    if p.returncode:
        raise vm.KtError("make run failed: %s" % p.stderr.strip()[-200:])


def main():
    vm.install_signal_handlers()
    ap = argparse.ArgumentParser(prog="bench/pipeline_times.py")
    ap.add_argument("--cold", action="store_true", help="extract and build in a new cache")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    rows = []
    if a.cold:
        tmp = tempfile.mkdtemp(prefix="kt-bench-")
        os.environ["KASAN_TAGS_CACHE"] = tmp
        try:
            _, t = timed(vm.pristine_tree)
            rows.append(("extract tarball (cold)", t))
            _, t = timed(vm.build_kernel, SW)
            rows.append(("config + build swtags (cold)", t))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            del os.environ["KASAN_TAGS_CACHE"]
    bdir, t = timed(vm.build_kernel, SW)
    rows.append(("reuse cached swtags kernel (warm)", t))
    info = vm.kernel_info(bdir)
    if "build_seconds" in info:
        rows.append(("config + build swtags, as recorded when built", info["build_seconds"]))
    # Determinism's cost: the same boots, deterministic (-icount, a seed:
    # what every boot of the project runs) and by the host's clock.
    det, free = [], []
    realtime = vm.machine_of_variant(SW).realtime()
    for _ in range(a.runs):
        b, t = timed(vm.boot, bdir, "", 300)
        det.append(t)
        _, t = timed(vm.boot, bdir, "", 300, params=realtime)
        free.append(t)
    rows.append(("boot + KUnit suite + power-off (wall, median of %d)" % a.runs,
                 statistics.median(det)))
    rows.append(("  the same without -icount/-seed (not reproducible)", statistics.median(free)))
    ratios = [("  determinism costs (ratio of the two)",
               statistics.median(det) / statistics.median(free))]
    # Lab 8: every pointer comparison checked (vm/ptrcmp, the ptrcmp kernel)
    pbdir = vm.build_kernel("ptrcmp")
    pinfo = vm.kernel_info(pbdir)
    if "build_seconds" in pinfo:
        rows.append(("config + build ptrcmp (lab 8), as recorded", pinfo["build_seconds"]))
    pt = []
    for _ in range(a.runs):
        _, t = timed(vm.boot, pbdir, "", 300)
        pt.append(t)
    rows.append(("ptrcmp: boot + KUnit suite (wall, median)", statistics.median(pt)))
    ratios.append(("  ptrcmp's boot against swtags' (ratio)",
                   statistics.median(pt) / statistics.median(det)))
    init = stamp(b.text, "Run /init as init process")
    start = stamp(b.text, r"# Subtest: kasan")
    end = stamp(b.text, r"# kasan: pass:")
    if init:
        rows.append(("kernel time to /init (timestamp)", init))
    if start and end:
        rows.append(("KASAN KUnit suite (timestamps)", end - start))
    times = []
    for _ in range(a.runs):
        _, t = timed(make_run, "uaf")
        times.append(t)
    rows.append(("make run SCENARIO=uaf, warm (median of %d)" % a.runs, statistics.median(times)))
    # an edit, not a touch: a module is rebuilt only when its sources'
    # contents change (vm/initramfs.py: module_inputs)
    src = os.path.join(REPO, "labs", "module", "kasan_lab.c")
    text = open(src).read()
    try:
        with open(src, "w") as f:
            f.write(text + "\n")
        _, t = timed(make_run, "uaf")
    finally:
        with open(src, "w") as f:
            f.write(text)
    rows.append(("edit kasan_lab.c, rebuild + rerun", t))
    print("%-48s %10s" % ("what (2-core machine, QEMU TCG)", "seconds"))
    for name, secs in rows:
        print("%-48s %10.1f" % (name, secs))
    for name, ratio in ratios:
        print("%-48s %9.2fx" % (name, ratio))


if __name__ == "__main__":
    run_main(main)
