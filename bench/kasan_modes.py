#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench`: generic vs tag-based KASAN, measured (a benchmark, not a test).

Builds the *-bench variants (none, generic, swtags, swtags-outline,
swtags-brk, hwtags, each with the network stack) and boots each RUNS times (median
reported) with

    kunit.enable=0 kt_cat=/proc/meminfo kt_run=slab-bench kt_exec=tcpbench

reading from the serial log: the kernel timestamp of "Run /init", Slab:
from /proc/meminfo, the boot "Memory:" line (reserved = shadow + kernel),
loopback TCP throughput (vm/init/tcpbench.c, 10 s) and ns per kmalloc/kfree
pair.  Then, on the same kernels:

  - the tag-based ones RUNS times more with `kasan.stacktrace=off` (6.1,
    mm/kasan/tags.c): the slab pair without saving alloc/free stacks;
  - each once under `-icount shift=0` (vm.MACHINES["virt-icount"]), where
    the guest clock counts executed instructions: instructions per slab
    pair and per MiB of loopback TCP, which TCG's slow calls do not distort.

Also per variant (of the -bench kernel measured): build time, Image and vmlinux size, the number of
compiler-inserted checks in vmlinux.  Writes build/bench/results.json,
results.csv and ratios.svg, and prints the table (bench/table.py) next to
the cover letter's Odroid C2 figures.
"""

import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import vm
from bench import run_main
from bench import table
from vm.metrics import icount, measure
from kasan.modes import HW_TAGS, SW_TAGS

SW, HW = SW_TAGS.variant, HW_TAGS.variant

OUT = os.path.join(vm.REPO, "build", "bench")
MODES = table.MODES
TAG_MODES = [m for m in MODES if "tags" in m]
CMDLINE = "kunit.enable=0 kt_cat=/proc/meminfo kt_run=slab-bench kt_exec=tcpbench"
NOSTACK = "kasan.stacktrace=off"
# The cover letter's "Benchmarks" (Odroid C2, 2018, inline instrumentation).
COVER = {"boot_s": {"none": 1.7, "generic": 5.0, SW: 5.0},
         "tcp_mbit": {"none": 8330, "generic": 3170, SW: 2850},
         "slab_kb": {"none": 40, "generic": 105, SW: 47}}


def check_counts(bdir):
    """Compiler-inserted checks in vmlinux: outlined-check calls, brk sites."""
    p = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn",
                        vm.vmlinux(bdir)], capture_output=True, text=True)
    calls = len(re.findall(r"\tbl\t.*<__hwasan_check_", p.stdout))
    cb = len(re.findall(r"\tbl\t.*<__(?:hwasan|asan)_(?:load|store)\w*>", p.stdout))
    brk = len(re.findall(r"\tbrk\t#0x9[0-9a-f]{2}", p.stdout))
    return {"outlined_check_calls": calls, "callback_calls": cb, "brk_9xx": brk}


def boot_runs(bdir, name, extra, a, runs=None, params=None, parse=None):
    """Figures of `runs` boots (logs build/bench/NAME-i.log; --from-logs
    reads those instead of booting)."""
    out = []
    for i in range(runs or a.runs):
        log = os.path.join(OUT, "%s-%d.log" % (name, i))
        if a.from_logs:
            if not os.path.exists(log):
                raise vm.KtError("no %s: run `make bench` first" % log)
            text = open(log, errors="replace").read()
        else:
            # wall-clock figures by the host's clock, not the deterministic
            # machine's instruction count (vm/qemu.py: ICOUNT)
            b = vm.boot(bdir, (CMDLINE + " " + extra).strip(), 600, log,
                        params=params or vm.machine_of_variant(
                            vm.kernel_info(bdir)["variant"]).realtime())
            if not b.ok:
                print(b.tail())
                raise vm.KtError("%s boot %d failed (%s)" % (name, i, b.status))
            text = b.text
        if "stacktrace=off" in extra and "stacktrace=off)" not in text:
            raise vm.KtError("%s: the boot line does not say stacktrace=off; log %s"
                             % (name, log))
        out.append((parse or measure)(text))
    return out


def icount_machine(mode):
    """The -icount twin of the machine the mode's kernel boots on."""
    own = vm.machine_of_variant(mode + "-bench").name
    return vm.MACHINES["virt-mte-icount" if own == "virt-mte" else "virt-icount"]


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def svg(results):
    """Ratios to `none` (measured) beside the cover letter's, as bars."""
    metrics = [("boot_s", "boot time"), ("tcp_mbit", "TCP throughput"), ("slab_kb", "Slab")]
    w, bar, gap = 760, 14, 6
    rows = []
    y = 30
    for key, label in metrics:
        rows.append('<text x="10" y="%d" font-weight="bold">%s (ratio to none)</text>' % (y, label))
        y += 8
        for mode in ("generic", SW, "swtags-brk"):
            for src, colour in (("measured", "#1565c0"), ("cover letter", "#9e9e9e")):
                if src == "measured":
                    base, val = results["none"][key], results[mode].get(key)
                else:
                    base, val = COVER[key]["none"], COVER[key].get(mode)
                if not base or val is None:
                    continue
                r = val / base
                rows.append('<rect x="200" y="%d" width="%d" height="%d" fill="%s"/>'
                            '<text x="10" y="%d">%s, %s</text><text x="%d" y="%d">%.2f</text>'
                            % (y, min(500, int(100 * r)), bar, colour, y + 11, mode, src,
                               205 + min(500, int(100 * r)), y + 11, r))
                y += bar + gap
        y += 14
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'font-family="sans-serif" font-size="12">%s</svg>\n' % (w, y, "".join(rows)))


def host():
    """The machine the figures came from: CPU model, cores, memory, kernel."""
    model = mem = "?"
    for line in open("/proc/cpuinfo", errors="replace"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            mem = "%.0f GiB" % (int(line.split()[1]) / 2**20)
    virt = " (a virtual machine)" if os.path.exists("/sys/hypervisor") or \
        "hypervisor" in open("/proc/cpuinfo", errors="replace").read() else ""
    return "%s%s, %d cores, %s, Linux %s" % (model, virt, os.cpu_count(), mem, os.uname().release)


def keep():
    """Copy build/bench/{results.json,results.csv,ratios.svg} to bench/stored/."""
    src, dest = OUT, os.path.join(vm.REPO, table.KEPT)
    if not os.path.exists(os.path.join(src, "results.json")):
        raise vm.KtError("no %s/results.json: run `make bench` first" % table.OWN)
    os.makedirs(dest, exist_ok=True)
    for name in ("results.json", "results.csv", "ratios.svg"):
        shutil.copyfile(os.path.join(src, name), os.path.join(dest, name))
    meta = json.load(open(os.path.join(dest, "results.json")))["meta"]
    print("bench: kept the run of %s (%s) in %s/" % (meta["date"], meta.get("host", "?"), table.KEPT))
    return 0


def main():
    vm.install_signal_handlers()
    ap = argparse.ArgumentParser(prog="bench/kasan_modes.py")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", action="store_true",
                    help="`make bench-keep`: keep the last run's results in bench/stored/ for the "
                         "site, no boots")
    ap.add_argument("--from-logs", action="store_true",
                    help="recompute the results from the logs of the last run, no boots")
    a = ap.parse_args()
    if a.keep:
        return keep()
    os.makedirs(OUT, exist_ok=True)
    results, t_all = {}, time.time()
    for mode in MODES:
        bdir = vm.build_kernel(mode + "-bench")
        boots = boot_runs(bdir, mode, "", a)
        r = {k: median([x[k] for x in boots]) for k in boots[0]}
        if mode in TAG_MODES:
            r["ns_per_pair_nostack"] = median(
                [x["ns_per_pair"] for x in boot_runs(bdir, mode + "-nostack", NOSTACK, a)])
        r.update(boot_runs(bdir, mode + "-icount", "", a, runs=1,
                           params=icount_machine(mode), parse=icount)[0])
        r["qemu"] = vm.qemu_version(vm.machine_of_variant(mode + "-bench")).split(" (")[0]
        # sizes, build time and check counts of the kernel that was measured
        main_bdir = bdir
        info = vm.kernel_info(main_bdir)
        r.update(build_s=info.get("build_seconds"),
                 image_mb=round(os.path.getsize(vm.image(main_bdir)) / 2**20, 1),
                 vmlinux_mb=round(os.path.getsize(vm.vmlinux(main_bdir)) / 2**20, 1))
        r.update(check_counts(main_bdir))
        results[mode] = r
        print("bench: %s done" % mode, file=sys.stderr)
    meta = {"date": time.strftime("%Y-%m-%d"), "runs": a.runs,
            "qemu": vm.qemu_version(),
            "machine": "%s, %d host cores" % (vm.machine_of_variant("swtags-bench").describe(), os.cpu_count()),
            "host": host(),
            "icount": "-icount " + vm.MACHINES["virt-icount"].icount,
            "stacktrace_off": NOSTACK,
            "tcp_seconds": 10, "seconds_total": round(time.time() - t_all)}
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": results, "cover_letter": COVER}, f, indent=1)
    keys = sorted({k for r in results.values() for k in r})
    with open(os.path.join(OUT, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant"] + keys)
        for mode, r in results.items():
            w.writerow([mode] + [r.get(k) for k in keys])
    with open(os.path.join(OUT, "ratios.svg"), "w") as f:
        f.write(svg(results))
    print(table.text(results, meta, COVER))


if __name__ == "__main__":
    run_main(main)
