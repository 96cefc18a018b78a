# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The page is the test: every command a student page prints in a console
block, run exactly as printed, from the checkout, must succeed.

A console block whose commands cannot run unattended says so with a class
(`:class: kt-manual`) and the page says why (two terminals, or a command
that is this whole test run); a block whose commands show a failure -- a
boot that panics, on purpose -- says `:class: kt-fails`, and its commands
must exit non-zero; every other `$ ` line is run by `make check`
(tests/check_class.py: check_page_commands) and must succeed.

The README is a page too: each line of a fenced command block (```sh) is a
command, run the same way, unless an HTML comment right above the block
says why it cannot be:

    <!-- kt-manual: two terminals: QEMU halted in one, gdb in the other -->

Every other fence names its language (```text), and a command that
CANNOT_RUN knows cannot run unattended (the whole build, an interactive
session, a class's data...) in a block without that comment is a problem
(readme_problems; tests/test_page_commands.py runs it on README.md).
Pure parts first, then the runner.
"""

import os
import re
import subprocess
from typing import Dict, List, Optional, Tuple

from labs.edition import strip_teacher

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


README = "README.md"
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)\s*$")
SHELL = ("sh", "shell", "bash", "console")
README_MANUAL = re.compile(r"^\s*<!--\s*%s:(?P<why>.*?)-->\s*$" % MANUAL)
# What cannot run unattended in a test, and why: a README block that shows
# one says so (<!-- kt-manual: why -->), as a page's block says :class: kt-manual.
CANNOT_RUN = (
    (r"^make( all)?$|^make check\b(?!.*\bLIST=)|\.ci/run\b",
     "the whole build or the whole test: the run that checks this"),
    (r"\bmake (lab|qemu-gdb|gdb|replay)\b",
     "interactive: a gdb prompt, or a VM halted for a second terminal"),
    (r"\bmake (handout|submit|grade-class|grade-merge|import|dist|autograder)\b",
     "a class's material: a tree outside the checkout, students' work, an archive"),
    (r"\bmake (kernel|bench\S*|mutation|fixtures|transcripts)\b",
     "builds kernels, measures for long, or rewrites what the checkout keeps"),
    (r"\.\.\.|<[^>]*>|\[[^]]*\]", "a placeholder to fill in"),
)


def cannot_run(command: str) -> Optional[str]:
    """Why a command cannot run unattended in a test, or None."""
    for pattern, why in CANNOT_RUN:
        if re.search(pattern, command):
            return why
    return None


def readme_blocks(text: str) -> List[Dict]:
    """Every fenced block of a Markdown text: {line (of its opening fence),
    lang, why (the kt-manual comment right above it, or None), commands:
    [(line, command)] when it is a shell block}.  In a shell block each
    line is a command but comments, a leading `$ ` is dropped, a trailing
    `  # comment` too, and a line ending in a backslash goes on."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        above = README_MANUAL.match(lines[i - 1]) if i else None
        block = {"line": i + 1, "lang": m.group("lang"), "commands": [],
                 "why": above.group("why").strip() if above else None}
        i += 1
        pending, start = "", 0
        while i < len(lines) and not lines[i].startswith(m.group("fence")):
            body = lines[i].strip()
            if block["lang"] in SHELL and (pending or body and not body.startswith("#")):
                body = body[2:] if body.startswith("$ ") and not pending else body
                start = start if pending else i + 1
                if body.endswith("\\"):
                    pending += body[:-1]
                else:
                    block["commands"].append((start, strip_comment(pending + body)))
                    pending = ""
            i += 1
        out.append(block)
        i += 1
    return out


def readme_commands(text: str) -> List[Tuple[int, str, bool]]:
    """(line, command, manual) of every command of the README's shell
    blocks; manual: its block says why it is not run (kt-manual)."""
    return [(n, c, b["why"] is not None) for b in readme_blocks(text) for n, c in b["commands"]]


def readme_problems(text: str, name: str = README) -> List[str]:
    """What keeps the README from being its own test: a fence without a
    language, a kt-manual comment without a reason or without a block under
    it, and a command CANNOT_RUN knows in a block that does not say why."""
    bad = []
    lines = text.split("\n")
    fenced = {b["line"] for b in readme_blocks(text)}
    for n, ln in enumerate(lines, 1):
        m = README_MANUAL.match(ln)
        if m and not m.group("why").strip():
            bad.append("%s:%d: a kt-manual comment must say why its block is not run" % (name, n))
        elif m and n + 1 not in fenced:
            bad.append("%s:%d: a kt-manual comment must stand right above a fence" % (name, n))
    for b in readme_blocks(text):
        if not b["lang"]:
            bad.append("%s:%d: a fence must name its language (sh for commands, text for "
                       "the rest)" % (name, b["line"]))
        for n, c in b["commands"] if b["why"] is None else ():
            why = cannot_run(c)
            if why:
                bad.append("%s:%d: `%s` cannot run in a test (%s): say why above its block "
                           "(<!-- %s: why -->)" % (name, n, c, why, MANUAL))
    return bad


def page_commands(root: str = REPO) -> List[Tuple[str, int, str, object]]:
    """(page, line, command, manual) over every student page and the README."""
    out = []
    for page in student_pages(root):
        with open(os.path.join(root, page)) as f:
            out += [(page, n, c, manual) for n, c, manual in console_commands(f.read())]
    if os.path.exists(os.path.join(root, README)):
        with open(os.path.join(root, README)) as f:
            out += [(README, n, c, manual) for n, c, manual in readme_commands(f.read())]
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
