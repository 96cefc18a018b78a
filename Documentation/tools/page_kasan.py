# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan.rst pages: the text as patch 19 leaves it (the post-image of its
hunks, gaps marked) and its comparison with the installed 6.1 file."""

import difflib
import os

from Documentation.tools import patchlib
from Documentation.tools.sitelib import code, heading, indent, write


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


def write_pages(p19, src, ver):
    """kasan/: the v9 text, the installed one, their comparison, an index."""
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
