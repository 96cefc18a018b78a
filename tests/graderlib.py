# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What the offline grader tests share: the stored real runs of every lab
(labs/NN-name/runs/, stored by `make fixtures` after `make grade`), a Run
made of them, and each lab's own tests (labs/NN-name/test_labNN.py), whose
tables the generic tests of tests/ read:

    ALTER     [(step, kind, regex, replacement)]: each alteration of a stored
              run must turn the step's check BAD
    EX_ALTER  [(exercise id, step, kind, regex, replacement)]: the same for
              an exercise's check

A lab is found by walking labs/; nothing here names one."""
import importlib.util
import lzma
import os

import pytest

import vm
from labs import lab
from labs.grade import Run

LABS = {x.number: x for x in lab.load_all()}
# A student tree (make handout) has stubs where the solutions were: the
# tests that need the solutions do not apply there.
HANDOUT = os.path.exists(os.path.join(vm.REPO, "labs", "HANDOUT"))
solution_only = pytest.mark.skipif(HANDOUT, reason="a student tree has no solutions")


def needs_run(data, what):
    """Skip where a student tree lacks a stored run (it leaves out those of
    every exercise step: classroom/handout.py exercise_runs); elsewhere a missing
    run is a failure of the test that needs it."""
    if HANDOUT and data is None:
        pytest.skip("a student tree has no stored run of %s" % what)


def lab_of(folder):
    return LABS[int(folder[:2])]


def this_lab(test_file):
    """The lab whose folder holds TEST_FILE (a lab's test_labNN.py)."""
    return lab_of(os.path.basename(os.path.dirname(os.path.abspath(test_file))))


def load(folder, step, kind):
    """The stored KIND (serial, gdb, control, json) of FOLDER's STEP, or None."""
    path = lab_of(folder).path("runs", "%s.%s.xz" % (step, kind))
    if not os.path.exists(path):
        return None
    with lzma.open(path, "rt") as f:
        return f.read()


def stored(folder, step):
    return {k: load(folder, step, k) for k in ("serial", "gdb", "control")}


def run_of(folder, step, data):
    """A graded Run of DATA ({kind: text}); a host step's output is stored
    as its serial log."""
    r = Run(folder, step, "<cache>/build/x")
    r.serial, r.gdb = data.get("serial") or "", data.get("gdb") or ""
    if lab_of(folder).step(step).get("host"):
        r.host, r.serial = r.serial, ""
    if data.get("control") is not None:
        r.control = Run(folder, step, "<cache>/build/x")
        r.control.serial = data["control"]
    return r


def grade(folder, step, data):
    """The step's check on DATA: [(name, ok, why)]."""
    x = lab_of(folder)
    s = x.step(step)
    return x.checker(s)(run_of(folder, step, data), s)


def named(res):
    return {n: ok for n, ok, _ in res}


def lab_tests(x):
    """The lab's own test module (test_labNN.py in its folder), or None."""
    path = x.path("test_lab%02d.py" % x.number)
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("kt_lab_tests_%02d" % x.number, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_TABLES = {}


def table(name):
    """[(lab folder, *row)] of every lab's table NAME (ALTER, EX_ALTER)."""
    if not _TABLES:
        _TABLES.update({n: lab_tests(x) for n, x in LABS.items()})
    return [(LABS[n].folder,) + tuple(row) for n, mod in _TABLES.items()
            for row in getattr(mod, name, [])]


def offline(x, module=None):
    """Prepare a lab's check module for grading without its kernel tree:
    the lab's own test module says how (offline(check)), if it must."""
    if not _TABLES:
        table("ALTER")
    hook = getattr(_TABLES.get(x.number), "offline", None)
    if hook:
        hook(module or x.module)
