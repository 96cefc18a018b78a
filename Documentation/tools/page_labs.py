# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What the lab pages include from build/gen/: each captured transcript as a
snippet (transcripts/LAB/STEP.rst), each gdb file as the student is shown
it (gdb/LAB/FILE), each lab's table of 6.1 source lines (sources/LAB.rst)
and the start page's table of labs (start-labs.rst).  A lab declares what
it needs in its folder; nothing here names a lab.

What the student is shown has none of the grader's KT-GDB markers (the
`echo KT-GDB name` lines of a gdb file, the lines they print) and none of
the project's own notes (`##` comments of a gdb file); the files the
grader reads keep both."""

import glob
import json
import os
import re

from labs import grade as labgrade
from labs import edition
from labs import lab as labdata
from Documentation.tools.sitelib import (TRANSCRIPTS, code, excerpt, indent, rst_escape,
                                         write)
from vm import REPO

MARKER = re.compile(r"^\s*echo KT-GDB .*$|^KT-GDB \S+\s*$")  # a gdb file's, its output's
NOTE = edition.GDB_NOTE                                          # the project's own note
WIDTH = 100       # a transcript line wider than the page is wrapped here
CONT = "    \u21aa "  # and goes on on the next line after this mark


def lab_pages():
    """(lab folder, text of one page) for every page of every lab: its
    index.rst and any other page it has (lab 6's investigation)."""
    labs = os.path.join(REPO, "labs")
    for d in sorted(os.listdir(labs)):
        if not os.path.exists(os.path.join(labs, d, "index.rst")):
            continue
        for page in sorted(glob.glob(os.path.join(labs, d, "*.rst"))):
            yield d, open(page).read()


def start_labs():
    """build/gen/start-labs.rst: per lab, in order, its time, its
    objectives and its exercises with their difficulty and time, from the
    labs' steps.toml (hours, objectives; per exercise difficulty, minutes)."""
    labs = labdata.load_all()
    out = [".. list-table::\n   :header-rows: 1\n   :class: kt-start\n   :widths: 18 8 40 34\n\n"
           "   * - lab\n     - time\n     - after it you can\n     - exercises\n"]
    for lab in labs:
        ex = lab.exercises
        out.append("   * - :doc:`%s </labs/%s/index>`\n     - %s h\n     - %s\n     - %s\n" % (
            rst_escape(lab.title), lab.folder, ("%g" % lab.spec["hours"]),
            "; ".join(rst_escape(o) for o in lab.spec["objectives"]),
            "; ".join("%s %s (%s, %d min)" % (
                e["id"], rst_escape(e["title"]), e["difficulty"], e["minutes"]) for e in ex)
            or "none"))
    total = sum(lab.spec["hours"] for lab in labs)
    n = sum(len(lab.exercises) for lab in labs)
    out.append("\nIn all: %d labs, about %g hours, %d exercises (%s).\n" % (
        len(labs), total, n, ", ".join("%d %s" % (
            sum(e["difficulty"] == d for lab in labs for e in lab.exercises), d)
            for d in labdata.DIFFICULTIES)))
    write("start-labs.rst", "".join(out))


def sources(src):
    """Each lab's `sources` (steps.toml: "file:first-line-text") -> a table
    of file:line in the installed tree (so line numbers follow the tree)."""
    for lab in labdata.load_all():
        if not lab.spec.get("sources"):
            continue
        out = [".. list-table::\n   :header-rows: 1\n   :class: kt-sources\n\n"
               "   * - location in 6.1\n     - code\n"]
        for item in lab.spec["sources"]:
            path, _, needle = item.partition(":")
            start, lines = excerpt(src, {"file": path, "start": needle, "lines": 1})
            out.append("   * - ``%s:%d``\n     - ``%s``\n" % (
                path, start, lines[0].strip().replace("`", "'")))
        write("sources/%s.rst" % lab.folder, "".join(out) + "\n")


def wrap_lines(lines, marks=None):
    """(lines, how many were wrapped[, marks]): each line cut at WIDTH
    characters, the rest on lines that start with CONT; MARKS (one bool per
    line) follow a line onto its continuation lines."""
    out, n, om = [], 0, []
    for i, ln in enumerate(lines):
        if len(ln) > WIDTH:
            n += 1
        while len(ln) > WIDTH:
            out.append(ln[:WIDTH])
            om.append(bool(marks and marks[i]))
            ln = CONT + ln[WIDTH:]
        out.append(ln)
        om.append(bool(marks and marks[i]))
    return (out, n) if marks is None else (out, n, om)


# A transcript longer than this is cut: the lines the check reads (with
# CONTEXT lines around each), its first HEAD and last TAIL lines are kept,
# and each gap says how many lines it leaves out.
MAX_LINES, HEAD, TAIL, CONTEXT = 60, 8, 3, 2


GAP = re.compile(r"\[\.\.\. \d+ lines? left out \.\.\.\]$")


def cut_lines(lines, marks):
    """(lines, marks, how many left out) of a transcript cut to what
    matters, a "[... N lines left out ...]" line in each gap."""
    n = len(lines)
    if n <= MAX_LINES:
        return lines, marks, 0
    keep = set(range(min(HEAD, n))) | set(range(max(0, n - TAIL), n))
    if any(marks):
        for i in (i for i, m in enumerate(marks) if m):
            keep |= set(range(max(0, i - CONTEXT), min(n, i + CONTEXT + 1)))
    else:
        keep |= set(range(MAX_LINES - TAIL))
    out, om, gap = [], [], 0
    for i in range(n + 1):
        if i < n and i not in keep:
            gap += 1
            continue
        if gap:
            out.append("[... %d line%s left out ...]" % (gap, "s" if gap > 1 else ""))
            om.append(False)
            gap = 0
        if i < n:
            out.append(lines[i])
            om.append(marks[i])
    return out, om, n - len(keep)


def read_marks(lab, step, body):
    """One bool per line of BODY: is it a line the step's check read?
    (build/transcripts/LAB/STEP.read.json, written by make grade)."""
    read = None
    for path in (labgrade.stored_path(lab, step, ".read.json"), labgrade.read_path(lab, step)):
        try:
            with open(path) as f:
                read = set(json.load(f))
            break
        except (OSError, ValueError):
            continue
    if read is None:
        return [False] * len(body)
    return [ln.strip() in read for ln in body]


def shown_gdb(text):
    """A gdb file as the page shows it: no markers, no notes."""
    return "".join(ln for ln in text.splitlines(keepends=True)
                   if not MARKER.match(ln) and not NOTE.match(ln))


def gdb_files():
    """build/gen/gdb/LAB/FILE.gdb for every gdb file of every lab folder."""
    for lab in labdata.load_all():
        for path in sorted(glob.glob(lab.path("*.gdb"))):
            write("gdb/%s/%s" % (lab.folder, os.path.basename(path)),
                  shown_gdb(open(path).read()))


def without_markers(lines):
    """(lines, how many marker lines were left out) of a captured output."""
    kept = [ln for ln in lines if not MARKER.match(ln)]
    return kept, len(lines) - len(kept)


def exercise_step(folder, step):
    """The first exercise graded on this step in a student's copy (whose
    stored runs and transcripts of such steps are left out), or ""."""
    if not os.path.exists(os.path.join(REPO, "labs", "HANDOUT")):
        return ""
    lab = labdata.load_lab(folder)
    if step not in edition.hidden_steps(lab):
        return ""
    return next((e["id"] for e in lab.exercises if e["step"] == step), "")


def transcripts():
    """Snippets for every transcript a lab page asks for; report missing ones."""
    missing = []
    for d, text in lab_pages():
        for step in re.findall(r"^\s*\.\. include:: /build/gen/transcripts/%s/([\w.-]+)\.rst$"
                               % re.escape(d), text, re.M):
            # the kept transcript (labs/LAB/transcripts/, `make transcripts`),
            # else one captured here and not kept yet
            src = labgrade.stored_path(d, step)
            if not os.path.exists(src):
                src = os.path.join(TRANSCRIPTS, d, step + ".txt")
            if os.path.exists(src):
                hdr, body = labdata.split_transcript(open(src, errors="replace").read())
                body, nmark = without_markers(body)
                if nmark:
                    hdr.append("shown: without %d marker lines (KT-GDB ...) that the grader "
                               "uses to find its parts of the output" % nmark)
                body, hot, ncut = cut_lines(body, read_marks(d, step, body))
                if ncut:
                    shown = sum(1 for ln in body if not GAP.match(ln))
                    hdr.append("shown: %d of the %d lines; each gap says how many it leaves "
                               "out" % (shown, shown + ncut))
                body, wrapped, hot = wrap_lines(body, hot)
                if any(hot):
                    hdr.append("highlighted: the %d lines the step's check reads" % sum(
                        1 for i, h in enumerate(hot) if h and not body[i].startswith(CONT)))
                if wrapped:
                    hdr.append("shown: %d lines longer than %d characters wrapped (%s)"
                               % (wrapped, WIDTH, CONT.strip()))
                meta = "".join("   | %s\n" % rst_escape(h) for h in hdr)
                snippet = (".. container:: kt-transcript\n\n   .. rubric:: Captured output\n\n"
                           "%s\n%s\n" % (meta if meta else "", indent(
                               code(body, emphasize=[i + 1 for i, h in enumerate(hot) if h])
                               .splitlines(), 3)))
            elif exercise_step(d, step):
                # a handout leaves it out: its output is what an exercise asks
                snippet = (".. note::\n\n   Your copy does not show this step's output: "
                           "it is what exercise %s asks. ``make grade N=%d`` runs it on "
                           "your machine.\n" % (exercise_step(d, step), int(d[:2])))
            else:
                missing.append("%s/%s" % (d, step))
                snippet = (".. warning::\n\n   Transcript ``%s/%s`` has not been captured on "
                           "this machine yet. ``make transcripts`` boots the kernel and "
                           "captures it.\n" % (d, step))
            write("transcripts/%s/%s.rst" % (d, step), snippet)
    return missing
