# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A grade means what it says (labs/points.py): each exercise's `key`
(steps.toml) names, as prefixes of check names, the checks that carry its
point; one of them BAD, or none of them run, and the exercise earns 0.

Here: every exercise has a key; every prefix names a check its grader
really produces on the lab's stored runs (labs/NN-name/runs/), in this
tree and in a student's copy (no grader-only files); the solution keeps
all its key checks GOOD; and the rules of labs/points.py on planted
results, down to the lines `make grade` prints."""
import ast
import os
import re
import shutil

import pytest

from labs import lab, mistakes, points
from tests.graderlib import HANDOUT, LABS, load, offline, run_of, solution_only, stored

EXERCISES = [(x.folder, ex) for x in LABS.values() for ex in x.exercises]
IDS = [ex["id"] for _, ex in EXERCISES]
# Exercises whose key is every check: an empty prefix, and why no narrower one binds
EVERY_CHECK = {"8.1": "a student's copy grades it with one TEACHER line of another name "
                      "(the lab's answers are not there)",
               "9.2": "a fix that any run, on either kernel, still crashes or that breaks the "
                      "qdisc is no fix; the held-back runs are one TEACHER line in a copy"}
# Exercises a grader-only file feeds: in a student's copy a TEACHER line stands for it
TEACHER_IN_A_COPY = {"1.1", "3.1", "3.2", "3.3", "8.1", "9.1", "9.2"}


@pytest.fixture(autouse=True, scope="module")
def offline_checks():
    for x in LABS.values():
        offline(x)


def runs_of(folder):
    x = LABS[int(folder[:2])]
    return {s["name"]: run_of(folder, s["name"], stored(folder, s["name"])) for s in x.steps
            if load(folder, s["name"], "serial") is not None}


def graded(x, ex):
    """The exercise's checks on the lab's stored runs, or pytest.skip saying
    why they cannot be graded offline here."""
    runs = runs_of(x.folder)
    if ex["step"] not in runs:
        why = " (a student tree leaves out the runs of its student's code)" if HANDOUT else ""
        pytest.skip("exercise %s cannot be graded offline: no stored run of %s/%s%s; its "
                    "prefixes are checked against check.py's source only" % (
                        ex["id"], x.folder, ex["step"], why))
    return x.exercise_checker(ex)(runs[ex["step"]], runs)


def literals(folder):
    """Every string literal of the lab's check.py, split at its
    %-conversions (%s, %d, %r, %016x, ...): [[text, None, text, ...]], each
    None standing for a formatted value."""
    with open(LABS[int(folder[:2])].path("check.py")) as f:
        tree = ast.parse(f.read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parts = re.split(r"(%%|%[-#0 +]*\d*(?:\.\d+)?[sdrxXif])", node.value)
            out.append([None if i % 2 and p != "%%" else p.replace("%%", "%")
                        for i, p in enumerate(parts)])
    return out


def starts(prefix, pieces):
    """Can a name formatted from pieces start with prefix?  Its texts are
    consumed in turn, a formatted value taking a word of it (a scenario,
    a function, a count: no blank)."""
    if not prefix:
        return True
    if not pieces:
        return False
    head, rest = pieces[0], pieces[1:]
    if head is None:
        word = re.match(r"\S*", prefix).end()
        return any(starts(prefix[i:], rest) for i in range(1, word + 1))
    if prefix.startswith(head):
        return starts(prefix[len(head):], rest)
    return head.startswith(prefix)


def key_of(ex_id):
    return next(ex for _, ex in EXERCISES if ex["id"] == ex_id)["key"]


# -- steps.toml ---------------------------------------------------------------

@pytest.mark.parametrize("folder,ex", EXERCISES, ids=IDS)
def test_every_exercise_has_a_key(folder, ex):
    key = ex.get("key")
    assert isinstance(key, list) and key, "exercise %s: no key (steps.toml)" % ex["id"]
    assert all(isinstance(k, str) for k in key), key
    assert len(set(key)) == len(key), "a prefix twice: %s" % key
    if ex["id"] in EVERY_CHECK:
        assert key == [""], key
    else:
        assert all(k for k in key), "an empty prefix keys every check: %s" % key


@pytest.mark.parametrize("folder,ex", EXERCISES, ids=IDS)
def test_every_prefix_could_come_from_check_py(folder, ex):
    """The source's own word, for a tree where the exercise cannot be
    graded offline (a student tree has no runs of the steps that run the
    student's code): each prefix starts a check name check.py can format."""
    lits = literals(folder)
    assert [k for k in ex["key"] if not any(starts(k, p) for p in lits)] == []


@pytest.mark.parametrize("folder,ex", EXERCISES, ids=IDS)
def test_every_prefix_names_a_check_of_the_stored_runs(folder, ex):
    res = graded(LABS[int(folder[:2])], ex)
    names = [n for n, _, _ in res]
    assert points.missing_keys(res, ex["key"]) == [], "no check starts so; the checks: %s" % names


@solution_only
@pytest.mark.parametrize("folder,ex", EXERCISES, ids=IDS)
def test_the_solution_keeps_its_key_checks_good(folder, ex):
    res = graded(LABS[int(folder[:2])], ex)
    keyed = [(n, ok) for n, ok, _ in res if points.is_key(n, ex["key"])]
    assert keyed and all(ok is True for _, ok in keyed), keyed
    assert points.credit(ex["points"], res, ex["key"]) == ex["points"]


@solution_only
@pytest.mark.parametrize("folder,ex", EXERCISES, ids=IDS)
def test_keys_bind_in_a_students_copy(folder, ex, tmp_path):
    """Without the grader-only files (reference.py, answers.toml: the
    checks they feed are TEACHER lines there), the solution still answers
    every prefix and no key check is BAD: the honest student loses nothing."""
    x = LABS[int(folder[:2])]
    shutil.copytree(x.path(), tmp_path / folder)
    os.symlink(os.path.join(os.path.dirname(x.path()), "module"), tmp_path / "module")
    for f in x.spec.get("grader_only", []):
        if os.path.exists(tmp_path / folder / f):
            os.remove(tmp_path / folder / f)
    copy = lab.load_lab(folder, str(tmp_path))
    offline(copy)
    res = graded(copy, ex)
    assert any(ok is None for _, ok, _ in res) == (ex["id"] in TEACHER_IN_A_COPY), res
    assert points.missing_keys(res, ex["key"]) == [], [n for n, _, _ in res]
    assert not [n for n, ok, _ in res if ok is False and points.is_key(n, ex["key"])], res


# -- labs/points.py on planted results ------------------------------------------

# Exercise 1.3's checks, as ex_tagstop names them: the stop (two checks),
# $obj's object, the three lines
CALL = "the VM is stopped just after a call into kmalloc returned (the instruction before $pc)"
STOP = ("the VM is stopped where the allocation has just returned the object: x0 is $obj "
        "(the grader's $x0 there)")
OBJ = "$obj is lab_uaf's object (its ptr line on the serial)"
LINES = ("pointer tag: as kasan-tag", "memory tag: as kasan-tag",
         "shadow: 9 granules as kasan-shadow")


def tagstop(call=True, stop=True, obj=True, lines=(True, True, True)):
    return [(CALL, call, "bl"), (STOP, stop, "x0 0x1"), (OBJ, obj, "")] + [
        (n, ok, "") for n, ok in zip(LINES, lines)]


def test_the_planted_1_3_checks_are_ex_tagstops():
    folder, ex = next(e for e in EXERCISES if e[1]["id"] == "1.3")
    res = graded(LABS[int(folder[:2])], ex)
    assert [n for n, _, _ in res] == [n for n, _, _ in tagstop()]


def test_1_3_keys_the_stop():
    key = key_of("1.3")
    assert all(points.is_key(n, key) for n in (CALL, STOP, OBJ))
    assert not any(points.is_key(n, key) for n in LINES)


def test_a_key_check_bad_earns_nothing():
    """Stopped at __kasan_kmalloc's entry (no finish), $obj from x1, three
    right lines: before the call check, 4 of 5 GOOD; now 4 of 6."""
    before = tagstop(stop=False)[1:]
    assert points.credit(3, before) == 2.4              # what it earned before keys
    assert points.credit(3, before, key_of("1.3")) == 0
    entry = tagstop(call=False, stop=False)
    assert points.credit(3, entry) == 2
    assert points.credit(3, entry, key_of("1.3")) == 0
    for one in (dict(call=False), dict(stop=False), dict(obj=False)):
        assert points.credit(3, tagstop(**one), key_of("1.3")) == 0, one


def test_a_check_off_the_key_keeps_partial_credit():
    assert points.credit(3, tagstop(lines=(True, True, False)), key_of("1.3")) == 2.5
    assert points.credit(3, tagstop(lines=(False, False, False)), key_of("1.3")) == 1.5
    assert points.credit(3, tagstop(), key_of("1.3")) == 3


def test_a_teacher_check_on_the_key_is_not_bad():
    res = [("access_ok on the grader's random cases", None, "graded by your teacher"),
           ("live: access_ok(0x1, 128, ...) is True: x", True, "")]
    assert points.missing_keys(res, key_of("1.1")) == []
    assert points.credit(2, res, key_of("1.1")) == 1


def test_a_missing_key_prefix_is_a_bad_check():
    res = [(n, True, "") for n in LINES]                # the stop never checked
    missing = points.missing_keys(res, key_of("1.3"))
    # one BAD line for all of them, named by the first, keyed
    (name, ok, why), = missing
    assert ok is False and name.startswith(key_of("1.3")[0] + " (no such check ran; nor ")
    assert "%d more" % (len(key_of("1.3")) - 1) in name and "steps.toml key" in why
    assert points.credit(3, res + missing, key_of("1.3")) == 0


def test_a_missing_key_prefix_in_the_tally(capsys, monkeypatch):
    monkeypatch.setattr(mistakes, "shown", lambda ex_id: [])
    t = points.Tally()
    ex = {"id": "9.1", "title": "t", "files": [], "points": 3, "key": ["the stop"]}
    t.add("09-x", "s", [("a", True, ""), ("b", True, "")], 0.0, exercise=ex)
    out = capsys.readouterr().out.splitlines()
    assert "BAD  09 ex 9.1: the stop (no such check ran) -- the exercise's point was not " \
           "checked: no check of it starts so (steps.toml key) (0.0 s)" in out
    assert any(ln.startswith("BAD  exercise 9.1: t (0/3 points) -- its point is missed: "
                             "the stop (no such check ran)") for ln in out), out
    e = t.summary()["exercises"]["list"][0]
    assert (e["points"], e["done"], e["key_failed"]) == (0, False, ["the stop (no such check ran)"])


@pytest.mark.parametrize("done,pending,hints,want", [
    (True, False, [], "GOOD"),
    (False, False, [], "BAD "),
    (True, False, [{"mistake": "m"}], "BAD "),
    (False, False, [{"mistake": "m"}], "BAD "),
    (False, True, [], "TEACHER"),
    (False, True, [{"mistake": "m"}], "BAD "),
])
def test_verdict(done, pending, hints, want):
    assert points.verdict(done, pending, hints) == want


@pytest.mark.parametrize("hints", [[], [{"mistake": "m"}]])
@pytest.mark.parametrize("pending", [False, True])
def test_verdict_is_never_good_short_of_done_or_with_a_hint(hints, pending):
    assert points.verdict(False, pending, hints) != "GOOD"
    assert points.verdict(True, pending, [{"mistake": "m"}]) != "GOOD"


EXERCISE_LINE = re.compile(r"^(GOOD|BAD |TEACHER) exercise (\S+): .* \(([\d.]+)/(\d+) points\)")
HINT_LINE = re.compile(r"^HINT ex (\S+) ")

# (results, key, hints) of one planted exercise of 3 points each
PLANTED = [
    (tagstop(), key_of("1.3"), []),                                   # all GOOD
    (tagstop(stop=False), key_of("1.3"), []),                         # the key missed
    (tagstop(lines=(True, False, True)), key_of("1.3"), []),          # partial credit
    (tagstop(), key_of("1.3"), [{"mistake": "stopped-before-return", "level": 1, "text": "x"}]),
    (tagstop(stop=False), key_of("1.3"),
     [{"mistake": "stopped-before-return", "level": 2, "text": "x"}]),
    ([(n, True, "") for n in LINES], key_of("1.3"), []),              # the key never ran
    ([("access_ok on the grader's random cases", None, "t"), ("live: x", True, "")],
     key_of("1.1"), []),                                              # TEACHER
    ([("access_ok on the grader's random cases", None, "t"), ("live: x", False, "")],
     key_of("1.1"), []),
    ([("your classification of the three sites", None, "t")], key_of("8.1"), []),
    ([("step ex-tagstop ran", False, "the step failed to run")], key_of("1.3"), []),
    ([("a", True, ""), ("b", True, "")], None, []),                  # no key at all
    ([("a", True, ""), ("b", False, "")], None, []),
]


def test_no_good_line_short_of_all_points_or_before_a_hint(capsys, monkeypatch):
    monkeypatch.setattr(mistakes, "shown", lambda ex_id: [])
    t = points.Tally()
    for i, (res, key, hints) in enumerate(PLANTED):
        ex = {"id": "9.%d" % (i + 1), "title": "planted %d" % i, "files": [], "points": 3}
        if key is not None:
            ex["key"] = key
        t.add("09-x", "s", res, 0.0, exercise=ex, hints=hints)
    out = capsys.readouterr().out.splitlines()
    lines = [(i, EXERCISE_LINE.match(ln)) for i, ln in enumerate(out)]
    lines = [(i, m) for i, m in lines if m]
    assert len(lines) == len(PLANTED)
    good = []
    for n, (i, m) in enumerate(lines):
        verdict, ex_id, got, mx = m.group(1), m.group(2), float(m.group(3)), int(m.group(4))
        end = lines[n + 1][0] if n + 1 < len(lines) else len(out)
        hinted = [ln for ln in out[i + 1:end] if HINT_LINE.match(ln)]
        assert all(HINT_LINE.match(ln).group(1) == ex_id for ln in hinted), hinted
        if verdict == "GOOD":
            assert got == mx and not hinted, out[i:end]
            good.append(ex_id)
        if PLANTED[n][2]:
            assert hinted and verdict != "GOOD", out[i:end]
    s = t.summary()
    assert s["exercises"]["done"] == len(good) == 2, (good, out)
    assert sorted(e["id"] for e in s["exercises"]["list"] if e["done"]) == good
    assert s["points"]["earned"] == sum(e["points"] for e in s["exercises"]["list"])
    assert [e["points"] for e in s["exercises"]["list"]] == [
        3, 0, 2.5, 3, 0, 0, 1.5, 0, 0, 0, 3, 1.5]


def test_one_bad_check_among_hundreds_is_not_good(capsys, monkeypatch):
    monkeypatch.setattr(mistakes, "shown", lambda ex_id: [])
    t = points.Tally()
    t.add("09-x", "s", [("c%d" % i, True, "") for i in range(399)] + [("z", False, "")], 0.0,
          exercise={"id": "9.1", "title": "t", "files": [], "points": 2})
    out = capsys.readouterr().out
    assert "GOOD exercise 9.1" not in out and t.summary()["exercises"]["done"] == 0
