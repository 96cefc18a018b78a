# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Gradescope: `make autograder` writes the autograder zip, and its
run_autograder grades one submission with the code of `make grade-class`.

    build/autograder.zip, laid out as Gradescope extracts it, into
    /autograder/source (its autograder_samples docs/specs.md):
      setup.sh          Gradescope runs it once, as root, on a fresh image:
                        make deps, then make import of the kernels
      run_autograder    grades $AUTOGRADER_ROOT/submission (default
                        /autograder) into results/results.json
      the checkout      git archive of HEAD, with the grader-only files,
                        and its file list (TREE_FILES: make handout needs
                        it where there is no .git)
      kasan-tags-kernels.tar.zst   the kernels (make dist)
      course-secret     which students never see

results.json follows Gradescope's specification: one test per exercise
and seed -- the student's own seed (visible at once) and the hidden one
(visibility "after_due_date") -- each worth half the exercise's points,
with the reasons it lost points as its output.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from typing import Dict, List, Optional

import vm
from classroom import handout
from classroom.gradeclass import grade_one
from classroom.secret import course_secret, seeds_of
from classroom.summary import reasons
from vm.base import one_line_errors
from labs import lab as labdata

REPO = vm.REPO
ROOT_ENV = "AUTOGRADER_ROOT"
OUT = os.path.join(REPO, "build", "autograder.zip")

SETUP = """#!/bin/sh
# Gradescope's setup: the packages, then the kernels the labs need.
set -eu
cd "${AUTOGRADER_ROOT:-/autograder}/source"
make deps </dev/null
make import FILE="$PWD/kasan-tags-kernels.tar.zst" </dev/null
"""

# Gradescope copies this to /autograder/run_autograder and runs it there;
# the import root is set as the Makefile sets it.
RUN = """#!/bin/sh
# Gradescope runs this for each submission (files in /autograder/submission).
set -eu
cd "${AUTOGRADER_ROOT:-/autograder}/source"
export PYTHONPATH="$PWD:$PWD/gdb-scripts"
KASAN_TAGS_COURSE_SECRET="$PWD/course-secret" \\
    exec /usr/bin/python3 -m classroom.autograder run "$@"
"""


def student_id(root: str) -> str:
    """The submitter's id: Gradescope's submission_metadata.json (the
    first user's sid, else the part of the email before @), or 'student'."""
    try:
        with open(os.path.join(root, "submission_metadata.json")) as f:
            user = (json.load(f).get("users") or [{}])[0]
    except (OSError, ValueError, AttributeError, IndexError):
        user = {}
    for key in ("sid", "email", "name"):
        v = str(user.get(key) or "").split("@")[0]
        v = "".join(c if c.isalnum() or c in "._-" else "-" for c in v).strip("-._")
        if v:
            return v[:64]
    return "student"


def results(res: Dict) -> Dict:
    """Gradescope's results.json of one grade-class result."""
    titles = {ex["id"]: ex["title"] for x in labdata.load_all() for ex in x.exercises}
    tests = []
    for e in res["exercises"]["list"]:
        half = e["max_points"] / 2
        why = reasons(res, e["id"])
        tiers = e.get("tier_points") or {"own": e["points"]}
        for tier, label, vis in (("own", "your seed %s" % res.get("seed"), "visible"),
                                 ("hidden", "the hidden seed", "after_due_date")):
            got = tiers.get(tier, tiers["own"])
            mine = [w for w in why if w.startswith("[hidden seed] ") == (tier == "hidden")]
            if e.get("why"):
                got, mine = 0, [e["why"]] + mine
            score = round(got * half / e["max_points"], 2) if e["max_points"] else 0
            tests.append({"name": "%s %s (%s)" % (e["id"], titles.get(e["id"], ""), label),
                          "number": "%s.%s" % (e["id"], 1 if tier == "own" else 2),
                          "score": score, "max_score": half,
                          "status": "passed" if score == half else "failed",
                          "output": "\n".join("- " + w for w in mine) or "All checks GOOD.",
                          "output_format": "md", "visibility": vis})
    demo = res.get("demonstrations", {"good": 0, "total": 0})
    return {"score": round(sum(t["score"] for t in tests), 2), "tests": tests,
            "execution_time": res.get("execution_time", 0),
            "output": "kasan-tags: seed %s; demonstrations %d/%d GOOD; %d/%d exercises done; "
                      "the wall: %s." % (
                          res.get("seed"), demo["good"], demo["total"], res["exercises"]["done"],
                          res["exercises"]["total"], res.get("wall") or "none needed"),
            "visibility": "visible", "stdout_visibility": "hidden"}


def run(root: Optional[str] = None, lab: Optional[str] = None) -> str:
    """Grade root/submission; write root/results/results.json; its path."""
    root = root or os.environ.get(ROOT_ENV) or "/autograder"
    sub = os.path.join(root, "submission")
    if not os.path.isdir(sub):
        raise vm.KtError("no submission directory %s" % sub)
    archives = [f for f in os.listdir(sub) if f.endswith((".tar.gz", ".tgz"))]
    if len(archives) == 1 and not os.path.isdir(os.path.join(sub, "labs")):
        sub = os.path.join(sub, archives[0])     # the archive of `make submit`, uploaded
    sid = student_id(root)
    seeds = seeds_of(sid)
    work = tempfile.mkdtemp(prefix="kt-autograder-")
    try:
        t0 = time.time()
        res = grade_one(sub, os.path.join(work, sid + ".json"), lab, seeds, {})
        res["execution_time"] = round(time.time() - t0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = os.path.join(root, "results", "results.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(results(res), f, indent=1)
        f.write("\n")
    return out


def build(out: str = OUT, kernels: Optional[str] = None) -> str:
    """Write the autograder zip; kernels: a `make dist` archive (made now
    if not given)."""
    secret = course_secret()
    tmp = tempfile.mkdtemp(prefix="kt-autograder-zip-")
    try:
        if not kernels:
            kernels = os.path.join(tmp, "kasan-tags-kernels.tar.zst")
            p = subprocess.run(["make", "-s", "-C", REPO, "dist", "DIST_FILE=" + kernels],
                               capture_output=True, text=True)
            if p.returncode:
                raise vm.KtError("make dist failed: %s" % (p.stdout + p.stderr).strip()[-300:])
        src = os.path.join(tmp, "source.tar")
        p = subprocess.run(["git", "-C", REPO, "archive", "--format=tar", "-o", src, "HEAD"],
                           capture_output=True, text=True)
        if p.returncode:
            raise vm.KtError("git archive failed: %s" % p.stderr.strip())
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in (("setup.sh", SETUP), ("run_autograder", RUN)):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o755 << 16
                z.writestr(info, text)
            names = []
            with tarfile.open(src) as t:
                for m in t.getmembers():
                    if m.isfile():
                        f = t.extractfile(m)
                        assert f is not None
                        info = zipfile.ZipInfo(m.name)
                        info.external_attr = (m.mode & 0o777) << 16
                        z.writestr(info, f.read())
                        names.append(m.name)
            z.writestr(handout.TREE_FILES, "".join(n + "\n" for n in sorted(names)))
            z.write(kernels, "kasan-tags-kernels.tar.zst")
            z.writestr("course-secret", secret + b"\n")
        os.replace(out + ".tmp", out)
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m classroom.autograder")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", default=OUT)
    b.add_argument("--kernels", help="a make dist archive (default: made now)")
    r = sub.add_parser("run")
    r.add_argument("-n", "--lab", help="grade one lab only")
    a = ap.parse_args(argv)

    def go() -> None:
        if a.cmd == "build":
            print("autograder: %s (setup.sh, run_autograder, the checkout, its kernels)"
                  % build(a.out, a.kernels))
        else:
            vm.install_signal_handlers()
            print("autograder: %s" % run(lab=a.lab))
    return one_line_errors(go)


if __name__ == "__main__":
    sys.exit(main())
