# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make grade-class` at the teacher's: each entry of CLASS (a submission
archive or a student tree) graded in a fresh handout of this checkout.
Only the declared files and answers.md are taken from the student, never a
Makefile or a grader; OUT gets one JSON per student and the class summary
(classroom/summary.py).  `make grade-merge` joins the slices of SHARD=i/n.
"""

import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from typing import Dict, List, Optional, Tuple

import vm
from classroom import copies, handout
from classroom.secret import course_secret, seeds_of
from classroom.submit import ANSWERS, SUBMITTED, declared_files
from classroom.summary import summary
from labs import exercises
from labs import lab as labdata
from labs.points import points_of
from labs.student import STUDENT, STUDENT_ID, check_id

REPO = vm.REPO


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


def files_of(entry: str) -> Dict[str, bytes]:
    """{declared file: its bytes} of one student (an archive or a tree)."""
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
                    out[rel] = f.read()
        return out
    finally:
        shutil.rmtree(dest, ignore_errors=True)


def stub_digests() -> Dict[str, str]:
    """{declared file: copies.digest} of the handout's stubs: work left as
    handed out is no one's copy."""
    out = {}
    for rel in declared_files():
        path = os.path.join(REPO, rel)
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                out[rel] = copies.digest(rel, handout.student_text(rel, f.read()))
    return out


def grade_tree(tree: str, out_json: str, lab: Optional[str], seed: int,
               demos: bool = True) -> Dict:
    """`make grade` in a grading tree at `seed`: its results (demos=False:
    its exercises only, DEMOS=no)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env["SEED"] = str(seed)
    # a class is graded JOBS students at once, each in one process
    env["JOBS"] = "1"
    # runs of the same inputs are read, not booted again (vm/runcache.py):
    # what a class shares -- the demonstrations' runs, the steps that run
    # at the class's seed (labs/seeds.py: class_seed_step)
    env.setdefault("KASAN_TAGS_RUNCACHE", "1")
    args = ["make", "-s", "-C", tree, "grade", "OUT=" + os.path.abspath(out_json)]
    if not demos:
        args.append("DEMOS=no")
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


# The seed of a class's demonstrations: the site's, whose transcripts they
# then print.  They read no student's file, so they run once per class.
DEMO_SEED = 1


def restore_grader(tree: str) -> None:
    """Put back in a handout what only the grader reads (references,
    answers, outcomes), never a student's."""
    for rel in handout.grader_restore():
        shutil.copy(os.path.join(REPO, rel), os.path.join(tree, rel))


def grading_tree(tree: str) -> None:
    """A fresh handout of this checkout at `tree`, as the grader reads it."""
    handout.make_handout(tree)
    restore_grader(tree)


def class_demonstrations(out_dir: str, lab: Optional[str]) -> Dict:
    """The demonstrations of a class, graded once, at DEMO_SEED, in an
    untouched handout (OUT/.demos): no student's file is an input of
    theirs, nor is anything a student wrote."""
    work = os.path.join(out_dir, ".demos")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        grading_tree(os.path.join(work, "tree"))
        res = grade_tree(os.path.join(work, "tree"), os.path.join(work, "demos.json"), lab,
                         DEMO_SEED)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    demos = [c for c in res["checks"] if not c["exercise"]]
    print("grade-class: the demonstrations, once for the class (an untouched handout, "
          "SEED=%d): %d/%d GOOD" % (DEMO_SEED, res["demonstrations"]["good"],
                                    res["demonstrations"]["total"]), flush=True)
    return {"checks": demos, "demonstrations": res["demonstrations"], "seed": DEMO_SEED}


def with_demonstrations(result: Dict, demos: Dict) -> None:
    """A student's exercise-only results, given the class's demonstrations:
    their checks, tallies and seed take the demonstrations' place."""
    mine = [c for c in result["checks"] if c["exercise"]]
    result["checks"] = demos["checks"] + mine
    graded = [c for c in result["checks"] if c["ok"] is not None]
    result["score"] = sum(c["ok"] for c in graded)
    result["total"] = len(graded)
    result["teacher_only"] = len(result["checks"]) - len(graded)
    result["demonstrations"] = dict(demos["demonstrations"], seed=demos["seed"])


def lab_of(ex_id: str) -> str:
    return ex_id.split(".")[0]


def grade_one(entry: str, out_json: str, lab: Optional[str],
              seeds: Optional[Tuple[int, int]] = None,
              twins: Optional[Dict[str, List[Tuple[str, int]]]] = None,
              demos: Optional[Dict] = None) -> Dict:
    """Grade one student's files in a fresh handout of this checkout, made
    at the same place for the same student and OUT each time (OUT/.work-NAME):
    a gdb step's run then keeps its inputs, paths included, and a second
    grading of unchanged work reads the kept runs (vm/runcache.py).

    seeds: (the student's, the hidden one); an exercise is done only when
    it passes at both.  One that does not, but whose files the student
    changed, is tried at SEED=1 (the site's) and at the seed of each
    classmate with the very same files (twins: {exercise: [(name, seed)]}):
    passing there is named as the cause.

    demos: the class's demonstrations (class_demonstrations), which then
    take the place of the student's own; without them (one student, as
    Gradescope grades) they run at the student's seed.  At every other
    seed only the exercises run."""
    own, hidden = seeds or (vm.run_seed(), vm.run_seed())
    work = os.path.join(os.path.dirname(os.path.abspath(out_json)),
                        ".work-" + os.path.splitext(os.path.basename(out_json))[0])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        tree = os.path.join(work, "tree")
        grading_tree(tree)
        stubs = {rel: open(os.path.join(tree, rel), "rb").read() for rel in declared_files()
                 if os.path.isfile(os.path.join(tree, rel))}
        taken = take(entry, tree)
        changed = {rel for rel in taken
                   if open(os.path.join(tree, rel), "rb").read() != stubs.get(rel)}
        result = grade_tree(tree, out_json, lab, own, demos=demos is None)
        if demos is not None:
            with_demonstrations(result, demos)
        tiers = {"own": result}
        if hidden != own:
            tiers["hidden"] = grade_tree(tree, os.path.join(work, "hidden.json"), lab, hidden,
                                         demos=False)
        extra: Dict[int, Dict] = {}

        def passes_at(seed: int, ex_id: str) -> bool:
            if seed not in extra:
                extra[seed] = grade_tree(tree, os.path.join(work, "seed%d.json" % seed),
                                         lab_of(ex_id), seed, demos=False)
            return any(e["id"] == ex_id and e["done"] for e in extra[seed]["exercises"]["list"])
        for e in result["exercises"]["list"]:
            at = {t: next((x["done"] for x in r["exercises"]["list"] if x["id"] == e["id"]),
                          False) for t, r in tiers.items()}
            e["done"] = all(at.values())
            if e.get("seed") == vm.DEFAULT_SEED != own:
                # answered in data: graded on the class's run at every tier
                # (labs/seeds.py: class_seed_step), whatever the student's seed
                e["seeds"] = {"SEED=%d, the class's run (answers in data)" % vm.DEFAULT_SEED:
                              e["done"]}
                continue
            e["seeds"] = {"own %d" % own: at["own"]}
            if "hidden" in at:
                e["seeds"]["hidden"] = at["hidden"]
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
        result["points"] = points_of(result["exercises"]["list"])
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
    # class, whatever the shard: the same twins and copies on every machine)
    files = {n: files_of(e) for n, e in zip(names, entries)}
    digests = {n: {rel: hashlib.sha256(b).hexdigest() for rel, b in fs.items()}
               for n, fs in files.items()}
    by_ex = {ex["id"]: ex["files"] for x in labdata.load_all() for ex in x.exercises}
    stubs = stub_digests()
    same = copies.groups({n: copies.work_digests(
        {rel: b.decode(errors="replace") for rel, b in fs.items()}, by_ex, stubs)
        for n, fs in files.items()})
    mine = [(e, n) for k, (e, n) in enumerate(zip(entries, names))
            if shard is None or k % shard[1] == shard[0] - 1]
    demos = class_demonstrations(out_dir, lab) if mine else None

    def one(item: Tuple[str, str]) -> Dict:
        entry, name = item
        twins = {}
        for ex_id, files in by_ex.items():
            theirs = [digests[name].get(f) for f in files]
            if None not in theirs:
                twins[ex_id] = [(o, seeds[o][0]) for o in names if o != name
                                and [digests[o].get(f) for f in files] == theirs]
        res = grade_one(entry, os.path.join(out_dir, name + ".json"), lab, seeds[name], twins,
                        demos)
        res["claimed"] = claimed(entry)
        res["copies"] = same.get(name, {})
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
