# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The catalogue of known mistakes (labs/mistakes.py): every exercise has at
least three; each, planted in the solution (the lab's grader-only
planted.py), is graded not done and answered by its own hint and no other;
the solution gets none; and the hints a student is shown are recorded."""
import importlib.util
import os
import shutil

import pytest

from labs import lab, mistakes
from tests.graderlib import LABS, offline, run_of, solution_only, stored
from tests.test_exercises import EXERCISES, runs_of

MIN_PER_EXERCISE = 3


def planted(x):
    path = x.path("planted.py")
    if not os.path.exists(path):
        return []
    spec = importlib.util.spec_from_file_location("kt_planted_%02d" % x.number, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.PLANTS


PLANTS = [(x.folder, p) for x in LABS.values() for p in planted(x)]
CATALOGUE = [(x.folder, m) for x in LABS.values() for m in mistakes.catalogue(x)]


@pytest.fixture(autouse=True, scope="module")
def offline_checks():
    for x in LABS.values():
        offline(x)


def exercise(folder, ex_id):
    return next(e for f, e in EXERCISES if f == folder and e["id"] == ex_id)


@solution_only
def test_every_exercise_has_three_known_mistakes():
    have = {}
    for folder, m in CATALOGUE:
        have.setdefault(m["exercise"], []).append(m["id"])
    short = {e["id"]: len(have.get(e["id"], [])) for _, e in EXERCISES
             if len(have.get(e["id"], [])) < MIN_PER_EXERCISE}
    assert not short, "exercises with fewer than %d known mistakes: %s" % (MIN_PER_EXERCISE, short)


def test_a_prediction_s_mistakes_are_the_teacher_s_alone():
    """They tell which outcomes are wrong: mistakes-teacher.toml, which the
    lab's steps.toml makes grader-only (a handout leaves it out)."""
    for x in LABS.values():
        preds = {e["id"] for e in x.exercises if e.get("prediction")}
        shipped = [m["id"] for m in mistakes.catalogue(x) if m["exercise"] in preds
                   and m in shipped_entries(x)]
        assert not shipped, "%s: prediction mistakes in %s: %s" % (x.folder, mistakes.CATALOGUE,
                                                                   shipped)
        if os.path.exists(x.path(mistakes.TEACHER)):
            assert mistakes.TEACHER in x.spec.get("grader_only", []), x.folder


def shipped_entries(x):
    import tomllib
    path = x.path(mistakes.CATALOGUE)
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        return tomllib.load(f).get("mistake", [])


def test_hints_are_three_distinct_sentences_and_not_another_mistakes():
    seen = set()
    for _, m in CATALOGUE:
        assert len(set(m["hints"])) == mistakes.LEVELS, m["id"]
        assert not seen & set(m["hints"]), m["id"]
        seen |= set(m["hints"])


@solution_only
def test_every_mistake_is_planted_once():
    assert sorted((f, p["mistake"]) for f, p in PLANTS) == sorted((f, m["id"]) for f, m in CATALOGUE)


def diagnosis(x, ex, runs, run):
    res = x.exercise_checker(ex)(run, runs)
    return res, mistakes.diagnose(x, ex, run, runs)


@solution_only
@pytest.mark.parametrize("folder,ex", EXERCISES, ids=[e["id"] for _, e in EXERCISES])
def test_the_solution_shows_no_known_mistake(folder, ex):
    x = LABS[int(folder[:2])]
    runs = runs_of(folder)
    assert mistakes.diagnose(x, ex, runs[ex["step"]], runs) == []


def graded_plant(folder, plant, tmp_path):
    """(results, mistakes found) of the exercise with the plant: its edits in
    a copy of the lab folder, or (an exercise whose answer is in its run)
    its alterations of the stored runs."""
    m = next(m for f, m in CATALOGUE if f == folder and m["id"] == plant["mistake"])
    x = LABS[int(folder[:2])]
    for rel, old, new in plant["edits"]:
        path = os.path.join(lab.HERE, folder, rel) if not rel.startswith("labs/") else \
            os.path.join(os.path.dirname(lab.HERE), rel)
        assert open(path).read().count(old) == 1, "%s: %r is not in %s once" % (m["id"], old, rel)
    if "runs" not in plant:
        shutil.copytree(os.path.join(lab.HERE, folder), tmp_path / folder)
        for rel, old, new in plant["edits"]:
            path = tmp_path / folder / rel
            path.write_text(path.read_text().replace(old, new))
        x = lab.load_lab(folder, str(tmp_path))
        offline(x)
    ex = exercise(folder, m["exercise"])
    runs = runs_of(folder)
    for step, kinds in plant.get("runs", {}).items():
        data = stored(folder, step)
        for kind, alter in kinds.items():
            data[kind] = alter(data[kind])
        runs[step] = run_of(folder, step, data)
    return diagnosis(x, ex, runs, runs[ex["step"]])


@solution_only
@pytest.mark.parametrize("folder,plant", PLANTS, ids=[p["mistake"] for _, p in PLANTS])
def test_a_planted_mistake_is_bad_and_gets_its_own_hint(folder, plant, tmp_path):
    res, found = graded_plant(folder, plant, tmp_path)
    assert not all(ok is not False for _, ok, _ in res) or any(ok is None for _, ok, _ in res), res
    assert any(ok is False for _, ok, _ in res), "the planted %s is graded GOOD" % plant["mistake"]
    assert found == [plant["mistake"]], found


def test_hints_shown_are_recorded_and_get_more_specific(tmp_path):
    x = LABS[1]
    state = str(tmp_path / "hints.json")
    m = mistakes.of_exercise(x, "1.1")[0]["id"]
    assert mistakes.graded("1.1", [m], state) == [{"mistake": m, "level": 1}]
    texts = [mistakes.next_hint(x, "1.1", state) for _ in range(3)]
    assert [mistakes.text(x, m, n) in t for n, t in zip((2, 3, 3), texts)] == [True] * 3
    assert "the last one" in texts[-1]
    # a new grading keeps the most specific hint shown
    assert mistakes.graded("1.1", [m], state) == [{"mistake": m, "level": 3}]
    assert mistakes.shown("1.1", state) == [{"mistake": m, "level": 3}]


@pytest.mark.parametrize("args,why", [
    (["1", "1.9"], "no exercise 1.9"), (["1", "1.1"], "not been graded"),
    (["", "1.1"], "needs N="), (["99", "1.1"], "no lab 99")])
def test_make_hint_refuses_in_one_line(args, why, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(mistakes, "STATE", str(tmp_path / "hints.json"))
    monkeypatch.setattr(mistakes.next_hint, "__defaults__", (str(tmp_path / "hints.json"),))
    assert mistakes.main(args) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and why in out, out


def test_no_known_mistake_says_where_the_rules_are(tmp_path):
    state = str(tmp_path / "hints.json")
    mistakes.graded("1.2", [], state)
    with pytest.raises(Exception, match="What the grader checks"):
        mistakes.next_hint(LABS[1], "1.2", state)


def test_make_grade_prints_the_hint_and_records_it(tmp_path, monkeypatch, capsys):
    """labs/grade.py: an exercise not done whose work shows a known mistake
    gets its hint printed, and its record names the mistake and the hints
    shown; a done exercise gets none."""
    from labs import grade
    x = LABS[1]
    m = mistakes.of_exercise(x, "1.2")[0]
    state = str(tmp_path / "hints.json")
    monkeypatch.setattr(mistakes, "STATE", state)
    for fn in (mistakes.graded, mistakes.shown):
        monkeypatch.setattr(fn, "__defaults__", (state,))
    monkeypatch.setattr(mistakes, "diagnose", lambda *a: [m["id"]])
    ex = exercise(x.folder, "1.2")
    tally = grade.Tally()
    bad = [("a check", False, "why")]
    tally.add(x.folder, ex["step"], bad, 0.0, exercise=ex,
              hints=grade.hints_of(x, ex, bad, object(), {}))
    out = capsys.readouterr().out
    assert "HINT ex 1.2 (1 of 3, %s): %s" % (m["id"], m["hints"][0]) in out
    assert "make hint N=1 EX=1.2" in out
    rec = tally.exercises[-1]
    assert rec["mistakes"] == [m["id"]] and rec["hints_shown"] == [{"mistake": m["id"], "level": 1}]
    good = [("a check", True, "")]
    assert grade.hints_of(x, ex, good, object(), {}) == []


@solution_only
def test_no_hint_states_a_solution_line_or_formula():
    from tests import leaks
    pairs, lines = leaks.exercise_answers()
    forms = leaks.formulas(lines)
    hints = [h for _, m in CATALOGUE for h in m["hints"]]
    assert leaks.formula_leaks(hints, forms) == []
    assert leaks.line_leaks(hints, lines) == []
