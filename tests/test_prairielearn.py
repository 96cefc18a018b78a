# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""PrairieLearn's side of the grader (classroom/prairielearn.py), without a
grading: the layout it reads, the results it writes, and a grading that
cannot run said as such (make check grades in the grader image)."""

import json
import os

import pytest

import vm
from classroom import prairielearn as pl
from labs import lab as labdata


def layout(tmp_path, files, data=None):
    root = tmp_path / "grade"
    (root / "student").mkdir(parents=True)
    (root / "data").mkdir()
    for name, text in files.items():
        (root / "student" / name).write_text(text)
    (root / "data" / "data.json").write_text(json.dumps(data or {}))
    return str(root)


def test_the_student_id_comes_from_the_variant_seed(tmp_path):
    assert pl.student_id(layout(tmp_path, {}, {"variant_seed": 42})) == "pl-42"
    assert pl.student_id(str(tmp_path / "none")) == "pl-student"
    # data.json is the platform's, yet only letters and digits make the id
    assert pl.student_id(layout(tmp_path / "b", {}, {"variant_seed": "../x y"})) == "pl-xy"


def test_the_files_go_into_the_lab_s_student_folder(tmp_path):
    root = layout(tmp_path, {"tagmath.py": "x = 1\n"})
    os.symlink("/etc/passwd", os.path.join(root, "student", "link.py"))
    dest = pl.submission(root, "1", str(tmp_path / "sub"))
    folder = os.path.join(dest, "labs", labdata.by_number(1).folder, "student")
    assert sorted(os.listdir(folder)) == ["tagmath.py"]     # a link is not a file of theirs
    with pytest.raises(vm.KtError):
        pl.submission(root, "99", str(tmp_path / "sub99"))


def test_results_are_a_score_in_0_1_with_a_test_per_exercise_and_seed():
    res = {"seed": 5, "exercises": {"done": 1, "total": 2, "list": [
        {"id": "1.2", "title": "t", "max_points": 2, "points": 2, "done": True},
        {"id": "1.3", "title": "u", "max_points": 4, "points": 0, "done": False,
         "why": "no run"}]}, "demonstrations": {"good": 3, "total": 3}}
    r = pl.results(res)
    assert r["gradable"] is True and r["score"] == round(2 / 6, 4)
    assert [(t["points"], t["max_points"]) for t in r["tests"]] == [(1, 1), (1, 1), (0, 2), (0, 2)]
    assert "no run" in r["tests"][2]["message"]


def test_a_grading_that_cannot_run_is_not_gradable_never_a_zero(tmp_path):
    root = layout(tmp_path, {"tagmath.py": "x = 1\n"})
    assert pl.main(["1", "--root", root]) == 1          # no course secret
    r = json.load(open(os.path.join(root, "results", "results.json")))
    assert r["gradable"] is False and "score" not in r
    assert "course secret" in r["format_errors"][0]
