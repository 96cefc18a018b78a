# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 8 grader: the ptrcmp kernel's sites, their table, and the exercises
(classify three sites; a C comparison the runtime catches)."""
import os
import re
import tomllib

from labs.exercises import clip, load_answers

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = re.compile(r"ptrcmp site count=(\d+) tags=([0-9a-f]{2}),([0-9a-f]{2}) at (\w+)\+")
TOTAL = re.compile(r"ptrcmp sites=(\d+) lost=(\d+)")
ROW = re.compile(r"^\s*(\d+)\s+([0-9a-f]{2},[0-9a-f]{2})\s+(\w+)\+\S+(?: \[\w+\])?\s+(\S+)\s+(\S+)")
VERDICT = re.compile(r"^  (\w+)\s+(\S+)\s+(reproduced|not reproduced|not built here)")


def load(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return tomllib.load(f)


def sites(text):
    """{function: count} of the runtime's list in a serial log."""
    out = {}
    for m in SITE.finditer(text):
        out[m.group(4)] = out.get(m.group(4), 0) + int(m.group(1))
    return out


def check_sites(run):
    s = sites(run.serial)
    total = TOTAL.search(run.serial)
    return [
        ("the KUnit suite ran on the ptrcmp kernel", "# kasan: pass:" in run.serial,
         "no KUnit summary line"),
        ("the busybox session ran to its end", "workload done" in run.serial,
         "no 'workload done' line"),
        ("the runtime listed its sites, none lost",
         bool(total) and int(total.group(1)) > 0 and total.group(2) == "0",
         total.group(0) if total else "no 'ptrcmp sites=' line"),
        ("a site in lab_ptr_compare: the planted comparison of p with its untagged copy",
         "lab_ptr_compare" in s, "sites: %s" % sorted(s)[:12]),
        ("no site in lab_ptr_same_tag: two pointers with the same tag",
         bool(s) and "lab_ptr_same_tag" not in s, "lab_ptr_same_tag is listed"),
    ]


def rows(host):
    """[(count, tags, function, file:line, kind)] of sites.py's table."""
    out = []
    for ln in host.splitlines():
        m = ROW.match(ln)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5)))
    return out


def verdicts(host):
    return {m.group(1): m.group(3) for m in map(VERDICT.match, host.splitlines()) if m}


def check_table(run):
    r, v = rows(run.host), verdicts(run.host)
    # what the page highlights: the verdicts, the planted row, exercise 8.1's rows
    run.note(ln for ln in run.host.splitlines() if VERDICT.match(ln) or ROW.match(ln) and (
        "lab_ptr_compare" in ln or "exercise-8.1" in ln))
    names = [f["name"] for f in load("functions.toml")["function"]]
    return [
        ("every site symbolized to file:line", bool(r) and all(x[3] != "?" for x in r),
         "unresolved: %s" % [x[2] for x in r if x[3] == "?"][:6]),
        ("every function of the cover letter's list has a verdict",
         sorted(v) == sorted(names), "verdicts for %s" % sorted(v)),
        ("the planted comparison is in the table (lab_ptr_compare)",
         any(x[2] == "lab_ptr_compare" for x in r), "no lab_ptr_compare row"),
    ]


def ex_sites(ex_id):
    """The sites exercise ex_id names (steps.toml `sites`)."""
    with open(os.path.join(HERE, "steps.toml"), "rb") as f:
        return next((e.get("sites", []) for e in tomllib.load(f)["exercise"]
                     if e["id"] == ex_id), [])


def ex_classify(run, _runs):
    """Three sites of the run, classified by the student as the lab does."""
    try:
        mine = load_answers(__file__, "classify.toml").get("site", [])
    except ValueError as e:
        return [("student/classify.toml reads", False, str(e))]
    if not isinstance(mine, list) or not all(isinstance(x, dict) for x in mine):
        return [("student/classify.toml has [[site]] tables", False, clip(repr(mine), 100))]
    kinds = {f["name"]: f["kind"] for f in load("functions.toml")["function"]}
    try:
        kinds.update({a["function"]: a["kind"] for a in load("answers.toml")["site"]})
    except OSError:
        return [("your classification of the three sites", None,
                 "graded by your teacher's make grade-class (the lab's answers are not "
                 "in your copy)")]
    found = {x[2] for x in rows(run.host)}
    named, yours = sorted(ex_sites("8.1")), sorted(s.get("function", "") for s in mine)
    res = [("the three sites of the exercise (steps.toml)", yours == named,
            "you classified %s; the exercise names %s" % (yours, named))]
    for s in mine:
        fn, kind = s.get("function", ""), s.get("kind", "")
        res.append(("%s: a site of this run, classified %r" % (fn, kind),
                    fn in found and kinds.get(fn) == kind,
                    "not a site of this run" if fn not in found else
                    "you said %r" % kind))
    if len(mine) != 3:
        res.append(("three sites", False, "%d in classify.toml" % len(mine)))
    return res


def ex_student_ptrcmp(run, _runs):
    s = sites(run.serial)
    return [("the runtime recorded your comparison in student_ptrcmp",
             "student_ptrcmp" in s, "sites: %s" % sorted(s))]


# -- Known mistakes (labs/mistakes.py) ---------------------------------------

def classified():
    """[(function, the student's kind, the lab's kind)] of exercise 8.1;
    [] where the lab's answers are not (a student's copy)."""
    mine = load_answers(__file__, "classify.toml").get("site", [])
    try:
        lab = {a["function"]: a["kind"] for a in load("answers.toml")["site"]}
    except OSError:
        return []
    return [(s.get("function"), s.get("kind"), lab.get(s.get("function"))) for s in mine]


def wrongly(kind):
    """A site of the exercise the student gave `kind`, which is not the lab's."""
    return any(said == kind and lab is not None and lab != said for _, said, lab in classified())


def mistake_ptrcmp_identity_by_operator(run, runs):
    return wrongly("identity")


def mistake_ptrcmp_same_allocation_misread(run, runs):
    return wrongly("same-allocation")


def mistake_ptrcmp_fixed_address_misread(run, runs):
    return wrongly("fixed-address")


def mistake_ptrcmp_aliased_by_tags(run, runs):
    return wrongly("aliased")


STUDENT_SITE = re.compile(r"ptrcmp site count=\d+ tags=\w\w,\w\w at (\w+)\+\S+ \[kasan_student\]")
POINTER = re.compile(r"(?:0x)?([0-9a-f]{16})")


def student_sites(run):
    """The functions of kasan_student where the runtime recorded a site."""
    return {m.group(1) for m in STUDENT_SITE.finditer(run.serial)}


def printed_tags(run):
    """The tags of the kernel pointers (bits 55..48 all ones, as the
    runtime wants them) the student's result lines print, in order."""
    vals = [v for ev, kv in run.lab_lines("student-ptrcmp") if ev == "result" for v in kv.values()]
    ptrs = [int(m.group(1), 16) for m in map(POINTER.fullmatch, vals) if m]
    return [p >> 56 for p in ptrs if (p >> 48) & 0xFF == 0xFF]


def nothing_recorded(run):
    """The tags the student printed, when no site in kasan_student was
    recorded and at least two pointers were printed; else None."""
    tags = printed_tags(run)
    return tags if not student_sites(run) and len(tags) >= 2 else None


def mistake_ptrcmp_compared_in_a_helper(run, runs):
    found = student_sites(run)
    return bool(found) and "student_ptrcmp" not in found


def mistake_ptrcmp_one_object_compared(run, runs):
    tags = nothing_recorded(run)
    return tags is not None and len(set(tags)) == 1 and tags[0] != 0xFF


def mistake_ptrcmp_both_untagged(run, runs):
    tags = nothing_recorded(run)
    return tags is not None and set(tags) == {0xFF}


def mistake_ptrcmp_tags_compared_not_pointers(run, runs):
    tags = nothing_recorded(run)
    return tags is not None and len(set(tags)) > 1
