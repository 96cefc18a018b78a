# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lineage: what became of each line a seed patch adds, in the installed tree.

Every added line of every seed patch is either *excluded* (blank, a brace,
a comment, a preprocessor or keyword line that matches anything by
coincidence) or falls in the first class it fits:

  same file   whitespace-normalised, a whole line of the file's 6.1
              descendants (patches/v9/lineage.toml [renames])
  moved       a whole line of some other file of the 6.1 tree (the whole
              tree is searched)
  renamed     the same after the identifier renames of lineage.toml
              [[rename]] (each cited in v9 and in 6.1), in any file
  gone        none of these

The tree is searched with one `grep -rnF` for a distinctive token of each
wanted line; candidates are then compared whole.  Pure helpers (`trivial`,
`apply_renames`, `classify`) are tested without a tree.
"""

import os
import re
import subprocess
import tempfile
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

CLASSES = ("same file", "moved", "renamed", "gone")
KEYWORDS = {"else", "return;", "break;", "continue;", "default:", "do {", "} else {",
            "} while (0)", "#else", "#endif", "endif", "else", "fi", "esac", "done",
            "goto out;", "return 0;", "return NULL;", "return false;", "return true;",
            "return ret;", "} else if", "#endif /* CONFIG_KASAN */", "#ifdef CONFIG_KASAN",
            "#endif /* CONFIG_KASAN_GENERIC */", "#else /* CONFIG_KASAN_GENERIC */"}
Where = Tuple[str, int]


def normalise(line: str) -> str:
    return " ".join(line.split())


def trivial(line: str) -> Optional[str]:
    """Why a line is excluded (None: it is counted)."""
    n = normalise(line)
    if not n:
        return "blank"
    if n.startswith(("/*", "*", "//")) or n.endswith("*/"):
        return "comment"
    if n in KEYWORDS:
        return "keyword"
    if not re.search(r"[A-Za-z_][A-Za-z0-9_]{2,}", n):
        return "punctuation"
    return None


def apply_renames(line: str, renames: Sequence[Tuple[str, str]]) -> str:
    for old, new in renames:
        line = re.sub(r"\b%s\b" % re.escape(old), new, line)
    return line


def token(n: str) -> str:
    """The longest run without blanks: what grep looks for."""
    return max(n.split(), key=len)


def grep_tree(tree: str, wanted: Iterable[str]) -> Dict[str, Where]:
    """{normalised line: (path, line number)} of its first whole-line
    occurrence anywhere in the tree (text files of the usual kinds)."""
    wanted = set(wanted)
    toks = sorted({token(w) for w in wanted})
    found: Dict[str, Where] = {}
    if not toks:
        return found
    with tempfile.NamedTemporaryFile("w", suffix=".pat", delete=False) as f:
        f.write("\n".join(toks) + "\n")
        pats = f.name
    try:
        p = subprocess.run(["grep", "-rnFI", "-f", pats, "--include=*.[chS]",
                            "--include=*.rst", "--include=Makefile*", "--include=Kconfig*",
                            "--include=*.lds*", "."], cwd=tree, capture_output=True,
                           text=True, errors="replace")
    finally:
        os.unlink(pats)
    for out in sorted(p.stdout.splitlines()):
        path, _, rest = out.partition(":")
        num, _, text = rest.partition(":")
        n = normalise(text)
        if n in wanted and n not in found and num.isdigit():
            found[n] = (path[2:] if path.startswith("./") else path, int(num))
    return found


def grep_tree_kept(tree: str, wanted: Iterable[str], keep: str) -> Dict[str, Where]:
    """grep_tree(), kept in the folder `keep` under a name that is the
    digest of the wanted lines: a search of the whole tree takes 20-30 s,
    and its answer changes only with the lines or the tree.  `keep` must
    be the tree's own folder (the cache names it by the tarball's digest)."""
    import json
    from vm.base import sha256_text
    wanted = sorted(set(wanted))
    key = sha256_text(GREP_VERSION, *wanted)[:16]
    path = os.path.join(keep, "kt-lineage-%s.json" % key)
    try:
        with open(path) as f:
            return {k: (v[0], int(v[1])) for k, v in json.load(f).items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        pass
    found = grep_tree(tree, wanted)
    try:
        with open(path + ".tmp", "w") as f:
            json.dump(found, f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass  # a read-only cache: search again next time
    return found


# Changed whenever grep_tree's search changes, so that no kept answer
# of an earlier search is read.
GREP_VERSION = "grep-rnFI c,h,S,rst,Makefile,Kconfig,lds v1"


def file_lines(tree: str, paths: Sequence[str]) -> Dict[str, Where]:
    """{normalised line: (path, number)} of the given files of the tree."""
    out: Dict[str, Where] = {}
    for rel in paths:
        full = os.path.join(tree, rel)
        if not os.path.exists(full):
            continue
        for i, ln in enumerate(open(full, errors="replace").read().splitlines(), 1):
            out.setdefault(normalise(ln), (rel, i))
    return out


def classify(line: str, same: Dict[str, Where], anywhere: Dict[str, Where],
             renames: Sequence[Tuple[str, str]]) -> Tuple[str, Optional[Where]]:
    """(class, 6.1 location) of one counted line."""
    n = normalise(line)
    if n in same:
        return "same file", same[n]
    if n in anywhere:
        return "moved", anywhere[n]
    r = normalise(apply_renames(n, renames))
    if r != n:
        where = same.get(r) or anywhere.get(r)
        if where:
            return "renamed", where
    return "gone", None


def wanted_lines(files: Sequence[Tuple[str, List[str], List[str]]],
                 renames: Sequence[Tuple[str, str]]) -> set:
    """The normalised lines (and their renamed forms) to look up in the tree."""
    w = {normalise(ln) for _, _, added in files for ln in added if trivial(ln) is None}
    return w | {normalise(apply_renames(x, renames)) for x in w}


def patch_lineage(files: Sequence[Tuple[str, List[str], List[str]]], tree: str,
                  renames: Sequence[Tuple[str, str]],
                  anywhere: Optional[Dict[str, Where]] = None) -> Dict[str, object]:
    """For one patch's files [(v9 path, 6.1 descendants, added lines)]:
    {"counts": {class: n}, "excluded": n, "lines": [(class, v9 path, text, where)]}.
    anywhere: grep_tree() of the wanted lines, if already computed."""
    if anywhere is None:
        anywhere = grep_tree(tree, wanted_lines(files, renames))
    counts = dict.fromkeys(CLASSES, 0)
    lines, excluded = [], 0
    for path, desc, added in files:
        same = file_lines(tree, desc)
        for ln in added:
            if trivial(ln) is not None:
                excluded += 1
                continue
            cls, where = classify(ln, same, anywhere, renames)
            counts[cls] += 1
            lines.append((cls, path, ln, where))
    return {"counts": counts, "excluded": excluded, "lines": lines}
