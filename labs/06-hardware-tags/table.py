#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 6's table, computed from four serial logs: which bugs each of the
three KASAN modes catches and how it names them, the tags hw-tags draws,
how often a reused slot keeps its tag, and the memory each mode reserves.

    table.py HWTAGS.log SWTAGS.log GENERIC.log NONE.log
"""
import json
import os
import sys

from shared.tables import text_table
from labs import scenarios
from labs.modes import caught, cell, collision_line, collisions, memory, memory_lines
from vm import REPO
from kasan.modes import GENERIC, HW_TAGS, NONE_VARIANT as NONE, SW_TAGS

SW, HW, GEN = SW_TAGS.variant, HW_TAGS.variant, GENERIC.variant

MODES = (GEN, SW, HW)
BUGS = ["oob-right", "oob-in-granule", "uaf", "uaf-realloc", "double-free", "invalid-free",
        "match-all"]
# How often a reused slot keeps its tag, per mode and gap (labs/scenarios.py)
COLLIDE = {SW: {1: 1 / 127}, HW: scenarios.HW_REPEAT}


def tags_seen(text):
    """Every tag the hwtags run's scenarios printed for a new pointer."""
    seen = set()
    for name, lines in scenarios.segments(text).items():
        for e, kv in scenarios.events(lines, name):
            if e in ("ptr", "round") and "tag" in kv:
                seen.add(int(kv["tag"], 16))
    hist = [kv for e, kv in scenarios.events(scenarios.segments(text).get("collision", []),
                                             "collision") if e == "hist"]
    for kv in hist:
        for i, c in enumerate(kv["counts"].split(",")):
            if c != "0":
                seen.add(int(kv["from"], 16) + i)
    return sorted(seen)


def main(hw, sw, gen, none):
    logs = {m: open(p, errors="replace").read() for m, p in
            ((HW, hw), (SW, sw), (GEN, gen), (NONE, none))}
    out = {"bugs": {}, "memory": {}, "collision": {}, "tags": tags_seen(logs[HW])}
    rows = []
    for b in BUGS:
        row = {m: caught(logs[m], b) for m in MODES}
        out["bugs"][b] = row
        rows.append((b, [cell(row[m]) for m in MODES]))
    print(text_table(["scenario"] + list(MODES), rows))
    print()
    t = out["tags"]
    print("hwtags: %d distinct pointer tags seen, %s" % (
        len(t), "from %02x to %02x" % (t[0], t[-1]) if t else NONE))
    for m in (SW, HW):
        out["collision"][m] = collisions(logs[m])
        for g, (k, n) in sorted(out["collision"][m].items()):
            print("%s %s" % (m, collision_line(g, k, n, COLLIDE[m].get(g))))
    print()
    mem = {m: memory(t) for m, t in logs.items()}
    out["memory"] = mem
    print("\n".join(memory_lines(mem, (NONE, GEN, SW, HW))[0]))
    d = os.path.join(REPO, "build", "grade", "06-hardware-tags")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "table.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: table.py HWTAGS.log SWTAGS.log GENERIC.log NONE.log")
    main(*sys.argv[1:])
