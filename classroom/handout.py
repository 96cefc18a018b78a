# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make handout DEST=dir`: the student tree, made from this (solution) tree.

Every file of the checkout goes through the student edition's rules
(labs/edition.py: solutions replaced by their stubs, the teacher's blocks
and lines dropped); the solution_only() files are left out, and lab 3's
mystery module, whose source is one of them, is shipped built for the
kernel in the cache.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from typing import Dict, List, Optional, Tuple

import vm
from labs.edition import (END, GDB_NOTE, MARKER, START, STUB, TEACHER,  # noqa: F401
                          TEACHER_LINE, hidden_steps, regions, strip, strip_teacher,
                          teacher_lines)
from vm.initramfs import shipped_module

REPO = vm.REPO


def grader_only() -> Tuple[str, ...]:
    """What a grader needs and a student must not see (each lab's
    `grader_only` files, steps.toml): put back by make grade-class."""
    from labs import lab
    return tuple(os.path.join("labs", x.folder, f) for x in lab.load_all()
                 for f in x.spec.get("grader_only", []))


def exercise_runs() -> Tuple[str, ...]:
    """The stored runs (labs/NN/runs/) and kept transcripts (transcripts/)
    of every hidden_steps() step."""
    from labs import lab
    out = []
    for x in lab.load_all():
        steps = set(hidden_steps(x))
        for sub in ("runs", "transcripts"):
            rdir = os.path.join(REPO, "labs", x.folder, sub)
            for f in sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []:
                if f.split(".")[0] in steps:
                    out.append(os.path.join("labs", x.folder, sub, f))
    return tuple(out)


def solution_only() -> Tuple[str, ...]:
    """Files a handout leaves out: lab 3's mystery module, the grader-only
    ones, the stored runs of exercise steps."""
    return ("labs/module/kasan_mystery.c",) + grader_only() + exercise_runs()


def grader_restore() -> Tuple[str, ...]:
    """What make grade-class copies from this tree into a grading tree: the
    grader-only files and every file with `# kt-teacher` lines."""
    out = list(grader_only())
    for rel in tree_files():
        if rel.endswith((".toml", ".py")) and rel not in out:
            try:
                with open(os.path.join(REPO, rel), encoding="utf-8") as f:
                    if teacher_lines(f.read()):
                        out.append(rel)
            except (OSError, UnicodeDecodeError):
                pass
    return tuple(out)


# The file list of a tree that is an archive, not a checkout (the
# Gradescope zip: classroom/autograder.py writes it)
TREE_FILES = "kasan-tags-files.txt"


def tree_files() -> List[str]:
    """The checkout's files, committed or not (but not ignored); in an
    archive of it, the files its TREE_FILES lists."""
    listed = os.path.join(REPO, TREE_FILES)
    if not os.path.isdir(os.path.join(REPO, ".git")) and os.path.exists(listed):
        with open(listed) as f:
            names = [ln.strip() for ln in f if ln.strip()]
        return sorted(n for n in names if os.path.isfile(os.path.join(REPO, n)))
    p = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                       cwd=REPO, capture_output=True, text=True)
    if p.returncode:
        raise vm.KtError("make handout needs a git checkout (or an archive with its %s): %s"
                         % (TREE_FILES, p.stderr.strip()))
    return sorted(f for f in p.stdout.split("\0")
                  if f and os.path.isfile(os.path.join(REPO, f)))


def student_grading(text: str) -> str:
    """labs/grading.json without the checks of the steps a handout hides
    (their names state the outcomes a prediction asks)."""
    import json
    from labs import lab
    hidden = {(x.folder, s) for x in lab.load_all() for s in hidden_steps(x)}
    data = json.loads(text)
    data["checks"] = [c for c in data.get("checks", []) if (c["lab"], c["step"]) not in hidden]
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def student_text(rel: str, text: str) -> str:
    if rel == "labs/grading.json":
        return student_grading(text)
    text = strip(text, rel)
    if rel.endswith(".gdb"):
        text = "".join(ln for ln in text.splitlines(keepends=True) if not GDB_NOTE.match(ln))
    if TEACHER_LINE.search(text):
        text = "".join(ln for ln in text.splitlines(keepends=True)
                       if not TEACHER_LINE.search(ln))
    if rel == "README.md":
        return student_readme(text)
    return strip_teacher(text) if rel.endswith(".rst") else text


# A handout's README: STUDENT_README (a student's path, which points at the
# site's start and tools pages), the labs in order (from their steps.toml),
# then these sections of the project's README under the titles given, without
# the lines that point at the teacher's commands.  The licence files
# (LICENSES/, .reuse/dep5, COPYING) are tracked, so the tree copy carries
# them.  Its shell blocks follow the README's rule (tests/page_commands.py):
# a block that cannot run in a test says why in a comment above it.
README_KEEP = {"For kernel developers": "The tools", "Licence": "Licence"}
# A line of those that names one of these is the teacher's (lower case)
TEACHER_ONLY = ("teacher", "make handout", "make dist", "grade-class", "`class`", "`dest`",
                "`variants`", "mutation", "make fixtures")
STUDENT_README = """# kasan-tags: your copy of the labs

Labs on arm64 **software tag-based KASAN**, the kernel's memory-error
detector that puts a tag in a pointer's top byte: you watch it work in a
real Linux 6.1 kernel under QEMU and gdb, and write small parts of it
yourself. The site's *Start here* page says who the labs are for and what
you need (`make site`, then open `build/site/Documentation/start.html`;
its text is `Documentation/start.rst`). Its *The tools* page
(`Documentation/tools.rst`) lists the targets and variables of make, says why
a scripted run prints the same bytes again, and what the error messages
mean.

## Getting started

<!-- kt-manual: it installs packages, builds a kernel, and make lab is interactive -->
```sh
make deps                 # the Debian packages (apt-get; asks for sudo if you are not root)
make kernel               # lab 1's kernel (a few minutes), unless your teacher gave you
                          # the kernels: then `make import FILE=the-archive` instead
make lab N=1              # lab 1's first step: the kernel halted, gdb attached
```

## Handing in

Your work is the files each exercise names and your answers to the labs'
*Questions*, in `answers.md` (`make submit` creates it with a heading per
lab if it is missing):

<!-- kt-manual: make submit writes answers.md and your archive into this tree: yours to run when you hand in -->
```sh
make grade                # every check and exercise, GOOD or BAD with why, and your points
make hint N=1 EX=1.2      # the next, more specific hint for a mistake make grade found
make submit               # build/submission.tar.gz, the archive you hand in
```

`student.toml`, if your teacher made your copy for you, holds your id and
your seed: `make grade` boots with that seed (the site's transcripts use
`SEED=1`; type `SEED=1` to compare with them); the grading of the class
uses your seed and a hidden one. Your code runs in a sandbox when it is
graded: your Python sees the standard library and your file, not the
rest of this tree; your gdb files run in a gdb of their own that sees the
kernel and the project's gdb commands. A check your copy cannot make (its answer is not
in your copy) is printed, not counted.

## The labs, in order

"""


def labs_list() -> str:
    """The labs in order, as the start page lists them: time, objectives,
    exercises with difficulty and minutes (steps.toml)."""
    from labs import lab as labdata
    out = []
    for lab in labdata.load_all():
        out.append("- **%s** (%g h; `labs/%s/index.rst`): %s.\n" % (
            lab.title, lab.spec["hours"], lab.folder, "; ".join(lab.spec["objectives"])))
        out += ["  - exercise %s: %s (%s, %d min)\n" % (
            e["id"], e["title"], e["difficulty"], e["minutes"]) for e in lab.exercises]
    return "".join(out) + "\n"


def student_readme(text: str) -> str:
    """The handout's README: for students, no teacher part (README_KEEP)."""
    sections = {m.group(1): m.group(0) for m in re.finditer(
        r"^## ([^\n]+)\n.*?(?=^## |\Z)", text, re.M | re.S)}
    missing = [k for k in README_KEEP if k not in sections]
    if missing:
        raise vm.KtError("README.md: no '## %s' section for the handout's README" % missing[0])
    kept = "".join("## %s\n%s" % (title, sections[k].split("\n", 1)[1])
                   for k, title in README_KEEP.items())
    kept = "".join(ln for ln in kept.splitlines(keepends=True)
                   if not any(w in ln.lower() for w in TEACHER_ONLY))
    return STUDENT_README + labs_list() + kept


def ship_mystery(dest: str) -> str:
    """Build kasan_mystery.ko for the default kernel and put it where the
    handout's build_module finds it (vm.initramfs.shipped_module)."""
    bdir = vm.build_kernel(vm.DEFAULT_VARIANT)
    vm.build_module(bdir)
    ko = os.path.join(vm.module_dir(bdir), "kasan_mystery.ko")
    if not os.path.exists(ko):
        raise vm.KtError("no %s after the module build" % ko)
    out = os.path.dirname(os.path.join(dest, os.path.relpath(shipped_module(bdir), REPO)))
    os.makedirs(out, exist_ok=True)
    shutil.copy(ko, out)
    return os.path.join(out, "kasan_mystery.ko")


def make_handout(dest: str, force: bool = False,
                 student_id: Optional[str] = None) -> Dict[str, int]:
    """The student tree at dest; with a student id, its student.toml (the id
    and the seed the course secret gives it: classroom/secret.py)."""
    from classroom.secret import seeds_of, student_toml
    from labs.student import STUDENT
    if student_id is not None:
        seed = seeds_of(student_id)[0]
    dest = os.path.abspath(dest)
    if os.path.exists(os.path.join(REPO, MARKER)):
        raise vm.KtError("this is already a student tree (%s): make handout runs in the "
                         "solution tree" % MARKER)
    if os.path.realpath(dest) == os.path.realpath(REPO):
        raise vm.KtError("DEST is this checkout")
    if os.path.exists(dest) and os.listdir(dest):
        if not force:
            raise vm.KtError("%s exists and is not empty (FORCE=1 replaces it)" % dest)
        shutil.rmtree(dest)
    counts = {"files": 0, "stripped": 0, "regions": 0, "left out": 0}
    left_out = solution_only()
    for rel in tree_files():
        if rel in left_out:
            counts["left out"] += 1
            continue
        src, out = os.path.join(REPO, rel), os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        try:
            text = open(src, encoding="utf-8").read()
        except UnicodeDecodeError:
            shutil.copy2(src, out)
        else:
            new = student_text(rel, text)
            counts["regions"] += len(regions(text, rel))
            counts["stripped"] += new != text
            with open(out, "w", encoding="utf-8") as f:
                f.write(new)
            shutil.copymode(src, out)
        counts["files"] += 1
    ship_mystery(dest)
    if student_id is not None:
        with open(os.path.join(dest, STUDENT), "w") as f:
            f.write(student_toml(student_id, seed))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                          capture_output=True, text=True).stdout.strip()
    with open(os.path.join(dest, MARKER), "w") as f:
        f.write("A kasan-tags student tree, made by `make handout` from %s.\n"
                "The exercises' solutions are replaced by TODO stubs; "
                "`make grade` scores your work.\n" % (head or "a checkout"))
    env = dict(os.environ, GIT_AUTHOR_NAME="kasan-tags", GIT_AUTHOR_EMAIL="kasan-tags@localhost",
               GIT_COMMITTER_NAME="kasan-tags", GIT_COMMITTER_EMAIL="kasan-tags@localhost")
    for argv in (["git", "init", "-q"], ["git", "add", "-A", "-f", "."],
                 ["git", "commit", "-q", "-m", "kasan-tags student tree"]):
        p = subprocess.run(argv, cwd=dest, env=env, capture_output=True, text=True)
        if p.returncode:
            raise vm.KtError("%s in %s: %s" % (" ".join(argv), dest, p.stderr.strip()))
    return counts


def leaks(dest: str) -> List[str]:
    """Solution text found in the student tree at dest: a solution region's
    line in its file, a solution_only() file or one of its lines anywhere, a
    teacher block in a page.  [] for a good handout."""
    found = []
    files = tree_files()
    left_out = solution_only()
    for rel in files:
        text = open(os.path.join(REPO, rel), encoding="utf-8", errors="replace").read()
        out = os.path.join(dest, rel)
        if rel in left_out:
            if os.path.exists(out):
                found.append("%s: a solution-only file" % rel)
            continue
        if not os.path.exists(out):
            continue
        student = open(out, encoding="utf-8", errors="replace").read()
        mine = set(student.splitlines())
        stubs = {m.group("indent") + m.group("code")
                 for m in map(STUB.match, text.splitlines()) if m}
        for _, body in regions(text, rel):
            for line in body:
                code = line.strip()
                if len(code) > 3 and line not in stubs and line in mine \
                        and not code.startswith(("#", "/*", "*")):
                    found.append("%s: %s" % (rel, code))
        if rel.endswith(".rst") and any(TEACHER.match(ln) for ln in mine):
            found.append("%s: a teacher block" % rel)
        if rel.endswith(".rst") and "<details" in student:
            found.append("%s: a folded block (<details>): its text is on the page" % rel)
        for ln in teacher_lines(text):
            code = TEACHER_LINE.sub("", ln).rstrip()
            if len(code.strip()) > 8 and code in mine:
                found.append("%s: a kt-teacher line: %s" % (rel, code.strip()[:80]))
    secret = set()
    for rel in left_out:
        path = os.path.join(REPO, rel)
        if os.path.exists(path) and not path.endswith(".xz"):   # a stored run: binary
            secret |= {ln.strip() for ln in open(path, errors="replace")
                       if len(ln.strip()) > 24}
    # Only what is the solution-only files' own: not a line other files share.
    for rel in files:
        if rel not in left_out and secret:
            try:
                secret -= {ln.strip() for ln in open(os.path.join(REPO, rel), encoding="utf-8")}
            except (UnicodeDecodeError, OSError):
                pass
    for root, _dirs, names in os.walk(dest):
        if "/.git" in root or "/build" in root[len(dest):]:
            continue
        for name in names:
            try:
                lines = {ln.strip() for ln in open(os.path.join(root, name), encoding="utf-8")}
            except (UnicodeDecodeError, OSError):
                continue
            for ln in sorted(lines & secret)[:1]:
                found.append("%s: a line of a solution-only file: %s" % (
                    os.path.relpath(os.path.join(root, name), dest), ln))
    return found


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="make handout")
    ap.add_argument("dest")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--id", help="the student's id: student.toml gets it and its seed")
    ap.add_argument("--roster", help="a file of student ids, one a line: DEST/ID for each")
    a = ap.parse_args(argv)
    try:
        if a.roster:
            with open(a.roster) as f:
                ids = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
            todo = [(os.path.join(a.dest, i), i) for i in ids]
        else:
            todo = [(a.dest, a.id)]
        for dest, sid in todo:
            c = make_handout(dest, a.force, sid)
            print("handout: %s: %d files, %d solution regions stubbed, %d files changed, "
                  "%d left out, kasan_mystery.ko shipped%s" % (
                      dest, c["files"], c["regions"], c["stripped"], c["left out"],
                      ", student %s" % sid if sid else ""))
    except (vm.KtError, OSError) as e:
        print("kasan-tags: error: %s" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
