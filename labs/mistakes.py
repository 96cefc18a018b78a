# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The catalogue of known mistakes, and the hints that answer them.

Each lab's mistakes.toml names the wrong answers students really give to
its exercises, each with three hints, the first naming the misconception
and each next one more specific -- none of them the answer:

    [[mistake]]
    exercise = "1.1"
    id = "match-all-checked"          # unique in the lab
    hints = ["...", "...", "..."]

and its check.py a detector for each, `mistake_<id>(run, runs)` (dashes
as underscores), or the entry says which function of check.py detects it
and with what: `detect = ["contradicted", "same"]` calls
contradicted(run, runs, "same").  True when the graded work shows that
mistake.  A
detector looks at what the student's work did (the answers of their
Python on chosen inputs, their TOML, what their gdb file or module left in
the run) and never at a stored answer, so a student's copy diagnoses too.

`make grade` asks the detectors of every exercise that is not done and
prints the first hint of each mistake found; `make hint N= EX=` shows the
next, more specific one.  Which hints were shown is kept in
build/grade/hints.json and written into the grade's JSON.

A prediction's known mistakes tell which outcomes are wrong: a lab keeps
those in mistakes-teacher.toml (the same form; grader_only in its
steps.toml), which a handout leaves out and make grade-class puts back.

Each mistake is planted in the solution by the lab's planted.py (a
grader-only file: the plants are edits of the solution).  Its PLANTS are
{"mistake": id, "edits": [(file, old, new), ...], "runs": {step: {kind:
function of the text}}}: the edits make the mistake in the student's
files (a file in the lab folder, or labs/...; each `old` found once);
where the answer is in a run (a gdb file, a C scenario), `runs` alter the
stored run of the step as the planted file's run shows it (alter_once
below).  `make test` grades every plant and wants its own mistake, and
only it, found, and the solution none (tests/test_mistakes.py); `make
check`'s mistakes-live grades the plants with `runs` live.
"""

import json
import os
import re
import sys
import tomllib
from typing import Any, Callable, Dict, List, Optional, Tuple

import vm

CATALOGUE = "mistakes.toml"
TEACHER = "mistakes-teacher.toml"
LEVELS = 3
KEYS = {"exercise": str, "id": str, "hints": list}
OPTIONAL = {"detect": list}
STATE = os.path.join(vm.REPO, "build", "grade", "hints.json")


def catalogue(lab: Any) -> List[Dict[str, Any]]:
    """The lab's mistakes (mistakes.toml, then mistakes-teacher.toml where
    the tree has it), validated: KtError naming the file and the entry."""
    out: List[Dict[str, Any]] = []
    for name in (CATALOGUE, TEACHER):
        path = lab.path(name)
        if not os.path.exists(path):
            continue
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise vm.KtError("labs/%s/%s: %s" % (lab.folder, name, e))
        for i, m in enumerate(data.get("mistake", [])):
            where = "labs/%s/%s: mistake %s" % (lab.folder, name, m.get("id", "#%d" % (i + 1)))
            entry_errors(lab, m, where, out)
            out.append(m)
    return out


def entry_errors(lab: Any, m: Dict[str, Any], where: str, earlier: List[Dict[str, Any]]) -> None:
    """KtError for the first thing wrong with catalogue entry m."""
    for k, t in KEYS.items():
        if not isinstance(m.get(k), t):
            raise vm.KtError("%s: %r must be a %s" % (where, k, t.__name__))
    extra = set(m) - set(KEYS) - set(OPTIONAL)
    if extra:
        raise vm.KtError("%s: unknown keys %s" % (where, ", ".join(sorted(extra))))
    ids = {e["id"] for e in lab.exercises}
    if m["exercise"] not in ids:
        raise vm.KtError("%s: exercise %s is not one of the lab's (%s)" % (
            where, m["exercise"], ", ".join(sorted(ids))))
    if len(m["hints"]) != LEVELS or not all(isinstance(h, str) and h.strip()
                                            for h in m["hints"]):
        raise vm.KtError("%s: hints must be %d sentences, each more specific" % (where, LEVELS))
    if any(m["id"] == o["id"] for o in earlier):
        raise vm.KtError("%s: the id is used twice" % where)
    if "detect" in m and not (m["detect"] and isinstance(m["detect"][0], str)):
        raise vm.KtError("%s: detect must be [function of check.py, its arguments...]" % where)
    if not callable(getattr(lab.module, detector_name(m), None)):
        raise vm.KtError("%s: labs/%s/check.py has no %s()" % (
            where, lab.folder, detector_name(m)))


def detector_name(m: Dict[str, Any]) -> str:
    if "detect" in m:
        return str(m["detect"][0])
    return "mistake_" + m["id"].replace("-", "_")


def of_exercise(lab: Any, ex_id: str) -> List[Dict[str, Any]]:
    return [m for m in catalogue(lab) if m["exercise"] == ex_id]


def diagnose(lab: Any, ex: Dict[str, Any], run: Any, runs: Dict[str, Any]) -> List[str]:
    """The ids of the exercise's known mistakes the graded work shows.  A
    detector that fails on odd work (a missing section, a crash of the
    student's code) has found nothing."""
    found = []
    for m in of_exercise(lab, ex["id"]):
        detect: Callable[..., Any] = getattr(lab.module, detector_name(m))
        try:
            hit = detect(run, runs, *m.get("detect", [None])[1:]) is True
        except Exception:  # noqa: BLE001 -- odd work: no diagnosis, never a crash
            hit = False
        if hit:
            found.append(m["id"])
    return found


def alter_once(pattern: str, repl: Any) -> Callable[[str], str]:
    """A plant's run alteration: re.sub of pattern (multiline) by repl (a
    string or a function of the match), which must apply exactly once."""
    def alter(text: str) -> str:
        new, n = re.subn(pattern, repl, text, count=1, flags=re.M)
        if n != 1:
            raise AssertionError("the alteration /%s/ does not apply" % pattern)
        return new
    return alter


def answer_edit(path: str, key: str, right: str, wrong: str) -> List[Tuple[str, str, str]]:
    """A plant's edit of a TOML answer: the line `key = right` (TOML
    literals) of the solution file at path becomes `key = wrong`."""
    return [(path, "\n%s = %s\n" % (key, right), "\n%s = %s\n" % (key, wrong))]


# -- hints shown: build/grade/hints.json -------------------------------------

def load_state(path: str = STATE) -> Dict[str, Any]:
    """{exercise id: {"mistakes": [ids of the last grading], "levels":
    {mistake id: highest hint shown}}}; a missing or garbled file is empty."""
    try:
        with open(path) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save_state(state: Dict[str, Any], path: str = STATE) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(state, f, indent=1, sort_keys=True)


def graded(ex_id: str, mistakes: List[str], path: str = STATE) -> List[Dict[str, Any]]:
    """Record a grading's diagnosis of one exercise; the hints it shows:
    for each mistake found, the most specific one shown before (at least
    the first)."""
    state = load_state(path)
    entry = state.setdefault(ex_id, {"mistakes": [], "levels": {}})
    entry["mistakes"] = list(mistakes)
    levels = entry.setdefault("levels", {})
    for m in mistakes:
        levels[m] = max(1, int(levels.get(m, 0)))
    save_state(state, path)
    return [{"mistake": m, "level": levels[m]} for m in mistakes]


def shown(ex_id: str, path: str = STATE) -> List[Dict[str, Any]]:
    """Every hint of the exercise shown so far: [{"mistake", "level"}]."""
    entry = load_state(path).get(ex_id, {})
    return [{"mistake": m, "level": int(n)} for m, n in sorted(entry.get("levels", {}).items())]


def text(lab: Any, mistake: str, level: int) -> str:
    m = next(m for m in catalogue(lab) if m["id"] == mistake)
    return m["hints"][level - 1]


def next_hint(lab: Any, ex_id: str, path: str = STATE) -> str:
    """`make hint`: the next hint of the first mistake the last grading of
    the exercise found (KtError when there is none to give)."""
    if ex_id not in {e["id"] for e in lab.exercises}:
        raise vm.KtError("lab %d has no exercise %s; its exercises: %s" % (
            lab.number, ex_id, ", ".join(e["id"] for e in lab.exercises)))
    state = load_state(path)
    entry = state.get(ex_id)
    if entry is None:
        raise vm.KtError("exercise %s has not been graded here yet: run `make grade N=%d` "
                         "first" % (ex_id, lab.number))
    if not entry.get("mistakes"):
        raise vm.KtError("your last grading of exercise %s found no known mistake: if it was "
                         "BAD, read its reasons and the page's 'What the grader checks'" % ex_id)
    mistake = entry["mistakes"][0]
    level = min(LEVELS, int(entry["levels"].get(mistake, 0)) + 1)
    entry["levels"][mistake] = level
    save_state(state, path)
    last = " (the last one)" if level == LEVELS else \
        "; the next, more specific: make hint N=%d EX=%s" % (lab.number, ex_id)
    return "hint %d of %d for exercise %s (%s)%s:\n  %s" % (
        level, LEVELS, ex_id, mistake, last, text(lab, mistake, level))


def main(argv: Optional[List[str]] = None) -> int:
    """make hint N=<lab> EX=<exercise>."""
    from labs import lab as labdata
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not args[0].isdigit() or not args[1].strip():
        print("kasan-tags: error: make hint needs N=<lab number> EX=<exercise, e.g. 1.2>")
        return 2
    try:
        lab = labdata.by_number(int(args[0]))
        print(next_hint(lab, args[1].strip()))
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
