# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make check`'s mistakes-live: the known mistakes whose answer is in a run
(a gdb file, a C scenario), planted and graded live.

`make test` grades each plant of the labs' planted.py offline, on the
stored run altered as the plant's run would show it; this check is the
proof that the alteration is what the planted file really does: in a copy
of this checkout, each plant's edits are made, `make grade N=` grades the
exercise's lab at SEED=1, and the exercise must not be done and its
JSON must name that mistake, and only it, with its first hint printed."""

import json
import os
import shutil
import subprocess
import time

from tests.checklib import OUT, checkout_copy, kept_env, record
from tests.test_mistakes import planted

TOP = os.path.join(OUT, "mistakes")


def live_plants():
    """[(lab, plant)] of every plant with run alterations: those whose
    answer only a live run shows."""
    from labs import lab
    return [(x, p) for x in lab.load_all() for p in planted(x) if p.get("runs")]


def edit(tree, x, plant):
    """Make the plant's edits in tree: {path: its text before}."""
    before = {}
    for rel, old, new in plant["edits"]:
        path = os.path.join(tree, rel if rel.startswith("labs/") else
                            os.path.join("labs", x.folder, rel))
        with open(path) as f:
            text = f.read()
        before.setdefault(path, text)
        if text.count(old) != 1:
            raise AssertionError("%s: %r is not in %s once" % (plant["mistake"], old, rel))
        with open(path, "w") as f:
            f.write(text.replace(old, new))
    return before


def restore(before):
    for path, text in before.items():
        with open(path, "w") as f:
            f.write(text)


def grade_plant(tree, x, plant):
    """(exercise record or None, make's output) of the plant graded live."""
    from labs import mistakes
    m = next(m for m in mistakes.catalogue(x) if m["id"] == plant["mistake"])
    ex = next(e for e in x.exercises if e["id"] == m["exercise"])
    out = os.path.join(TOP, "%s.json" % plant["mistake"])
    # the tree builds its modules and initramfs apart from this checkout's
    # (each tree has its own: vm/kbuild.py tree_suffix)
    env = dict(kept_env(), SEED="1")
    # the whole lab: an exercise's check and detectors may read the runs of
    # other steps (lab 4: both kernels'); those the plant does not change
    # come from the run cache
    p = subprocess.run(["make", "-s", "-C", tree, "grade", "N=%d" % x.number,
                        "OUT=" + out], env=env, capture_output=True,
                       text=True, errors="replace", timeout=900, stdin=subprocess.DEVNULL)
    try:
        with open(out) as f:
            rec = next(e for e in json.load(f)["exercises"]["list"] if e["id"] == ex["id"])
    except (OSError, ValueError, StopIteration):
        rec = None
    return rec, m, p.stdout + p.stderr


def check_mistakes_live():
    shutil.rmtree(TOP, ignore_errors=True)
    tree = os.path.join(TOP, "tree")
    checkout_copy(tree)
    for x, plant in live_plants():
        t0 = time.time()
        before = edit(tree, x, plant)
        try:
            rec, m, log = grade_plant(tree, x, plant)
        finally:
            restore(before)
        with open(os.path.join(TOP, "%s.log" % plant["mistake"]), "w") as f:
            f.write(log)
        hint = "(%d of 3, %s): %s" % (1, m["id"], m["hints"][0])
        ok = rec is not None and not rec["done"] and rec["mistakes"] == [m["id"]] and hint in log
        record("mistakes-live: %s planted in exercise %s is graded not done, with its own hint"
               % (m["id"], m["exercise"]), ok,
               "exercise %s; see %s" % (
                   "not graded" if rec is None else "done=%s, mistakes found %s" % (
                       rec["done"], rec["mistakes"]),
                   os.path.relpath(os.path.join(TOP, plant["mistake"] + ".log"))),
               time.time() - t0)
