# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Gradescope: `make autograder` writes the autograder zip, and its
run_autograder grades one submission with the code of `make grade-class`.

    build/autograder.zip, laid out as Gradescope extracts it, into
    /autograder/source (its autograder_samples docs/specs.md):
      setup.sh          Gradescope runs it once, as root, on a fresh image
                        of any distribution: it unpacks the userland, and
                        in it imports the kernels
      run_autograder    grades $AUTOGRADER_ROOT/submission (default
                        /autograder) into results/results.json
      the checkout      its files (committed or not), with the grader-only
                        files, and their list (TREE_FILES: make handout
                        needs it where there is no .git)
      kasan-tags-kernels.tar.zst   the kernels (make dist)
      debian12.tar      the Debian 12 userland the course runs in, on any
                        base (classroom/enter-userland)
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
# Gradescope's setup, once, as root, on whatever base the autograder runs on:
# the Debian 12 userland the course runs in (debian12.tar: Debian's packages,
# vm/images/course.txt) is unpacked beside the source, then, in it
# (classroom/enter-userland), the kernels the labs need are imported.  It
# needs sh, tar and a user namespace of the base, not its network.
set -eu
ROOT=${AUTOGRADER_ROOT:-/autograder}
SRC=$ROOT/source
rm -rf "$ROOT/debian12"
mkdir -p "$ROOT/debian12"
# its /dev is the container's (a container may not make device nodes)
tar -xf "$SRC/debian12.tar" -C "$ROOT/debian12" --numeric-owner --exclude='./dev/*'
rm -f "$SRC/debian12.tar"
"$SRC/classroom/enter-userland" make -s import \\
    FILE=/autograder/source/kasan-tags-kernels.tar.zst </dev/null
echo "setup: the Debian 12 userland and the kernels are in $ROOT/debian12"
"""

# Gradescope copies this to /autograder/run_autograder and runs it there.
# A grading that cannot start still leaves a results.json that says so.
RUN = """#!/bin/sh
# Gradescope runs this for each submission (files in /autograder/submission).
set -u
ROOT=${AUTOGRADER_ROOT:-/autograder}
rm -f "$ROOT/results/results.json"
# shellcheck disable=SC2016 # expanded by the sh that runs it, in the source
GRADE='export PYTHONPATH="$PWD:$PWD/gdb-scripts" KASAN_TAGS_COURSE_SECRET="$PWD/course-secret"
exec /usr/bin/python3 -m classroom.autograder run "$@"'
if [ -d "$ROOT/debian12/usr" ]; then
    "$ROOT/source/classroom/enter-userland" sh -c "$GRADE" sh "$@"
else
    # no userland unpacked: a Debian 12 machine with make deps done
    (cd "$ROOT/source" && sh -c "$GRADE" sh "$@")
fi
rc=$?
if [ ! -s "$ROOT/results/results.json" ]; then
    mkdir -p "$ROOT/results"
    printf '{"score": 0, "tests": [], "output": "%s"}\\n' \\
        "kasan-tags could not grade this submission (exit $rc): this is not a grade; \\
the autograder's output says why." \\
        >"$ROOT/results/results.json"
fi
exit $rc
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


def build(out: str = OUT, kernels: Optional[str] = None,
          userland: Optional[str] = None) -> str:
    """Write the autograder zip; kernels: a `make dist` archive (made now
    if not given); userland: the Debian 12 root filesystem's tar (by
    default vm/images/course.txt's, made by mmdebstrap if it is not
    cached yet; "none" leaves it out: then setup.sh is for a Debian 12
    base only)."""
    from vm import container
    secret = course_secret()
    if userland != "none":
        userland = userland or container.rootfs("course")
        if not os.path.isfile(userland):
            raise vm.KtError("USERLAND=%s: no such file" % userland)
    tmp = tempfile.mkdtemp(prefix="kt-autograder-zip-")
    try:
        if not kernels:
            kernels = os.path.join(tmp, "kasan-tags-kernels.tar.zst")
            p = subprocess.run(["make", "-s", "-C", REPO, "dist", "DIST_FILE=" + kernels],
                               capture_output=True, text=True)
            if p.returncode:
                raise vm.KtError("make dist failed: %s" % (p.stdout + p.stderr).strip()[-300:])
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in (("setup.sh", SETUP), ("run_autograder", RUN)):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o755 << 16
                z.writestr(info, text)
            # the checkout's files as they are (committed or not): its list
            # goes with them, where there is no .git (classroom/handout.py)
            names = [n for n in handout.tree_files() if n != handout.TREE_FILES]
            for name in names:
                path = os.path.join(REPO, name)
                info = zipfile.ZipInfo(name)
                info.external_attr = (os.stat(path).st_mode & 0o777) << 16
                with open(path, "rb") as f:
                    z.writestr(info, f.read())
            z.writestr(handout.TREE_FILES, "".join(n + "\n" for n in sorted(names)))
            z.write(kernels, "kasan-tags-kernels.tar.zst")
            if userland != "none":
                # level 1: a gigabyte of Debian, deflated in seconds, not minutes
                z.write(userland, "debian12.tar", zipfile.ZIP_DEFLATED, 1)
            z.writestr("course-secret", secret + b"\n")
        os.replace(out + ".tmp", out)
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def unpack(zpath: str, root: str) -> List[str]:
    """The zip as Gradescope lays it out: extracted into root/source, with
    its modes, and run_autograder copied to root.  Its names."""
    with zipfile.ZipFile(zpath) as z:
        for info in z.infolist():
            z.extract(info, os.path.join(root, "source"))
            os.chmod(os.path.join(root, "source", info.filename),
                     (info.external_attr >> 16) & 0o777 or 0o644)
        names = z.namelist()
    shutil.copy(os.path.join(root, "source", "run_autograder"),
                os.path.join(root, "run_autograder"))
    return names


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m classroom.autograder")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", default=OUT)
    b.add_argument("--kernels", help="a make dist archive (default: made now)")
    b.add_argument("--userland", help="the Debian 12 root filesystem's tar, or none "
                   "(default: vm/images/course.txt's, made by mmdebstrap)")
    r = sub.add_parser("run")
    r.add_argument("-n", "--lab", help="grade one lab only")
    a = ap.parse_args(argv)

    def go() -> None:
        if a.cmd == "build":
            print("autograder: %s (setup.sh, run_autograder, the checkout, its kernels%s)"
                  % (build(a.out, a.kernels, a.userland),
                     "" if a.userland == "none" else ", the Debian 12 userland"))
        else:
            vm.install_signal_handlers()
            print("autograder: %s" % run(lab=a.lab))
    return one_line_errors(go)


if __name__ == "__main__":
    sys.exit(main())
