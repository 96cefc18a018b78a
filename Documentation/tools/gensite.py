#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Generate the site's computed pages into build/gen/ (then Sphinx runs).

Everything is derived at build time from the repository's data and the
installed kernel tree -- nothing is retyped.  One page module per job:
  page_series.py    series/: one page per v9 patch (verbatim, or the cover
                    letter and the 6.1 descendant), the index, the record
  page_lineage.py   lineage.rst: how much of each seed patch survives in 6.1
  page_kasan.py     kasan/: kasan.rst as patch 19 leaves it, compared with 6.1
  page_labs.py      transcripts/, sources/, start-labs.rst: what lab pages include
  page_pictures.py  pictures/: drawn from captured runs, as each lab declares
  page_bench.py     bench.rst: the last `make bench` figures
  page_checks.py    checks.json, checks.rst: the lab checks the pages' :outcome:
                    sentences name, and the last grading's verdicts
  page_claims.py    claims.rst's measured column: the figures of others, measured here
and sitelib.py, what they share.  This file runs them in order.
"""

import os

from Documentation.tools import (page_bench, page_checks, page_claims, page_kasan, page_labs,
                                 page_lineage, page_pictures, page_series, patchlib, sitelib)


def main():
    src = sitelib.tree()
    ver = sitelib.tree_version(src)
    series = sitelib.read_series()
    seeds = [(r, patchlib.Patch(open(os.path.join(sitelib.V9, r["file"])).read()))
             for r in series if r["file"]]
    rows = page_lineage.lineage_rows(seeds, src)
    per = page_lineage.write_pages(rows, ver)
    page_series.write_pages(series, seeds, src, ver, per)
    page_kasan.write_pages(dict((r["num"], p) for r, p in seeds)[19], src, ver)
    page_labs.sources(src)
    page_labs.gdb_files()
    page_labs.start_labs()
    page_pictures.pictures_pages()
    if not page_bench.bench_page():
        print("site: no benchmark results yet (run `make bench`)")
    checks = page_checks.write_pages()
    if not checks["results"]:
        print("site: no lab grading on this machine yet: outcome sentences say "
              "\"not yet checked on this machine\" (run `make transcripts`)")
    page_claims.write_pages()
    miss = page_labs.transcripts()
    if miss:
        print("site: %d lab transcript(s) not captured yet (run `make transcripts`): %s"
              % (len(miss), ", ".join(miss)))
    print("site: generated pages for %d patches, lineage of %d seed patches, Linux %s"
          % (len(series), len(rows), ver))


if __name__ == "__main__":
    main()
