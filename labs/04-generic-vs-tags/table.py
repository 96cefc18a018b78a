#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 4's table, computed from three serial logs: which bugs each mode
catches, the tag-collision rate, and the memory KASAN reserves.

    table.py SWTAGS.log GENERIC.log NONE.log
"""
import json
import os
import sys

from shared.tables import text_table
from labs.modes import caught, cell, collision_line, collisions, memory, memory_lines
from vm import REPO
from kasan.modes import GENERIC, NONE_VARIANT as NONE, SW_TAGS

SW, GEN = SW_TAGS.variant, GENERIC.variant

BUGS = ["oob-right", "oob-in-granule", "uaf", "uaf-realloc", "double-free", "invalid-free"]


def main(sw, gen, none):
    logs = {m: open(p, errors="replace").read() for m, p in
            ((SW, sw), (GEN, gen), (NONE, none))}
    out = {"bugs": {}, "memory": {}, "collision": {}}
    rows = []
    for b in BUGS:
        row = {m: caught(logs[m], b) for m in (SW, GEN)}
        out["bugs"][b] = row
        rows.append((b, [cell(row[m]) for m in (SW, GEN)]))
    print(text_table(["scenario", SW, GEN], rows))
    out["collision"] = collisions(logs[SW])
    print()
    for g, (k, n) in sorted(out["collision"].items()):
        print(collision_line(g, k, n, None if g == 0 else 1 / 127))
    print()
    mem = {m: memory(t) for m, t in logs.items()}
    out["memory"] = mem
    lines, extra = memory_lines(mem, (NONE, GEN, SW),
                                {GEN: 8, SW: 16})
    print("\n".join(lines))
    for m, x in extra.items():
        out["memory"][m]["shadow_fraction"] = x / mem[m]["ram"]
    with open(os.path.join(REPO, "build", "grade", "04-generic-vs-tags", "table.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: table.py SWTAGS.log GENERIC.log NONE.log")
    main(*sys.argv[1:])
