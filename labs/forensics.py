# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Report forensics, the exercises of labs 3 and 9: the student reads one
KASAN report and writes what it says in a TOML file; the grader compares
each fact with kasan-decode's reading of the same run (FIELDS), and the
two answers no decoder prints, `cause` and `fix`, with the lab's
grader-only answers.toml (judged).  Then what the detectors of the known
mistakes of both labs read of a report: the frames above the first
caller, the reporting frames, the granules with the pointer's tag."""

import json
import os
import subprocess
import tomllib

from kasan import report
from labs.exercises import func, load_answers

GRANULE = 16  # bytes one memory tag (one shadow byte) describes
TAG_INVALID = "fe"  # KASAN_TAG_INVALID, as a report prints a memory tag
ANSWERS = "answers.toml"  # a lab's grader-only cause and fix, by name
NOT_HERE = "graded by your teacher's make grade-class (the lab's answers are not in your copy)"

# What each answer is, read from the decoder's reading of the same run.
FIELDS = {
    "bug": lambda r: r["bug_type"],
    "access": lambda r: r["access"],
    "size": lambda r: r["size"] or 0,
    "cache": lambda r: r["cache"],
    "object_size": lambda r: r["object_size"],
    "offset": lambda r: r["offset"],
    "function": lambda r: r["function"],
    "alloc_fn": lambda r: func(report.first_caller(r["alloc_stack"])),
    "free_fn": lambda r: func(report.first_caller(r["free_stack"])),
}


def decoded(run, step):
    """kasan-decode --json --vmlinux of the serial log another step of the
    lab saved, with the run's vmlinux: one dict per report, its frames with
    file:line (labs 3 and 9's decode steps)."""
    p = subprocess.run(["gdb-scripts/kasan-decode", "--json", "--vmlinux",
                        run.vmlinux, run.lab_serial(step)], capture_output=True,
                       text=True, timeout=300)
    return [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]


def facts(fmt, ans, r):
    """[(FMT % field, ok, why)]: each fact of the answers ANS against the
    report R as kasan-decode reads it (FMT names a check: "mystery-a: %s")."""
    res = []
    for field, read in FIELDS.items():
        want = read(r)
        want = "" if want is None else want
        got = ans.get(field)
        res.append((fmt % field, got == want, "you: %r, the report: %r" % (got, want)))
    return res


def has_answers(check_file):
    """Is the grader-only answers.toml next to CHECK_FILE (the teacher's
    tree), or not (a student's copy)?"""
    return os.path.exists(os.path.join(os.path.dirname(os.path.abspath(check_file)), ANSWERS))


def judged(check_file, key, fmt, ans):
    """cause and fix: the reading of the report no decoder prints, against
    table KEY of the answers.toml next to CHECK_FILE (in the teacher's tree
    only: else one check that is the teacher's, None)."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(check_file)), ANSWERS),
                  "rb") as f:
            lab = tomllib.load(f)[key]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return [(fmt % "cause and fix", None, NOT_HERE)]
    return [(fmt % k, ans.get(k) == lab[k],
             "you: %r" % ans.get(k) if ans.get(k) != lab[k] else "") for k in ("cause", "fix")]


def graded(check_file, name, key, fmt, reps, which=0):
    """The whole exercise: the student's answer file NAME (student/, read
    in the sandbox) against report WHICH of REPS, then cause and fix from
    answers.toml's table KEY; FMT names the checks.  A run without that
    report is one BAD check that says so."""
    try:
        ans = load_answers(check_file, name)
    except (OSError, ValueError) as e:
        return [("%s is a TOML file" % name, False, str(e))]
    if len(reps) <= which:
        return [("%s printed its report" % key, False,
                 "%d reports (see the serial log)" % len(reps))]
    return facts(fmt, ans, reps[which]) + judged(check_file, key, fmt, ans)


def work(check_file, name, reps, which=0):
    """(the student's answers, the report they are about): what a known
    mistake's detector compares; ValueError when there is no such report."""
    ans = load_answers(check_file, name)
    if len(reps) <= which:
        raise ValueError("%d reports" % len(reps))
    return ans, reps[which]


def names(frames):
    return [func(f) for f in frames]


def above_first_caller(frames):
    """The names of a stack's KASAN and allocator frames, above its first
    caller."""
    return names(frames[:frames.index(report.first_caller(frames))])


def above_location(r):
    """The names of the call trace's frames above the function the BUG line
    names: KASAN printing the report."""
    ns = names(r["call_trace"])
    return ns[:ns.index(func(r["location"]))]


def tagged_bytes(r):
    """How many bytes from the object's start the memory state shows with the
    pointer's tag (whole granules)."""
    tags = {}
    for row in r["memory_state"]:
        base = int(row["addr"], 16)
        for i, b in enumerate(row["bytes"]):
            tags[base + i * GRANULE] = b
    start, n = int(r["object"], 16), 0
    while tags.get(start + n) == r["pointer_tag"]:
        n += GRANULE
    return n
