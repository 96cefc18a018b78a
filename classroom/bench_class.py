# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-class`: what grading a class costs here.  A benchmark that
prints its figures, not a test.

    students per hour   `make grade-class` of STUDENTS handouts (exercise
                        1.3 solved in each), JOBS=1 then JOBS=2, labs LABS
    per lab             at one CPU (taskset -c 0), in a tree as grade-class
                        grades it: the class's demonstrations (one whole
                        `make grade` at SEED=1, once per class) and one
                        student's exercises (one `make grade DEMOS=no` at
                        each of two seeds, every exercise solved); a lab's
                        share is what its grading said it took.
                        Gradescope's half CPU is slower still
    peak memory         the largest resident set of any process of a grading
                        (QEMU, gdb, make, Python)
    projected           300 students on K machines of this kind, JOBS=2:
                        the demonstrations once per machine, then the
                        students, JOBS=2 grading as measured above

Runs are kept as grade-class keeps them (vm/runcache.py), in a run cache
of the bench's own (KASAN_TAGS_RUNS), emptied before each figure: a
figure reads only the runs it made -- the student's, the runs of the
class's demonstrations that grade-class shares with every student (a
prediction's step), never one of an earlier bench or `make check`.
STUDENTS=4 and LABS=1 by default (BENCH_CLASS="--students N --labs
1,2,..."); all the labs take about 25 times as long.
"""

import argparse
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import time

import vm
from classroom import gradeclass, handout
from labs import lab as labdata

REPO = vm.REPO
TOP = os.path.join(REPO, "build", "bench-class")
# What --keep writes: the figures the teacher's guide and the README quote.
KEPT_REL = os.path.join("bench", "stored", "bench-class.txt")
# the timed student's seed and hidden seed (any two but the class's)
STUDENT_SEEDS = (7, 8)


RUNS = os.path.join(TOP, "runs")


def env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    e["KASAN_TAGS_COURSE_SECRET"] = os.path.join(TOP, "secret")
    e["KASAN_TAGS_RUNCACHE"], e["KASAN_TAGS_RUNS"] = "1", RUNS
    e["JOBS"] = "1"   # each grading in one process, as grade-class runs it
    return e


def no_runs():
    """An empty run cache: what the next figure reads, it made."""
    shutil.rmtree(RUNS, ignore_errors=True)
    os.makedirs(RUNS)


def make_class(n):
    trees = os.path.join(TOP, "class")
    shutil.rmtree(trees, ignore_errors=True)
    rel = os.path.join("labs", labdata.by_number(1).folder, "student", "tagstop.gdb")
    for i in range(n):
        dest = os.path.join(trees, "s%02d" % (i + 1))
        handout.make_handout(dest)
        shutil.copy(os.path.join(REPO, rel), os.path.join(dest, rel))
    return trees


def grade_class(trees, jobs, labs):
    """Seconds of one `make grade-class` of the class, one lab at a time."""
    t0 = time.time()
    no_runs()
    for lab in labs:
        out = os.path.join(TOP, "out-jobs%d-lab%s" % (jobs, lab))
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run(["make", "-s", "-C", REPO, "grade-class", "CLASS=" + trees,
                            "OUT=" + out, "N=" + lab, "JOBS=%d" % jobs], env=env(),
                           capture_output=True, text=True)
        if p.returncode:
            raise vm.KtError("grade-class failed: %s" % (p.stdout + p.stderr).strip()[-400:])
    return time.time() - t0


def solved(tree):
    """Every exercise of the tree solved: the solution's files, as a
    student who did them all hands them in (each step runs to its end)."""
    for rel in gradeclass.declared_files():
        if os.path.isfile(os.path.join(REPO, rel)):
            shutil.copy(os.path.join(REPO, rel), os.path.join(tree, rel))


def at_one_cpu(tree, seed, demos=True):
    """(seconds, {lab folder: seconds}, peak resident MiB) of one `make
    grade SEED=seed` of every lab in a grading tree, pinned to CPU 0, as
    grade-class runs it; demos=False: the exercises only (DEMOS=no)."""
    out = os.path.join(TOP, "grading-%d.json" % seed)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.time()
    p = subprocess.run(["taskset", "-c", "0", "make", "-s", "-C", tree, "grade", "OUT=" + out]
                       + ([] if demos else ["DEMOS=no"]),
                       env=dict(env(), SEED=str(seed)), capture_output=True, text=True)
    secs = time.time() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    try:
        with open(out) as f:
            per_lab = json.load(f)["seconds"]
    except (OSError, ValueError, KeyError):
        raise vm.KtError("make grade SEED=%d gave no results (exit %d): %s" % (
            seed, p.returncode, (p.stdout + p.stderr).strip()[-400:]))
    return secs, per_lab, max(peak, before) / 1024.0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="make bench-class")
    ap.add_argument("--students", type=int, default=4)
    ap.add_argument("--labs", default="1")
    ap.add_argument("--keep", action="store_true",
                    help="also write what it prints to %s (the pages quote it)" % KEPT_REL)
    a = ap.parse_args(argv)
    said = []

    def say(text):
        said.append(text)
        print(text, flush=True)
    labs = [x.strip() for x in a.labs.split(",") if x.strip()]
    os.makedirs(TOP, exist_ok=True)
    with open(os.path.join(TOP, "secret"), "w") as f:
        f.write("bench-class secret, 0123456789abcdef\n")
    try:
        trees = make_class(a.students)
        say("bench-class: %d students, labs %s, each graded at its seed and a hidden one; "
            "runs kept as grade-class keeps them, from an empty run cache"
            % (a.students, ",".join(labs)))
        rate = {}
        for jobs in (1, 2):
            secs = grade_class(trees, jobs, labs)
            rate[jobs] = a.students * 3600.0 / secs
            say("  JOBS=%d: %6.1f s for the class: %6.1f students per hour" % (
                jobs, secs, rate[jobs]))
        say("  JOBS=2 grades %.2fx as many students per hour as JOBS=1" % (rate[2] / rate[1]))
        tree = os.path.join(trees, "s01")
        gradeclass.restore_grader(tree)
        solved(tree)
        no_runs()
        # the class's demonstrations, at the class's seed, kept as
        # grade-class keeps them; then one student's two seeds
        whole, demo_labs, peak = at_one_cpu(tree, gradeclass.DEMO_SEED)
        exercises, ex_labs = 0.0, {}
        for seed in STUDENT_SEEDS:
            secs, per_lab, mib = at_one_cpu(tree, seed, demos=False)
            exercises, peak = exercises + secs, max(peak, mib)
            for lab, t in per_lab.items():
                ex_labs[lab] = ex_labs.get(lab, 0.0) + t
        for lab in labdata.load_all():
            say("  lab %d at one CPU (taskset -c 0): %6.1f s whole (SEED=%d), %6.1f s its "
                "exercises at two seeds" % (lab.number, demo_labs.get(lab.folder, 0.0),
                                            gradeclass.DEMO_SEED, ex_labs.get(lab.folder, 0.0)))
        say("  all %d labs at one CPU, one make grade each: %.0f s whole (the class's "
            "demonstrations, once); a student's exercises at two seeds: %.0f s"
            % (len(labdata.load_all()), whole, exercises))
        say("  peak resident memory of one process of a grading: %.0f MiB" % peak)
        # a student: the exercises of every lab at two seeds, one CPU's
        # worth; JOBS=2 on this 2-core machine grades rate[2]/rate[1] as
        # many at once; each machine first grades the demonstrations once
        per_student = exercises / (rate[2] / rate[1])
        for k in (1, 5, 10, 30):
            hours = (whole + 300 * per_student / k) / 3600.0
            say("  projected: 300 students, all labs: %.1f h on %d machine%s of this kind "
                "(JOBS=2)" % (hours, k, "s" if k > 1 else ""))
        say("bench-class: a class of 300 in %.1f h on five machines"
            % ((whole + 300 * per_student / 5) / 3600.0))
        if a.keep:
            with open(os.path.join(REPO, KEPT_REL), "w") as f:
                f.write("$ make bench-class BENCH_CLASS=%s\n%s\n" % (shlex.quote(" ".join(
                    argv if argv is not None else sys.argv[1:])), "\n".join(said)))
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    finally:
        shutil.rmtree(os.path.join(TOP, "class"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
