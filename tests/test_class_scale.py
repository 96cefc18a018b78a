# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A class at scale, without a kernel: points and partial credit, the
summary's bytes whatever the order, SHARD, grade-merge, and Gradescope's
results.json (its specification checked here)."""
import json
import os

import pytest

from classroom import autograder, gradeclass, secret, summary
from labs import grade


def result(student_points, seed=5, why=None):
    """A grade-class result: {exercise id: (points, max, tiers)}."""
    exs = []
    for i, (pts, mx) in student_points.items():
        e = {"id": i, "title": "t" + i, "files": [], "done": pts == mx, "max_points": mx,
             "points": pts, "tier_points": {"own": pts, "hidden": pts}}
        if why and i in why:
            e["why"] = why[i]
        exs.append(e)
    return {"seed": seed, "score": 1, "total": 2, "demonstrations": {"good": 1, "total": 1},
            "exercises": {"done": sum(e["done"] for e in exs), "total": len(exs), "list": exs},
            "points": grade.points_of(exs),
            "checks": [{"exercise": "1.1", "check": "c", "ok": False, "why": "wrong",
                        "seed": "hidden"}]}


def test_partial_credit_is_the_share_of_good_checks():
    assert grade.credit(3, [("a", True, ""), ("b", False, ""), ("c", True, "")]) == 2
    assert grade.credit(2, [("a", None, ""), ("b", True, "")]) == 1   # TEACHER earns nothing here
    assert grade.credit(5, []) == 0
    p = grade.points_of([{"id": "1.1", "points": 1.5, "max_points": 2},
                         {"id": "2.1", "points": 2, "max_points": 2}])
    assert p == {"earned": 3.5, "max": 4, "labs": {"1": {"earned": 1.5, "max": 2},
                                                   "2": {"earned": 2, "max": 2}}}


def test_every_exercise_has_points():
    from labs import lab
    assert all(ex["points"] > 0 for x in lab.load_all() for ex in x.exercises)


def test_the_summary_is_the_same_bytes_whatever_the_order(tmp_path):
    rows = [{"student": "bob", "result": result({"1.1": (2, 2), "1.2": (0, 2)})},
            {"student": "ann", "result": result({"1.1": (1, 2), "1.2": (0, 2)}, seed=9)}]
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "ann.answers.md").write_text("1. yes\n")
    (b / "ann.answers.md").write_text("1. yes\n")
    summary.summary(rows, str(a))
    summary.summary(rows[::-1], str(b))
    for f in ("summary.csv", "summary.json", "summary.html"):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    csv = (a / "summary.csv").read_text().splitlines()
    assert csv[0].startswith("student,seed,points,max points,exercises done")
    assert csv[1].startswith("ann,9,1,4,") and csv[1].endswith("ann.answers.md")
    page = (a / "summary.html").read_text()
    assert "<details><summary>why</summary>" in page and "[hidden seed] c: wrong" in page


def test_grade_merge_joins_the_slices(tmp_path):
    for name, pts in (("ann", 1), ("bob", 2)):
        (tmp_path / (name + ".json")).write_text(json.dumps(result({"1.1": (pts, 2)})))
    rows = gradeclass.grade_merge(str(tmp_path))
    assert [r["student"] for r in rows] == ["ann", "bob"]
    assert (tmp_path / "summary.csv").exists()
    (tmp_path / "carol.json").write_text("{not json")
    with pytest.raises(Exception, match="not a student's results"):
        gradeclass.grade_merge(str(tmp_path))


def test_shards_are_checked():
    assert gradeclass.shard_of("2/3") == (2, 3) and gradeclass.shard_of("") is None
    for bad in ("0/3", "4/3", "x", "1/0"):
        with pytest.raises(Exception, match="SHARD must be"):
            gradeclass.shard_of(bad)


# Gradescope's results.json (its documentation, "Autograder Specifications"):
# top-level keys, and the keys and types of a test
TOP = {"score", "execution_time", "output", "output_format", "test_output_format",
       "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
       "leaderboard"}
TEST = {"score": (int, float), "max_score": (int, float), "status": str, "name": str,
        "name_format": str, "number": str, "output": str, "output_format": str,
        "tags": list, "visibility": str, "extra_data": dict}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def valid(results):
    """The ways `results` breaks Gradescope's specification: []."""
    bad = ["unknown top-level key %r" % k for k in results if k not in TOP]
    if not isinstance(results.get("tests"), list):
        return bad + ["no tests list"]
    for t in results["tests"]:
        bad += ["test key %r" % k for k in t if k not in TEST]
        bad += ["test %r: %s is not %s" % (t.get("name"), k, TEST[k]) for k in t
                if k in TEST and not isinstance(t[k], TEST[k])]
        if t.get("visibility", "visible") not in VISIBILITY:
            bad.append("visibility %r" % t["visibility"])
        if t.get("score", 0) > t.get("max_score", 0):
            bad.append("test %r scores over its max" % t.get("name"))
    if results.get("visibility", "visible") not in VISIBILITY:
        bad.append("top-level visibility")
    return bad


def test_results_json_follows_gradescope_with_points_and_a_hidden_tier():
    r = autograder.results(result({"1.1": (2, 2), "1.3": (0, 3)},
                                  why={"1.3": "holds only for SEED=1"}))
    assert valid(r) == []
    assert sum(t["max_score"] for t in r["tests"]) == 5 and r["score"] == 2
    hidden = [t for t in r["tests"] if t["visibility"] == "after_due_date"]
    assert len(hidden) == 2 and all("hidden seed" in t["name"] for t in hidden)
    assert any("holds only for SEED=1" in t["output"] for t in r["tests"])


def test_run_autograder_on_a_simulated_root(tmp_path, monkeypatch):
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission_metadata.json").write_text(json.dumps(
        {"users": [{"email": "ann.lee@example.edu", "name": "Ann"}]}))
    got = {}

    def fake(entry, out_json, lab, seeds, twins):
        got.update(entry=entry, seeds=seeds)
        return result({"1.1": (1, 2)}, seed=seeds[0])
    monkeypatch.setenv("KASAN_TAGS_COURSE_SECRET", str(tmp_path / "secret"))
    (tmp_path / "secret").write_text("a secret of at least sixteen bytes\n")
    monkeypatch.setattr(autograder, "grade_one", fake)
    monkeypatch.setenv(autograder.ROOT_ENV, str(root))
    out = autograder.run()
    r = json.loads(open(out).read())
    assert out == os.path.join(str(root), "results", "results.json") and valid(r) == []
    assert got["seeds"] == secret.seeds_of("ann.lee", b"a secret of at least sixteen bytes")
    assert r["tests"][0]["name"].startswith("1.1 ") and r["tests"][0]["score"] == 0.5
    t = r["tests"][0]
    assert (t["number"], t["status"], t["output_format"]) == ("1.1.1", "failed", "md")
    assert isinstance(r["execution_time"], (int, float))


def test_a_class_grades_its_demonstrations_once_and_each_student_exercises_only():
    """with_demonstrations: the class's demonstration checks take the place
    of a student's own; the student's exercise checks stay; tallies follow."""
    demos = {"seed": 1, "demonstrations": {"good": 1, "total": 2},
             "checks": [{"exercise": None, "check": "d1", "ok": True, "why": ""},
                        {"exercise": None, "check": "d2", "ok": False, "why": "x"}]}
    mine = {"checks": [{"exercise": None, "check": "own demo", "ok": True, "why": ""},
                       {"exercise": "1.3", "check": "e", "ok": True, "why": ""},
                       {"exercise": "1.3", "check": "t", "ok": None, "why": ""}],
            "score": 2, "total": 2, "teacher_only": 1,
            "demonstrations": {"good": 1, "total": 1}}
    gradeclass.with_demonstrations(mine, demos)
    assert [c["check"] for c in mine["checks"]] == ["d1", "d2", "e", "t"]
    assert (mine["score"], mine["total"], mine["teacher_only"]) == (2, 3, 1)
    assert mine["demonstrations"] == {"good": 1, "total": 2, "seed": 1}


def test_exercises_only_runs_the_steps_exercises_are_graded_on():
    from labs import lab as labdata
    seven = labdata.by_number(7)
    names = grade.exercise_steps(seven)
    assert names and set(names) == {ex["step"] for ex in seven.exercises}
    assert "uaf" not in names            # a demonstration; 7.2's check reads it


def test_a_step_answered_in_data_runs_at_the_class_seed_in_exercises_only(monkeypatch):
    """Grading a student's exercises, a step whose exercises all answer in
    a TOML file and that runs nothing of the student's (lab 3's mystery,
    lab 5's experiments, lab 6's, 8.1's table, 9.1's report), or that says
    class_seed (lab 7's field, which 7.3's check reads), runs at SEED=1,
    whatever the student's seed: the class's demonstration run, which the
    run cache shares.  A step graded on the student's code (a gdb
    file, a module, a Python file, a patch) keeps the student's seed."""
    from labs import lab as labdata
    every = {lab.number: lab for lab in labdata.load_all()}
    at_class = {(n, s["name"]) for n, lab in every.items() for s in lab.steps
                if grade.class_seed_step(lab, s)}
    assert at_class == {(3, "mystery"), (5, "no-tbi"), (5, "fixed-tag"), (5, "no-untag-phys"),
                        (5, "no-redzone-tag"), (5, "no-brk-hook"), (6, "hwtags"), (6, "async"),
                        (7, "field"), (8, "table"), (9, "report")}
    five, one = every[5], every[1]
    # a data-answered step that ran the student's module would not be the class's
    assert not grade.class_seed_step(five, dict(five.step("no-tbi"), cmdline="kt_run=student-x"))
    assert not grade.class_seed_step(five, dict(five.step("fixed-tag"), cmdline="kt_qfq=student"))
    seen = []
    monkeypatch.setenv("SEED", "77")
    monkeypatch.setattr(grade, "grade_with_exercises",
                        lambda lab, step, runs, tally: seen.append((step["name"],
                                                                    grade.vm.run_seed())))
    monkeypatch.setattr(grade.sandbox, "require", lambda: None)
    grade.grade([five.folder, one.folder], demos=False)
    assert seen and all(sd == 1 for n, sd in seen if n in grade.exercise_steps(five))
    assert all(sd == 77 for n, sd in seen if n in grade.exercise_steps(one))
    assert grade.vm.run_seed() == 77                               # as before, after
    seen.clear()
    grade.grade([five.folder], only_steps=grade.exercise_steps(five))
    assert seen and all(sd == 77 for _, sd in seen)               # a student's own make grade


def test_data_seeds_says_bad_for_an_answer_not_done_at_another_seed():
    """tests/check_seeds.py: the steps it grades at SEED=2 are the ones a
    class grades at SEED=1; an exercise not done there, or not graded, is BAD."""
    from labs import lab as labdata
    from tests import check_seeds
    steps = dict((lab.number, names) for lab, names in check_seeds.class_seed_steps())
    assert steps[5] == grade.exercise_steps(labdata.by_number(5)) and 1 not in steps
    three = labdata.by_number(3)
    done = [{"id": i, "done": True} for i in ("3.1", "3.2", "3.3")]
    assert check_seeds.verdict(three, ["mystery"], done) == (["3.1", "3.2", "3.3"], [])
    _, bad = check_seeds.verdict(three, ["mystery"], [dict(done[0], done=False), done[1]])
    assert bad == ["3.1: not done at SEED=2", "3.3: not graded at SEED=2"]


def test_a_step_an_exercise_reads_runs_when_it_is_read():
    """Runs(lab): lab 7's 7.2 reads the uaf step's run, which DEMOS=no did
    not run: it runs then, once; a name of no step is a KeyError."""
    from labs import lab as labdata
    seven = labdata.by_number(7)
    ran = []
    runs = grade.Runs(seven, lambda lab, step, runs: ran.append(step["name"])
                      or "run of " + step["name"])
    assert runs.get("uaf") == "run of uaf" and runs["uaf"] == "run of uaf"
    assert ran == ["uaf"] and runs.can_run("field") and not grade.Runs(None).can_run("uaf")
    assert runs.get("no-such-step") is None
    with pytest.raises(KeyError):
        grade.Runs(None)["uaf"]


@pytest.mark.skipif(os.path.exists(os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "labs", "HANDOUT")), reason="a student tree's README is theirs")
def test_the_readme_quotes_bench_class_as_it_printed():
    """The README's class of 300 is the line make bench-class --keep stored."""
    import re
    from conftest import REPO
    kept = open(os.path.join(REPO, "bench", "stored", "bench-class.txt")).read()
    m = re.search(r"a class of 300 in ([\d.]+) h on five machines", kept)
    readme = " ".join(open(os.path.join(REPO, "README.md")).read().split())
    assert m and "a class of 300 in %s h on five" % m.group(1) in readme
