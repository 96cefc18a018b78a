# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A class: `make submit` in a student tree, `make grade-class` at the teacher's.

    make submit                          build/submission.tar.gz: every file an
                                         exercise declares (steps.toml `files`) and
                                         answers.md (the Questions; created if missing)
    make grade-class CLASS=dir OUT=dir   each entry of CLASS (a submission archive or a
                                         student tree) graded in a fresh handout of this
                                         checkout: only the declared files and answers.md
                                         are taken from the student, never a Makefile or
                                         a grader; OUT gets one JSON per student and the
                                         class summary (summary.csv, summary.html)
"""

import argparse
import csv
import html
import json
import os
import shutil
import subprocess
import sys
import tarfile
from typing import Dict, List, Optional

import vm
from labs import handout
from labs import lab as labdata

REPO = vm.REPO
ANSWERS = "answers.md"
SUBMISSION = os.path.join("build", "submission.tar.gz")


def declared_files() -> List[str]:
    """The files the exercises declare, in lab order, and answers.md."""
    out: List[str] = []
    for lab in labdata.load_all():
        for ex in lab.exercises:
            out += [f for f in ex["files"] if f not in out]
    return out + [ANSWERS]


def answers_template() -> str:
    """answers.md for a student: a heading per lab, for its Questions."""
    return "# Answers to the Questions\n\n" + "".join(
        "## %s\n\n1. \n\n" % lab.title for lab in labdata.load_all())


def submit(root: str = REPO) -> str:
    """Write build/submission.tar.gz of the tree at `root`; its path."""
    ans = os.path.join(root, ANSWERS)
    if not os.path.exists(ans):
        with open(ans, "w") as f:
            f.write(answers_template())
        print("submit: wrote %s: put your answers to the labs' Questions there, "
              "then run make submit again" % ANSWERS)
    out = os.path.join(root, SUBMISSION)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with tarfile.open(out + ".tmp", "w:gz") as t:
        for rel in declared_files():
            if os.path.exists(os.path.join(root, rel)):
                t.add(os.path.join(root, rel), arcname=rel)
    os.replace(out + ".tmp", out)
    return out


def take(entry: str, dest: str) -> List[str]:
    """Copy the declared files of one student (an archive or a tree) into
    the fresh tree `dest`; nothing else.  The files taken."""
    want = set(declared_files())
    taken = []
    if os.path.isdir(entry):
        for rel in sorted(want):
            src = os.path.join(entry, rel)
            if os.path.isfile(src) and not os.path.islink(src):
                shutil.copy(src, os.path.join(dest, rel))
                taken.append(rel)
        return taken
    try:
        with tarfile.open(entry) as t:
            for m in t.getmembers():
                if m.isfile() and m.name in want:
                    f = t.extractfile(m)
                    assert f is not None
                    with open(os.path.join(dest, m.name), "wb") as out:
                        out.write(f.read())
                    taken.append(m.name)
    except (tarfile.TarError, OSError) as e:
        raise vm.KtError("%s is neither a student tree nor a submission archive (%s)"
                         % (entry, e))
    return sorted(taken)


def grade_one(entry: str, out_json: str, lab: Optional[str]) -> Dict:
    """Grade one student's files in a fresh handout of this checkout, made
    at the same place for the same student and OUT each time (OUT/.work-NAME):
    a gdb step's run then keeps its inputs, paths included, and a second
    grading of unchanged work reads the kept runs (vm/runcache.py)."""
    work = os.path.join(os.path.dirname(os.path.abspath(out_json)),
                        ".work-" + os.path.splitext(os.path.basename(out_json))[0])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        tree = os.path.join(work, "tree")
        handout.make_handout(tree)
        # what only the grader reads (lab 8's own classification), never a student
        for rel in handout.grader_only():
            shutil.copy(os.path.join(REPO, rel), os.path.join(tree, rel))
        taken = take(entry, tree)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
        args = ["make", "-s", "-C", tree, "grade", "OUT=" + os.path.abspath(out_json)]
        if lab:
            args.append("N=" + lab)
        p = subprocess.run(args, env=env, capture_output=True, text=True)
        try:
            with open(out_json) as f:
                result = json.load(f)
        except (OSError, ValueError):
            raise vm.KtError("grading %s gave no results (exit %d): %s" % (
                entry, p.returncode, (p.stdout + p.stderr).strip().splitlines()[-1:]))
        result["taken"] = taken
        with open(out_json, "w") as f:
            json.dump(result, f, indent=1)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def student_name(entry: str) -> str:
    base = os.path.basename(entry.rstrip("/"))
    for ext in (".tar.gz", ".tgz", ".tar"):
        if base.endswith(ext):
            return base[:-len(ext)]
    return base


def summary(rows: List[Dict], out_dir: str) -> None:
    """summary.csv and summary.html: a row per student, a column per exercise."""
    ids = sorted({e["id"] for r in rows for e in r["result"]["exercises"]["list"]},
                 key=lambda i: tuple(int(x) for x in i.split(".")))
    head = ["student", "exercises done", "score", "total"] + ids
    table = []
    for r in rows:
        res = r["result"]
        done = {e["id"]: e["done"] for e in res["exercises"]["list"]}
        table.append([r["student"], res["exercises"]["done"], res["score"], res["total"]]
                     + [int(done.get(i, False)) for i in ids])
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(table)
    cells = "".join("<tr>%s</tr>\n" % "".join("<td>%s</td>" % html.escape(str(c)) for c in row)
                    for row in table)
    with open(os.path.join(out_dir, "summary.html"), "w") as f:
        f.write("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kasan-tags: "
                "class results</title></head><body>\n<table border=\"1\">\n<tr>%s</tr>\n%s"
                "</table>\n</body></html>\n" % ("".join("<th>%s</th>" % html.escape(h)
                                                        for h in head), cells))


def grade_class(class_dir: str, out_dir: str, lab: Optional[str] = None) -> List[Dict]:
    if not os.path.isdir(class_dir):
        raise vm.KtError("CLASS=%s is not a directory of submissions or student trees"
                         % class_dir)
    entries = sorted(os.path.join(class_dir, e) for e in os.listdir(class_dir)
                     if not e.startswith("."))
    if not entries:
        raise vm.KtError("CLASS=%s is empty" % class_dir)
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for entry in entries:
        name = student_name(entry)
        res = grade_one(entry, os.path.join(out_dir, name + ".json"), lab)
        rows.append({"student": name, "result": res})
        print("grade-class: %s: %d/%d exercises, score %d/%d (files taken: %d)" % (
            name, res["exercises"]["done"], res["exercises"]["total"], res["score"],
            res["total"], len(res["taken"])), flush=True)
    summary(rows, out_dir)
    print("grade-class: %d students; %s and %s" % (
        len(rows), os.path.join(out_dir, "summary.csv"), os.path.join(out_dir, "summary.html")))
    return rows


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="labs/classroom.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("submit")
    g = sub.add_parser("grade-class")
    g.add_argument("class_dir")
    g.add_argument("out_dir")
    g.add_argument("-n", "--lab", help="grade one lab only (its number)")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "submit":
            print("submit: %s (%d files declared by the exercises, and %s)" % (
                submit(), len(declared_files()) - 1, ANSWERS))
        else:
            vm.install_signal_handlers()
            grade_class(a.class_dir, a.out_dir, a.lab)
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
