# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every exercise check on stored real runs (labs/*/runs/): GOOD with the
solution tree's files; BAD with the handout's stubs (Python and TOML
exercises, whose answer is read at grading time); BAD on a run altered in
the one value the check compares (gdb and C exercises, whose answer is in
the run; each lab's EX_ALTER table, labs/NN-name/test_labNN.py).  `make
check` adds the live proof: a real handout scores 0."""
import os
import re
import shutil

import pytest

from conftest import REPO
from labs import edition, lab
from tests.graderlib import LABS, load, needs_run, offline, run_of, solution_only, stored, table

EXERCISES = [(x.folder, ex) for x in LABS.values() for ex in x.exercises]
# Exercises whose answer is a file the check reads: Python or TOML (the
# stub must be BAD); a gdb file or C's answer is in the run (ALTER below).
READ_AT_GRADING = {ex["id"] for _, ex in EXERCISES
                   if all(f.endswith((".py", ".toml")) for f in ex["files"])}
ALTER = [row[1:] for row in table("EX_ALTER")]


def runs_of(folder):
    x = LABS[int(folder[:2])]
    return {s["name"]: run_of(folder, s["name"], stored(folder, s["name"])) for s in x.steps
            if load(folder, s["name"], "serial") is not None}


@pytest.fixture(autouse=True, scope="module")
def offline_checks():
    for x in LABS.values():
        offline(x)


def grade(x, ex, data=None):
    runs = runs_of(x.folder)
    run = run_of(x.folder, ex["step"], data) if data else runs[ex["step"]]
    return x.exercise_checker(ex)(run, runs)


def test_at_least_twelve_exercises_in_five_labs():
    assert len(EXERCISES) >= 12 and {int(f[:2]) for f, _ in EXERCISES} == set(LABS)


@solution_only
@pytest.mark.parametrize("folder,ex", EXERCISES, ids=[e["id"] for _, e in EXERCISES])
def test_solution_is_good(folder, ex):
    res = grade(LABS[int(folder[:2])], ex)
    assert res and all(ok for _, ok, _ in res), [r for r in res if not r[1]]


@solution_only
@pytest.mark.parametrize("folder,ex", [e for e in EXERCISES if e[1]["id"] in READ_AT_GRADING],
                         ids=[e["id"] for _, e in EXERCISES if e["id"] in READ_AT_GRADING])
def test_handout_stub_is_bad(folder, ex, tmp_path):
    """The lab folder as the handout has it: solutions replaced by stubs."""
    shutil.copytree(os.path.join(REPO, "labs", folder), tmp_path / folder)
    for f in ex["files"]:
        rel = os.path.relpath(f, os.path.join("labs", folder))
        path = tmp_path / folder / rel
        path.write_text(edition.strip(path.read_text(), f))
    x = lab.load_lab(folder, str(tmp_path))
    offline(x)
    res = grade(x, ex)
    assert res and not all(ok for _, ok, _ in res), res


@pytest.mark.parametrize("ex_id,step,kind,pattern,repl", ALTER,
                         ids=["%s-%d" % (a[0], i) for i, a in enumerate(ALTER)])
def test_altered_run_is_bad(ex_id, step, kind, pattern, repl):
    folder, ex = next(e for e in EXERCISES if e[1]["id"] == ex_id)
    data = stored(folder, step)
    needs_run(data[kind], "%s/%s" % (folder, step))
    assert data[kind] is not None, "no stored %s of %s/%s" % (kind, folder, step)
    new, n = re.subn(pattern, repl, data[kind], count=0 if kind == "control" else 1,
                     flags=re.M)
    assert n >= 1, "the alteration /%s/ does not apply" % pattern
    data[kind] = new
    res = grade(LABS[int(folder[:2])], ex, data)
    assert not all(ok for _, ok, _ in res), "altered %s still GOOD" % pattern


HIDDEN = 1566910260     # a hidden seed: its value must show nowhere a student reads


@solution_only
@pytest.mark.parametrize("folder,ex", EXERCISES, ids=[e["id"] for _, e in EXERCISES])
def test_no_check_shows_the_seed_it_ran_at(folder, ex, monkeypatch):
    """Gradescope shows the hidden tier's check names and reasons: a name or
    a reason that printed the seed would hand the student the hidden seed."""
    monkeypatch.setenv("SEED", str(HIDDEN))
    res = grade(LABS[int(folder[:2])], ex)
    shown = [str(x) for r in res for x in r[:1] + r[2:]]
    assert res and not [s for s in shown if str(HIDDEN) in s or "%x" % HIDDEN in s], res


def test_a_reason_is_never_cut_inside_a_value():
    from labs.exercises import clip
    stop = "=> 0xffffffc00812d448 <__kasan_kmalloc>:\tstp\tx29, x30, [sp, #-48]! x0: 0x16ffff8000801200"
    for n in range(10, len(stop)):
        shown = clip(stop, n).split(" [... ")[0]
        assert stop.startswith(shown) and (shown == stop or stop[len(shown)] == " "), (n, shown)
    assert clip("short", 100) == "short" and "0x16ffff8000801200" in clip(stop, 95)
    assert clip("0x" + "f" * 40, 10) == "0x" + "f" * 40
