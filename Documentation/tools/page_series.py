# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The series pages: one page per v9 patch (the verbatim text of a seed, or,
for the 11 patches the project lacks, the cover letter's words and the 6.1
code that descends from them), each with its public record (posting,
review, merge: patches/v9/provenance.toml), and the series index."""

import os
import tomllib

from Documentation.tools import credit
from Documentation.tools import provenance as prov
from Documentation.tools.sitelib import (V9, code, cover_items, excerpt, heading, indent,
                                         labs_index, lineage_data, link, note, real_bug_section,
                                         rst_escape, write)
from kasan import modes


def msg(msgid, text="archive"):
    return link(text, prov.lore(msgid))


def provenance_record(series, seeds):
    """The provenance record, refused (the build stops) if it has problems."""
    rec = prov.load(V9)
    bad = prov.problems(rec, series, {r["num"]: p for r, p in seeds})
    with open(os.path.join(V9, "missing.toml"), "rb") as f:
        bad += prov.unexplained_descendants(rec, tomllib.load(f), lineage_data()["renames"])
    if bad:
        raise SystemExit("gensite: patches/v9/provenance.toml: " + "; ".join(bad))
    return rec


def commit_cell(rec, n):
    c = prov.commit_of(rec, n)
    if c is None:
        return None
    return "``%s`` (%s; Link: %s)" % (c["id"][:12], link("public copy", c["source"]),
                                      msg(c["link"], "v13 posting"))


def provenance_section(row, rec, date):
    """The posting, its thread, its reviews and what was merged."""
    n, p = row["num"], rec["%02d" % row["num"]]
    out = [heading("Posting and merge (public record)", "-")]
    if row["msgid"]:
        how = ("" if p["archived"] == "posting" else
               " -- the posting itself was not among the archive copies read; this id "
               "is in the References of a reply (%s), which quotes the posting's "
               "diffstat: it equals this seed's" % msg(p["evidence"], "the reply"))
        out.append(":Message-Id: ``%s`` (%s)%s\n" % (row["msgid"], msg(row["msgid"]), how))
    else:
        out.append(":Message-Id: not established: the posting was not among the archive "
                   "copies this project read (%s)\n" % link(
                       "search lore for it", prov.lore_search(
                           "[PATCH v9 %02d/20] %s" % (n, row["subject"]), "20180921")))
    out.append(":Posted: %s, in reply to the cover letter ``%s`` (%s)\n" % (
        date, rec["thread"]["cover"], msg(rec["thread"]["cover"])))
    v13 = p["v13"]
    m = rec["merge"]
    out.append(":Merged as: patch %d of %d of v%d, ``%s`` (%s)%s\n" % (
        v13, m["patches"], m["version"], m["shortlog"][v13 - 1], msg(m["cover"], "v13 cover"),
        "; the subject changed: %s (%s)" % (rst_escape(p["v13_why"]),
                                            msg(p["v13_evidence"], "source"))
        if p.get("v13_why") else ""))
    out.append(":Mainline commit: %s\n\n" % (
        commit_cell(rec, n) or "not established from the sources read"))
    c = prov.commit_of(rec, n)
    if c:
        out.append("The mainline commit carries Reviewed-by: %s, and was signed off last "
                   "by %s.\n\n" % (", ".join(c["reviewed"]), c["by"]))
    reviews = p.get("reviews", [])
    out.append(".. rubric:: Review on the v9 thread\n\n")
    if not reviews:
        out.append("No reply to this patch was among the archive copies read.\n\n")
    for r in reviews:
        out.append("* **%s**, %s%s: %s (%s)%s\n" % (
            r["who"], r["date"], ", ``%s``" % r["tag"] if r["tag"] else "",
            rst_escape(r["summary"]),
            msg(r["message"], "message"),
            " What followed: %s (%s)" % (rst_escape(r["outcome"]),
                                         msg(r["outcome_evidence"], "source"))
            if r.get("outcome") else ""))
    return "".join(out) + "\n"


def posting_diffstat(p, renames):
    """The diffstat figures of an archived posting, as a table."""
    if p.get("archived") != "posting":
        return ("The posting was not among the archive copies read, so its files and "
                "diffstat are not shown.\n\n")
    st = p["stat"]
    figures = (msg(p["evidence"], "posting"), st["files"], st["insertions"], st["deletions"])
    out = ["Figures from the archived posting (%s): %d file(s) changed, %d insertion(s), "
           "%d deletion(s).\n\n" % figures]
    out.append(".. list-table::\n   :header-rows: 1\n\n   * - v9 file\n"
               "     - lines changed\n     - where it lives in 6.1\n")
    for f in p["files"]:
        path = f[0] if len(f) < 3 else "%s (renamed from %s)" % (f[0], f[2])
        later = renames.get(f[0], [f[0]])
        out.append("   * - ``%s``\n     - %d\n     - %s\n" % (
            path, f[1], ", ".join("``%s``" % x for x in later)))
    return "".join(out) + "\n"


def page_merge_table(series, rec):
    """The posting-to-merge table of the series index."""
    m = rec["merge"]
    out = [heading("From posting to merge", "-")]
    release = ("It was first released in %s." % m["release"] if m["release"] else
               "The Linux release that first contained it is not established from the "
               "sources read.")
    facts = (m["version"], m["patches"], m["cover_date"], msg(m["cover"], "cover letter"),
             m["taken_by"], m["taken_date"], rst_escape(m["taken_summary"]),
             msg(m["taken_evidence"], "message"), release)
    out.append("The version merged was v%d (%d patches, %s; %s). Taken by %s (%s): %s "
               "(%s) %s\n\n" % facts)
    out.append(".. list-table::\n   :header-rows: 1\n   :class: kt-merge\n\n"
               "   * - v9\n     - v9 posting\n     - in v%d\n     - mainline commit\n"
               % m["version"])
    for r in series:
        p = rec["%02d" % r["num"]]
        posting = msg(r["msgid"], r["msgid"].strip("<>")[:12]) if r["msgid"] else \
            "not found (%s)" % link("search", prov.lore_search(
                "[PATCH v9 %02d/20] %s" % (r["num"], r["subject"]), "20180921"))
        posted13 = m.get("postings", {}).get(str(p["v13"]))
        v13 = "%d/%d%s (%s%s)" % (p["v13"], m["patches"],
                                  " -- subject changed" if p.get("v13_why") else "",
                                  msg(m["cover"], "shortlog"),
                                  "; " + msg(posted13, "posting") if posted13 else "")
        out.append("   * - :doc:`%02d <%02d>`\n     - %s\n     - %s\n     - %s\n" % (
            r["num"], r["num"], posting, v13,
            commit_cell(rec, r["num"]) or "not established"))
    return "".join(out) + "\n"


def page_seed(row, p, labs, rec):
    n = row["num"]
    out = [".. _patch-%02d:\n\n" % n, heading("%02d/20 %s" % (n, p.subject))]
    out.append(":Position: %d of 20\n:Author: %s\n:Date: %s\n:Source: ``patches/v9/%s`` "
               "(byte-identical to the seed ``%s``, sha256 ``%s``)\n\n" % (
                   n, p.headers.get("From", "?"), p.headers.get("Date", "?"), row["file"],
                   row["seed"], row["sha"][:16]))
    if note(n):
        out.append(heading("What it changes and why (the project's notes)", "-"))
        out.append(".. include:: /patches/v9/notes/%02d.rst\n\n" % n)
    if labs:
        out.append(heading("Seen live in", "-"))
        out.append("".join("* :doc:`%s`\n" % d for d in labs) + "\n")
    out.append(provenance_section(row, rec, p.headers.get("Date", "?")))
    out.append(".. raw:: html\n\n   <p class=\"kt-verbatim\">Verbatim v9 text from here "
               "on: the commit message, the diffstat and the diff.</p>\n\n")
    out.append(heading("Commit message", "-") + code(p.message.splitlines()))
    out.append(heading("Diffstat", "-") + code(p.diffstat.splitlines()))
    out.append(heading("The diff", "-"))
    out.append("Files: " + ", ".join(":ref:`%s <p%02d-f%d>`" % (f.path, n, i)
                                     for i, f in enumerate(p.files, 1)) + "\n\n")
    for i, f in enumerate(p.files, 1):
        out.append(".. _p%02d-f%d:\n\n" % (n, i))
        what = " (new file)" if f.created else " (deleted)" if f.deleted else ""
        out.append(heading("%s%s" % (f.path, what), "~"))
        out.append(code(f.header, "diff"))
        for j, h in enumerate(f.hunks, 1):
            out.append(".. _p%02d-f%d-h%d:\n\n.. rubric:: hunk %d: %s\n\n" % (
                n, i, j, j, h.header.replace("\\", "\\\\").replace("*", "\\*")
                .replace("`", "\\`").replace("|", "\\|")))
            out.append(code([h.header] + h.lines, "diff"))
    if p.trailer:
        out.append(heading("Trailer", "~") + code(p.trailer.splitlines()))
    return "".join(out)


def page_missing(row, spec, cover, src, ver, labs, rec):
    n = row["num"]
    out = [".. _patch-%02d:\n\n" % n, heading("%02d/20 %s" % (n, row["subject"]))]
    out.append(":Position: %d of 20\n:Subject: from the cover letter's shortlog\n\n" % n)
    out.append(".. raw:: html\n\n   <p class=\"kt-missing\">The text of this patch is not "
               "among the project's sources. Nothing below is the v9 patch.</p>\n\n")
    if note(n):
        out.append(heading("What it did", "-"))
        out.append(".. include:: /patches/v9/notes/%02d.rst\n\n" % n)
    out.append(heading("What the cover letter says", "-"))
    items = cover_items(cover, spec.get("cover", []))
    if items:
        for version, text in items:
            out.append("From *%s*:\n\n%s\n" % (version, code(text.splitlines())))
    else:
        out.append("The cover letter says nothing about it beyond the subject.\n\n")
    p = rec["%02d" % n]
    out.append(heading("What the posting changed (figures only)", "-"))
    out.append(posting_diffstat(p, lineage_data()["renames"]))
    out.append(heading("6.1 descendant, not the v9 text", "-"))
    out.append("The code below is extracted at build time from the installed Linux "
               "%s tree. It descends from this patch after six years of kernel "
               "development; it is **not** what v9 contained.\n\n" % ver)
    for d in spec.get("descendants", []):
        start, lines = excerpt(src, d)
        lang = "make" if d["file"].endswith("Makefile") else "c"
        out.append(".. rubric:: ``%s:%d``\n\n" % (d["file"], start))
        if d.get("beyond"):
            out.append("Not a file the posting touched: %s\n\n" % rst_escape(d["beyond"]))
        out.append(".. code-block:: %s\n   :lineno-start: %d\n\n%s\n" % (
            lang, start, indent(lines)))
    if labs:
        out.append(heading("Seen live in", "-"))
        out.append("".join("* :doc:`%s`\n" % d for d in labs) + "\n")
    out.append(provenance_section(row, rec, p.get("date", "not established")))
    return "".join(out)


def page_index(series, per, rec):
    out = [heading("The v9 series, patch by patch")]
    out.append("``[PATCH v9 00/20] kasan: add software tag-based mode for arm64`` by Andrey "
               "Konovalov, 21 September 2018 (:doc:`cover letter </build/gen/cover-letter>`). "
               "Nine patches are here verbatim; the other eleven are known from the "
               "cover letter, from the code that descends from them in 6.1 and, for %d "
               "of them, from the figures of the archived posting (files and diffstat, "
               "never the text). Each page links the posting and says what was merged; "
               "the table at the end sums it up.\n\n" % sum(
                   1 for r in series if not r["file"]
                   and rec["%02d" % r["num"]]["archived"] == "posting"))
    out.append(".. toctree::\n   :hidden:\n\n" + "".join(
        "   %02d\n" % r["num"] for r in series) + "\n")
    out.append(".. list-table::\n   :header-rows: 1\n   :class: kt-series\n\n"
               "   * - #\n     - subject\n     - text\n     - added lines alive in 6.1\n")
    for r in series:
        a, t = per.get(r["num"], (0, 0))
        out.append("   * - %02d\n     - :doc:`%s <%02d>`\n     - %s\n     - %s\n" % (
            r["num"], r["subject"].replace("*", "\\*").replace("_", "\\_"), r["num"],
            "verbatim" if r["file"] else "descendant",
            "%d of %d" % (a, t) if r["file"] else "--"))
    return "".join(out) + "\n" + page_merge_table(series, rec) + "\n" + real_bug_section()


def write_pages(series, seeds, src, ver, per):
    """series/NN.rst for every patch, series/index.rst, cover-letter.rst;
    the build stops if the record or the credit rule (credit.py) has problems.
    per: {patch: (alive, counted)} from the lineage pages."""
    cover = open(os.path.join(V9, "00-cover-letter.txt")).read()
    with open(os.path.join(V9, "missing.toml"), "rb") as f:
        missing = tomllib.load(f)
    labs = labs_index()
    rec = provenance_record(series, seeds)
    bad = credit.problems({r["num"]: open(os.path.join(V9, r["file"])).read() for r, _ in seeds},
                          lineage_data(), missing)
    if bad:
        raise SystemExit("gensite: which patch did what (Documentation/tools/credit.py): "
                         + "; ".join(bad))
    for row in lineage_data().get(modes.HW_TAGS.variant, []):
        if row.get("cover"):
            cover_items(cover, [row["cover"]], "patches/v9/lineage.toml [[hwtags]]")
    for r, p in seeds:
        write("series/%02d.rst" % r["num"], page_seed(r, p, labs.get(r["num"], []), rec))
    for r in series:
        if not r["file"]:
            write("series/%02d.rst" % r["num"], page_missing(
                r, missing["%02d" % r["num"]], cover, src, ver, labs.get(r["num"], []), rec))
    write("series/index.rst", page_index(series, per, rec))
    write("cover-letter.rst", heading("The cover letter") +
          "``[PATCH v9 00/20]``, rendered in full: it is the series' own text, including "
          "its benchmark table.\n\n.. literalinclude:: /patches/v9/00-cover-letter.txt\n"
          "   :language: text\n")
