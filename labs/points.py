# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What a grading earns and prints: each check GOOD or BAD, each exercise's
points, the known mistakes its work shows (labs/mistakes.py) and the totals.
"""

import vm
from labs import mistakes
from vm import sandbox


def hints_of(lab, ex, results, run, runs):
    """The known mistakes (labs/mistakes.py) the work of an exercise that is
    not done shows, recorded in build/grade/hints.json: [{"mistake",
    "level", "text"}], each at the most specific hint shown so far."""
    done = results and all(ok is True for _, ok, _ in results)
    found = [] if done or run is None else mistakes.diagnose(lab, ex, run, runs)
    return [dict(h, text=mistakes.text(lab, h["mistake"], h["level"]))
            for h in mistakes.graded(ex["id"], found)]


def is_key(name, key):
    """Does the check called `name` carry its exercise's point (its name
    starts with one of the exercise's `key` prefixes, steps.toml)?"""
    return any(name.startswith(k) for k in key or ())


def missing_keys(results, key):
    """The key prefixes that no check of these results answers (a check
    renamed, or work that stopped before it), as one BAD check named by
    the first (keyed, so the exercise earns 0): never a key silently
    skipped, and one line, not one per key, for work not started."""
    lost = [k for k in key or () if not any(n.startswith(k) for n, _, _ in results)]
    if not lost:
        return []
    more = "; nor %d more of its key checks" % (len(lost) - 1) if len(lost) > 1 else ""
    return [(lost[0] + " (no such check ran%s)" % more, False,
             "the exercise's point was not checked: no check of it starts so (steps.toml key)")]


def credit(points, results, key=()):
    """An exercise's points.  A key check BAD (the exercise's point missed:
    the stop in 1.3, access_ok's answers in 1.1) earns 0; otherwise its share of
    GOOD checks (partial credit for the rest), rounded to hundredths.  A
    TEACHER check earns nothing here (the teacher's grading decides)."""
    if not results or any(ok is False for n, ok, _ in results if is_key(n, key)):
        return 0
    return round(points * sum(ok is True for _, ok, _ in results) / len(results), 2)


def verdict(done, pending, hints):
    """GOOD only for an exercise done (every check GOOD: all its points),
    with no known mistake found; TEACHER for one whose checks in this copy
    are all GOOD or the teacher's; BAD otherwise."""
    if hints:
        return "BAD "
    if pending:
        return "TEACHER"
    return "GOOD" if done else "BAD "


def points_of(exercises):
    """{"earned", "max", "labs": {LAB: {"earned", "max"}}} of exercise records."""
    labs = {}
    for e in exercises:
        lab = labs.setdefault(e["id"].split(".")[0], {"earned": 0, "max": 0})
        lab["earned"] = round(lab["earned"] + e["points"], 2)
        lab["max"] += e["max_points"]
    return {"earned": round(sum(e["points"] for e in exercises), 2),
            "max": sum(e["max_points"] for e in exercises), "labs": labs}


class Tally:
    """What `make grade` prints and --out writes: every check, and per
    exercise done (all its checks GOOD) or not.  A check whose ok is None
    is one that only the teacher's grading can mark (its reference is not
    in a student's copy): printed as TEACHER, counted neither way."""

    def __init__(self):
        self.checks, self.exercises = [], []
        self.seconds = {}   # lab: the seconds its steps and exercises took

    def took(self, lab, secs):
        self.seconds[lab] = round(self.seconds.get(lab, 0.0) + secs, 1)

    def add(self, lab, step, results, secs, exercise=None, hints=()):
        if exercise is not None:
            results = list(results) + missing_keys(results, exercise.get("key"))
        for name, ok, why in results:
            self.checks.append({"lab": lab, "step": step, "exercise": exercise and exercise["id"],
                                "check": name, "ok": None if ok is None else bool(ok),
                                "why": "" if ok else why})
            print("%s %s %s: %s%s (%.1f s)" % (
                "TEACHER" if ok is None else "GOOD" if ok else "BAD ", lab[:2],
                "ex " + exercise["id"] if exercise else step,
                name, "" if ok else " -- " + why, secs), flush=True)
            secs = 0.0
        if exercise is not None:
            self.add_exercise(lab, exercise, results, hints)

    def add_exercise(self, lab, exercise, results, hints):
        """One exercise's line: its points, GOOD only when it earned all of
        them; then a HINT line for each known mistake its work shows."""
        key = exercise.get("key")
        mine = [ok for _, ok, _ in results if ok is not None]
        done = bool(mine) and all(mine) and len(mine) == len(results) and not hints
        # every check this copy can run GOOD, the rest the teacher's
        pending = bool(results) and all(mine) and len(mine) < len(results) and not hints
        got = credit(exercise["points"], results, key)
        missed = [n for n, ok, _ in results if ok is False and is_key(n, key)]
        self.exercises.append({"id": exercise["id"], "title": exercise["title"],
                               "files": exercise["files"], "done": done,
                               "teacher": pending, "max_points": exercise["points"],
                               "points": got, "key_failed": missed,
                               "mistakes": [h["mistake"] for h in hints],
                               # the seed of the run it was graded on
                               "seed": vm.run_seed(),
                               "hints_shown": mistakes.shown(exercise["id"])})
        print("%s exercise %s: %s (%g/%d points)%s" % (
            verdict(done, pending, hints), exercise["id"],
            exercise["title"], got, exercise["points"],
            " (what your copy can check; your teacher's grading checks the rest)" if pending
            else " -- its point is missed: %s" % "; ".join(missed) if missed else ""),
            flush=True)
        for h in hints:
            print("HINT ex %s (%d of %d, %s): %s\n     more specific: make hint N=%d EX=%s" % (
                exercise["id"], h["level"], mistakes.LEVELS, h["mistake"], h["text"],
                int(lab[:2]), exercise["id"]), flush=True)

    def summary(self):
        graded = [c for c in self.checks if c["ok"] is not None]
        demo = [c for c in graded if not c["exercise"]]
        return {"score": sum(c["ok"] for c in graded), "total": len(graded),
                "seed": vm.run_seed(),
                # the wall the student's work ran behind (vm/sandbox.py), if any ran
                "wall": sandbox.wall_used(),
                "demonstrations": {"good": sum(c["ok"] for c in demo), "total": len(demo)},
                "teacher_only": len(self.checks) - len(graded),
                "exercises": {"done": sum(e["done"] for e in self.exercises),
                              "total": len(self.exercises), "list": self.exercises},
                "points": points_of(self.exercises),
                "seconds": self.seconds,
                "checks": self.checks}
