# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Where each v9 patch was posted and what became of it (provenance.toml).

Pure helpers: loading, links, and `problems()`, which checks the record
against the seeds, the series file and itself.  The site build refuses a
record with problems; tests/test_provenance.py shows each check failing on
a broken record.
"""

import datetime
import email.utils
import os
import re
import tomllib
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional, Tuple

Record = Dict[str, Any]

LORE = "https://lore.kernel.org/r/"
ARCHIVED = ("posting", "reply", "none")
STAT_RE = re.compile(r"(\d+) files? changed(?:, (\d+) insertions?\(\+\))?"
                     r"(?:, (\d+) deletions?\(-\))?")


def load(v9: str) -> Record:
    with open(os.path.join(v9, "provenance.toml"), "rb") as f:
        return tomllib.load(f)


def lore(msgid: str) -> str:
    """The archive link of a Message-Id, in lore's /r/ form."""
    return LORE + urllib.parse.quote(msgid.strip("<>"), safe="@.+-_=")


def lore_search(subject: str, day: str) -> str:
    """A lore query for a subject on one day (YYYYMMDD), for the postings
    whose Message-Id the project could not read."""
    q = 's:"%s" d:%s..%s' % (subject, day, str(int(day) + 1))
    return "https://lore.kernel.org/all/?q=" + urllib.parse.quote(q, safe="")


def stat_of(diffstat: str) -> Optional[Dict[str, int]]:
    """{files, insertions, deletions} of a diffstat's summary line."""
    m = STAT_RE.search(diffstat)
    if not m:
        return None
    return {"files": int(m.group(1)), "insertions": int(m.group(2) or 0),
            "deletions": int(m.group(3) or 0)}


def header_msgid(headers: Dict[str, str]) -> Optional[str]:
    for k, v in headers.items():
        if k.lower() == "message-id":
            return v.strip()
    return None


def v13_of(rec: Record, num: int) -> Optional[int]:
    return rec.get("%02d" % num, {}).get("v13")


def commit_of(rec: Record, num: int) -> Optional[Record]:
    for c in rec.get("merge", {}).get("commit", []):
        if c["v9"] == num:
            return c
    return None


def _when(date: str) -> datetime.datetime:
    return email.utils.parsedate_to_datetime(date)


def problems(rec: Record, series: List[Record], seeds: Dict[int, Any]) -> List[str]:
    """Everything wrong with the record.

    series: rows of patches/v9/series (num, subject, msgid, file).
    seeds:  {num: patchlib.Patch} of the seed patches.
    """
    out = []
    cover = rec["thread"]["cover"]
    m = re.match(r"^<cover\.(\d+)\.git\.(\S+)>$", cover)
    if not m:
        return ["thread.cover %r is not a git-send-email cover id" % cover]
    id_re = re.compile(r"^<[0-9a-f]{40}\.%s\.git\.%s>$" % (m.group(1), re.escape(m.group(2))))
    shortlog = rec["merge"]["shortlog"]
    if len(shortlog) != rec["merge"]["patches"]:
        out.append("merge.shortlog has %d subjects, merge.patches says %d"
                   % (len(shortlog), rec["merge"]["patches"]))
    dates = [(0, _when(rec["thread"]["cover_date"]))]
    v13s = []
    for row in series:
        n, key = row["num"], "%02d" % row["num"]
        p = rec.get(key)
        if p is None:
            out.append("%s: no entry" % key)
            continue
        where = "%s (%s)" % (key, row["subject"])
        if p.get("archived") not in ARCHIVED:
            out.append("%s: archived must be one of %s" % (where, ", ".join(ARCHIVED)))
            continue
        msgid = row["msgid"]
        if (msgid is None) != (p["archived"] == "none"):
            out.append("%s: series has %s but archived is %r"
                       % (where, msgid or "no Message-Id", p["archived"]))
        if msgid and not id_re.match(msgid):
            out.append("%s: %s is not an id of this series' thread" % (where, msgid))
        seed = seeds.get(n)
        if seed is not None and header_msgid(seed.headers) not in (None, msgid):
            out.append("%s: the seed's Message-Id header says %s, series says %s"
                       % (where, header_msgid(seed.headers), msgid))
        if seed is not None:
            dates.append((n, _when(seed.headers["Date"])))
        if p["archived"] != "none":
            want = "[PATCH v9 %02d/20] %s" % (n, row["subject"])
            if p.get("subject") != want:
                out.append("%s: archived subject %r is not %r" % (where, p.get("subject"), want))
            if (p.get("evidence") == msgid) != (p["archived"] == "posting"):
                out.append("%s: evidence must be the posting itself exactly when "
                           "archived = \"posting\"" % where)
        if p["archived"] == "posting":
            if seed is not None and p.get("date") != seed.headers.get("Date"):
                out.append("%s: archived date %s differs from the seed's %s"
                           % (where, p.get("date"), seed.headers.get("Date")))
            dates.append((n, _when(p["date"])))
            files = p.get("files", [])
            st = p.get("stat", {})
            if len(files) != st.get("files"):
                out.append("%s: %d files listed, stat says %s" % (where, len(files), st.get("files")))
            if sum(f[1] for f in files) != st.get("insertions", 0) + st.get("deletions", 0):
                out.append("%s: per-file counts do not add up to the stat" % where)
        if seed is not None and "stat" in p and stat_of(seed.diffstat) != p["stat"]:
            out.append("%s: archived diffstat %s differs from the seed's %s"
                       % (where, p["stat"], stat_of(seed.diffstat)))
        v13 = p.get("v13")
        if not isinstance(v13, int) or not 1 <= v13 <= len(shortlog):
            out.append("%s: v13 must be a patch number of v13" % where)
        else:
            v13s.append(v13)
            same = shortlog[v13 - 1] == row["subject"]
            if not same and not p.get("v13_why"):
                out.append("%s: v13 patch %d is %r; a changed subject needs v13_why"
                           % (where, v13, shortlog[v13 - 1]))
        for r in p.get("reviews", []):
            missing = [k for k in ("who", "tag", "date", "message", "summary") if k not in r]
            if missing:
                out.append("%s: a review lacks %s" % (where, ", ".join(missing)))
    if len(set(v13s)) != len(v13s):
        out.append("two v9 patches cannot be the same v13 patch")
    dates.sort()
    for (a, da), (b, db) in zip(dates, dates[1:]):
        if not da < db:
            out.append("dates out of order: patch %02d (%s) is not before %02d (%s)"
                       % (a, da, b, db))
    for c in rec["merge"].get("commit", []):
        v13 = v13_of(rec, c["v9"])
        if v13 is None or shortlog[v13 - 1] != c["subject"]:
            out.append("merge.commit %s: subject %r is not v13's for v9 patch %02d"
                       % (c["id"][:12], c["subject"], c["v9"]))
        if not re.match(r"^[0-9a-f]{40}$", c["id"]):
            out.append("merge.commit %r: not a full commit id" % c["id"])
    return out


def unexplained_descendants(rec: Record, missing: Record, renames: Dict[str, List[str]]) -> List[str]:
    """Descendant excerpts (missing.toml) of a patch whose posting was read
    that are in none of the files it touched, or their 6.1 successors
    (lineage.toml), and that give no `beyond` reason."""
    out = []
    for key, spec in missing.items():
        p = rec.get(key, {})
        if p.get("archived") != "posting":
            continue
        touched = set()
        for f in p["files"]:
            for path in f[:1] + f[2:]:
                touched.add(path)
                touched.update(renames.get(path, []))
        for d in spec.get("descendants", []):
            if d["file"] not in touched and not d.get("beyond"):
                out.append("%s: %s is not a file the posting touched (or its 6.1 "
                           "successor) and has no `beyond` reason" % (key, d["file"]))
    return out


# ------------------------------------------------ no text of a missing patch

HUNK_RE = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
# A hunk header written inside a line of code, not as a diff: the project's
# own made-up examples, one per (file, header), each with its reason.
SYNTHETIC = {
    ("tests/test_series.py", "@@ -1,4 +1,5 @@"): "a made-up 4-line diff for the parser",
    ("tests/test_vm.py", "@@ -1 +1 @@"): "a made-up one-line patch for variant_tree",
    ("labs/09-real-bug/test_lab09.py", "@@ -1,3 +1,3 @@"):
        "a made-up hunk that applies nowhere, for exercise 9.2's refusal",
}
# This checker and its test write headers inside lines as examples of what
# they look for; a real hunk (header at the start of a line) is still checked.
CHECKER = ("Documentation/tools/provenance.py", "tests/test_provenance.py")
OWN_PATCHES = ("patches/experiments/", "patches/fixes/")
# Lab 9's exercise 9.2 is a patch of the reverted 6.1 sch_qfq.c: its
# solution and the wrong fixes planted for the grader's test are the
# project's own patches too
OWN_EXERCISE_PATCHES = ("labs/09-real-bug/student/fix.patch", "labs/09-real-bug/planted.py")


def is_patch_source(path: str) -> bool:
    """The seed patches and the project's own patches: where hunks belong."""
    return path.startswith(OWN_PATCHES) or path in OWN_EXERCISE_PATCHES or (
        path.startswith("patches/v9/") and path.endswith(".patch"))


def hunks(text: str) -> Iterator[Tuple[str, Optional[str]]]:
    """(header, hunk text with its prefix removed or None) for every hunk
    header in `text`.  A header at the start of a line, after indentation or
    mail quoting, is a diff hunk and its body is the lines after it; a header
    inside a line has no body (None)."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        for m in HUNK_RE.finditer(ln):
            prefix = ln[:m.start()]
            if prefix.strip(" \t>"):
                yield m.group(0), None
                continue
            body = [ln[len(prefix):]]
            for nxt in lines[i + 1:]:
                if not nxt.startswith(prefix) or nxt[len(prefix):][:1] not in (" ", "+", "-", "\\"):
                    break
                body.append(nxt[len(prefix):])
            yield m.group(0), "\n".join(body)


def foreign_hunks(files: Dict[str, str]) -> List[str]:
    """Hunks in `files` ({path: text}) that are in no seed or own patch."""
    sources = [t for p, t in files.items() if is_patch_source(p)]
    out = []
    for path, text in files.items():
        if is_patch_source(path):
            continue
        for header, body in hunks(text):
            if body is None:
                if (path, header) not in SYNTHETIC and path not in CHECKER:
                    out.append("%s: hunk header %s inside a line, not a known example"
                               % (path, header))
            elif not any(body in s for s in sources):
                out.append("%s: hunk %s is in no seed patch nor the project's own "
                           "patches" % (path, header))
    return out
