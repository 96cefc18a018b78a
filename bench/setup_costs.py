#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-setup` (with bench/pipeline_times.py): what set-up costs here.

    --builds      every kernel built in this cache: build seconds and
                  ccache hits/misses, as kbuild recorded them, beside the
                  figures issue 16 measured before ccache
    --debug-info  swtags with DWARF 4 (the default), DWARF 5, split DWARF
                  and reduced DWARF: build time, vmlinux and build dir
                  size, and which gdb / lx-* commands still work on each
    --rebuild     move this cache's build dirs aside and rebuild the labs'
                  kernels with ccache warm (the same paths, so hits are
                  possible); the other kernels are dropped
    --first-lab   a new cache (and a new ccache): `make grade N=1` as a
                  student's first command after `make deps`
    --cold-ci     CI from nothing: a fresh clone of this checkout's HEAD
                  and an empty cache (so an empty ccache), `.ci/run` (make
                  deps, then make check TIER=all, which builds every kernel)
    --cold-make   a newcomer: a fresh clone, an empty cache, `make` (the
                  default kernel, the site, lab 1's first step), then
                  `make lab N=1` with gdb's input at its end

Figures are printed, never asserted.  The builds are real and long: run
one section at a time (--builds is instant).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import vm
from bench import run_main
from kasan.modes import HW_TAGS, SW_TAGS

SW, HW = SW_TAGS.variant, HW_TAGS.variant

# Issue 16's figures, measured on this kind of machine before ccache (s).
BEFORE = {SW: 262, "swtags-brk": 330, "generic": 280}
BEFORE_TOTAL_MIN = 50
DEBUG_VARIANTS = (SW, "swtags-dwarf5", "swtags-dwarf-split", "swtags-dwarf-reduced")
# What a kernel developer asks gdb on a halted tagged kernel, one line
# each: the label and the command.  Success is "no error".
GDB_PROBES = (
    ("types: ptype struct kmem_cache", "ptype struct kmem_cache"),
    ("lines: info line kasan_report", "info line kasan_report"),
    ("locals: info scope ____kasan_kmalloc", "info scope ____kasan_kmalloc"),
    ("lx-version", "lx-version"),
    ("lx-dmesg", "lx-dmesg"),
    ("$lx_current().comm", "p $lx_current().comm"),
    ("kasan-tag on init_task", "kasan-tag &init_task"),
)


def built_variants():
    """(variant, build dir) of every kernel complete in this cache."""
    out = []
    for v in vm.variants():
        bdir = vm.build_dir(v)
        if os.path.exists(os.path.join(bdir, ".kt-complete")):
            out.append((v, bdir))
    return out


def du_mib(path):
    p = subprocess.run(["du", "-sm", path], capture_output=True, text=True)
    return int(p.stdout.split()[0]) if p.returncode == 0 else -1


def show_builds():
    rows = built_variants()
    print("%-24s %8s %8s %8s %10s"
          % ("kernel built here", "seconds", "ccache", "ccache", "before (s)"))
    print("%-24s %8s %8s %8s %10s" % ("", "", "hits", "misses", "issue 16"))
    total = 0.0
    for v, bdir in rows:
        info = vm.kernel_info(bdir)
        cc = info.get("ccache") or {}
        secs = info.get("build_seconds", 0.0)
        total += secs
        print("%-24s %8.0f %8s %8s %10s" % (v, secs, cc.get("hits", "-"), cc.get("misses", "-"),
                                            BEFORE.get(v, "")))
    print("%-24s %8.1f min (sum of the last builds, cold or ccache-warm as the hits say; "
          "before: about %d min for nine, cold)"
          % ("all %d" % len(rows), total / 60, BEFORE_TOTAL_MIN))


def gdb_probe(bdir):
    """{label: "ok" or the first error line} on a halted boot of bdir."""
    tmp = tempfile.mkdtemp(prefix="kt-probe-")
    gfile = os.path.join(tmp, "probe.gdb")
    with open(gfile, "w") as f:
        # An error ends a gdb -batch script: each probe runs under python's
        # try, so one that fails does not hide the others.
        f.write("break kasan_init\ncontinue\nfinish\npython\n")
        for label, cmd in GDB_PROBES:
            f.write("print('KT-PROBE %s')\ntry:\n    gdb.execute(%r)\n"
                    "except gdb.error as e:\n    print('Error: %%s' %% e)\n"
                    "print('KT-PROBE-END')\n" % (label, cmd))
        f.write("end\n")
    try:
        _, out = vm.boot_gdb(bdir, gfile, "kunit.enable=0", 240, os.path.join(tmp, "serial.log"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res = {}
    for label, _ in GDB_PROBES:
        m = re.search(r"KT-PROBE %s\n(.*?)KT-PROBE-END" % re.escape(label), out, re.S)
        body = m.group(1) if m else "(no output)"
        err = [ln for ln in body.splitlines() if re.search(
            r"No symbol|not defined|Error|error|No line number|No frame|Python Exception", ln)]
        res[label] = "ok" if m and not err else (err or ["no output"])[0][:60]
    return res


def debug_info():
    rows = []
    for v in DEBUG_VARIANTS:
        t0 = time.time()
        bdir = vm.build_kernel(v)
        info = vm.kernel_info(bdir)
        cc = info.get("ccache") or {}
        rows.append((v, info.get("build_seconds", time.time() - t0),
                     "%s/%s" % (cc.get("hits", "-"), cc.get("misses", "-")),
                     os.path.getsize(vm.vmlinux(bdir)) >> 20, du_mib(bdir), gdb_probe(bdir)))
    print("%-22s %8s %13s %9s %10s"
          % ("debug info", "build s", "ccache hit/miss", "vmlinux", "build dir"))
    for v, secs, cc, vmx, bd, _ in rows:
        print("%-22s %8.0f %13s %6d MiB %6d MiB" % (v, secs, cc, vmx, bd))
    print()
    names = [v[len("swtags-"):] or "dwarf4" for v, *_ in rows]
    print("%-38s " % "gdb on the halted kernel" + " ".join("%-14s" % n for n in names))
    for label, _ in GDB_PROBES:
        print("%-38s " % label + " ".join("%-14s" % r[5][label][:14] for r in rows))


def rebuild():
    # the kernels the labs need, as make dist asks for them (bench imports no lab code)
    need = subprocess.run(["/usr/bin/python3", "-m", "labs.grade", "--list-variants"],
                          cwd=vm.REPO, capture_output=True, text=True,
                          check=True).stdout.strip().split(",")
    rows = [(v, b) for v, b in built_variants() if v in need]
    root = vm.cache_root()
    aside = os.path.join(root, "build.bench-aside")
    shutil.rmtree(aside, ignore_errors=True)
    os.rename(os.path.join(root, "build"), aside)
    t0 = time.time()
    try:
        for v, _ in rows:
            vm.build_kernel(v)
    except BaseException:
        # Give the cache back as it was.
        shutil.rmtree(os.path.join(root, "build"), ignore_errors=True)
        os.rename(aside, os.path.join(root, "build"))
        raise
    total = time.time() - t0
    shutil.rmtree(aside, ignore_errors=True)
    show_builds()
    print("rebuild of all %d after removing the build cache, ccache warm: %.1f min "
          "(goal 5)" % (len(rows), total / 60))


def first_lab():
    tmp = tempfile.mkdtemp(prefix="kt-first-lab-")
    env = dict(os.environ, KASAN_TAGS_CACHE=tmp)
    env = {k: x for k, x in env.items() if not k.startswith("MAKE")}
    try:
        t0 = time.time()
        subprocess.run(["make", "-s", "-C", vm.REPO, "deps"], env=env, check=True)
        t_deps = time.time() - t0
        p = subprocess.run(["make", "-s", "-C", vm.REPO, "grade", "N=1"], env=env,
                           capture_output=True, text=True)
        total = time.time() - t0
        info = json.load(open(os.path.join(vm.build_dir(SW).replace(
            vm.cache_root(), tmp), "kt-variant.json")))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("first lab in a new cache: make deps %.1f s (packages already installed), "
          "make grade N=1 %s, %.1f min in all (goal 6); of it the swtags build %.0f s"
          % (t_deps, "passed" if p.returncode == 0 else "FAILED", total / 60,
             info.get("build_seconds", 0)))


def cold_ci():
    top = tempfile.mkdtemp(prefix="kt-cold-ci-")
    clone, cache = os.path.join(top, "clone"), os.path.join(top, "cache")
    env = {k: x for k, x in os.environ.items() if not k.startswith("MAKE")}
    env["KASAN_TAGS_CACHE"] = cache
    env.pop("KASAN_TAGS_RUNCACHE", None)
    try:
        subprocess.run(["git", "clone", "-q", vm.REPO, clone], check=True)
        log = os.path.join(top, "ci.log")
        t0 = time.time()
        with open(log, "w") as f:
            # a child that dies with this bench (vm/proc.py), its group too
            p = vm.spawn([os.path.join(clone, ".ci", "run")], env=env, stdout=f,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            p.wait()
        total = time.time() - t0
        text = open(log, errors="replace").read()
        builds = sum(float(x) for x in re.findall(r"kt: built \S+ in (\d+) s", text))
        summary = ([ln for ln in text.splitlines() if re.match(r"\d+ passed, \d+ failed", ln)]
                   or ["no summary line: %s" % text.strip().splitlines()[-1:]])[-1]
        for ln in text.splitlines():
            if ln.startswith("FAIL"):
                print(ln)
        # the log stays to be read (what failed, each tier's time), outside
        # the folder removed below
        kept = os.path.join(tempfile.gettempdir(), "kt-cold-ci.log")
        shutil.copy(log, kept)
        print("the whole log: %s" % kept)
        for ln in text.splitlines():
            if ln.startswith("  [the ") or ln.startswith("  [kernels:"):
                print(ln)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("cold CI (.ci/run on a fresh clone, empty cache and ccache): %.1f min (goal 45), "
          "exit %d; of it the kernel builds %.1f min; make check said: %s"
          % (total / 60, p.returncode, builds / 60, summary))


def cold_make():
    top = tempfile.mkdtemp(prefix="kt-cold-make-")
    clone = os.path.join(top, "clone")
    env = {k: x for k, x in os.environ.items() if not k.startswith("MAKE")}
    env["KASAN_TAGS_CACHE"] = os.path.join(top, "cache")
    env.pop("KASAN_TAGS_RUNCACHE", None)
    try:
        subprocess.run(["git", "clone", "-q", vm.REPO, clone], check=True)
        t0 = time.time()
        with open(os.path.join(top, "make.log"), "w") as f:
            p = vm.spawn(["make", "-C", clone], env=env, stdout=f, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)
            p.wait()
        total = time.time() - t0
        last = open(os.path.join(top, "make.log"), errors="replace").read().strip()
        site = os.path.join(clone, "build", "site")
        pages = sum(f.endswith(".html") for _, _, fs in os.walk(site) for f in fs)
        t1 = time.time()
        lab = subprocess.run(["make", "-C", clone, "lab", "N=1"], env=env, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=600)
        t_lab = time.time() - t1
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("cold make (a fresh clone, an empty cache and ccache, 2 cores): %.1f min (goal 8), "
          "exit %d, %d pages in build/site; its last line: %s"
          % (total / 60, p.returncode, pages, last.splitlines()[-1:]))
    print("then make lab N=1 (gdb's input at its end): exit %d in %.0f s"
          % (lab.returncode, t_lab))


def main(argv=None):
    vm.install_signal_handlers()
    ap = argparse.ArgumentParser(prog="bench/setup_costs.py", description=__doc__.split("\n")[0])
    for opt in ("--builds", "--debug-info", "--rebuild", "--first-lab", "--cold-ci",
                "--cold-make"):
        ap.add_argument(opt, action="store_true")
    a = ap.parse_args(argv)
    if not (a.builds or a.debug_info or a.rebuild or a.first_lab or a.cold_ci or a.cold_make):
        a.builds = True
    if a.builds:
        show_builds()
    if a.debug_info:
        debug_info()
    if a.rebuild:
        rebuild()
    if a.first_lab:
        first_lab()
    if a.cold_ci:
        cold_ci()
    if a.cold_make:
        cold_make()
    return 0


if __name__ == "__main__":
    run_main(main)
