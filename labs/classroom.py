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
import concurrent.futures
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
from labs import exercises, grade, handout
from vm.base import one_line_errors
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


def hints_seen(root: str) -> str:
    """The hints shown in the tree at root (build/grade/hints.json), as
    "EX:MISTAKE:LEVEL ..." for submission.toml."""
    from labs import mistakes
    state = mistakes.load_state(os.path.join(root, os.path.relpath(mistakes.STATE, REPO)))
    return " ".join("%s:%s:%d" % (ex, m, int(n)) for ex in sorted(state)
                    for m, n in sorted(state[ex].get("levels", {}).items())
                    if re.fullmatch(r"[\w.-]+", ex + m) and str(n).isdigit())


def submit(root: str = REPO) -> str:
    """Write build/submission.tar.gz of the tree at `root`; its path.  It
    holds the declared files, answers.md and submission.toml: the student
    id and seed (student.toml), the time and the hints shown here."""
    ans = os.path.join(root, ANSWERS)
    if not os.path.exists(ans):
        with open(ans, "w") as f:
            f.write(answers_template())
        print("submit: wrote %s: put your answers to the labs' Questions there, "
              "then run make submit again" % ANSWERS)
    who = read_student(root)
    out = os.path.join(root, SUBMISSION)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    stamp = ("# written by make submit\nid = \"%s\"\nseed = %s\ntime = \"%s\"\n"
             "# the hints make grade and make hint showed here: exercise:mistake:level\n"
             "hints = \"%s\"\n" % (
                 who["id"] if who else "", who["seed"] if who else "\"\"",
                 time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), hints_seen(root))).encode()
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
            # the student's bytes: parsed in the sandbox (labs/exercises.py)
            d, _ = exercises.sandboxed(name, data.decode(errors="replace"), {"read": "toml"})
            d = (d or {}).get("data")
            if isinstance(d, dict):
                return {k: d[k] for k in ("id", "seed", "time", "hints")
                        if isinstance(d.get(k), (str, int))}
        except (KeyError, OSError, ValueError, tarfile.TarError):
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
        for e in result["exercises"]["list"]:
            # the points the exercise earns at every seed: the least of them
            e["tier_points"] = {t: next((x["points"] for x in r["exercises"]["list"]
                                         if x["id"] == e["id"]), 0) for t, r in tiers.items()}
            e["points"] = min(e["tier_points"].values())
            if e.get("why"):
                e["points"] = 0
        result["exercises"]["done"] = sum(e["done"] for e in result["exercises"]["list"])
        result["points"] = grade.points_of(result["exercises"]["list"])
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


def exercise_ids(rows: List[Dict]) -> List[str]:
    return sorted({e["id"] for r in rows for e in r["result"]["exercises"]["list"]},
                  key=lambda i: tuple(int(x) for x in i.split(".")))


def reasons(res: Dict, ex_id: str) -> List[str]:
    """The BAD lines of one exercise: its checks that failed, at each seed."""
    out = ["%s%s: %s" % ("[hidden seed] " if c.get("seed") == "hidden" else "", c["check"],
                         c["why"]) for c in res.get("checks", [])
           if c.get("exercise") == ex_id and c["ok"] is False]
    e = next((e for e in res["exercises"]["list"] if e["id"] == ex_id), {})
    known = ["known mistake (labs/*/mistakes.toml): %s" % m for m in e.get("mistakes", [])]
    return ([e["why"]] if e.get("why") else []) + known + out


def summary(rows: List[Dict], out_dir: str) -> None:
    """summary.csv, summary.json and summary.html: a row per student (sorted
    by id), the points per lab and per exercise, the seed, the answers.
    A function of the students' JSON only: the same class gives the same
    bytes whatever JOBS or SHARD graded it."""
    rows = sorted(rows, key=lambda r: r["student"])
    ids = exercise_ids(rows)
    labs = sorted({i.split(".")[0] for i in ids}, key=int)
    head = ["student", "seed", "points", "max points", "exercises done", "exercises",
            "demonstrations", "hints seen"] + ["lab %s" % x for x in labs] + ids + ["answers"]
    table = []
    for r in rows:
        res = r["result"]
        pts = res.get("points") or grade.points_of(res["exercises"]["list"])
        by_id = {e["id"]: e for e in res["exercises"]["list"]}
        demo = res.get("demonstrations", {"good": 0, "total": 0})
        ans = r["student"] + ".answers.md"
        table.append([r["student"], res.get("seed", ""), pts["earned"], pts["max"],
                      res["exercises"]["done"], res["exercises"]["total"],
                      "%d/%d" % (demo["good"], demo["total"]),
                      len(str(res.get("claimed", {}).get("hints", "")).split())]
                     + [pts["labs"].get(x, {}).get("earned", 0) for x in labs]
                     + [by_id[i]["points"] if i in by_id else "" for i in ids]
                     + [ans if os.path.exists(os.path.join(out_dir, ans)) else ""])
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(head)
        w.writerows(table)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump({"columns": head, "rows": table}, f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, "summary.html"), "w") as f:
        f.write(summary_html(rows, head, table, ids))


SORT_JS = """
document.querySelectorAll('th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0], up = th.dataset.up !== '1';
    th.dataset.up = up ? '1' : '0';
    Array.from(body.rows).sort(function (a, b) {
      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;
      var n = parseFloat(x) - parseFloat(y);
      return (isNaN(n) ? x.localeCompare(y) : n) * (up ? 1 : -1);
    }).forEach(function (r) { body.appendChild(r); });
  });
});
"""


def summary_html(rows: List[Dict], head: List[str], table: List[List], ids: List[str]) -> str:
    """A page a teacher reads: sortable by any column (click its header),
    each exercise's BAD reasons one click away (its cell)."""
    def cell(v: object, extra: str = "") -> str:
        return "<td data-v=\"%s\">%s%s</td>" % (html.escape(str(v)), html.escape(str(v)), extra)
    out = []
    for r, row in zip(rows, table):
        cells = []
        for name, v in zip(head, row):
            if name in ids:
                why = reasons(r["result"], name)
                cells.append(cell(v, "<details><summary>why</summary><ul>%s</ul></details>" % (
                    "".join("<li>%s</li>" % html.escape(w) for w in why)) if why else ""))
            elif name == "answers" and v:
                cells.append("<td data-v=\"%s\"><a href=\"%s\">answers</a></td>" % (
                    html.escape(v), html.escape(v)))
            else:
                cells.append(cell(v))
        out.append("<tr>%s</tr>\n" % "".join(cells))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kasan-tags: class "
            "results</title><style>td,th{border:1px solid #999;padding:2px 6px}"
            "th{cursor:pointer}table{border-collapse:collapse}</style></head><body>\n"
            "<p>%d students. Click a column's header to sort by it; an exercise's cell opens "
            "the reasons it lost points.</p>\n<table>\n<thead><tr>%s</tr></thead>\n<tbody>\n"
            "%s</tbody></table>\n<script>%s</script>\n</body></html>\n" % (
                len(rows), "".join("<th>%s</th>" % html.escape(h) for h in head), "".join(out),
                SORT_JS))


def shard_of(text: Optional[str]) -> Optional[Tuple[int, int]]:
    """SHARD=i/n as (i, n), 1 <= i <= n; None when not given."""
    if not text:
        return None
    m = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise vm.KtError("SHARD must be i/n with 1 <= i <= n (not %r)" % text)
    return int(m.group(1)), int(m.group(2))


def grade_class(class_dir: str, out_dir: str, lab: Optional[str] = None, jobs: int = 1,
                shard: Optional[Tuple[int, int]] = None) -> List[Dict]:
    """Grade every entry of class_dir (NAME.tar.gz or a tree NAME/): NAME is
    the student id, whose seeds come from the course secret.  JOBS students
    at a time; SHARD=i/n grades the entries i, i+n, i+2n, ... (sorted by
    name) and the summary then covers every student whose results are in
    OUT, so that the slices of n machines merge (grade_merge)."""
    if not os.path.isdir(class_dir):
        raise vm.KtError("CLASS=%s is not a directory of submissions or student trees"
                         % class_dir)
    entries = sorted(os.path.join(class_dir, e) for e in os.listdir(class_dir)
                     if not e.startswith("."))
    if not entries:
        raise vm.KtError("CLASS=%s is empty" % class_dir)
    if jobs < 1:
        raise vm.KtError("JOBS must be 1 or more (not %d)" % jobs)
    os.makedirs(out_dir, exist_ok=True)
    secret = course_secret()
    names = [student_name(e) for e in entries]
    for n in names:
        check_id(n)
    seeds = {n: seeds_of(n, secret) for n in names}
    # the classmates whose files of an exercise are the very same (the whole
    # class, whatever the shard: the same twins on every machine)
    digests = {n: file_digests(e) for n, e in zip(names, entries)}
    by_ex = {ex["id"]: ex["files"] for x in labdata.load_all() for ex in x.exercises}
    mine = [(e, n) for k, (e, n) in enumerate(zip(entries, names))
            if shard is None or k % shard[1] == shard[0] - 1]

    def one(item: Tuple[str, str]) -> Dict:
        entry, name = item
        twins = {}
        for ex_id, files in by_ex.items():
            theirs = [digests[name].get(f) for f in files]
            if None not in theirs:
                twins[ex_id] = [(o, seeds[o][0]) for o in names if o != name
                                and [digests[o].get(f) for f in files] == theirs]
        res = grade_one(entry, os.path.join(out_dir, name + ".json"), lab, seeds[name], twins)
        res["claimed"] = claimed(entry)
        keep_answers(entry, os.path.join(out_dir, name + ".answers.md"))
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
            f.write("\n")
        print("grade-class: %s (seed %d and a hidden one): %g/%d points, %d/%d exercises "
              "(files taken: %d)" % (name, seeds[name][0], res["points"]["earned"],
                                     res["points"]["max"], res["exercises"]["done"],
                                     res["exercises"]["total"], len(res["taken"])), flush=True)
        for e in res["exercises"]["list"]:
            if e.get("why"):
                print("grade-class: %s: exercise %s %s" % (name, e["id"], e["why"]), flush=True)
        return {"student": name, "result": res}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(one, mine))
    merged = grade_merge(out_dir)
    print("grade-class: %d students graded here%s; %d in %s" % (
        len(rows), " (shard %d/%d)" % shard if shard else "", len(merged),
        os.path.join(out_dir, "summary.{csv,json,html}")))
    return rows


def grade_merge(out_dir: str) -> List[Dict]:
    """The summary of every student's results found in out_dir (the slices
    of SHARD=i/n gradings copied into one directory): `make grade-merge`."""
    if not os.path.isdir(out_dir):
        raise vm.KtError("OUT=%s is not a directory of grade-class results" % out_dir)
    rows = []
    for f in sorted(os.listdir(out_dir)):
        name = f[:-len(".json")]
        if not f.endswith(".json") or f == "summary.json" or not STUDENT_ID.match(name):
            continue
        try:
            with open(os.path.join(out_dir, f)) as fh:
                res = json.load(fh)
            res["exercises"]["list"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise vm.KtError("%s is not a student's results (%s)" % (os.path.join(out_dir, f), e))
        rows.append({"student": name, "result": res})
    if not rows:
        raise vm.KtError("OUT=%s holds no student's results (make grade-class writes them)"
                         % out_dir)
    summary(rows, out_dir)
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
        else:
            with open(dest, "w") as f:
                f.write("# (no %s in this submission)\n" % ANSWERS)
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
    g.add_argument("--jobs", default="1", help="students graded at once")
    g.add_argument("--shard", help="i/n: grade one slice of the class")
    m = sub.add_parser("grade-merge")
    m.add_argument("out_dir")
    a = ap.parse_args(argv)

    def go() -> None:
        if a.cmd == "submit":
            print("submit: %s (%d files declared by the exercises, and %s)" % (
                submit(), len(declared_files()) - 1, ANSWERS))
        elif a.cmd == "grade-merge":
            rows = grade_merge(a.out_dir)
            print("grade-merge: %d students in %s" % (
                len(rows), os.path.join(a.out_dir, "summary.{csv,json,html}")))
        else:
            if not a.jobs.isdigit():
                raise vm.KtError("JOBS must be a number (not %r)" % a.jobs)
            vm.install_signal_handlers()
            grade_class(a.class_dir, a.out_dir, a.lab, int(a.jobs), shard_of(a.shard))
    return one_line_errors(go)


if __name__ == "__main__":
    sys.exit(main())
