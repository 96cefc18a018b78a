# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: an answer in data holds at another seed.

Grading a class's exercises, a step whose exercises answer in a TOML file
runs at the class's seed only (labs/grade.py: class_seed_step): its
answers are facts of the run that no seed changes.  Here the solution's
files are graded on those steps at SEED=2, in a copy of this checkout (its
transcripts are not the site's): every such exercise must be done there
too.  Were a fact to move with the seed, this check fails, and the step
must be graded at the student's seeds again.
"""

import json
import os
import shutil
import subprocess
import time

from labs import grade as labgrade
from labs import lab as labdata
from tests.checklib import OUT, PY, checkout_copy, kept_env, record

TOP = os.path.join(OUT, "data-seeds")
SEED = 2


def class_seed_steps():
    """[(lab, [step names])] of the steps class_seed_step picks."""
    out = []
    for lab in labdata.load_all():
        names = [s["name"] for s in lab.steps if labgrade.class_seed_step(lab, s)]
        if names:
            out.append((lab, names))
    return out


def verdict(lab, names, exs):
    """([done], [why not]) of the exercises graded on NAMES, given the
    grading's exercise records EXS: one missing or not done is BAD."""
    want = sorted({ex["id"] for ex in lab.exercises if ex["step"] in names})
    got = {e["id"]: e["done"] for e in exs}
    return ([i for i in want if got.get(i)],
            ["%s: %s at SEED=%d" % (i, "not done" if i in got else "not graded", SEED)
             for i in want if not got.get(i)])


def check_data_seeds():
    t0 = time.time()
    shutil.rmtree(TOP, ignore_errors=True)
    tree = os.path.join(TOP, "tree")
    checkout_copy(tree)
    env = dict(kept_env(), SEED=str(SEED), PYTHONPATH=tree + os.pathsep + os.path.join(
        tree, "gdb-scripts"))
    bad, done = [], []
    for lab, names in class_seed_steps():
        out = os.path.join(TOP, "lab%d.json" % lab.number)
        argv = [PY, "-m", "labs.grade", "-n", str(lab.number), "--out", out]
        for n in names:
            argv += ["--step", n]
        p = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True,
                           timeout=1800)
        try:
            with open(out) as f:
                exs = json.load(f)["exercises"]["list"]
        except (OSError, ValueError, KeyError):
            bad.append("lab %d: no results (exit %d): %s" % (
                lab.number, p.returncode, (p.stdout + p.stderr).strip()[-300:]))
            continue
        yes, no = verdict(lab, names, exs)
        done, bad = done + yes, bad + no
    record("data-seeds: the exercises answered in data (%s) are done at SEED=%d too, "
           "the solution's files graded on their steps" % (", ".join(done) or "none", SEED),
           bool(done) and not bad, "; ".join(bad[:5]), time.time() - t0, bad[:20])
