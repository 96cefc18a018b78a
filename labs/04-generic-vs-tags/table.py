#!/usr/bin/python3
"""Lab 4's table, computed from three serial logs: which bugs each mode
catches, the tag-collision rate, and the memory KASAN reserves.

    table.py SWTAGS.log GENERIC.log NONE.log
"""
import json
import os
import sys

from bench.table import text_table
from kasan import report
from labs import scenarios
from vm import REPO, metrics

BUGS = ["oob-right", "oob-in-granule", "uaf", "uaf-realloc", "double-free", "invalid-free"]


def memory(text):
    m = metrics.memory(text)
    if m:
        m["slab"] = metrics.slab_kb(text)
    return m


def caught(text, name):
    seg = scenarios.segments(text).get(name)
    if seg is None:
        return None
    return [r["bug_type"] for r in report.parse_reports("\n".join(seg))]


def main(sw, gen, none):
    logs = {m: open(p, errors="replace").read() for m, p in
            (("swtags", sw), ("generic", gen), ("none", none))}
    out = {"bugs": {}, "memory": {}, "collision": {}}
    rows = []
    for b in BUGS:
        row = {m: caught(logs[m], b) for m in ("swtags", "generic")}
        out["bugs"][b] = row
        rows.append((b, [", ".join(row[m]) if row[m] else
                         ("not run" if row[m] is None else "MISSED")
                         for m in ("swtags", "generic")]))
    print(text_table(["scenario", "swtags", "generic"], rows))
    ev = scenarios.events(scenarios.segments(logs["swtags"]).get("collision", []), "collision")
    for e, kv in ev:
        if e == "result" and "gap" in kv:
            g = int(kv["gap"])
            out["collision"][g] = (int(kv["same_tag"]), int(kv["same_slot"]))
    print()
    for g, (k, n) in sorted(out["collision"].items()):
        lo, hi = scenarios.binomial_bounds(n, 1 / 127)
        print("collision, %d allocation(s) between free and reuse: %d of %d reuses kept the "
              "tag (1 in %s)%s" % (g, k, n, "%.0f" % (n / k) if k else "never",
                                   "" if g == 0 else "; 5-sigma band for 1/127: [%d, %d]"
                                   % (lo, hi)))
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
