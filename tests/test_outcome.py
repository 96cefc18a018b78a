# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The :outcome: role (Documentation/tools/ktoutcome.py) and what it reads
(page_checks.py): a page naming a check that does not exist, or one that
did not pass in the last grading, fails the build; with no grading on the
machine the sentence says it is not yet checked.  Planted in a scratch
Sphinx project; the real pages' outcomes are checked against the checks'
real names."""

import json
import os
import subprocess
import time

import pytest

from Documentation.tools import ktoutcome, page_checks
from vm import REPO

NAMES = {"02-brk-dispatch/outline": [
    "outlined path: __hwasan_tag_mismatch -> kasan_tag_mismatch, no brk",
    "the check was called from lab_uaf"]}


def data(results=None, names=NAMES, errors=None):
    return {"names": names, "errors": errors or {}, "results": results or {}}


def graded(ok=True, name=NAMES["02-brk-dispatch/outline"][0]):
    return {"02-brk-dispatch/outline": {"source": "build/check/grade.json", "date": "2026-12-06",
                                        "seed": 1, "checks": {name: ok}}}


def test_target_names_a_lab_a_step_and_a_check():
    assert ktoutcome.parse_target("02:outline:no brk") == ("02-brk-dispatch", "outline", "no brk")
    assert ktoutcome.parse_target("lab2:outline:a: b")[2] == "a: b"
    assert ktoutcome.parse_target("02-brk-dispatch:outline:x")[0] == "02-brk-dispatch"
    for bad in ("02:outline", "99:x:y", "02-nope:x:y", ":x:y", "02::y"):
        with pytest.raises(ValueError):
            ktoutcome.parse_target(bad)


def test_verdict_of_each_case():
    lab, step = "02-brk-dispatch", "outline"
    assert ktoutcome.verdict(data(), lab, step, "no brk")[0] == "unchecked"
    state, names, msg = ktoutcome.verdict(data(graded()), lab, step, "no brk")
    assert state == "good" and len(names) == 1 and "2026-12-06" in msg
    state, _, msg = ktoutcome.verdict(data(graded(ok=False)), lab, step, "no brk")
    assert state == "error" and "did not pass" in msg
    state, _, msg = ktoutcome.verdict(data(graded()), lab, step, "no such check")
    assert state == "error" and "no check of 02-brk-dispatch/outline is named like" in msg
    state, _, msg = ktoutcome.verdict(data(graded(name="another")), lab, step, "no brk")
    assert state == "error" and "no check named like" in msg and "in the last grading" in msg
    state, _, msg = ktoutcome.verdict(data(), lab, "nostep", "x")
    assert state == "error" and "no graded step 'nostep'" in msg
    err = data(names={}, errors={"02-brk-dispatch/outline": "KeyError: x"})
    assert "could not be run on its stored run" in ktoutcome.verdict(err, lab, step, "x")[2]


def test_last_results_take_the_newest_file_per_step(tmp_path):
    def grading(name, checks, age):
        p = tmp_path / name
        p.write_text(json.dumps({"seed": 1, "checks": checks}))
        t = time.time() - age
        os.utime(p, (t, t))
        return str(p)
    c = {"lab": "02-brk-dispatch", "step": "outline", "exercise": None, "check": "a", "ok": True}
    old = grading("old.json", [dict(c, ok=False), dict(c, step="brk")], 100)
    new = grading("new.json", [c, dict(c, exercise="2.1", check="ex", ok=False)], 10)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    res = page_checks.last_results([old, new, str(bad)], repo=str(tmp_path))
    assert res["02-brk-dispatch/outline"]["checks"] == {"a": True}
    assert res["02-brk-dispatch/outline"]["source"] == "new.json"
    assert res["02-brk-dispatch/brk"]["source"] == "old.json"   # only the old one graded it


def sphinx(tmp_path, body, results=None, names=NAMES):
    """Build one planted page with the role: (returncode, output)."""
    src = tmp_path / "src"
    src.mkdir()
    checks = tmp_path / "checks.json"
    checks.write_text(json.dumps(data(results, names)))
    (src / "conf.py").write_text(
        "extensions = ['Documentation.tools.ktoutcome']\n"
        "kt_checks_json = %r\nkt_labs_dir = %r\n" % (str(checks), os.path.join(REPO, "labs")))
    (src / "index.rst").write_text("Planted\n=======\n\n" + body + "\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, os.path.join(REPO, "gdb-scripts")]))
    p = subprocess.run(["/usr/bin/sphinx-build", "-q", "-W", "-b", "html", str(src),
                        str(tmp_path / "out")], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr, tmp_path / "out" / "index.html"


GOOD = ":outcome:`the default kernel takes no brk <02:outline:no brk>`"


def test_build_fails_on_a_check_that_does_not_exist(tmp_path):
    rc, out, _ = sphinx(tmp_path, ":outcome:`it works <02:outline:a check nobody wrote>`")
    assert rc != 0 and "no check of 02-brk-dispatch/outline is named like" in out


def test_build_fails_on_a_check_that_failed_in_the_last_grading(tmp_path):
    rc, out, _ = sphinx(tmp_path, GOOD, results=graded(ok=False))
    assert rc != 0 and "did not pass in the last grading" in out


def test_build_passes_and_marks_a_check_that_passed(tmp_path):
    rc, out, page = sphinx(tmp_path, GOOD, results=graded())
    assert rc == 0, out
    html = page.read_text()
    assert "the default kernel takes no brk" in html and "kt-outcome-good" in html
    assert "build/gen/checks.html#kt-check-02-outline" in html


def test_without_any_grading_the_sentence_says_so(tmp_path):
    rc, out, page = sphinx(tmp_path, GOOD)
    assert rc == 0, out
    assert "not yet checked on this machine" in page.read_text()


def test_every_outcome_of_the_pages_names_a_real_check():
    """The pages' own :outcome: roles against the checks' names on the
    stored runs (what make site does, without Sphinx): a renamed or removed
    check fails make test too."""
    names, errors = page_checks.stored_names()
    targets = page_checks.bound_targets()
    bad = []
    for page, target in targets:
        lab, step, want = ktoutcome.parse_target(target)
        state, _, msg = ktoutcome.verdict(data(names=names, errors=errors), lab, step, want)
        if state == "error":
            bad.append("%s: %s: %s" % (page, target, msg))
    assert not bad, "\n".join(bad)
