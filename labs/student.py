# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Whose tree this is: a student tree's student.toml (its id and seed),
written by `make handout ID=...` (classroom/handout.py).  `make grade` in
a student tree boots with the student's own seed (labs/grade.py)."""

import os
import re
import tomllib
from typing import Dict, Optional

import vm

REPO = vm.REPO
# A student tree's identity, written by `make handout ID=...`
STUDENT = "student.toml"
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_id(student_id: str) -> str:
    if not STUDENT_ID.match(student_id or ""):
        raise vm.KtError("a student id is 1 to 64 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit (not %r)" % student_id)
    return student_id


def read_student(root: str = REPO) -> Optional[Dict]:
    """{id, seed} of the student tree at root, or None."""
    path = os.path.join(root, STUDENT)
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as f:
            d = tomllib.load(f)
        return {"id": check_id(str(d["id"])), "seed": int(d["seed"])}
    except (OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError) as e:
        raise vm.KtError("%s: %s (make handout ID=... writes it)" % (path, e))
