#!/usr/bin/python3
"""`make bench`: generic vs tag-based KASAN, measured (a benchmark, not a test).

Builds the *-bench variants (none, generic, swtags, swtags-outline, each
with the network stack), boots each RUNS times (median reported) with

    kunit.enable=0 kt_cat=/proc/meminfo kt_run=slab-bench kt_exec=tcpbench

and reads from the serial log: the kernel timestamp of "Run /init", Slab:
from /proc/meminfo, the boot "Memory:" line (reserved = shadow + kernel),
loopback TCP throughput (vm/init/tcpbench.c, 10 s) and ns per kmalloc/kfree
pair.  Also per variant: build time, Image and vmlinux size, and the number
of compiler-inserted checks in vmlinux.  Writes build/bench/results.json,
results.csv and ratios.svg, and prints a table next to the cover letter's
Odroid C2 figures.
"""

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "vm"))
import kt  # noqa: E402

OUT = os.path.join(REPO, "build", "bench")
MODES = ["none", "generic", "swtags", "swtags-outline"]
CMDLINE = "kunit.enable=0 kt_cat=/proc/meminfo kt_run=slab-bench kt_exec=tcpbench"
# The cover letter's "Benchmarks" (Odroid C2, 2018, inline instrumentation).
COVER = {"boot_s": {"none": 1.7, "generic": 5.0, "swtags": 5.0},
         "tcp_mbit": {"none": 8330, "generic": 3170, "swtags": 2850},
         "slab_kb": {"none": 40, "generic": 105, "swtags": 47}}


MEM = re.compile(r"Memory: (\d+)K/(\d+)K available \((\d+)K kernel code, (\d+)K rwdata, "
                 r"(\d+)K rodata, (\d+)K init, (\d+)K bss, (\d+)K reserved")
DEPOT = re.compile(r"stackdepot hash table entries: \d+ \(order: \d+, (\d+) bytes")


def memory(text):
    """The boot "Memory:" line: RAM, reserved, the kernel image (code, data,
    init, bss) and KASAN's stack depot hash table, in kB; None if absent.
    reserved - image - depot is mostly the KASAN shadow (and page tables)."""
    m = MEM.search(text)
    if not m:
        return None
    v = [int(x) for x in m.groups()]
    depot = DEPOT.search(text)
    return {"ram": v[1], "reserved": v[7], "image": sum(v[2:7]),
            "depot": int(depot.group(1)) // 1024 if depot else 0}


def shadow_kb(mem, base):
    """What a KASAN kernel reserves beyond a kernel without KASAN, after
    taking out the image and the stack depot: its shadow."""
    def rest(x):
        return x["reserved"] - x["image"] - x["depot"]
    return rest(mem) - rest(base)


def measure(text):
    """Figures of one boot log (None where a line is missing)."""
    def num(pattern, cast=float):
        m = re.search(pattern, text)
        return cast(m.group(1)) if m else None
    mem = memory(text) or {}
    return {
        "boot_s": num(r"\[\s*(\d+\.\d+)\] Run /init as init process"),
        "slab_kb": num(r"\nSlab:\s+(\d+) kB", int),
        "tcp_mbit": num(r"KT-TCPBENCH .*mbit_per_s=(\d+)", int),
        "ns_per_pair": num(r"slab-bench result pairs=\d+ ns_per_pair=(\d+)", int),
        "ram_kb": mem.get("ram"),
        "reserved_kb": mem.get("reserved"),
        "image_kb": mem.get("image"),
        "depot_kb": mem.get("depot"),
    }


def check_counts(bdir):
    """Compiler-inserted checks in vmlinux: outlined-check calls, brk sites."""
    p = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn",
                        os.path.join(bdir, "vmlinux")], capture_output=True, text=True)
    calls = len(re.findall(r"\tbl\t.*<__hwasan_check_", p.stdout))
    cb = len(re.findall(r"\tbl\t.*<__(?:hwasan|asan)_(?:load|store)\w*>", p.stdout))
    brk = len(re.findall(r"\tbrk\t#0x9[0-9a-f]{2}", p.stdout))
    return {"outlined_check_calls": calls, "callback_calls": cb, "brk_9xx": brk}


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
        for mode in ("generic", "swtags"):
            for src, colour in (("measured", "#1565c0"), ("cover letter", "#9e9e9e")):
                if src == "measured":
                    base, val = results["none"][key], results[mode][key]
                else:
                    base, val = COVER[key]["none"], COVER[key][mode]
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


def main():
    ap = argparse.ArgumentParser(prog="tests/perf.py")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--from-logs", action="store_true",
                    help="recompute the results from the logs of the last run, no boots")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    results, t_all = {}, time.time()
    for mode in MODES:
        bdir = kt.build_kernel(mode + "-bench")
        boots = []
        for i in range(a.runs):
            log = os.path.join(OUT, "%s-%d.log" % (mode, i))
            if a.from_logs:
                if not os.path.exists(log):
                    raise kt.KtError("no %s: run `make bench` first" % log)
                boots.append(measure(open(log, errors="replace").read()))
                continue
            b = kt.boot(bdir, CMDLINE, 300, log)
            if not b.ok:
                print(b.tail())
                raise kt.KtError("%s boot %d failed (%s)" % (mode, i, b.status))
            boots.append(measure(b.text))
        r = {k: median([x[k] for x in boots]) for k in boots[0]}
        main_bdir = kt.build_kernel(mode)
        info = kt.kernel_info(main_bdir)
        r.update(build_s=info.get("build_seconds"),
                 image_mb=round(os.path.getsize(os.path.join(
                     main_bdir, "arch/arm64/boot/Image")) / 2**20, 1),
                 vmlinux_mb=round(os.path.getsize(os.path.join(main_bdir, "vmlinux")) / 2**20, 1))
        r.update(check_counts(main_bdir))
        results[mode] = r
        print("bench: %s done (%d boots)" % (mode, a.runs), file=sys.stderr)
    brk = kt.build_kernel("swtags-brk")
    results["swtags-brk"] = check_counts(brk)
    meta = {"date": time.strftime("%Y-%m-%d"), "runs": a.runs,
            "qemu": subprocess.run(["qemu-system-aarch64", "--version"], capture_output=True,
                                   text=True).stdout.splitlines()[0],
            "machine": "-M virt -cpu max (TCG, no KVM), 512 MiB, 1 vCPU, %d host cores"
                       % os.cpu_count(),
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
    print(table(results, meta))


def fmt(v, nd=2):
    return "-" if v is None else ("%.*f" % (nd, v) if isinstance(v, float) else str(v))


def table(results, meta):
    lines = ["%s; %s; median of %d boots" % (meta["qemu"], meta["machine"], meta["runs"]),
             "%-22s %10s %10s %10s %14s" % ("", "none", "generic", "swtags", "swtags-outline")]
    for key, label in (("boot_s", "boot to /init, s"), ("slab_kb", "Slab, kB"),
                       ("reserved_kb", "reserved, kB"), ("tcp_mbit", "TCP, Mbit/s"),
                       ("ns_per_pair", "kmalloc+kfree, ns"), ("build_s", "build, s"),
                       ("image_mb", "Image, MB"), ("vmlinux_mb", "vmlinux, MB"),
                       ("outlined_check_calls", "__hwasan_check calls"),
                       ("callback_calls", "load/store callbacks")):
        lines.append("%-22s %10s %10s %10s %14s" % (label, *[
            fmt(results[m].get(key)) for m in MODES]))
    lines.append("swtags-brk: %s brk #0x9xx sites in vmlinux" % results["swtags-brk"]["brk_9xx"])
    lines.append("")
    lines.append("ratios to none        measured (generic / swtags)   cover letter (generic / swtags)")
    for key, label in (("boot_s", "boot time"), ("tcp_mbit", "TCP throughput"),
                       ("slab_kb", "Slab")):
        n = results["none"].get(key)
        got = [results[m].get(key) / n if n and results[m].get(key) else None
               for m in ("generic", "swtags")]
        cov = [COVER[key][m] / COVER[key]["none"] for m in ("generic", "swtags")]
        lines.append("%-21s %8s / %-8s              %8.2f / %-8.2f" % (
            label, fmt(got[0]), fmt(got[1]), cov[0], cov[1]))
    def mem(m):
        r = results[m]
        return {"reserved": r.get("reserved_kb") or 0, "image": r.get("image_kb") or 0,
                "depot": r.get("depot_kb") or 0}
    ram = results["none"].get("ram_kb")
    for m in ("generic", "swtags"):
        extra = shadow_kb(mem(m), mem("none"))
        if ram and extra:
            lines.append("%s: %d kB more reserved than none, beyond image and stack depot = "
                         "1/%.1f of RAM (shadow: 1/%d)" % (m, extra, ram / extra,
                                                          8 if m == "generic" else 16))
    return "\n".join(lines)


if __name__ == "__main__":
    try:
        main()
    except kt.KtError as e:
        sys.exit("kasan-tags: error: %s" % e)
