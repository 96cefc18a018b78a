# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Which patch did what: a mechanical rule over patches/v9/lineage.toml
([[hwtags]]) and patches/v9/missing.toml (descendants), run by `make site`.

1. An identifier that a seed patch defines -- a `+` line that defines a
   function or a macro -- is never credited to another patch.  A claim
   credits the identifiers its `what` names before its colon
   ("assign_tag: ...", "set_tag/get_tag: ...") and the one its cited 6.1
   line defines (a [[hwtags]] `src`, a descendant's `start`).  6.1 names
   the series' hooks with a "__" prefix (__kasan_init_slab_obj) and some
   under a new name ([[rename]]): both are mapped back first.  A cover-letter
   item of a missing patch that says it added something ("- Added ...",
   "- Defined ...") credits the identifiers it names.
2. A [[hwtags]] claim about a seed patch cites its line (`v9 = "NN:..."`,
   of that patch); one about a patch that is not a seed names the cover
   letter's item (`cover = "..."`, resolved by sitelib.cover_items).

Pure functions over texts: problems() returns one line per broken claim.
"""

import re
from typing import Dict, Iterable, List, Set, Tuple
from kasan import modes

DEF_FUNCTION = re.compile(
    r"^(?!\s*(?:return|if|else|while|for|switch|do|case|goto|sizeof)\b)"
    r"\s*[A-Za-z_][\w \t\*]*?[\s\*](\w+)\s*\([^;]*$")
DEF_MACRO = re.compile(r"^\s*#\s*define\s+(\w+)")
HEAD = re.compile(r"^([\w/ ]+):")
IDENT = re.compile(r"^[A-Za-z_]\w*$")
ADDS = re.compile(r"^-\s*(Added|Defined|Introduced|Implemented)\b")
WORD = re.compile(r"\b([A-Za-z_]\w*_\w*)(?:\(\))?")


def defines(line: str) -> Set[str]:
    """The function or macro a line of C defines ({} for any other line)."""
    out = set()
    for pat in (DEF_MACRO, DEF_FUNCTION):
        m = pat.match(line)
        if m:
            out.add(m.group(1))
            break
    return out


def seed_definitions(seeds: Dict[int, str]) -> Dict[str, Set[int]]:
    """{identifier: the seed patches whose `+` lines define it}."""
    out: Dict[str, Set[int]] = {}
    for num, text in seeds.items():
        for line in text.splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                for name in defines(line[1:]):
                    out.setdefault(name, set()).add(num)
    return out


def named(what: str) -> Set[str]:
    """The identifiers a claim's `what` names before its colon."""
    m = HEAD.match(what)
    if not m:
        return set()
    return {w for part in m.group(1).split("/") for w in part.split() if IDENT.match(w)
            and ("_" in w or w.islower() and w.endswith("()"))}


def v9_names(name: str, renames: Iterable[Tuple[str, str]]) -> Set[str]:
    """A 6.1 identifier and the v9 names it may stand for."""
    out = {name, name.lstrip("_")}
    for old, new in renames:
        if new in out:
            out.add(old)
    return out


def claims(lineage: Dict, missing: Dict) -> List[Tuple[str, int, Set[str]]]:
    """(where, credited patch, the identifiers it is credited with)."""
    out = []
    for i, row in enumerate(lineage.get(modes.HW_TAGS.variant, [])):
        ids = named(row.get("what", "")) | defines(row.get("src", "").split(":", 1)[-1])
        out.append(("lineage.toml [[hwtags]] #%d" % (i + 1), int(row["patch"]), ids))
    for key, entry in missing.items():
        if not key.isdigit():
            continue
        for d in entry.get("descendants", []):
            out.append(("missing.toml [%s] %s" % (key, d["file"]), int(key), defines(d["start"])))
        for item in entry.get("cover", []):
            if ADDS.match(item):
                out.append(("missing.toml [%s] cover %r" % (key, item[:40]), int(key),
                            set(WORD.findall(item))))
    return out


def problems(seeds: Dict[int, str], lineage: Dict, missing: Dict) -> List[str]:
    """One line per claim that breaks rule 1 or 2."""
    definers = seed_definitions(seeds)
    renames = [(r["old"], r["new"]) for r in lineage.get("rename", [])]
    bad = []
    for where, patch, ids in claims(lineage, missing):
        for ident in sorted(ids):
            by = set()
            for name in v9_names(ident, renames):
                by |= definers.get(name, set())
            if by and patch not in by:
                bad.append("%s credits %s to patch %02d, but seed patch %s defines it"
                           % (where, ident, patch, "/".join("%02d" % n for n in sorted(by))))
    for i, row in enumerate(lineage.get(modes.HW_TAGS.variant, [])):
        where, patch = "lineage.toml [[hwtags]] #%d" % (i + 1), int(row["patch"])
        if patch in seeds:
            cite = row.get("v9", "")
            if not cite.startswith("%02d:" % patch):
                bad.append("%s is about seed patch %02d: it needs v9 = \"%02d:<its line>\""
                           % (where, patch, patch))
        elif not row.get("cover"):
            bad.append("%s is about patch %02d, not a seed: it needs cover = \"<the cover "
                       "letter's item>\"" % (where, patch))
    return bad
