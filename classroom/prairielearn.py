# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""PrairieLearn's external grading, in the grader image (make image).

A question's info.json names the grader image and this entry:

    "externalGradingOptions": {
      "enabled": true, "image": "kasan-tags-grader", "timeout": 600,
      "serverFilesCourse": ["kasan-tags/"],
      "entrypoint": "/opt/kasan-tags/tree/classroom/pl-grade 1"}

PrairieLearn puts the student's files in /grade/student (by name: the
files of labs/LAB/student/ the question asks for), its data object in
/grade/data/data.json, the course's server files in
/grade/serverFilesCourse (kasan-tags/course-secret there: the course
secret, which students never see), and reads /grade/results/results.json:
a score in [0, 1], one test per exercise and seed with its points and why.
The grading is make grade-class's (classroom/gradeclass.py: a fresh
handout, the student's files in it, every one of their runs in the
sandbox); the seeds are those of the id "pl-<the variant's seed>".  A
grading that cannot run says why, as not gradable: never a silent 0.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Dict, List, Optional

import vm
from classroom.autograder import results as gradescope_results
from classroom.gradeclass import grade_one
from classroom.secret import seeds_of
from labs import lab as labdata

ROOT = "/grade"
SECRET = os.path.join("serverFilesCourse", "kasan-tags", "course-secret")


def student_id(root: str) -> str:
    """pl-<variant_seed> of data.json; pl-student without one."""
    try:
        with open(os.path.join(root, "data", "data.json")) as f:
            seed = json.load(f).get("variant_seed")
    except (OSError, ValueError, AttributeError):
        seed = None
    seed = "".join(c for c in str(seed or "") if c.isalnum())[:32]
    return "pl-" + (seed or "student")


def submission(root: str, lab: str, dest: str) -> str:
    """The student's files of /grade/student as a tree of one lab's
    student/ folder (the layout make submit packs): dest."""
    x = labdata.by_number(int(lab)) if lab.isdigit() else labdata.load_lab(lab)
    folder = os.path.join(dest, "labs", x.folder, "student")
    os.makedirs(folder)
    src = os.path.join(root, "student")
    for name in sorted(os.listdir(src)) if os.path.isdir(src) else []:
        path = os.path.join(src, name)
        if os.path.isfile(path) and not os.path.islink(path):
            shutil.copyfile(path, os.path.join(folder, os.path.basename(name)))
    return dest


def results(res: Dict) -> Dict:
    """PrairieLearn's results.json of one grade-class result."""
    gs = gradescope_results(res)
    tests = [{"name": t["name"], "points": t["score"], "max_points": t["max_score"],
              "message": t["output"]} for t in gs["tests"]]
    most = sum(t["max_points"] for t in tests)
    return {"gradable": True, "score": round(gs["score"] / most, 4) if most else 0.0,
            "message": gs["output"], "tests": tests}


def not_gradable(why: str) -> Dict:
    return {"gradable": False, "format_errors": [
        "kasan-tags could not grade this submission: %s. This is not your score; "
        "your teacher sees the same message." % why]}


def write(root: str, data: Dict) -> str:
    out = os.path.join(root, "results", "results.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(out + ".tmp", out)
    return out


def run(root: str, lab: str) -> Dict:
    """Grade root/student as lab `lab`; the results (also written)."""
    secret = os.path.join(root, SECRET)
    if not os.path.exists(secret):
        raise vm.KtError("no course secret at %s (serverFilesCourse/kasan-tags/course-secret)"
                         % secret)
    os.environ["KASAN_TAGS_COURSE_SECRET"] = secret
    work = tempfile.mkdtemp(prefix="kt-prairielearn-")
    try:
        sid = student_id(root)
        t0 = time.time()
        res = grade_one(submission(root, lab, os.path.join(work, "submission")),
                        os.path.join(work, sid + ".json"), lab, seeds_of(sid), {})
        res["execution_time"] = round(time.time() - t0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results(res)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m classroom.prairielearn")
    ap.add_argument("lab", help="the lab the question grades (its number)")
    ap.add_argument("--root", default=os.environ.get("KASAN_TAGS_PL_ROOT", ROOT))
    a = ap.parse_args(argv)
    vm.install_signal_handlers()
    try:
        data = run(a.root, a.lab)
    except vm.KtError as e:
        data = not_gradable(str(e))
    print("prairielearn: %s: %s" % (write(a.root, data), "score %s" % data["score"]
                                    if data["gradable"] else data["format_errors"][0]))
    return 0 if data["gradable"] else 1


if __name__ == "__main__":
    sys.exit(main())
