# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What every page module of the site shares: where things are, writing a
generated page (build/gen/), small reST builders, and the v9 series' data
(patches/v9: series, notes, missing.toml, lineage.toml) and the installed
6.1 tree it is compared with."""

import os
import re
import tomllib

from labs import lab as labdata
from vm import REPO

V9 = os.path.join(REPO, "patches", "v9")
GEN = os.path.join(REPO, "build", "gen")
TRANSCRIPTS = os.path.join(REPO, "build", "transcripts")
GRADE = os.path.join(REPO, "build", "grade")


def write(rel, text):
    path = os.path.join(GEN, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = open(path).read() if os.path.exists(path) else None
    if old != text:  # keep mtimes, so Sphinx rebuilds only what changed
        with open(path, "w") as f:
            f.write(text)


def read(*parts):
    path = os.path.join(*parts)
    return open(path, errors="replace").read() if os.path.exists(path) else None


def rst_escape(text):
    return re.sub(r"([\\`*_|<>\[\]])", r"\\\1", text)


def heading(text, ch="="):
    return "%s\n%s\n\n" % (text, ch * max(len(text), 3))


def indent(lines, n=3):
    pad = " " * n
    return "\n".join(pad + ln if ln.strip() else "" for ln in lines) + "\n"


def code(lines, lang="text", emphasize=()):
    """A code block; EMPHASIZE: the 1-based numbers of the lines to highlight."""
    opt = "   :emphasize-lines: %s\n" % ",".join(map(str, emphasize)) if emphasize else ""
    return ".. code-block:: %s\n%s\n%s\n" % (lang, opt, indent(lines))


def link(text, url):
    """An anonymous reST hyperlink."""
    return "`%s <%s>`__" % (text.replace("<", "\\<").replace("`", "\\`"), url)


def read_series():
    rows = []
    for line in open(os.path.join(V9, "series")):
        if line.startswith("#") or not line.strip():
            continue
        left, _, subject = line.partition(" | ")
        num, fname, sha, seed, msgid = left.split()
        rows.append({"num": int(num), "file": None if fname == "-" else fname,
                     "sha": sha, "seed": seed, "subject": subject.strip(),
                     "msgid": None if msgid == "-" else msgid})
    return rows


def note(num):
    path = os.path.join(V9, "notes", "%02d.rst" % num)
    return path if os.path.exists(path) else None


def lineage_data():
    with open(os.path.join(V9, "lineage.toml"), "rb") as f:
        return tomllib.load(f)


def real_bug_section():
    """The series and lineage pages' note on lab 9: a real 6.1 bug the
    series' tag-based mode reports, named by its fix and its public report
    (Documentation/sources.rst lists both; patches/experiments/10-... names
    them in its message)."""
    return (heading("A real 6.1 bug, in tag-based mode", "-") +
            "Lab 9 (:doc:`/labs/09-real-bug/index`) reproduces CVE-2023-31436, a "
            "slab-out-of-bounds read in 6.1's ``net/sched/sch_qfq.c``, on a 6.1 kernel "
            "with its fix reverted (``patches/experiments/10-qfq-revert-lmax-check.patch``). "
            "The fix is upstream 3037933448f6 (\"net: sched: sch_qfq: prevent "
            "slab-out-of-bounds in qfq_activate_agg\"), in 6.1 as 158810b261d0; the "
            "public report is Gwangun Jung's netdev posting, Message-Id "
            "``<ZC+Kgc7feqYy/Gdw@pr0lnx>``. Both are named, not quoted, among the "
            "project's sources (:doc:`/Documentation/sources`).\n\n")


def labs_index():
    """{patch number: [lab docnames]} from each lab's `patches` (steps.toml)."""
    out = {}
    for lab in labdata.load_all():
        for n in lab.spec.get("patches", []):
            out.setdefault(n, []).append("/labs/%s/index" % lab.folder)
    return out


def tree():
    import vm
    src, _ = vm.pristine_tree()
    return src


def tree_version(src):
    mk = open(os.path.join(src, "Makefile")).read()
    v = [re.search(r"^%s = (\S*)" % k, mk, re.M).group(1)
         for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL")]
    return ".".join(v)


def excerpt(src, spec):
    """(first line number, lines) of a 6.1 file, per missing.toml."""
    path = os.path.join(src, spec["file"])
    lines = open(path, errors="replace").read().splitlines()
    for i, ln in enumerate(lines):
        if spec["start"] in ln:
            break
    else:
        raise SystemExit("gensite: %s has no line containing %r (6.1 moved it? update "
                         "patches/v9/missing.toml)" % (spec["file"], spec["start"]))
    if "lines" in spec:
        return i + 1, lines[i:i + spec["lines"]]
    for j in range(i + 1, min(len(lines), i + 400)):
        if lines[j].startswith(spec["end"]):
            return i + 1, lines[i:j + 1]
    return i + 1, lines[i:i + 40]


def cover_blocks(cover):
    """(changelog version, text) of every paragraph and item of the cover letter."""
    out, version = [], "cover letter"
    for b in re.split(r"\n(?=- |\d+\. |\n)", cover):
        m = re.search(r"Changes in (v\d+|RFC v\d+):", b)
        if m:
            version = m.group(1)
        # drop a "Changes in vN:" heading glued to the item
        text = re.sub(r"^.*Changes in [^\n]*:\n", "", b.strip("\n"), flags=re.S).strip()
        if text and not text.startswith("Andrey Konovalov (20)"):
            out.append((version, text))
    return out


def cover_items(cover, starts, where="patches/v9/missing.toml"):
    """The cover-letter items a person chose for a patch, each named by the
    literal text it starts with (blanks squeezed); one match each, or exit."""
    blocks = cover_blocks(cover)
    items = []
    for start in starts:
        want = " ".join(start.split())
        hits = [(v, t) for v, t in blocks if " ".join(t.split()).startswith(want)]
        if len(hits) != 1:
            raise SystemExit("gensite: %s: cover item %r matches %d items of the cover "
                             "letter, not one" % (where, start, len(hits)))
        items.append(hits[0])
    return items
