# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make submit and make grade-class's pure parts (classroom/): what is
taken from a student, and the class summary."""
import json
import os
import shutil
import subprocess
import tarfile

import pytest

import vm
from classroom import gradeclass, submit
from labs import lab

ONE = lab.by_number(1).folder
TWO = lab.by_number(2).folder


def test_declared_files_are_every_exercise_s_and_the_answers():
    files = submit.declared_files()
    assert f"labs/{ONE}/student/tagmath.py" in files
    assert "labs/module/kasan_student.c" in files
    assert files[-1] == "answers.md" and len(files) == len(set(files))
    assert "# Answers" in submit.answers_template()


def student_tree(tmp_path, name):
    root = tmp_path / name
    for rel in submit.declared_files() + [f"labs/{ONE}/check.py", "Makefile"]:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("student %s: %s\n" % (name, rel))
    return root


def fresh(tmp_path):
    dest = tmp_path / "fresh"
    for rel in submit.declared_files() + [f"labs/{ONE}/check.py", "Makefile"]:
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("pristine\n")
    return dest


def test_take_copies_only_declared_files_from_a_tree(tmp_path):
    tree, dest = student_tree(tmp_path, "ann"), fresh(tmp_path)
    taken = gradeclass.take(str(tree), str(dest))
    assert f"labs/{ONE}/student/tagmath.py" in taken
    assert (dest / f"labs/{ONE}/student/tagmath.py").read_text().startswith("student")
    assert (dest / f"labs/{ONE}/check.py").read_text() == "pristine\n"
    assert (dest / "Makefile").read_text() == "pristine\n"


def test_take_from_an_archive_ignores_other_members(tmp_path):
    tree, dest = student_tree(tmp_path, "bob"), fresh(tmp_path)
    arch = tmp_path / "bob.tar.gz"
    with tarfile.open(arch, "w:gz") as t:
        for rel in (f"labs/{TWO}/student/esr.py", f"labs/{ONE}/check.py",
                    "Makefile"):
            t.add(str(tree / rel), arcname=rel)
    assert gradeclass.take(str(arch), str(dest)) == [f"labs/{TWO}/student/esr.py"]
    assert (dest / f"labs/{ONE}/check.py").read_text() == "pristine\n"
    with pytest.raises(vm.KtError, match="neither a student tree nor a submission"):
        gradeclass.take(str(tmp_path / "missing.tar.gz"), str(dest))


def test_student_names():
    assert gradeclass.student_name("/c/ann.tar.gz") == "ann"
    assert gradeclass.student_name("/c/bob/") == "bob"


def test_teacher_only_checks_count_neither_way():
    from labs import grade
    t = grade.Tally()
    t.add("01-x", "s", [("a", True, ""), ("b", None, "graded by your teacher")], 0.0,
          exercise={"id": "1.1", "title": "t", "files": [], "points": 2})
    s = t.summary()
    assert (s["score"], s["total"], s["teacher_only"]) == (1, 1, 1)
    ex = s["exercises"]["list"][0]
    assert ex["done"] is False and ex["teacher"] is True and s["exercises"]["done"] == 0


def test_lab8_table_masks_the_exercise_sites_without_the_answers(monkeypatch):
    import importlib.util
    from labs.lab import by_number
    spec = importlib.util.spec_from_file_location("sites8", by_number(8).path("sites.py"))
    sites = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sites)
    real = sites.load

    def no_answers(name):
        if name == "answers.toml":
            raise OSError("not in a student's copy")
        return real(name)
    monkeypatch.setattr(sites, "load", no_answers)
    k = sites.kinds()
    for fn in ("kset_find_obj", "__request_region", "kmalloc_uaf2"):
        assert k[fn] == "exercise-8.1", (fn, k.get(fn))


def test_a_submission_says_which_hints_were_shown(tmp_path):
    from labs import mistakes
    state = tmp_path / os.path.relpath(mistakes.STATE, vm.REPO)
    state.parent.mkdir(parents=True)
    mistakes.graded("1.1", ["match-all-checked"], str(state))
    mistakes.graded("2.1", [], str(state))
    assert submit.hints_seen(str(tmp_path)) == "1.1:match-all-checked:1"
    assert submit.hints_seen(str(tmp_path / "none")) == ""


@pytest.mark.skipif(not shutil.which("shellcheck"), reason="shellcheck is not installed")
def test_the_gradescope_zip_s_scripts_are_shellcheck_clean(tmp_path):
    """setup.sh and run_autograder are written by classroom/autograder.py,
    not kept as files: make lint does not see them."""
    from classroom import autograder
    paths = []
    for name, text in (("setup.sh", autograder.SETUP), ("run_autograder", autograder.RUN)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    p = subprocess.run(["shellcheck", "-s", "sh"] + paths, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout


def test_a_gradescope_grading_that_cannot_start_says_so(tmp_path):
    """run_autograder with no grader to start (here: no source at all)
    leaves a results.json that says it is not a grade, never a silent 0."""
    from classroom import autograder
    script = tmp_path / "run_autograder"
    script.write_text(autograder.RUN)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text('{"score": 99}')   # a stale one
    p = subprocess.run(["sh", str(script)], env={"PATH": os.environ["PATH"],
                                                 "AUTOGRADER_ROOT": str(tmp_path)},
                       capture_output=True, text=True)
    r = json.loads((tmp_path / "results" / "results.json").read_text())
    assert p.returncode != 0 and r["score"] == 0 and r["tests"] == []
    assert "could not grade" in r["output"] and "not a grade" in r["output"]
