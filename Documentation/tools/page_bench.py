# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The performance page's figures: the last `make bench` results next to the
cover letter's 2018 table (bench/table.py draws the table)."""

import os

from bench import table
from Documentation.tools.sitelib import write
from vm import REPO
from kasan.modes import SW_TAGS

SW = SW_TAGS.variant


def bench_page():
    """build/gen/bench.rst: the last `make bench` results, or how to get them."""
    data, where = table.last_results(REPO)
    if data is None:
        write("bench.rst", ".. warning::\n\n   ``make bench`` has not been run on this machine "
              "yet and no run is kept in ``%s/``; it builds and boots the kernels and writes "
              "``%s/results.json``, which this page then shows.\n" % (table.KEPT, table.OWN))
        return False
    own = where == table.OWN
    lead = ("These figures are your own last ``make bench`` (``%s/``)." % where if own else
            "These figures are the run kept in ``%s/`` (``make bench-keep``), measured on the "
            "host named below; ``make bench`` measures your machine, and this page then shows "
            "your figures instead." % where)
    res, meta, cover = data["results"], data["meta"], data["cover_letter"]
    out = [lead + "\n\n", table.rst(res, meta, cover)]
    # Deviations, stated from the numbers (computed, not written by hand).
    out.append("\n**Against 2018**, from the table above:\n\n")
    for key, label in (("boot_s", "boot time"), ("tcp_mbit", "TCP throughput"),
                       ("slab_kb", "slab after boot")):
        n = res["none"].get(key)
        for m in ("generic", SW, "swtags-brk"):
            then_m = SW if m == "swtags-brk" else m
            v = res.get(m, {}).get(key)
            if not (n and v):
                continue
            got, then = v / n, cover[key][then_m] / cover[key]["none"]
            out.append("* %s, %s: %.2f times the kernel without KASAN here, %.2f in 2018 "
                       "(%s).\n" % (label, m, got, then, "about the same" if abs(got / then - 1)
                                    < 0.15 else "larger here" if got > then else "smaller here"))
    g, t = res["generic"], res[SW]
    if g.get("slab_kb") and t.get("slab_kb") and res["none"].get("slab_kb"):
        out.append("* the slab overhead of tag-based mode is %.1f%% of generic mode's "
                   "(2018: %.0f%%).\n" % (
                       100 * (t["slab_kb"] - res["none"]["slab_kb"]) /
                       max(1, g["slab_kb"] - res["none"]["slab_kb"]),
                       100 * (cover["slab_kb"][SW] - cover["slab_kb"]["none"]) /
                       (cover["slab_kb"]["generic"] - cover["slab_kb"]["none"])))
    out.append("\n")
    svg = os.path.join(REPO, where, "ratios.svg")
    if os.path.exists(svg):
        write("bench-ratios.svg", open(svg).read())
        out.append("\n.. image:: /build/gen/bench-ratios.svg\n   :alt: ratios to none, measured and 2018\n")
    write("bench.rst", "".join(out) + "\n")
    return True
