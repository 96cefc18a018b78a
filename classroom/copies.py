# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Copies in a class: students whose work is the same, per exercise and
whole, once whitespace and comments are set aside.

Pure functions of the students' files: grade-class computes the groups
over the whole class (every shard the same), each student's JSON keeps
theirs, and the summary shows them beside every member.  A group changes
no grade: the teacher decides what it means.  Work left as the handout's
stub is no one's, so it groups no one.
"""

import hashlib
import io
import re
import tokenize
from typing import Dict, Iterable, List, Optional

# The comment syntax of each kind of file a student hands in
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
HASH_COMMENT = re.compile(r"(?m)(^|\s)#[^\n]*")
WHOLE = "whole"


def _python_code(text: str) -> Optional[str]:
    """Python without its comments (strings kept), or None if it does not
    tokenize (then it is compared as text)."""
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type != tokenize.COMMENT]
        return tokenize.untokenize(toks)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def normalise(rel: str, text: str) -> str:
    """The file as compared: no comments, no whitespace at all (a copy with
    its indentation or blank lines changed is still the copy)."""
    if rel.endswith(".py"):
        text = _python_code(text) or HASH_COMMENT.sub(r"\1", text)
    elif rel.endswith(".c"):
        text = C_COMMENT.sub("", text)
    else:                   # .gdb and .toml: `#` to the end of the line
        text = HASH_COMMENT.sub(r"\1", text)
    return re.sub(r"\s+", "", text)


def digest(rel: str, text: str) -> str:
    return hashlib.sha256(normalise(rel, text).encode()).hexdigest()


def work_digests(files: Dict[str, str], exercises: Dict[str, List[str]],
                 stubs: Dict[str, str]) -> Dict[str, str]:
    """{exercise id or WHOLE: digest} of one student's {file: text}: an
    exercise whose files are all there and not all the handout's stubs
    (stubs: {file: digest}); WHOLE over every such file, if any."""
    mine = {rel: digest(rel, t) for rel, t in files.items()}
    out = {}
    for ex_id, rels in exercises.items():
        if all(r in mine for r in rels) and any(mine[r] != stubs.get(r) for r in rels):
            out[ex_id] = hashlib.sha256(" ".join(mine[r] for r in rels).encode()).hexdigest()
    worked = sorted(r for r in mine if mine[r] != stubs.get(r))
    if worked:
        out[WHOLE] = hashlib.sha256(" ".join(
            "%s=%s" % (r, mine[r]) for r in worked).encode()).hexdigest()
    return out


def groups(digests: Dict[str, Dict[str, str]]) -> Dict[str, Dict[str, List[str]]]:
    """{student: {exercise or WHOLE: [the other students with the same
    work]}} of {student: work_digests}; only where there is another."""
    by: Dict[str, Dict[str, List[str]]] = {}
    for name, ds in digests.items():
        for what, d in ds.items():
            by.setdefault(what, {}).setdefault(d, []).append(name)
    out: Dict[str, Dict[str, List[str]]] = {}
    for what, same in by.items():
        for names in same.values():
            for n in names:
                others = sorted(o for o in names if o != n)
                if others:
                    out.setdefault(n, {})[what] = others
    return out


def describe(copies: Dict[str, List[str]], order: Iterable[str]) -> str:
    """One cell of the summary: 'whole: ann; 1.3: ann, bob' (WHOLE first,
    then the exercises in `order`), '' when the work is its own."""
    keys = [WHOLE] + [k for k in order if k != WHOLE]
    return "; ".join("%s: %s" % (k, ", ".join(copies[k])) for k in keys if k in copies)


def claimed_other(name: str, claimed: Dict) -> str:
    """The id a submission claims when it is not the entry's own, else ''."""
    cid = str(claimed.get("id") or "")
    return cid if cid and cid != name else ""
