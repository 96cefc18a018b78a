# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The seed a step runs at when a class's exercises are graded
(labs/grade.py, DEMOS=no): the student's own, or the class's (SEED=1)
for a step whose readers read nothing a seed moves -- then the class's
demonstration run, which the run cache (vm/runcache.py) shares with every
student."""

import os

import vm
from vm import student_gdb
from vm.initramfs import student_of


# What a student answers in: data (their answers, a TOML file), not code.
DATA_FILES = (".toml",)


def class_seed_step(lab, step):
    """Why this step runs at the class's seed when a class's exercises are
    graded, or "" when it runs at the student's.

    Either its steps.toml says class_seed (lab 7's field, which 7.3's check
    reads: where code is), or every exercise graded on it answers in a
    data file (lab 3's and 9.1's forensics, lab 5's and 6's predictions,
    8.1's table) and the step runs nothing of the student's (no gdb part
    of theirs, no module of theirs).  Such answers are facts of the run
    that no seed changes -- one file of the student's had to hold at their
    seed and at the hidden one alike -- so, grading only exercises, for a
    class, it runs at SEED=1, the site's: the very run of the class's
    demonstrations, which the run cache shares with every student.  Make
    check's data-seeds grades them at SEED=2 (tests/check_seeds.py)."""
    if step.get("class_seed"):
        return "what its readers read of it no seed changes (steps.toml: class_seed)"
    exs = [ex for ex in lab.exercises if ex["step"] == step["name"]]
    if not exs or not all(f.endswith(DATA_FILES) for ex in exs for f in ex["files"]):
        return ""
    if "gdb" in step:
        with open(lab.path(step["gdb"])) as f:
            if student_gdb.split(f.read()) is not None:
                return ""
    if student_of(step.get("cmdline", "")):
        return ""
    return "its exercises answer in data, facts of the run that no seed changes"


def seed_of_step(lab, step, demos):
    """The seed the step runs at in this grading (printing why when it is
    the class's, not this run's)."""
    why = "" if demos or vm.run_seed() == vm.DEFAULT_SEED else class_seed_step(lab, step)
    if not why:
        return vm.run_seed()
    print("     step %s runs at SEED=%d, the class's: %s" % (step["name"], vm.DEFAULT_SEED, why),
          flush=True)
    return vm.DEFAULT_SEED


def at_class_seed(lab, run_step):
    """run_step for the steps an exercise's check reads (Runs, grading
    exercises only): each at seed_of_step's seed."""
    def run(folder, step, runs):
        with AtSeed(seed_of_step(lab, step, demos=False)):
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
