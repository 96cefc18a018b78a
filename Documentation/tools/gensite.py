#!/usr/bin/python3
"""Generate the site's computed pages into build/gen/ (then Sphinx runs).

Everything here is derived at build time from the repository's data and
the installed kernel tree -- nothing is retyped:
  series/        one page per v9 patch (verbatim diffs, or, for the 11
                 patches the project lacks, the cover letter's words and the
                 6.1 code that descends from them)
  lineage.rst    how much of each seed patch survives in 6.1
  kasan/         kasan.rst as patch 19 leaves it, the 6.1 one, a comparison
  transcripts/   the captured lab outputs as includable snippets
  pictures/      SVG pictures drawn from the captured runs (pictures.py)
"""

import difflib
import glob
import json
import os
import re
import tomllib

from bench import table
from Documentation.tools import credit, lineage, patchlib, pictures
from Documentation.tools import provenance as prov
from kasan import report as kreport
from labs import exercises
from labs import lab as labdata
from labs import scenarios as labscn
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


def rst_escape(text):
    return re.sub(r"([\\`*_|<>\[\]])", r"\\\1", text)


def heading(text, ch="="):
    return "%s\n%s\n\n" % (text, ch * max(len(text), 3))


def indent(lines, n=3):
    pad = " " * n
    return "\n".join(pad + ln if ln.strip() else "" for ln in lines) + "\n"


def code(lines, lang="text"):
    return ".. code-block:: %s\n\n%s\n" % (lang, indent(lines))


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


# --------------------------------------------------------------- 6.1 tree

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


# --------------------------------------------------------------- provenance

def link(text, url):
    """An anonymous reST hyperlink."""
    return "`%s <%s>`__" % (text.replace("<", "\\<").replace("`", "\\`"), url)


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


# --------------------------------------------------------------- pages

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


def lab_pages():
    """(lab folder, text of one page) for every page of every lab: its
    index.rst and any other page it has (lab 6's investigation)."""
    labs = os.path.join(REPO, "labs")
    for d in sorted(os.listdir(labs)):
        if not os.path.exists(os.path.join(labs, d, "index.rst")):
            continue
        for page in sorted(glob.glob(os.path.join(labs, d, "*.rst"))):
            yield d, open(page).read()


def labs_index():
    """{patch number: [lab docnames]} from each lab's `patches` (steps.toml)."""
    out = {}
    for lab in labdata.load_all():
        for n in lab.spec.get("patches", []):
            out.setdefault(n, []).append("/labs/%s/index" % lab.folder)
    return out


def start_labs():
    """build/gen/start-labs.rst: per lab, in order, its time, its
    objectives and its exercises with their difficulty and time, from the
    labs' steps.toml (hours, objectives; per exercise difficulty, minutes)."""
    labs = labdata.load_all()
    out = [".. list-table::\n   :header-rows: 1\n   :class: kt-start\n   :widths: 18 8 40 34\n\n"
           "   * - lab\n     - time\n     - after it you can\n     - exercises\n"]
    for lab in labs:
        ex = lab.exercises
        out.append("   * - :doc:`%s </labs/%s/index>`\n     - %s h\n     - %s\n     - %s\n" % (
            rst_escape(lab.title), lab.folder, ("%g" % lab.spec["hours"]),
            "; ".join(rst_escape(o) for o in lab.spec["objectives"]),
            "; ".join("%s %s (%s, %d min)" % (
                e["id"], rst_escape(e["title"]), e["difficulty"], e["minutes"]) for e in ex)
            or "none"))
    total = sum(lab.spec["hours"] for lab in labs)
    n = sum(len(lab.exercises) for lab in labs)
    out.append("\nIn all: %d labs, about %g hours, %d exercises (%s).\n" % (
        len(labs), total, n, ", ".join("%d %s" % (
            sum(e["difficulty"] == d for lab in labs for e in lab.exercises), d)
            for d in labdata.DIFFICULTIES)))
    write("start-labs.rst", "".join(out))


def lineage_data():
    with open(os.path.join(V9, "lineage.toml"), "rb") as f:
        return tomllib.load(f)


def lineage_rows(patches, src):
    """{patch number: lineage.patch_lineage(...)} for every seed patch."""
    data = lineage_data()
    files_map = data["renames"]
    ren = [(r["old"], r["new"]) for r in data.get("rename", [])]
    per_patch = [(row["num"], [(f.path, files_map.get(f.path, [f.path]), f.added())
                               for f in p.files]) for row, p in patches]
    # one search of the whole tree for every patch's lines
    anywhere = lineage.grep_tree(src, set().union(*(lineage.wanted_lines(files, ren)
                                                    for _, files in per_patch)))
    return {n: lineage.patch_lineage(files, src, ren, anywhere) for n, files in per_patch}


def page_lineage(rows, ver):
    """The summary page, its picture, and one page of lines per patch."""
    data = lineage_data()
    out = [heading("Lineage: what of 2018 is still in %s" % ver)]
    excluded = sum(r["excluded"] for r in rows.values())
    counted = sum(sum(r["counts"].values()) for r in rows.values())
    out.append(
        "**What is measured.** Each line a seed patch adds, whitespace-normalised, looked up "
        "as a whole line in the installed %s tree, computed by ``make site``. %d added "
        "lines are **excluded** before counting -- blank lines, braces, comments, and "
        "keyword lines such as ``#endif`` or ``return 0;`` that match anything by "
        "coincidence -- and the other %d are counted, each in the first class it fits:\n\n"
        "* *same file*: a line of the file's 6.1 descendants "
        "(``patches/v9/lineage.toml``, ``[renames]``);\n"
        "* *moved*: a line of some other file; the whole tree is searched;\n"
        "* *renamed*: found after the identifier renames below;\n"
        "* *gone*: none of these.\n\n" % (ver, excluded, counted))
    write("lineage-bars.svg", pictures.lineage_bars(
        [(n, r["counts"]) for n, r in sorted(rows.items())], lineage.CLASSES))
    alt = "; ".join("patch %02d: %s" % (n, ", ".join(
        "%d %s" % (r["counts"][c], c) for c in lineage.CLASSES)) for n, r in sorted(rows.items()))
    out.append(".. image:: /build/gen/lineage-bars.svg\n   :alt: %s\n\n" % alt)
    out.append(".. list-table:: Per patch (counted added lines; the link lists them)\n"
               "   :header-rows: 1\n   :class: kt-lineage-summary\n\n   * - patch\n"
               + "".join("     - %s\n" % c for c in lineage.CLASSES)
               + "     - excluded\n     - alive\n")
    per = {}
    for n, r in sorted(rows.items()):
        c = r["counts"]
        alive = c["same file"] + c["moved"] + c["renamed"]
        per[n] = (alive, sum(c.values()))
        out.append("   * - :doc:`%02d <lineage/%02d>`\n" % (n, n) + "".join(
            "     - %d\n" % c[k] for k in lineage.CLASSES) + "     - %d\n     - %s\n" % (
                r["excluded"], "%d%%" % round(100 * alive / per[n][1]) if per[n][1] else "n/a"))
        write("lineage/%02d.rst" % n, page_lineage_patch(n, r, ver))
    out.append("\n.. list-table:: The renames tried (old name in v9, new name in %s)\n"
               "   :header-rows: 1\n\n   * - v9\n     - %s\n" % (ver, ver))
    for r in data.get("rename", []):
        out.append("   * - ``%s`` (:v9:`%s`)\n     - ``%s`` (:src:`%s`)\n" % (
            r["old"], r["v9"], r["new"], r["src"]))
    out.append(page_lineage_hwtags(data.get("hwtags", []), ver))
    out.append("\n.. toctree::\n   :hidden:\n\n" + "".join(
        "   lineage/%02d\n" % n for n in sorted(rows)) + "\n")
    return "".join(out) + "\n", per


def page_lineage_hwtags(rows, ver):
    """What hardware tag-based KASAN reuses of the series (lineage.toml
    [[hwtags]]): a patch, what, and the cited line of the tree."""
    if not rows:
        return ""
    out = ["\n" + heading("What hardware tag-based KASAN reuses", "-")]
    out.append("%s's third mode, hardware tag-based KASAN (``CONFIG_KASAN_HW_TAGS``, arm64 "
               "MTE; :doc:`/labs/06-hardware-tags/index`), keeps the series' tagged "
               "pointers and reports but not its shadow or compiler checks. Each line below "
               "is built for it as for sw-tags:\n\n" % ver)
    out.append(".. list-table::\n   :header-rows: 1\n\n   * - v9 patch\n     - what\n"
               "     - the patch's own text\n     - in %s\n" % ver)
    for r in rows:
        own = (":v9:`%s`" % r["v9"]) if r.get("v9") else \
            "cover letter: \"%s\"" % rst_escape(r["cover"].lstrip("-0123456789. "))
        out.append("   * - :ref:`%02d <patch-%02d>`\n     - %s\n     - %s\n     - :src:`%s`\n"
                   % (r["patch"], r["patch"], r["what"], own, r["src"]))
    return "".join(out) + "\n"


def page_lineage_patch(n, r, ver):
    out = [heading("Lineage of patch %02d: every counted added line" % n)]
    out.append("Back to :doc:`/build/gen/lineage`; the patch: :ref:`patch-%02d`. %d lines "
               "excluded as trivial.\n\n" % (n, r["excluded"]))
    for cls in lineage.CLASSES:
        lines = [x for x in r["lines"] if x[0] == cls]
        out.append(heading("%s (%d)" % (cls, len(lines)), "-"))
        if not lines:
            out.append("None.\n\n")
            continue
        out.append(".. list-table::\n   :header-rows: 1\n   :widths: 20 50 30\n\n"
                   "   * - v9 file\n     - added line\n     - in %s\n" % ver)
        for _, path, text, where in lines:
            loc = "``%s:%d``" % where if where else "--"
            shown = text.strip().replace("`", "'") or " "
            out.append("   * - ``%s``\n     - ``%s``\n     - %s\n" % (path, shown, loc))
        out.append("\n")
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
    return "".join(out) + "\n" + page_merge_table(series, rec)


def page_kasan_v9(p19):
    fd = p19.files[0]
    out = [heading("kasan.rst as patch 19 leaves it")]
    out.append("Derived at build time from :ref:`patch 19 <patch-19>`: each stretch below "
               "is the post-image of one hunk (context and added lines) of "
               "``Documentation/dev-tools/kasan.rst``, with its line numbers in the 4.19 "
               "file after the patch. The patch does not show the lines between the "
               "hunks; they are marked as gaps, not guessed.\n\n")
    for seg in patchlib.post_image(fd):
        if seg["lines"] is None:
            if seg["end"] is None:
                out.append(".. admonition:: Not in the patch\n\n   From line %d to the end "
                           "of the file the 4.19 text is not shown by patch 19.\n\n"
                           % seg["start"])
            else:
                out.append(".. admonition:: Not in the patch\n\n   Lines %d-%d of the 4.19 "
                           "file are not shown by patch 19.\n\n" % (seg["start"], seg["end"]))
            continue
        out.append(".. rubric:: lines %d-%d\n\n" % (seg["start"], seg["end"]))
        out.append(".. code-block:: rst\n   :lineno-start: %d\n\n%s\n" % (
            seg["start"], indent(seg["lines"])))
    return "".join(out)


def paragraphs(lines):
    paras, cur = [], []
    for ln in lines + [""]:
        if ln.strip():
            cur.append(ln)
        elif cur:
            paras.append(cur)
            cur = []
    return paras


def page_kasan_compare(p19, text61, ver):
    fd = p19.files[0]
    known = [ln for seg in patchlib.post_image(fd) if seg["lines"] for ln in seg["lines"]]
    pool = patchlib.normalise(" ".join(text61.splitlines()))
    out = [heading("kasan.rst: v9 and %s compared" % ver)]
    out.append("Each paragraph of the v9 text (as far as :doc:`patch 19 shows it <v9>`) that "
               "mentions tags, and whether it is still in the %s ``kasan.rst`` word for "
               "word (whitespace-normalised). Computed by ``make site``.\n\n" % ver)
    out.append(".. list-table::\n   :header-rows: 1\n   :class: kt-compare\n\n"
               "   * - v9 paragraph\n     - word for word in %s\n"
               "     - most similar %s paragraph (similarity)\n" % (ver, ver))
    later = [" ".join(x.strip() for x in p) for p in paragraphs(text61.splitlines())]
    for para in paragraphs(known):
        t = " ".join(x.strip() for x in para)
        if "tag" not in t.lower():
            continue
        alive = patchlib.normalise(t) in pool
        best, score = "", 0.0
        for cand in later:
            m = difflib.SequenceMatcher(None, t, cand)
            if m.real_quick_ratio() > score and m.quick_ratio() > score:
                r = m.ratio()
                if r > score:
                    best, score = cand, r

        def short(x):
            x = x.replace("`", "'")
            return x if len(x) < 240 else x[:237] + "..."
        out.append("   * - ``%s``\n     - %s\n     - ``%s`` (%d%%)\n" % (
            short(t), "yes" if alive else "**no**", short(best), round(100 * score)))
    out.append("\n" + heading("Full diff: v9 stretches vs %s" % ver, "-"))
    out.append("A unified diff from the known v9 text (gaps omitted) to the %s file.\n\n" % ver)
    diff = list(difflib.unified_diff(known, text61.splitlines(), "kasan.rst (v9, patch 19)",
                                     "kasan.rst (%s)" % ver, lineterm="", n=2))
    out.append(code(diff, "diff"))
    return "".join(out)


# --------------------------------------------------------------- transcripts

WIDTH = 100       # a transcript line wider than the page is wrapped here
CONT = "    \u21aa "  # and goes on on the next line after this mark


def wrap_lines(lines):
    """(lines, how many were wrapped): each line cut at WIDTH characters,
    the rest on lines that start with CONT."""
    out, n = [], 0
    for ln in lines:
        if len(ln) > WIDTH:
            n += 1
        while len(ln) > WIDTH:
            out.append(ln[:WIDTH])
            ln = CONT + ln[WIDTH:]
        out.append(ln)
    return out, n


def transcripts():
    """Snippets for every transcript a lab page asks for; report missing ones."""
    missing = []
    for d, text in lab_pages():
        for step in re.findall(r"^\s*\.\. include:: /build/gen/transcripts/%s/([\w.-]+)\.rst$"
                               % re.escape(d), text, re.M):
            src = os.path.join(TRANSCRIPTS, d, step + ".txt")
            if os.path.exists(src):
                hdr, body = labdata.split_transcript(open(src, errors="replace").read())
                body, wrapped = wrap_lines(body)
                if wrapped:
                    hdr.append("shown: %d lines longer than %d characters wrapped (%s)"
                               % (wrapped, WIDTH, CONT.strip()))
                meta = "".join("   | %s\n" % rst_escape(h) for h in hdr)
                snippet = (".. container:: kt-transcript\n\n   .. rubric:: Captured output\n\n"
                           "%s\n%s\n" % (meta if meta else "", indent(
                               code(body).splitlines(), 3)))
            else:
                missing.append("%s/%s" % (d, step))
                snippet = (".. warning::\n\n   Transcript ``%s/%s`` has not been captured on "
                           "this machine yet. ``make transcripts`` boots the kernel and "
                           "captures it.\n" % (d, step))
            write("transcripts/%s/%s.rst" % (d, step), snippet)
    return missing


# --------------------------------------------------------------- pictures

def figure(svg, caption):
    """An inline SVG (so the DOM holds its values) with a caption."""
    return (".. raw:: html\n\n   <figure class=\"kt-figure\">%s<figcaption>%s</figcaption>"
            "</figure>\n\n" % (svg.strip(), pictures.esc(caption)))


def not_captured(what, command):
    return (".. note::\n\n   The picture of %s is drawn from a captured run, which this "
            "machine does not have yet: ``%s`` captures it.\n\n" % (what, command))


def read(*parts):
    path = os.path.join(*parts)
    return open(path, errors="replace").read() if os.path.exists(path) else None


def scenario_report(log, scn):
    reps = exercises.reports_of(log, scn) if log else []
    return reps[0] if reps else None


def picture_pointer():
    t = read(TRANSCRIPTS, "01-tag-assignment", "slab.txt")
    m = t and re.search(r"Value returned is \$\d+ = \(void \*\) 0x([0-9a-f]{16})", t)
    if not m:
        return not_captured("the tagged pointer", "make grade N=1")
    ptr = int(m.group(1), 16)
    return figure(pictures.pointer(ptr), "The pointer kmalloc(123) returned in lab 1's "
                  "captured run (step 2): tag 0x%02x." % (ptr >> 56))


def missed_strip(log, folder, step, scn, what):
    """No report: draw the shadow the lab module printed before the access."""
    ev = labscn.events(labscn.segments(log).get(scn, []), scn)
    last = {e: kv for e, kv in ev}  # the last line of each event
    sh, ptr, acc, begin = (last.get(k) for k in ("shadow", "ptr", "access", "begin"))
    if not (sh and ptr and acc):
        return ("In this run, ``%s`` on the kernel of step ``%s`` printed no report and no "
                "shadow line to draw.\n\n" % (scn, step))
    return figure(pictures.scenario_strip(
        "%s: not reported" % what, (begin or {}).get("mode", "sw_tags"), sh["shadow"],
        int(ptr["addr"], 16), int(sh["granule"]), int(acc["addr"], 16), acc["tag"],
        acc["memtag"]),
        "%s: not reported by this kernel; the shadow is the lab module's line before the "
        "access (make grade N=%d, step %s)." % (what, int(folder[:2]), step))


def picture_tag_maps(items):
    """items: [(lab folder, step log, scenario, what)] -> figures."""
    out = []
    for folder, step, scn, what in items:
        log = read(GRADE, folder, step + ".serial.log")
        if log is None:
            out.append(not_captured(what, "make grade N=%d" % int(folder[:2])))
            continue
        r = scenario_report(log, scn)
        if r is None or not r["memory_state"]:
            out.append(missed_strip(log, folder, step, scn, what))
            continue
        out.append(figure(pictures.tag_map(r), "%s (%s, captured by make grade N=%d, step %s)."
                          % (what, r["title"], int(folder[:2]), step)))
    return "".join(out)


def source_link(where):
    """file:line of a gdb frame -> the line in the 6.1 tree, as :src: links it."""
    from Documentation.tools import ktcite
    m = re.match(r"([\w./-]+\.[chS]):(\d+)$", where)
    if not m or not os.path.exists(os.path.join(tree(), m.group(1))):
        return None
    return ktcite.ELIXIR % (tree_version(tree()), m.group(1), int(m.group(2)))


def picture_brk():
    brk = read(TRANSCRIPTS, "02-brk-dispatch", "brk.txt")
    outl = read(TRANSCRIPTS, "02-brk-dispatch", "outline.txt")
    if not brk or not outl:
        return not_captured("the brk path", "make grade N=2")
    frames = labdata.backtrace(labdata.gdb_sections(brk).get("backtrace", []))
    ins = re.search(r"<(\w+\+\d+)>:\s+(brk\s+#0x[0-9a-f]+)", brk)
    after = re.search(r"pc after=(0x[0-9a-f]+)", brk)
    pc = re.search(r"^pc=(0x[0-9a-f]+)", brk, re.M)
    note = ("then pc = %s, after kasan_handler %s (%+d)" % (
        pc.group(1), after.group(1), int(after.group(1), 16) - int(pc.group(1), 16))
        if pc and after else "")
    if ins:
        frames.append(("%s: %s" % (ins.group(1), ins.group(2)), "the inline check's brk"))
    out = [figure(pictures.chain("swtags-brk: a tag mismatch executes brk", frames,
                                 note,
                                 source_link),
                  "The backtrace at kasan_handler in lab 2's captured run, from the brk "
                  "instruction up.")]
    caller = re.search(r"^(\w+) \+ (\d+) in section", outl, re.M)
    oframes = labdata.backtrace(labdata.gdb_sections(outl).get("backtrace", []))
    if caller:
        oframes.append(("%s+%s" % (caller.group(1), caller.group(2)),
                        "ret_ip: where the outlined check returns to"))
    out.append(figure(pictures.chain("swtags (default): the outlined check calls", oframes,
                                     link=source_link),
                      "The backtrace at kasan_tag_mismatch in lab 2's captured run."))
    return "".join(out)


def picture_anatomy():
    t = read(TRANSCRIPTS, "03-report-decoding", "serial.txt")
    if not t:
        return not_captured("a report's anatomy", "make grade N=3")
    lines = [kreport.clean(ln) for ln in labdata.split_transcript(t)[1]]
    start = next((i for i, ln in enumerate(lines) if "BUG: KASAN:" in ln), None)
    if start is None:
        return "The captured serial log holds no KASAN report to dissect.\n\n"
    lab = "../%s/index.html"
    links = {"title": ("lab 3", "#questions"), "access": ("lab 2", lab % "02-brk-dispatch"),
             "tags": ("lab 1", lab % "01-tag-assignment"), "stacks": ("lab 3", "#questions"),
             "object": ("lab 3", "#questions"),
             "memory state": ("lab 4", lab % "04-generic-vs-tags")}
    return figure(pictures.anatomy(lines[start:], links=links), "The uaf report of lab 3's captured run "
                  "(step 3's lines), each part marked with the kasan-decode JSON field it fills.")


def picture_outcomes():
    """Lab 5: each experiment's measured outcome; the teacher edition adds
    the predictions of the solution tree (the answers of exercises 5.k)."""
    check = labdata.load_lab("05-break-it")
    try:
        with open(os.path.join(REPO, "labs", "05-break-it", "student", "predictions.toml"),
                  "rb") as f:
            pred = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        pred = {}
    rows = []
    for step in check.steps:
        log = read(GRADE, "05-break-it", step["name"] + ".serial.log")
        ctl = read(GRADE, "05-break-it", step["name"] + ".control.serial.log")
        got = check.module.outcome(log, ctl) if log is not None else None
        rows.append((step["name"], pred.get(step["name"]) or None, got))
    if not any(got for _, _, got in rows):
        return not_captured("the experiments' outcomes", "make grade N=5")
    measured = figure(pictures.outcomes([(n, None, g) for n, _, g in rows], predictions=False),
                      "Each experiment's outcome, measured from its captured boot, as "
                      "exercises 5.1-5.5 classify it.")
    both = figure(pictures.outcomes(rows), "Each experiment's prediction "
                  "(student/predictions.toml) and the outcome measured from its captured "
                  "boot, as exercise 5.k grades it.")
    return (".. only:: not teacher\n\n%s\n.. only:: teacher\n\n%s" % (
        indent(measured.splitlines()), indent(both.splitlines())))


def pictures_pages():
    write("pictures/pointer.rst", picture_pointer())
    write("pictures/brk.rst", picture_brk())
    write("pictures/anatomy.rst", picture_anatomy())
    write("pictures/lab3-tags.rst", picture_tag_maps([
        ("03-report-decoding", "reports", "uaf", "sw-tags, uaf"),
        ("03-report-decoding", "reports", "uaf-realloc",
         "sw-tags, uaf-realloc"),
        ("03-report-decoding", "generic", "oob-right",
         "generic, oob-right")]))
    write("pictures/lab4-tags.rst", picture_tag_maps([
        ("04-generic-vs-tags", "generic", "oob-in-granule",
         "generic, oob-in-granule"),
        ("04-generic-vs-tags", "swtags", "oob-in-granule", "sw-tags, oob-in-granule"),
        ("04-generic-vs-tags", "swtags", "uaf-realloc",
         "sw-tags, uaf-realloc"),
        ("04-generic-vs-tags", "generic", "uaf-realloc", "generic, uaf-realloc")]))
    write("pictures/outcomes.rst", picture_outcomes())
    write("pictures/lab7-timeline.rst", picture_timeline())


def picture_timeline():
    """Lab 7: the granule of uaf-realloc's bad address, its tag over time,
    from kasan-history's output in the captured run."""
    folder = "07-back-from-the-report"
    t = read(TRANSCRIPTS, folder, "realloc.txt")
    lab = labdata.load_lab(folder)
    lines = labdata.gdb_sections(t or "").get("history", [])
    ws = lab.module.writes(lines)
    start = re.search(r"going back from instruction (\d+)", "\n".join(lines))
    ptr = re.search(r"pointer tag ([0-9a-f]{2})", "\n".join(lines))
    if not (ws and start and ptr):
        return not_captured("a granule's tag over time", "make grade N=7")
    return figure(pictures.tag_timeline(ws, int(start.group(1)), ptr.group(1)),
                  "The granule uaf-realloc reads through its stale pointer, drawn from "
                  "kasan-history's output in this lab's captured run (step 2): each box a "
                  "write of its memory tag, oldest first, then the bad access.")


def sources(src):
    """Each lab's `sources` (steps.toml: "file:first-line-text") -> a table
    of file:line in the installed tree (so line numbers follow the tree)."""
    for lab in labdata.load_all():
        if not lab.spec.get("sources"):
            continue
        out = [".. list-table::\n   :header-rows: 1\n   :class: kt-sources\n\n"
               "   * - location in 6.1\n     - code\n"]
        for item in lab.spec["sources"]:
            path, _, needle = item.partition(":")
            start, lines = excerpt(src, {"file": path, "start": needle, "lines": 1})
            out.append("   * - ``%s:%d``\n     - ``%s``\n" % (
                path, start, lines[0].strip().replace("`", "'")))
        write("sources/%s.rst" % lab.folder, "".join(out) + "\n")


def bench_page():
    """build/gen/bench.rst: the last `make bench` results, or how to get them."""
    path = os.path.join(REPO, "build", "bench", "results.json")
    if not os.path.exists(path):
        write("bench.rst", ".. warning::\n\n   ``make bench`` has not been run on this machine "
              "yet; it builds and boots the five variants and writes "
              "``build/bench/results.json``, which this page then shows.\n")
        return False
    data = json.load(open(path))
    res, meta, cover = data["results"], data["meta"], data["cover_letter"]
    out = [table.rst(res, meta, cover)]
    # Deviations, stated from the numbers (computed, not written by hand).
    out.append("\n**Against 2018**, from the table above:\n\n")
    for key, label in (("boot_s", "boot time"), ("tcp_mbit", "TCP throughput"),
                       ("slab_kb", "slab after boot")):
        n = res["none"].get(key)
        for m in ("generic", "swtags", "swtags-brk"):
            then_m = "swtags" if m == "swtags-brk" else m
            v = res.get(m, {}).get(key)
            if not (n and v):
                continue
            got, then = v / n, cover[key][then_m] / cover[key]["none"]
            out.append("* %s, %s: %.2f times the kernel without KASAN here, %.2f in 2018 "
                       "(%s).\n" % (label, m, got, then, "about the same" if abs(got / then - 1)
                                    < 0.15 else "larger here" if got > then else "smaller here"))
    g, t = res["generic"], res["swtags"]
    if g.get("slab_kb") and t.get("slab_kb") and res["none"].get("slab_kb"):
        out.append("* the slab overhead of tag-based mode is %.1f%% of generic mode's "
                   "(2018: %.0f%%).\n" % (
                       100 * (t["slab_kb"] - res["none"]["slab_kb"]) /
                       max(1, g["slab_kb"] - res["none"]["slab_kb"]),
                       100 * (cover["slab_kb"]["swtags"] - cover["slab_kb"]["none"]) /
                       (cover["slab_kb"]["generic"] - cover["slab_kb"]["none"])))
    out.append("\n")
    svg = os.path.join(REPO, "build", "bench", "ratios.svg")
    if os.path.exists(svg):
        write("bench-ratios.svg", open(svg).read())
        out.append("\n.. image:: /build/gen/bench-ratios.svg\n   :alt: ratios to none, measured and 2018\n")
    write("bench.rst", "".join(out) + "\n")
    return True


def main():
    src = tree()
    ver = tree_version(src)
    cover = open(os.path.join(V9, "00-cover-letter.txt")).read()
    with open(os.path.join(V9, "missing.toml"), "rb") as f:
        missing = tomllib.load(f)
    series = read_series()
    labs = labs_index()
    seeds = [(r, patchlib.Patch(open(os.path.join(V9, r["file"])).read()))
             for r in series if r["file"]]
    rec = provenance_record(series, seeds)
    bad = credit.problems({r["num"]: open(os.path.join(V9, r["file"])).read() for r, _ in seeds},
                          lineage_data(), missing)
    if bad:
        raise SystemExit("gensite: which patch did what (Documentation/tools/credit.py): "
                         + "; ".join(bad))
    for row in lineage_data().get("hwtags", []):
        if row.get("cover"):
            cover_items(cover, [row["cover"]], "patches/v9/lineage.toml [[hwtags]]")
    for r, p in seeds:
        write("series/%02d.rst" % r["num"], page_seed(r, p, labs.get(r["num"], []), rec))
    for r in series:
        if not r["file"]:
            write("series/%02d.rst" % r["num"], page_missing(
                r, missing["%02d" % r["num"]], cover, src, ver, labs.get(r["num"], []), rec))
    rows = lineage_rows(seeds, src)
    text, per = page_lineage(rows, ver)
    write("lineage.rst", text)
    write("series/index.rst", page_index(series, per, rec))
    write("cover-letter.rst", heading("The cover letter") +
          "``[PATCH v9 00/20]``, rendered in full: it is the series' own text, including "
          "its benchmark table.\n\n.. literalinclude:: /patches/v9/00-cover-letter.txt\n"
          "   :language: text\n")
    p19 = dict((r["num"], p) for r, p in seeds)[19]
    write("kasan/v9.rst", page_kasan_v9(p19))
    text61 = open(os.path.join(src, "Documentation/dev-tools/kasan.rst")).read()
    write("kasan/kasan-%s.txt" % ver, text61)
    write("kasan/v6.1.rst", heading("kasan.rst in the installed %s tree" % ver) +
          "Extracted at build time from ``Documentation/dev-tools/kasan.rst`` of the "
          "installed ``linux-source`` tarball; shown as source, because it uses the "
          "kernel's own Sphinx extensions.\n\n.. literalinclude:: kasan-%s.txt\n"
          "   :language: rst\n   :linenos:\n" % ver)
    write("kasan/compare.rst", page_kasan_compare(p19, text61, ver))
    write("kasan/index.rst", heading("kasan.rst, 2018 and now") +
          ".. toctree::\n\n   v9\n   v6.1\n   compare\n")
    sources(src)
    start_labs()
    pictures_pages()
    if not bench_page():
        print("site: no benchmark results yet (run `make bench`)")
    miss = transcripts()
    if miss:
        print("site: %d lab transcript(s) not captured yet (run `make transcripts`): %s"
              % (len(miss), ", ".join(miss)))
    print("site: generated pages for %d patches, lineage of %d seed patches, Linux %s"
          % (len(series), len(rows), ver))


if __name__ == "__main__":
    main()
