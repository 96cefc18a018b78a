"""kasan-decode: decode every KASAN report in a serial log or dmesg.

    kasan-decode [--json] [--vmlinux FILE] [LOGFILE|-]

Exit status: 0 all reports decoded; 1 no KASAN report in the input;
2 bad usage or unreadable input; 3 some report was truncated or garbled
(it is still printed, with what could be read).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

from kasan import report


def symbolize(frames, vmlinux):
    """Add file:line to "sym+0xoff/0xsize" frames with llvm-symbolizer."""
    tool = shutil.which("llvm-symbolizer") or shutil.which("addr2line")
    if not tool or not frames:  # mutation: equivalent (no frames: no queries, the same list)
        return frames
    # Symbol-relative lookups need the symbol address: ask llvm-nm once.
    nm = shutil.which("llvm-nm") or shutil.which("nm")
    if not nm:
        return frames
    addrs = {}
    try:
        out = subprocess.run([nm, "--defined-only", vmlinux], capture_output=True,
                             text=True, timeout=120).stdout  # mutation: equivalent (timeout)
    except (OSError, subprocess.TimeoutExpired):
        return frames
    want = {f.partition("+")[0] for f in frames}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in want:
            addrs.setdefault(parts[2], int(parts[0], 16))
    queries, index = [], []
    for i, f in enumerate(frames):
        sym, _, rest = f.partition("+")
        if sym in addrs and " [" not in f:
            off = int(rest.partition("/")[0], 16)
            queries.append("0x%x" % (addrs[sym] + off - 1 if off else addrs[sym]))
            index.append(i)
    if not queries:
        return frames
    cmd = [tool, "--obj=" + vmlinux, "--inlining=false"] if "llvm" in tool else \
        [tool, "-e", vmlinux]
    try:
        out = subprocess.run(cmd, input="\n".join(queries) + "\n", capture_output=True,
                             text=True, timeout=120).stdout  # mutation: equivalent (timeout)
    except (OSError, subprocess.TimeoutExpired):
        return frames
    locs = [b.splitlines()[1] for b in out.strip().split("\n\n") if len(b.splitlines()) > 1]
    res = list(frames)
    for i, loc in zip(index, locs):
        # file:line relative to the tree, as scripts/decode_stacktrace.sh prints
        loc = re.sub(r"^.*?/linux-source-[0-9.]+/", "", loc)
        loc = re.sub(r"^(.*:\d+):\d+$", r"\1", loc)
        if not loc.startswith("??"):
            res[i] = "%s %s" % (frames[i], loc)
    return res


def main(argv=None):
    first = __doc__.splitlines()[0]  # mutation: equivalent (help text)
    ap = argparse.ArgumentParser(prog="kasan-decode", description=first)
    ap.add_argument("--json", action="store_true", help="one JSON object per report")
    ap.add_argument("--vmlinux", help="symbolize frames to file:line")
    ap.add_argument("log", nargs="?", default="-")
    a = ap.parse_args(argv)
    try:
        if a.log == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(a.log, "rb") as f:
                data = f.read()
    except OSError as e:
        print("kasan-decode: cannot read %s: %s" % (a.log, e.strerror), file=sys.stderr)
        return 2
    if a.vmlinux and not os.path.isfile(a.vmlinux):
        print("kasan-decode: no vmlinux at %s" % a.vmlinux, file=sys.stderr)
        return 2
    text = data.decode("utf-8", errors="replace")
    try:
        reports = report.parse_reports(text)
    except report.ReportError as e:
        print("kasan-decode: %s" % e, file=sys.stderr)
        return 2
    if not reports:
        print("kasan-decode: no KASAN report in the input", file=sys.stderr)
        return 1
    for r in reports:
        if a.vmlinux:
            for k in ("alloc_stack", "free_stack", "call_trace"):
                r[k] = symbolize(r[k], a.vmlinux)
        if a.json:
            print(json.dumps(r, sort_keys=True))
        else:
            print(report.summary(r))
            print()
    bad = sum(r["truncated"] for r in reports)
    if bad:
        print("kasan-decode: %d of %d report(s) truncated" % (bad, len(reports)),
              file=sys.stderr)
        return 3
    return 0  # mutation: equivalent (sys.exit(None) also exits 0)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
