"""What the exercises' checks share: loading the student's files, reading
"key: value" answers from a gdb transcript, comparing a student function
with the project's own on many inputs, and the reports of one scenario.

An exercise check never compares with a stored answer: its truth is the
project's own helpers (gdb-scripts/kasan) and the run being graded.
"""

import importlib.util
import os
import re
import tomllib

from kasan import report as kreport
from labs import scenarios


def load_student(check_file, name):
    """labs/NN-lab/student/NAME as a fresh module (check_file: the check.py)."""
    path = os.path.join(os.path.dirname(os.path.abspath(check_file)), "student", name)
    spec = importlib.util.spec_from_file_location("student_" + name.replace(".", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_answers(check_file, name):
    """labs/NN-lab/student/NAME.toml as a dict."""
    path = os.path.join(os.path.dirname(os.path.abspath(check_file)), "student", name)
    with open(path, "rb") as f:
        return tomllib.load(f)


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


def compare(name, fn, expect, cases):
    """One check: fn(*case) == expect(*case) for every case; the first
    difference (or exception) is the reason."""
    for case in cases:
        try:
            got = fn(*case)
        except Exception as e:  # noqa: BLE001 -- the student's code may raise anything
            return (name, False, "%s(%s) raised %s: %s" % (
                getattr(fn, "__name__", "?"), ", ".join("0x%x" % c for c in case),
                type(e).__name__, e))
        want = expect(*case)
        if got != want:
            return (name, False, "%s(%s) = %r, expected %r" % (
                getattr(fn, "__name__", "?"), ", ".join("0x%x" % c for c in case), got, want))
    return (name, True, "")


def reports_of(serial, scenario):
    """The KASAN reports printed inside one scenario's markers."""
    return kreport.parse_reports("\n".join(scenarios.segments(serial).get(scenario, [])))


def func(frame):
    """'mystery_rec_get+0x2c/0x34 [kasan_mystery]' -> 'mystery_rec_get'."""
    return re.split(r"[+ ]", frame or "", maxsplit=1)[0]
