# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make submit` in a student tree: build/submission.tar.gz, every file an
exercise declares (steps.toml `files`) and answers.md (the Questions;
created if missing), with submission.toml: the id, the seed, the time and
the hints shown."""

import io
import os
import re
import tarfile
import time
from typing import List

import vm
from labs import lab as labdata
from labs import mistakes
from labs.student import STUDENT, read_student

REPO = vm.REPO
ANSWERS = "answers.md"
SUBMISSION = os.path.join("build", "submission.tar.gz")
# What `make submit` adds to the archive: the id, the seed, the time
SUBMITTED = "submission.toml"


def declared_files() -> List[str]:
    """The files the exercises declare, in lab order, and answers.md."""
    out: List[str] = []
    for lab in labdata.load_all():
        for ex in lab.exercises:
            out += [f for f in ex["files"] if f not in out]
    return out + [ANSWERS]


def answers_template() -> str:
    """answers.md for a student: a heading per lab, for its Questions."""
    return "# Answers to the Questions\n\n" + "".join(
        "## %s\n\n1. \n\n" % lab.title for lab in labdata.load_all())


def hints_seen(root: str) -> str:
    """The hints shown in the tree at root (build/grade/hints.json), as
    "EX:MISTAKE:LEVEL ..." for submission.toml."""
    state = mistakes.load_state(os.path.join(root, os.path.relpath(mistakes.STATE, REPO)))
    return " ".join("%s:%s:%d" % (ex, m, int(n)) for ex in sorted(state)
                    for m, n in sorted(state[ex].get("levels", {}).items())
                    if re.fullmatch(r"[\w.-]+", ex + m) and str(n).isdigit())


def submit(root: str = REPO) -> str:
    """Write build/submission.tar.gz of the tree at `root`; its path.  It
    holds the declared files, answers.md and submission.toml: the student
    id and seed (student.toml), the time and the hints shown here."""
    ans = os.path.join(root, ANSWERS)
    if not os.path.exists(ans):
        with open(ans, "w") as f:
            f.write(answers_template())
        print("submit: wrote %s: put your answers to the labs' Questions there, "
              "then run make submit again" % ANSWERS)
    who = read_student(root)
    out = os.path.join(root, SUBMISSION)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    stamp = ("# written by make submit\nid = \"%s\"\nseed = %s\ntime = \"%s\"\n"
             "# the hints make grade and make hint showed here: exercise:mistake:level\n"
             "hints = \"%s\"\n" % (
                 who["id"] if who else "", who["seed"] if who else "\"\"",
                 time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), hints_seen(root))).encode()
    with tarfile.open(out + ".tmp", "w:gz") as t:
        for rel in declared_files():
            if os.path.exists(os.path.join(root, rel)):
                t.add(os.path.join(root, rel), arcname=rel)
        info = tarfile.TarInfo(SUBMITTED)
        info.size, info.mtime = len(stamp), int(time.time())
        t.addfile(info, io.BytesIO(stamp))
    os.replace(out + ".tmp", out)
    if not who:
        print("submit: this tree has no %s (make handout ID=... writes it): the archive "
              "names no student" % STUDENT)
    return out
