#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-decode`: kasan-decode against scripts/decode_stacktrace.sh
(a benchmark, not a test: it prints figures, it asserts nothing).

  1. Symbolize the project's sw-tags KUnit log (gdb-scripts/tests/fixtures/
     swtags.log.xz: the KASAN KUnit suite and every lab scenario) against the
     real vmlinux of the swtags kernel, with kasan-decode --vmlinux (median of
     RUNS) and with the installed tree's scripts/decode_stacktrace.sh (once:
     it is slow).  Prints both times, their ratio and how many frames both
     resolved to the same file:line (`compare`, which make check also runs
     on a smaller log).
  2. Stream a log of about SIZE_MB MiB (the same log repeated) through
     kasan-decode --json: wall time and peak RSS.
"""

import lzma
import os
import re
import statistics
import subprocess
import tempfile
import time
from typing import Dict, List, Tuple

import vm
from bench import run_main
from kasan.modes import HW_TAGS, SW_TAGS

SW, HW = SW_TAGS.variant, HW_TAGS.variant

REPO = vm.REPO
DECODE = os.path.join(REPO, "gdb-scripts", "kasan", "decode.py")
FIXTURE = os.path.join(REPO, "gdb-scripts", "tests", "fixtures", "swtags.log.xz")
PY = "/usr/bin/python3"
RUNS = 3
SIZE_MB = 250
# decode_stacktrace.sh's frame: "[ts] name (file:line ...) [module]"
SCRIPT_FRAME = re.compile(r"^(?:\[[\s\d.]+\] )?\s*(?P<name>[\w.$]+) \((?P<chain>[^)]*)\)")
FRAME = re.compile(r"^(?:\[[\s\d.]+\] )?\s*(?P<frame>[\w.$]+\+0x[0-9a-f]+/0x[0-9a-f]+)"
                   r"(?P<mod> \[[\w-]+\])?\s*$")


def ours_cmd(bdir: str, log: str) -> List[str]:
    return [PY, DECODE, "--json", "--vmlinux", vm.vmlinux(bdir),
            "--modules", vm.module_dir(bdir), log]


def script_cmd(bdir: str, log: str) -> List[str]:
    src = vm.source_tree(bdir)
    return ["bash", os.path.join(src, "scripts", "decode_stacktrace.sh"),
            vm.vmlinux(bdir), src, vm.module_dir(bdir)]


def run_timed(cmd: List[str], stdin_path: str = "") -> Tuple[float, int, str]:
    """(wall seconds, peak RSS in KiB, stdout) of one run: the rusage of
    the reaped child and the descendants it waited for."""
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "gdb-scripts"))
    t0 = time.monotonic()
    with open(stdin_path or os.devnull, "rb") as f:
        p = subprocess.Popen(cmd, stdin=f, stdout=subprocess.PIPE, env=env)
        assert p.stdout is not None
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    secs = time.monotonic() - t0
    if p.returncode:
        raise vm.KtError("%s exited %d" % (os.path.basename(cmd[1]), p.returncode))
    return secs, ru.ru_maxrss, out.decode(errors="replace")


TREE_PREFIX = re.compile(r"[^\s:]*linux-source-[0-9.]+/")


def compare(input_lines: List[str], script_out: str, ours_json: str) -> Tuple[int, List[str]]:
    """(frames compared, mismatches): every vmlinux frame that both tools
    resolved must have the same file:line chain.  decode_stacktrace.sh keeps
    the input's lines, so output line i is input line i decoded."""
    import json
    script: Dict[str, str] = {}
    for raw, done in zip(input_lines, script_out.splitlines()):
        m, d = FRAME.match(raw), SCRIPT_FRAME.match(done)
        if m and d and not m.group("mod") and "?" not in d.group("chain"):
            # the debug info names sources ../linux-source-6.1/... from the
            # build dir (vm/kbuild.py: path_args); addr2line prints that path
            script[m.group("frame")] = TREE_PREFIX.sub("", d.group("chain"))
    ours: Dict[str, str] = {}
    for line in ours_json.splitlines():
        r = json.loads(line)
        for f in r["call_trace"] + r["alloc_stack"] + r["free_stack"]:
            sym, _, chain = f.partition(" ")
            if chain and not chain.startswith("["):
                ours[sym] = chain
    both = sorted(set(script) & set(ours))
    bad = ["%s: decode_stacktrace.sh %s, kasan-decode %s" % (f, script[f], ours[f])
           for f in both if script[f] != ours[f]]
    return len(both), bad


def main() -> int:
    bdir = vm.build_kernel(SW)
    vm.build_module(bdir)       # --modules: the lab module's .ko files
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "swtags.log")
        with lzma.open(FIXTURE, "rt") as f, open(log, "w") as out:
            text = f.read()
            out.write(text)
        n_reports = text.count("BUG: KASAN:")
        times = [run_timed(ours_cmd(bdir, log))[0] for _ in range(RUNS)]
        ours = run_timed(ours_cmd(bdir, log))[2]
        t_script, _, script_out = run_timed(script_cmd(bdir, log), log)
        n, bad = compare(text.splitlines(), script_out, ours)
        t_ours = statistics.median(times)
        print("symbolize %d reports (%s):" % (n_reports, os.path.relpath(FIXTURE, REPO)))
        print("  kasan-decode --vmlinux     %6.2f s (median of %d)" % (t_ours, RUNS))
        print("  decode_stacktrace.sh       %6.2f s (once)" % t_script)
        print("  ratio                      %6.1fx faster" % (t_script / t_ours))
        print("  frames both resolved: %d, same file:line: %d" % (n, n - len(bad)))
        for b in bad[:5]:
            print("    differs: " + b)

        big = os.path.join(tmp, "big.log")
        with open(big, "w") as out:
            while out.tell() < SIZE_MB << 20:
                out.write(text)
        size = os.path.getsize(big) / (1 << 20)
        secs, rss, _ = run_timed([PY, DECODE, "--json", big])
        print("stream %.0f MiB (%d reports) through kasan-decode --json: %.1f s, peak RSS %.0f MiB"
              % (size, n_reports * round(size * (1 << 20) / len(text)), secs, rss / 1024))
    return 0


if __name__ == "__main__":
    run_main(main)
