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
import hashlib
import hmac
import html
import io
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from typing import Dict, List, Optional, Tuple

import vm
from labs import handout
from labs import lab as labdata

REPO = vm.REPO
ANSWERS = "answers.md"
SUBMISSION = os.path.join("build", "submission.tar.gz")
# A student tree's identity, written by `make handout ID=...`
STUDENT = "student.toml"
# What `make submit` adds to the archive: the id, the seed, the time
SUBMITTED = "submission.toml"
SECRET_ENV = "KASAN_TAGS_COURSE_SECRET"
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def secret_path() -> str:
    """The course secret: $KASAN_TAGS_COURSE_SECRET, or a file in the cache
    (outside the checkout), made on first use; the teacher keeps it."""
    return os.environ.get(SECRET_ENV) or os.path.join(vm.cache_root(), "course-secret")


def course_secret() -> bytes:
    path = secret_path()
    if not os.path.exists(path):
        if os.environ.get(SECRET_ENV):
            raise vm.KtError("%s=%s: no such file" % (SECRET_ENV, path))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
        os.replace(path + ".tmp", path)
    with open(path, "rb") as f:
        data = f.read().strip()
    if len(data) < 16:
        raise vm.KtError("the course secret %s is too short (16 bytes at least)" % path)
    return data


def check_id(student_id: str) -> str:
    if not STUDENT_ID.match(student_id or ""):
        raise vm.KtError("a student id is 1 to 64 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit (not %r)" % student_id)
    return student_id


def seeds_of(student_id: str, secret: Optional[bytes] = None) -> Tuple[int, int]:
    """(the student's seed, the hidden seed) of a student id: HMAC-SHA256
    of the id under the course secret; never 0 or 1 (1 is the site's)."""
    key = secret if secret is not None else course_secret()
    out = []
    for kind in ("seed", "hidden"):
        n = int(hmac.new(key, ("%s:%s" % (kind, check_id(student_id))).encode(),
                         hashlib.sha256).hexdigest()[:8], 16)
        out.append(n if n > 1 else n + 2)
    return out[0], out[1]


def student_toml(student_id: str, seed: int) -> str:
    return ("# Your student id and seed (make handout ID=...): `make grade` boots with\n"
            "# this seed; the site's transcripts use SEED=1.\n"
            "id = \"%s\"\nseed = %d\n" % (check_id(student_id), seed))


def read_student(root: str = REPO) -> Optional[Dict]:
    """{id, seed} of the student tree at root, or None."""
    path = os.path.join(root, STUDENT)
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as f:
            d = tomllib.load(f)
        return {"id": check_id(str(d["id"])), "seed": int(d["seed"])}
    except (OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError) as e:
        raise vm.KtError("%s: %s (make handout ID=... writes it)" % (path, e))


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
    """Write build/submission.tar.gz of the tree at `root`; its path.  It
    holds the declared files, answers.md and submission.toml: the student
    id and seed (student.toml) and the time."""
    ans = os.path.join(root, ANSWERS)
    if not os.path.exists(ans):
        with open(ans, "w") as f:
            f.write(answers_template())
        print("submit: wrote %s: put your answers to the labs' Questions there, "
              "then run make submit again" % ANSWERS)
    who = read_student(root)
    out = os.path.join(root, SUBMISSION)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    stamp = ("# written by make submit\nid = \"%s\"\nseed = %s\ntime = \"%s\"\n" % (
        who["id"] if who else "", who["seed"] if who else "\"\"",
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))).encode()
    with tarfile.open(out + ".tmp", "w:gz") as t:
        for rel in declared_files():
            if os.path.exists(os.path.join(root, rel)):
                t.add(os.path.join(root, rel), arcname=rel)
        info = tarfile.TarInfo(SUBMITTED)
        info.size, info.mtime = len(stamp), int(time.time())
        t.addfile(info, io.BytesIO(stamp))
    os.replace(out + ".tmp", out)
    if not who:
        print("submit: this tree has no %s (make handout ID=... writes it): the archive "
              "names no student" % STUDENT)
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


def claimed(entry: str) -> Dict:
    """What a submission says of itself (submission.toml, or student.toml
    of a tree): data, for the record; the grader's own id is the entry's
    name."""
    for name in (SUBMITTED, STUDENT):
        try:
            if os.path.isdir(entry):
                path = os.path.join(entry, name)
                if not os.path.isfile(path) or os.path.islink(path):
                    continue
                with open(path, "rb") as f:
                    data = f.read(4096)
            else:
                with tarfile.open(entry) as t:
                    m = t.getmember(name)
                    f = t.extractfile(m) if m.isfile() else None
                    if f is None:
                        continue
                    data = f.read(4096)
            d = tomllib.loads(data.decode(errors="replace"))
            return {k: d[k] for k in ("id", "seed", "time") if k in d}
        except (KeyError, OSError, ValueError, tarfile.TarError, tomllib.TOMLDecodeError):
            continue
    return {}


def file_digests(entry: str) -> Dict[str, str]:
    """{declared file: sha256} of one student's files (an archive or a tree)."""
    dest = tempfile.mkdtemp(prefix="kt-take-")
    try:
        for rel in declared_files():
            os.makedirs(os.path.dirname(os.path.join(dest, rel)) or dest, exist_ok=True)
        try:
            take(entry, dest)
        except vm.KtError:
            return {}
        out = {}
        for rel in declared_files():
            path = os.path.join(dest, rel)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
        return out
    finally:
        shutil.rmtree(dest, ignore_errors=True)


def grade_tree(tree: str, out_json: str, lab: Optional[str], seed: int) -> Dict:
    """`make grade` in a grading tree at `seed`: its results."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env["SEED"] = str(seed)
    args = ["make", "-s", "-C", tree, "grade", "OUT=" + os.path.abspath(out_json)]
    if lab:
        args.append("N=" + lab)
    if os.path.exists(out_json):
        os.unlink(out_json)
    p = subprocess.run(args, env=env, capture_output=True, text=True)
    try:
        with open(out_json) as f:
            return json.load(f)
    except (OSError, ValueError):
        raise vm.KtError("grading %s at SEED=%d gave no results (exit %d): %s" % (
            tree, seed, p.returncode, (p.stdout + p.stderr).strip().splitlines()[-1:]))


def lab_of(ex_id: str) -> str:
    return ex_id.split(".")[0]


def grade_one(entry: str, out_json: str, lab: Optional[str],
              seeds: Optional[Tuple[int, int]] = None,
              twins: Optional[Dict[str, List[Tuple[str, int]]]] = None) -> Dict:
    """Grade one student's files in a fresh handout of this checkout, made
    at the same place for the same student and OUT each time (OUT/.work-NAME):
    a gdb step's run then keeps its inputs, paths included, and a second
    grading of unchanged work reads the kept runs (vm/runcache.py).

    seeds: (the student's, the hidden one); an exercise is done only when
    it passes at both.  One that does not, but whose files the student
    changed, is tried at SEED=1 (the site's) and at the seed of each
    classmate with the very same files (twins: {exercise: [(name, seed)]}):
    passing there is named as the cause."""
    own, hidden = seeds or (vm.run_seed(), vm.run_seed())
    work = os.path.join(os.path.dirname(os.path.abspath(out_json)),
                        ".work-" + os.path.splitext(os.path.basename(out_json))[0])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        tree = os.path.join(work, "tree")
        handout.make_handout(tree)
        # what only the grader reads (references, answers, outcomes), never a student
        for rel in handout.grader_restore():
            shutil.copy(os.path.join(REPO, rel), os.path.join(tree, rel))
        stubs = {rel: open(os.path.join(tree, rel), "rb").read() for rel in declared_files()
                 if os.path.isfile(os.path.join(tree, rel))}
        taken = take(entry, tree)
        changed = {rel for rel in taken
                   if open(os.path.join(tree, rel), "rb").read() != stubs.get(rel)}
        result = grade_tree(tree, out_json, lab, own)
        tiers = {"own": result}
        if hidden != own:
            tiers["hidden"] = grade_tree(tree, os.path.join(work, "hidden.json"), lab, hidden)
        extra: Dict[int, Dict] = {}

        def passes_at(seed: int, ex_id: str) -> bool:
            if seed not in extra:
                extra[seed] = grade_tree(tree, os.path.join(work, "seed%d.json" % seed),
                                         lab_of(ex_id), seed)
            return any(e["id"] == ex_id and e["done"] for e in extra[seed]["exercises"]["list"])
        for e in result["exercises"]["list"]:
            at = {t: next((x["done"] for x in r["exercises"]["list"] if x["id"] == e["id"]),
                          False) for t, r in tiers.items()}
            e["seeds"] = {"own %d" % own: at["own"]}
            if "hidden" in at:
                e["seeds"]["hidden"] = at["hidden"]
            e["done"] = all(at.values())
            if e["done"] or not set(e["files"]) & changed:
                continue
            others = [("SEED=1, the site's transcripts", 1)] + [
                ("classmate %s's seed (the same files)" % n, sd)
                for n, sd in (twins or {}).get(e["id"], [])]
            for what, seed in others:
                if seed not in (own, hidden) and passes_at(seed, e["id"]):
                    e["seeds"][what] = True
                    e["why"] = "holds only for %s, not for yours (%d) or the hidden one" % (
                        what, own)
                    break
        result["exercises"]["done"] = sum(e["done"] for e in result["exercises"]["list"])
        if "hidden" in tiers:
            result["checks"] += [dict(c, seed="hidden") for c in tiers["hidden"]["checks"]
                                 if c.get("exercise")]
        result["seed"], result["taken"] = own, taken
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
    head = ["student", "seed", "exercises done", "score", "total"] + ids
    table = []
    for r in rows:
        res = r["result"]
        done = {e["id"]: e["done"] for e in res["exercises"]["list"]}
        table.append([r["student"], res.get("seed", ""), res["exercises"]["done"], res["score"],
                      res["total"]]
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
    """Grade every entry of class_dir (NAME.tar.gz or a tree NAME/): NAME is
    the student id, whose seeds come from the course secret."""
    if not os.path.isdir(class_dir):
        raise vm.KtError("CLASS=%s is not a directory of submissions or student trees"
                         % class_dir)
    entries = sorted(os.path.join(class_dir, e) for e in os.listdir(class_dir)
                     if not e.startswith("."))
    if not entries:
        raise vm.KtError("CLASS=%s is empty" % class_dir)
    os.makedirs(out_dir, exist_ok=True)
    secret = course_secret()
    names = [student_name(e) for e in entries]
    seeds = {n: seeds_of(n, secret) for n in names}
    # the classmates whose files of an exercise are the very same
    digests = {n: file_digests(e) for n, e in zip(names, entries)}
    by_ex = {ex["id"]: ex["files"] for x in labdata.load_all() for ex in x.exercises}
    rows = []
    for entry, name in zip(entries, names):
        twins = {}
        for ex_id, files in by_ex.items():
            mine = [digests[name].get(f) for f in files]
            if None in mine:
                continue
            twins[ex_id] = [(o, seeds[o][0]) for o in names if o != name
                            and [digests[o].get(f) for f in files] == mine]
        res = grade_one(entry, os.path.join(out_dir, name + ".json"), lab, seeds[name], twins)
        res["claimed"] = claimed(entry)
        keep_answers(entry, os.path.join(out_dir, name + ".answers.md"))
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(res, f, indent=1)
        rows.append({"student": name, "result": res})
        print("grade-class: %s (seed %d and a hidden one): %d/%d exercises, score %d/%d "
              "(files taken: %d)" % (name, seeds[name][0], res["exercises"]["done"],
                                     res["exercises"]["total"], res["score"], res["total"],
                                     len(res["taken"])), flush=True)
        for e in res["exercises"]["list"]:
            if e.get("why"):
                print("grade-class: %s: exercise %s %s" % (name, e["id"], e["why"]), flush=True)
    summary(rows, out_dir)
    print("grade-class: %d students; %s and %s" % (
        len(rows), os.path.join(out_dir, "summary.csv"), os.path.join(out_dir, "summary.html")))
    return rows


def keep_answers(entry: str, dest: str) -> None:
    """The student's answers.md (the Questions), kept in OUT."""
    tmp = tempfile.mkdtemp(prefix="kt-answers-")
    try:
        for rel in declared_files():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)) or tmp, exist_ok=True)
        try:
            got = ANSWERS in take(entry, tmp)
        except vm.KtError:
            got = False
        if got:
            shutil.copy(os.path.join(tmp, ANSWERS), dest)
        elif os.path.exists(dest):
            os.unlink(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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
