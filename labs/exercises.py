# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What the exercises' checks share: calling the student's Python in a
sandbox and reading their answer files as data, reading
"key: value" answers from a gdb transcript, comparing a student function
with the project's own on many inputs, and the reports of one scenario.

An exercise check never compares with a stored answer: its truth is the
project's own helpers (gdb-scripts/kasan) and the run being graded.
"""

import json
import os
import re

from kasan import report as kreport
from labs import scenarios
from vm import sandbox

# The program that calls a student's Python inside the sandbox
DRIVER = os.path.join(os.path.dirname(os.path.abspath(sandbox.__file__)), "student_driver.py")
# A student file larger than this is not read
MAX_FILE = 1 << 20


def sandboxed(name, text, req, timeout=60):
    """Run the driver in a sandbox holding the student's file NAME (TEXT)
    with the request REQ: (its JSON answer, or None, and why not)."""
    with open(DRIVER) as f:
        driver = f.read()
    req = dict(req, file=sandbox.SCRATCH + "/student/" + name)
    r = sandbox.run(["/usr/bin/python3", "-I", "-S", sandbox.SCRATCH + "/driver.py"],
                    files={"driver.py": driver, "student/" + name: text},
                    stdin=json.dumps(req).encode(), timeout=timeout)
    try:
        ans = json.loads(r.out)
        if not isinstance(ans, dict):
            raise ValueError("not an object")
        return ans, ""
    except ValueError:
        tail = r.err.decode(errors="replace").strip().splitlines()[-1:]
        return None, "%s%s" % (r.status, ": " + clip(tail[0], 200) if tail else "")


def student_source(path):
    """The text of a student's file (at most MAX_FILE bytes): what is copied
    into a sandbox; ValueError when it is missing or too large."""
    try:
        with open(path, errors="replace") as f:
            text = f.read(MAX_FILE + 1)
    except OSError as e:
        raise ValueError("student/%s: %s" % (os.path.basename(path), e.strerror))
    if len(text) > MAX_FILE:
        raise ValueError("student/%s is over %d bytes" % (os.path.basename(path), MAX_FILE))
    return text


def read_student(path, how):
    """A student's data file read in the sandbox, never here: the parsed
    TOML (how="toml", a dict) or its text (how="text"); ValueError why not."""
    name = os.path.basename(path)
    ans, why = sandboxed(name, student_source(path), {"read": how})
    if ans is None:
        raise ValueError("student/%s could not be read (%s)" % (name, why))
    if ans.get("load"):
        raise ValueError("student/%s: %s" % (name, ans["load"]))
    data = ans.get("data")
    if not isinstance(data, dict if how == "toml" else str):
        raise ValueError("student/%s: no %s" % (name, "table" if how == "toml" else "text"))
    return data


class StudentCode:
    """A student's Python file (labs/NN-lab/student/NAME), never imported
    here: each batch of calls runs in a sandbox (vm/sandbox.py), with the
    standard library and that file only, and comes back as data."""

    TIMEOUT = 60

    def __init__(self, check_file, name):
        self.name = name
        self.path = os.path.join(os.path.dirname(os.path.abspath(check_file)), "student", name)

    def call(self, fname, cases):
        """[("value", v) or ("error", why)] of fname(*case) for each case,
        or one error for all when the file did not load or run."""
        try:
            text = student_source(self.path)
        except ValueError as e:
            return [("error", str(e))] * len(cases)
        ans, why = sandboxed(self.name, text, {"calls": [[fname, list(c)] for c in cases]},
                             self.TIMEOUT)
        try:
            results = [(str(k), v) for k, v in ans["results"]]
            load = ans["load"]
        except (TypeError, KeyError, ValueError):
            return [("error", "your code did not answer (%s)" % (why or "no results"))] * len(cases)
        if load:
            return [("error", "student/%s did not load: %s" % (self.name, load))] * len(cases)
        if len(results) != len(cases):
            return [("error", "your code gave %d answers to %d calls" % (
                len(results), len(cases)))] * len(cases)
        return results


def load_answers(check_file, name):
    """labs/NN-lab/student/NAME.toml as a dict: parsed in the sandbox, never
    run, never parsed here (ValueError: why not)."""
    return read_student(os.path.join(os.path.dirname(os.path.abspath(check_file)), "student",
                                     name), "toml")


def student_text(check_file, name):
    """The text of labs/NN-lab/student/NAME, read in the sandbox."""
    return read_student(os.path.join(os.path.dirname(os.path.abspath(check_file)), "student",
                                     name), "text")


def kv_lines(lines):
    """{key: value} of "key: value" lines (the first colon splits)."""
    return dict((k.strip(), v.strip()) for k, sep, v in (ln.partition(":") for ln in lines)
                if sep)


def hex_or_none(text):
    """The first word of text as a hex number, or None."""
    try:
        return int(text.split()[0], 16)
    except (ValueError, IndexError, AttributeError):
        return None


def hexs(v):
    """A value as the kernel prints it: hex for numbers (and in lists)."""
    if isinstance(v, list):
        return "[%s]" % ", ".join(hexs(x) for x in v[:12]) + (", ..." if len(v) > 12 else "")
    return "0x%x" % v if isinstance(v, int) and not isinstance(v, bool) else repr(v)


def compare(name, student, fname, expect, cases):
    """One check: the student's fname(*case) equals the expected value for
    every case (the calls run in the sandbox): expect is a function of the
    case, or the list of expected values.  The first difference (or error)
    is the reason, in hex."""
    wants = list(expect) if isinstance(expect, (list, tuple)) else [expect(*c) for c in cases]
    got = student.call(fname, cases)
    for case, want, (kind, v) in zip(cases, wants, got):
        call = "%s(%s)" % (fname, ", ".join(hexs(c) for c in case))
        if kind != "value":
            return (name, False, "%s: %s" % (call, v))
        if v != want or isinstance(v, bool) != isinstance(want, bool):
            return (name, False, "%s = %s, expected %s" % (call, hexs(v), hexs(want)))
    return (name, True, "")


def clip(text, limit):
    """text, at most about `limit` characters of it: cut at a space, never
    inside a value (an address cut to 0x1 reads as another address), and
    marked as cut."""
    text = str(text)
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    if cut <= 0:                        # one long word: keep it whole
        cut = len(text.split(" ", 1)[0])
    rest = text[cut:].strip()
    return text[:cut].rstrip() + (" [... %d more characters]" % len(rest) if rest else "")


def answers(student, fname, cases):
    """The student's fname(*case) for each case (run in the sandbox), None
    where it raised or did not answer: what a mistake's detector reads."""
    return [v if kind == "value" else None for kind, v in student.call(fname, cases)]


def reports_of(serial, scenario):
    """The KASAN reports printed inside one scenario's markers."""
    return kreport.parse_reports("\n".join(scenarios.segments(serial).get(scenario, [])))


def func(frame):
    """'mystery_rec_get+0x2c/0x34 [kasan_mystery]' -> 'mystery_rec_get'."""
    return re.split(r"[+ ]", frame or "", maxsplit=1)[0]
