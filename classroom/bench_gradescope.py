# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-gradescope`: what one Gradescope submission costs at
Gradescope's defaults.  A benchmark that prints its figures, not a test.

`make autograder` (lab 1's kernel and the Debian 12 userland) is unpacked
as Gradescope does into a Debian 11 minbase container (vm/images/), its
setup.sh run once, then its run_autograder on lab 1 solved, with no
network, half a CPU and 768 MB (podman --cpus 0.5 --memory 768m).  It
prints the grading's time, the container's peak memory charge (the
cgroup's own count: every process and the page cache it charged, which
the kernel reclaims when the limit is reached) and how many processes the
limit killed.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from typing import List, Optional

import vm
from classroom import autograder
from labs import lab as labdata
from vm import container
from vm.base import one_line_errors

TOP = os.path.join(vm.REPO, "build", "bench-gradescope")
BASE = "debian11-minbase"
LIMITS = ["--cpus", "0.5", "--memory", "768m"]
# The container's peak memory charge and its OOM kills: cgroup v2, else v1
PEAK = ("if [ -e /sys/fs/cgroup/memory.peak ]; then cd /sys/fs/cgroup; "
        "echo peak=$(cat memory.peak); grep '^oom_kill ' memory.events; "
        "else cd /sys/fs/cgroup/memory; echo peak=$(cat memory.max_usage_in_bytes); "
        "grep '^oom_kill ' memory.oom_control; fi")


def make(args: List[str]) -> None:
    p = subprocess.run(["make", "-s", "-C", vm.REPO] + args, capture_output=True, text=True)
    if p.returncode:
        raise vm.KtError("make %s failed: %s" % (args[0], (p.stdout + p.stderr).strip()[-300:]))


def bench() -> None:
    ok, why = container.available()
    if not ok:
        raise vm.KtError("containers: %s" % why)
    shutil.rmtree(TOP, ignore_errors=True)
    root = os.path.join(TOP, "autograder")
    os.makedirs(root)
    dist, zpath = os.path.join(TOP, "kernels.tar.zst"), os.path.join(TOP, "autograder.zip")
    make(["dist", "VARIANTS=swtags", "DIST_FILE=" + dist])
    make(["autograder", "KERNELS=" + dist, "AUTOGRADER_ZIP=" + zpath])
    autograder.unpack(zpath, root)
    tag = container.image(BASE)
    mounts = [(root, "/autograder", "rw")]
    t0 = time.time()
    rc, out = container.run(tag, ["sh", "/autograder/source/setup.sh"], mounts, timeout=1800)
    if rc:
        raise vm.KtError("setup.sh failed: %s" % out.strip()[-300:])
    setup = time.time() - t0
    student = os.path.join("labs", labdata.by_number(1).folder, "student")
    shutil.copytree(os.path.join(vm.REPO, student), os.path.join(root, "submission", student))
    with open(os.path.join(root, "submission_metadata.json"), "w") as f:
        json.dump({"users": [{"email": "bench@example.edu"}]}, f)
    t0 = time.time()
    rc, out = container.run(tag, ["sh", "-c", "/autograder/run_autograder -n 1 >/dev/null 2>&1; "
                                  "echo exit=$?; " + PEAK], mounts, timeout=1800, extra=LIMITS)
    secs = time.time() - t0
    said = dict(ln.replace("=", " ").split()[:2] for ln in out.strip().splitlines()
                if ln.startswith(("exit=", "peak=", "oom_kill ")))
    if said.get("exit") != "0" or not said.get("peak", "").isdigit():
        raise vm.KtError("run_autograder failed: %s" % out.strip()[-300:])
    with open(os.path.join(root, "results", "results.json")) as f:
        score = json.load(f).get("score")
    print("bench-gradescope: setup.sh %.0f s (once); one submission of lab 1, solved, at half a "
          "CPU and 768 MB on a %s base: %.0f s, score %s; the container's peak memory charge "
          "%.0f MiB (page cache included, which the kernel reclaims at the limit), %s "
          "process(es) killed for memory"
          % (setup, BASE, secs, score, int(said["peak"]) / 2**20, said.get("oom_kill", "?")))
    # the unpacked userland and its kernel tree: gigabytes, not a result
    shutil.rmtree(TOP, ignore_errors=True)


def main(argv: Optional[List[str]] = None) -> int:
    return one_line_errors(bench)


if __name__ == "__main__":
    sys.exit(main())
