# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-class`: what grading a class costs here.  A benchmark that
prints its figures, not a test.

    students per hour   `make grade-class` of STUDENTS handouts (exercise
                        1.3 solved in each), JOBS=1 then JOBS=2, labs LABS
    per lab             one student's grading of each lab at one CPU, in a
                        tree as grade-class grades it (taskset -c 0):
                        Gradescope's half CPU is slower still
    peak memory         the largest resident set of any process of a grading
                        (QEMU, gdb, make, Python)
    projected           300 students on K machines of this kind, JOBS=2

No run is read from the run cache (KASAN_TAGS_RUNCACHE is unset): every
boot is timed.  STUDENTS=4 and LABS=1 by default (BENCH_CLASS="--students
N --labs 1,2,..."); all eight labs take about 25 times as long.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

import vm
from classroom import handout
from labs import lab as labdata

REPO = vm.REPO
TOP = os.path.join(REPO, "build", "bench-class")


def env():
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("MAKE") and k != "KASAN_TAGS_RUNCACHE"}
    e["KASAN_TAGS_COURSE_SECRET"] = os.path.join(TOP, "secret")
    return e


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
    for lab in labs:
        out = os.path.join(TOP, "out-jobs%d-lab%s" % (jobs, lab))
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run(["make", "-s", "-C", REPO, "grade-class", "CLASS=" + trees,
                            "OUT=" + out, "N=" + lab, "JOBS=%d" % jobs], env=env(),
                           capture_output=True, text=True)
        if p.returncode:
            raise vm.KtError("grade-class failed: %s" % (p.stdout + p.stderr).strip()[-400:])
    return time.time() - t0


def grading_tree(tree):
    """One student's tree as make grade-class grades it: with what only the
    grader reads put back (classroom/handout.py: grader_restore)."""
    for rel in handout.grader_restore():
        shutil.copy(os.path.join(REPO, rel), os.path.join(tree, rel))
    return tree


def one_lab_at_one_cpu(tree, lab):
    """(seconds, peak resident MiB) of `make grade N=lab` in a grading tree,
    pinned to CPU 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.time()
    subprocess.run(["taskset", "-c", "0", "make", "-s", "-C", tree, "grade", "N=" + lab],
                   env=dict(env(), SEED="7"), capture_output=True, text=True)
    secs = time.time() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return secs, max(peak, before) / 1024.0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="make bench-class")
    ap.add_argument("--students", type=int, default=4)
    ap.add_argument("--labs", default="1")
    a = ap.parse_args(argv)
    labs = [x.strip() for x in a.labs.split(",") if x.strip()]
    os.makedirs(TOP, exist_ok=True)
    with open(os.path.join(TOP, "secret"), "w") as f:
        f.write("bench-class secret, 0123456789abcdef\n")
    try:
        trees = make_class(a.students)
        print("bench-class: %d students, labs %s, each graded at its seed and a hidden one; "
              "no kept runs" % (a.students, ",".join(labs)), flush=True)
        rate = {}
        for jobs in (1, 2):
            secs = grade_class(trees, jobs, labs)
            rate[jobs] = a.students * 3600.0 / secs
            print("  JOBS=%d: %6.1f s for the class: %6.1f students per hour" % (
                jobs, secs, rate[jobs]), flush=True)
        print("  JOBS=2 grades %.2fx as many students per hour as JOBS=1" % (rate[2] / rate[1]))
        total = peak = 0.0
        tree = grading_tree(os.path.join(trees, "s01"))
        for lab in [str(x.number) for x in labdata.load_all()]:
            secs, mib = one_lab_at_one_cpu(tree, lab)
            total += secs
            peak = max(peak, mib)
            print("  lab %s at one CPU (taskset -c 0), one seed: %6.1f s" % (lab, secs),
                  flush=True)
        print("  all eight labs at one CPU, one seed: %.0f s; a student (two seeds): about %.0f s"
              % (total, 2 * total))
        print("  peak resident memory of one process of a grading: %.0f MiB" % peak)
        # a student: every lab at two seeds, one CPU's worth; JOBS=2 on this
        # 2-core machine grades rate[2]/rate[1] as many at once
        per_student = 2 * total / (rate[2] / rate[1])
        for k in (1, 5, 10, 30):
            print("  projected: 300 students, all labs, on %2d machine%s of this kind (JOBS=2): "
                  "%.1f h" % (k, "s" if k > 1 else " ", 300 * per_student / k / 3600.0))
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    finally:
        shutil.rmtree(os.path.join(TOP, "class"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
