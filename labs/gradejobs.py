# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make grade JOBS=2`: the labs graded in N processes at once.

One grading boots one QEMU at a time, and QEMU's TCG keeps one core busy,
so on a 2-core machine `make grade` leaves a core idle; `make check`'s
grade job, its longest, waited on that.  With JOBS=N the labs are split
into N groups of about the same cost (cost: a replay step, which runs
the boot forwards and then backwards under gdb, counts three boots), each
graded by a `labs.grade --part` process of its own; their results are
merged into one, in the labs' order, as one process would have written
them.  Two processes never build the same kernel, module or recording at
once: vm/ takes a lock on each (vm/kbuild.py, vm/initramfs.py,
vm/record.py), and each lab writes only below its own folders
(build/grade/NN-name/, build/transcripts/NN-name/).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Sequence

import vm
from labs import lab as labdata
from labs.points import Tally
from vm import proc


def cost(folder: str) -> int:
    """A lab's grading cost in boots: a step 1 (2 with its control), a
    replay 3, a host step 0."""
    lab = labdata.load_lab(folder)
    return sum(0 if "host" in s else 3 if s.get("replay") else 2 if s.get("control") else 1
               for s in lab.steps)


def groups(folders: Sequence[str], n: int, cost_of=cost) -> List[List[str]]:
    """FOLDERS in at most N groups of about equal cost (the costliest lab
    first, each into the cheapest group), each group in the labs' order."""
    out: List[List[str]] = [[] for _ in range(min(n, len(folders)))]
    load = [0] * len(out)
    for f in sorted(folders, key=lambda f: (-cost_of(f), list(folders).index(f))):
        i = load.index(min(load))
        out[i].append(f)
        load[i] += cost_of(f)
    return [sorted(g, key=list(folders).index) for g in out if g]


def merge(parts: Sequence[Dict[str, Any]], folders: Sequence[str]) -> Dict[str, Any]:
    """One summary (labs/points.py: Tally.summary) of the parts' summaries,
    its checks and exercises in the labs' order."""
    order = {f: i for i, f in enumerate(folders)}
    number = {int(f[:2]): i for i, f in enumerate(folders)}
    t = Tally()
    t.checks = sorted((c for p in parts for c in p["checks"]), key=lambda c: order[c["lab"]])
    t.exercises = sorted((e for p in parts for e in p["exercises"]["list"]),
                         key=lambda e: number[int(e["id"].split(".")[0])])
    seconds = {f: s for p in parts for f, s in p["seconds"].items()}
    t.seconds = {f: seconds[f] for f in folders if f in seconds}
    s = t.summary()
    # the parts ran the sandbox and knew the seed; this process did neither
    s["seed"] = parts[0]["seed"]
    s["wall"] = next((p["wall"] for p in parts if p.get("wall")), parts[0].get("wall"))
    s["exercises_only"] = parts[0].get("exercises_only", False)
    return s


def grade_in_parallel(folders: Sequence[str], only_steps, demos: bool,
                      jobs: int) -> Dict[str, Any]:
    """Grade FOLDERS in JOBS processes; print each group's lines when it
    ends, the first group's as they come; the merged summary."""
    parts = groups(folders, jobs)
    work = tempfile.mkdtemp(prefix="grade-jobs-", dir=os.path.join(vm.REPO, "build"))
    print("     grading in %d processes at once (JOBS=%d): labs %s" % (
        len(parts), jobs, "; ".join(", ".join(str(int(f[:2])) for f in g) for g in parts)),
        flush=True)
    children = []
    for i, g in enumerate(parts):
        argv = [sys.executable, "-m", "labs.grade", "--part", ",".join(g),
                "--out", os.path.join(work, "%d.json" % i)]
        argv += [a for s in (only_steps or []) for a in ("--step", s)]
        argv += [] if demos else ["--exercises-only"]
        log = None if i == 0 else open(os.path.join(work, "%d.out" % i), "wb")
        children.append((proc.spawn(argv, cwd=vm.REPO, stdout=log, stdin=subprocess.DEVNULL),
                         log))
    try:
        summaries = collect(children, parts, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return merge(summaries, folders)


def collect(children, parts, work):
    """Each group's summary, its lines printed when it ends (the first
    group's went out as they came)."""
    summaries = []
    for i, (child, log) in enumerate(children):
        child.wait()
        proc.forget(child)
        if log:
            log.close()
            with open(log.name, errors="replace") as f:
                sys.stdout.write(f.read())
            sys.stdout.flush()
        try:
            with open(os.path.join(work, "%d.json" % i)) as f:
                summaries.append(json.load(f))
        except (OSError, ValueError):
            raise vm.KtError("grading labs %s gave no results (exit %d)" % (
                ", ".join(parts[i]), child.returncode))
    return summaries
