# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The page is the test: every command a student page prints in a console
block, run exactly as printed, from the checkout, must succeed.

A console block whose commands cannot run unattended says so with a class
(`:class: kt-manual`) and the page says why (two terminals, or a command
that is this whole test run); a block whose commands show a failure -- a
boot that panics, on purpose -- says `:class: kt-fails`, and its commands
must exit non-zero; every other `$ ` line is run by `make check`
(tests/check_class.py: check_page_commands) and must succeed.  Pure parts
first, then the runner.
"""

import os
import re
import subprocess
from typing import Dict, List, Tuple

from labs.handout import strip_teacher

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANUAL = "kt-manual"
FAILS = "kt-fails"
BLOCK = re.compile(r"^(?P<indent>\s*)\.\. code-block:: console\s*$")
OPTION = re.compile(r"^\s*:(\w+):\s*(.*)$")


def student_pages(root: str = REPO) -> List[str]:
    """The student site's hand-written pages (relative paths)."""
    out = ["index.rst"]
    for d in ("Documentation", "labs"):
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            out += [os.path.relpath(os.path.join(dirpath, f), root) for f in files
                    if f.endswith(".rst")]
    return sorted(p for p in out if "/student/" not in p)


def console_commands(text: str) -> List[Tuple[int, str, object]]:
    """(line number, command, how) of every `$ ` line in a console block of
    a page (its teacher blocks removed: the student site's text); how is
    False (run it, it must succeed), True (kt-manual: not run) or "fails"
    (kt-fails: run it, it must fail)."""
    lines = strip_teacher(text).split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = BLOCK.match(lines[i])
        i += 1
        if not m:
            continue
        manual: object = False
        while i < len(lines) and OPTION.match(lines[i]):
            key, value = OPTION.match(lines[i]).groups()
            if key == "class" and MANUAL in value.split():
                manual = True
            elif key == "class" and FAILS in value.split():
                manual = "fails"
            i += 1
        indent = len(m.group("indent"))
        while i < len(lines) and (not lines[i].strip() or
                                  len(lines[i]) - len(lines[i].lstrip()) > indent):
            body = lines[i].strip()
            if body.startswith("$ "):
                out.append((i + 1, strip_comment(body[2:]), manual))
            i += 1
    return out


def strip_comment(command: str) -> str:
    """A shell line without its trailing `# comment` (two blanks before #)."""
    return re.split(r"\s{2,}#", command, maxsplit=1)[0].strip()


def page_commands(root: str = REPO) -> List[Tuple[str, int, str, bool]]:
    """(page, line, command, manual) over every student page."""
    out = []
    for page in student_pages(root):
        with open(os.path.join(root, page)) as f:
            out += [(page, n, c, manual) for n, c, manual in console_commands(f.read())]
    return out


def run_command(command: str, cwd: str = REPO, timeout: float = 900,
                env: Dict[str, str] = None) -> Tuple[bool, str]:
    """(ok, the last lines of its output) of one command, run as printed by
    sh in the checkout, with no input."""
    env = dict(env or {k: v for k, v in os.environ.items() if not k.startswith("MAKE")})
    try:
        p = subprocess.run(["sh", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "did not finish in %d s" % timeout
    tail = (p.stdout + p.stderr).strip().splitlines()[-3:]
    return p.returncode == 0, "exit %d: %s" % (p.returncode, " | ".join(tail))
