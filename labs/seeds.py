# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The seed a step runs at when a class's exercises are graded
(labs/grade.py, DEMOS=no): the student's own, or the class's (SEED=1)
for a step whose readers read nothing a seed moves -- then the class's
demonstration run, which the run cache (vm/runcache.py) shares with every
student."""

import os
import re

import vm
from vm import student_gdb


# What a student answers in: data (their answers, a TOML file), not code.
DATA_FILES = (".toml",)


def class_seed_step(lab, step):
    """Does the step say class_seed, or does every exercise graded on it
    answer in a data file
    (lab 3's and 9.1's forensics, lab 5's and 6's predictions, 8.1's
    table), and does the step run nothing of the student's (no gdb part of
    theirs, no module of theirs)?  Its answers are then facts of the run
    that no seed changes -- one file of the student's had to hold at their
    seed and at the hidden one alike -- so, grading only exercises, for a
    class, it runs at the class's seed, SEED=1, the site's: the very run
    of the class's demonstrations, which the run cache shares with every
    student."""
    if step.get("class_seed"):
        # a demonstration an exercise's check reads (lab 7's field: where
        # code is, which no seed moves), said so in its steps.toml
        return True
    exs = [ex for ex in lab.exercises if ex["step"] == step["name"]]
    if not exs or not all(f.endswith(DATA_FILES) for ex in exs for f in ex["files"]):
        return False
    gdb = open(lab.path(step["gdb"])).read() if "gdb" in step else ""
    return student_gdb.split(gdb) is None and "student" not in re.split(
        r"[\s=,:]+", step.get("cmdline", ""))


def at_class_seed(lab, run_step):
    """run_step for the steps an exercise's check reads (Runs): a
    class_seed_step runs at SEED=1, the class's, any other at this run's."""
    def run(folder, step, runs):
        if not class_seed_step(lab, step) or vm.run_seed() == vm.DEFAULT_SEED:
            return run_step(folder, step, runs)
        print("     step %s runs at SEED=%d, the class's: what its readers read of it no "
              "seed changes" % (step["name"], vm.DEFAULT_SEED), flush=True)
        with AtSeed(vm.DEFAULT_SEED):
            return run_step(folder, step, runs)
    return run


class AtSeed:
    """SEED=n for the boots of a `with` block, as before after it."""

    def __init__(self, seed):
        self.seed, self.was = seed, None

    def __enter__(self):
        self.was = os.environ.get("SEED")
        os.environ["SEED"] = str(self.seed)

    def __exit__(self, *_exc):
        if self.was is None:
            os.environ.pop("SEED", None)
        else:
            os.environ["SEED"] = self.was
