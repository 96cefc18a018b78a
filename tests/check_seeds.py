# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: an answer in data holds at another seed.

Grading a class's exercises, a step whose exercises answer in a TOML file
runs at the class's seed only (labs/seeds.py: class_seed_step): its
answers are facts of the run that no seed changes.  Here the solution's
files are graded at SEED=2 (each such lab whole), in a copy of this
checkout (its transcripts are not the site's): every exercise on those
steps must be done there too.  A step that says class_seed (lab 7's
field) is read by an exercise graded on a step of its own: that lab's exercises are graded as a class
grades them (DEMOS=no) at SEED=2 -- theirs at 2, the class_seed step at 1
-- and each must be done.  Were a fact to move with the seed, this check
fails, and the step must be graded at the student's seeds again.
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
    """[(lab, [step names])] of the exercises' own steps class_seed_step
    picks."""
    out = []
    for lab in labdata.load_all():
        own = set(labgrade.exercise_steps(lab))
        names = [s["name"] for s in lab.steps if s["name"] in own and
                 labgrade.class_seed_step(lab, s)]
        if names:
            out.append((lab, names))
    return out


def read_by_exercises():
    """The labs with a class_seed step an exercise's check reads."""
    return [lab for lab in labdata.load_all() if any(s.get("class_seed") for s in lab.steps)]


def graded(tree, env, lab, args, tag):
    """(exercise records, "") of labs.grade -n LAB ARGS in TREE, or ([], why)."""
    out = os.path.join(TOP, "lab%d-%s.json" % (lab.number, tag))
    p = subprocess.run([PY, "-m", "labs.grade", "-n", str(lab.number), "--out", out] + args,
                       cwd=tree, env=env, capture_output=True, text=True, timeout=1800)
    try:
        with open(out) as f:
            return json.load(f)["exercises"]["list"], ""
    except (OSError, ValueError, KeyError):
        return [], "lab %d: no results (exit %d): %s" % (
            lab.number, p.returncode, (p.stdout + p.stderr).strip()[-300:])


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
        # the whole lab: a step may read others' logs (8.1's table reads
        # the ptrcmp runs), which then run at SEED=2 too
        exs, why = graded(tree, env, lab, [], "whole")
        yes, no = verdict(lab, names, exs)
        done, bad = done + yes, bad + no + ([why] if why else [])
    for lab in read_by_exercises():
        exs, why = graded(tree, env, lab, ["--exercises-only"], "exercises")
        yes, no = verdict(lab, labgrade.exercise_steps(lab), exs)
        done, bad = done + ["%s (its reference at SEED=1)" % i for i in yes], \
            bad + no + ([why] if why else [])
    record("data-seeds: the exercises a class grades on a run at SEED=1 (%s) are done at "
           "SEED=%d too, the solution's files graded" % (", ".join(done) or "none", SEED),
           bool(done) and not bad, "; ".join(bad[:5]), time.time() - t0, bad[:20])
