# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The student edition of the course: what a student's tree and the
student site leave out of the solution tree (pure rules, no files written).

The solutions are the source, as in linux-kernel-labs.  A solution is a
marked region, in any language's comment syntax:

    <comment> TODO 1.1: what the student must write
    <comment> STUB: a line of code that keeps the file valid
    ... the solution ...
    <comment> END TODO

where <comment> is `#`, `//` or `/*` (closed by `*/` on the same line).

In the student's version the region keeps its TODO and END TODO lines; its
STUB lines become code (a stub that compiles, or returns nothing useful)
and everything else in it is dropped (strip).  `.. only:: teacher` blocks
of the pages (the answers) are dropped too (strip_teacher), and so are the
runs of the steps whose output is an answer (hidden_steps).

The course uses these rules (the student site: Documentation/tools); the
classroom applies them to make a tree (classroom/handout.py).
"""

import os
import re
from typing import Any, List, Tuple

import vm
from vm.initramfs import student_of

START = re.compile(r"^(?P<indent>\s*)(?:#|//|/\*)\s*TODO (?P<id>\d+\.\d+): (?P<text>.*?)(?:\s*\*/)?\s*$")
END = re.compile(r"^\s*(?:#|//|/\*)\s*END TODO\b")
STUB = re.compile(r"^(?P<indent>\s*)(?:#|//|/\*)\s*STUB: (?P<code>.*?)(?:\s*\*/)?\s*$")
TEACHER = re.compile(r"^(?P<indent>\s*)\.\. only:: teacher\s*$")
# A line of a data file that only the grader may read (an outcome that a
# prediction exercise asks for): it ends in this comment; the handout drops it
TEACHER_LINE = re.compile(r"#\s*kt-teacher\s*$")


def hidden_steps(x: Any) -> List[str]:
    """The steps of lab x whose runs a handout leaves out: those that run
    the student's code (a gdb file's `# kt-trusted:` part, the student's
    scenarios) -- their stored runs show the solutions' output -- and
    those whose outcome a prediction exercise asks."""
    out = {e["step"] for e in x.exercises if e.get("prediction")}
    for s in x.steps:
        if "gdb" in s and os.path.exists(x.path(s["gdb"])) and \
                re.search(r"^#\s*kt-trusted:", open(x.path(s["gdb"])).read(), re.M):
            out.add(s["name"])
        if student_of(s.get("cmdline", "")):
            out.add(s["name"])
    return sorted(out)


def teacher_lines(text: str) -> List[str]:
    """The `# kt-teacher` lines of a file."""
    return [ln for ln in text.splitlines() if TEACHER_LINE.search(ln)]


MARKER = os.path.join("labs", "HANDOUT")


def regions(text: str, where: str = "text") -> List[Tuple[str, List[str]]]:
    """[(exercise id, [solution lines])] of every marked region; KtError on
    an END without a TODO, a TODO inside a region, or a region left open."""
    out: List[Tuple[str, List[str]]] = []
    cur = None
    for n, line in enumerate(text.splitlines(), 1):
        start, end = START.match(line), END.match(line)
        if start and cur is not None:
            raise vm.KtError("%s:%d: TODO %s inside the region of TODO %s"
                             % (where, n, start.group("id"), cur[0]))
        if start:
            cur = (start.group("id"), [])
        elif end:
            if cur is None:
                raise vm.KtError("%s:%d: END TODO without a TODO" % (where, n))
            out.append(cur)
            cur = None
        elif cur is not None and not STUB.match(line):
            cur[1].append(line)
    if cur is not None:
        raise vm.KtError("%s: TODO %s has no END TODO" % (where, cur[0]))
    return out


def strip(text: str, where: str = "text") -> str:
    """The student's version of a file: regions replaced by their stubs."""
    regions(text, where)  # every marker error first, as one line
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        if START.match(line):
            inside = True
            out.append(line)
        elif inside and END.match(line):
            inside = False
            out.append(line)  # the student writes between TODO and END TODO
        elif inside:
            m = STUB.match(line)
            if m:
                out.append(m.group("indent") + m.group("code") + "\n")
        else:
            out.append(line)
    return "".join(out)


def strip_teacher(text: str) -> str:
    """A page without its `.. only:: teacher` blocks."""
    out: List[str] = []
    indent = None
    for line in text.splitlines(keepends=True):
        if indent is not None:
            if not line.strip() or len(line) - len(line.lstrip()) > indent:
                continue
            indent = None
        m = TEACHER.match(line)
        if m:
            indent = len(m.group("indent"))
            continue
        out.append(line)
    return "".join(out)


# A gdb file's note for the project's maintainers (`## ...`): the page shows
# the file without them (Documentation/tools/page_labs.py), so does a handout
GDB_NOTE = re.compile(r"^\s*##")
