# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The lineage pages: how much of each seed patch survives in the 6.1 tree
(Documentation/tools/lineage.py measures it), and what hardware tag-based
KASAN reuses of the series."""

import os

from Documentation.tools import lineage, pictures
from Documentation.tools.sitelib import heading, lineage_data, real_bug_section, rst_escape, write
from labs import lab as labdata
from kasan import modes


def lineage_rows(patches, src):
    """{patch number: lineage.patch_lineage(...)} for every seed patch."""
    data = lineage_data()
    files_map = data["renames"]
    ren = [(r["old"], r["new"]) for r in data.get("rename", [])]
    per_patch = [(row["num"], [(f.path, files_map.get(f.path, [f.path]), f.added())
                               for f in p.files]) for row, p in patches]
    # one search of the whole tree for every patch's lines
    # (kept beside the tree, which the cache names by the tarball's digest)
    anywhere = lineage.grep_tree_kept(src, set().union(*(lineage.wanted_lines(files, ren)
                                                         for _, files in per_patch)),
                                      os.path.dirname(src.rstrip("/")))
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
    out.append(page_lineage_hwtags(data.get(modes.HW_TAGS.variant, []), ver))
    out.append("\n" + real_bug_section())
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
               "MTE; :doc:`/labs/%s/index`), keeps the series' tagged "
               "pointers and reports but not its shadow or compiler checks. Each line below "
               "is built for it as for sw-tags:\n\n" % (ver, labdata.by_number(6).folder))
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


def write_pages(rows, ver):
    """lineage.rst and lineage/NN.rst; {patch: (alive, counted)}."""
    text, per = page_lineage(rows, ver)
    write("lineage.rst", text)
    return per
