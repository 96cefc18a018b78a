#!/usr/bin/python3
"""Lab 4's table, computed from three serial logs: which bugs each mode
catches, the tag-collision rate, and the memory KASAN reserves.

    table.py SWTAGS.log GENERIC.log NONE.log
"""
import json
import os
import sys

from bench.table import text_table
from labs.modes import caught, cell, collision_line, collisions, memory
from vm import REPO, metrics

BUGS = ["oob-right", "oob-in-granule", "uaf", "uaf-realloc", "double-free", "invalid-free"]


def main(sw, gen, none):
    logs = {m: open(p, errors="replace").read() for m, p in
            (("swtags", sw), ("generic", gen), ("none", none))}
    out = {"bugs": {}, "memory": {}, "collision": {}}
    rows = []
    for b in BUGS:
        row = {m: caught(logs[m], b) for m in ("swtags", "generic")}
        out["bugs"][b] = row
        rows.append((b, [cell(row[m]) for m in ("swtags", "generic")]))
    print(text_table(["scenario", "swtags", "generic"], rows))
    out["collision"] = collisions(logs["swtags"])
    print()
    for g, (k, n) in sorted(out["collision"].items()):
        print(collision_line(g, k, n, None if g == 0 else 1 / 127))
    print()
    mem = {m: memory(t) for m, t in logs.items()}
    out["memory"] = mem
    base = mem["none"]
    print(text_table(["kernel", "RAM kB", "reserved kB", "image kB", "stackdepot kB",
                      "Slab kB"],
                     [(m, [str(mem[m][k]) for k in ("ram", "reserved", "image", "depot",
                                                    "slab")])
                      for m in ("none", "generic", "swtags") if mem[m]]))
    print("(reserved = memory the kernel keeps at boot: its image, page tables, the KASAN "
          "shadow, the stack depot's hash table ...)")

    for m, expect in (("generic", 8), ("swtags", 16)):
        x = mem[m]
        if x and base:
            extra = metrics.shadow_kb(x, base)
            out["memory"][m]["shadow_fraction"] = extra / x["ram"]
            print("%s reserves %d kB more than none beyond its image and stack depot: 1/%.1f "
                  "of RAM (shadow of the linear map: 1/%d)" % (m, extra, x["ram"] / extra,
                                                               expect))
    with open(os.path.join(REPO, "build", "grade", "04-generic-vs-tags", "table.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: table.py SWTAGS.log GENERIC.log NONE.log")
    main(*sys.argv[1:])
