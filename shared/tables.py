# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Text tables: columns for the terminal, list-tables for the site."""
from typing import Sequence, Tuple


def text_table(header: Sequence[str], body: Sequence[Tuple[str, Sequence[str]]]) -> str:
    """Columns for the terminal: the first one left-aligned, the rest right."""
    cols = [list(header)] + [[label, *cells] for label, cells in body]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))) for r in cols)


def rst_table(header: Sequence[str], body: Sequence[Tuple[str, Sequence[str]]],
              title: str = "", css: str = "") -> str:
    out = [".. list-table::%s\n   :header-rows: 1\n" % (" " + title if title else "")]
    if css:
        out.append("   :class: %s\n" % css)
    out.append("\n")
    for r in [list(header)] + [[label, *cells] for label, cells in body]:
        out.append("   * - %s\n" % (r[0] or " ") + "".join("     - %s\n" % c for c in r[1:]))
    return "".join(out)
