#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 8: the sites the ptrcmp runtime recorded, symbolized and classified.

    sites.py SERIAL_LOG VMLINUX MODULE_DIR

SERIAL_LOG holds the runtime's list (kt_end_cat=/sys/kernel/debug/
ptrcmp_sites): "ptrcmp site count=N tags=AA,BB at FUNC+0xOFF/0xSIZE".
Each site is symbolized to file:line by kasan-decode's symbolizer and
classified by the cover letter's kinds (functions.toml, classification.toml
of this folder).  Then the verdict on each function of the cover letter's
list: reproduced (a site in it, or inlined in it), not reproduced (built,
no site; 6.1's change where functions.toml names one), or not built here
(no symbol in vmlinux and no site).  Prints plain text; exit 2 on bad input.
"""

import os
import re
import subprocess
import sys
import tomllib

from kasan import decode

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = re.compile(r"ptrcmp site count=(\d+) tags=([0-9a-f]{2}),([0-9a-f]{2}) at "
                  r"(\S+)(?: \[(\w+)\])?")
TOTAL = re.compile(r"ptrcmp sites=(\d+) lost=(\d+)")


def load(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return tomllib.load(f)


def sites_of(text):
    """[{count, tags, frame, module}] of the runtime's list, and (sites, lost)."""
    out = []
    for m in SITE.finditer(text):
        out.append({"count": int(m.group(1)), "tags": "%s,%s" % (m.group(2), m.group(3)),
                    "frame": m.group(4) + (" [%s]" % m.group(5) if m.group(5) else ""),
                    "function": m.group(4).split("+")[0]})
    total = TOTAL.search(text)
    return out, (int(total.group(1)), int(total.group(2))) if total else None


def kinds():
    """{function: kind}: the 2018 list's, then this lab's own
    (classification.toml), exercise 8.1's sites masked (answers.toml, the
    grader's, classifies them: a handout has none)."""
    out = {f["name"]: f["kind"] for f in load("functions.toml")["function"]}
    out.update({c["function"]: c["kind"] for c in load("classification.toml")["site"]})
    # exercise 8.1's sites (steps.toml): masked even where answers.toml is
    # not here and the source line would give their kind away
    with open(os.path.join(HERE, "steps.toml"), "rb") as f:
        for ex in tomllib.load(f).get("exercise", []):
            out.update({fn: "exercise-" + ex["id"] for fn in ex.get("sites", [])})
    try:
        # an exercise's sites show the exercise, not its answer: the
        # student site is built from this output
        out.update({c["function"]: "exercise-" + c["exercise"] if c.get("exercise")
                    else c["kind"] for c in load("answers.toml")["site"]})
    except OSError:
        pass
    return out


# The kind of a site nobody classified, read off its source line: the
# reasoning of the lab page's "The kinds", as rules.
LINE_KINDS = (("identity", "for list iteration (the head is another object) and == / !="),
              ("ordering", "for < <= > >= between pointers"))


def source_line(tree, where):
    """The text of file:line in the kernel tree, or ""."""
    m = re.match(r"^(\S+):(\d+)$", where)
    if not m or m.group(2) == "0":
        return ""
    try:
        with open(os.path.join(tree, m.group(1)), errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    n = int(m.group(2))
    return lines[n - 1] if 0 < n <= len(lines) else ""


def kind_of_line(line):
    """identity, ordering or unclassified, by LINE_KINDS."""
    code = re.sub(r"->|<<|>>", " ", line.split("//")[0])
    if re.search(r"\blist_(for_each|entry_is_head|empty|is_head)", code) or \
            re.search(r"[=!]=", code):
        return "identity"
    if re.search(r"[<>]=?", code):
        return "ordering"
    return "unclassified"


def symbols(vmlinux):
    """The function names vmlinux defines (llvm-nm)."""
    p = subprocess.run(["llvm-nm", "--defined-only", vmlinux], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit("sites.py: llvm-nm %s failed: %s" % (vmlinux, p.stderr.strip()[:200]))
    return {ln.split()[-1] for ln in p.stdout.splitlines() if ln.split()[1:2] in (["T"], ["t"])}


def main(argv):
    if len(argv) != 3:
        print("usage: sites.py SERIAL_LOG VMLINUX MODULE_DIR", file=sys.stderr)
        return 2
    log, vmlinux, mods = argv
    try:
        text = open(log, errors="replace").read()
    except OSError as e:
        print("sites.py: %s" % e, file=sys.stderr)
        return 2
    sites, total = sites_of(text)
    if total is None:
        print("sites.py: no 'ptrcmp sites=' line in %s (was kt_end_cat=/sys/kernel/debug/"
              "ptrcmp_sites on the command line of a ptrcmp kernel?)" % log, file=sys.stderr)
        return 2
    sym = decode.Symbolizer(vmlinux, mods, check=False)
    try:
        located = sym.frames([s["frame"] for s in sites])
        # a comparison in an inlined function (is_kernel_rodata in
        # kstrdup_const) belongs to that function too
        inlined = [sym.functions(s["frame"]) for s in sites]
    finally:
        sym.close()
    table = kinds()
    tree = os.path.join(os.path.dirname(vmlinux), "source")
    rows, seen, by_line = [], {}, 0
    for s, loc, names in sorted(zip(sites, located, inlined), key=lambda x: -x[0]["count"]):
        where = loc[len(s["frame"]):].strip().split()[0] if loc != s["frame"] else "?"
        fns = [s["function"]] + [n for n in names if n != s["function"]]
        kind = next((table[f] for f in fns if f in table), None)
        if kind is None:
            kind = kind_of_line(source_line(tree, where))
            by_line += kind != "unclassified"
        rows.append((s, where, names, kind))
        for fn in set(fns):
            seen[fn] = seen.get(fn, 0) + 1
    print("ptrcmp: %d sites, %d lost (the runtime's table was %s)" % (
        total[0], total[1], "full" if total[1] else "large enough"))
    print("\nThe cover letter's list, on this kernel:")
    defined = symbols(vmlinux)
    for f in load("functions.toml")["function"]:
        n = seen.get(f["name"], 0)
        if n:
            verdict = "reproduced (%d site%s)" % (n, "" if n == 1 else "s")
        elif f.get("changed"):
            verdict = "not reproduced: " + f["changed"]
        elif f["name"] in defined:
            verdict = "not reproduced: built, but this run did not reach a comparison in it"
        else:
            verdict = "not built here (no symbol in vmlinux)"
        print("  %-28s %-16s %s" % (f["name"], f["kind"], verdict))
    print("\nThe sites, most frequent first (%d kinds read off the source line: %s)"
          % (by_line, "; ".join("%s %s" % (k, why) for k, why in LINE_KINDS)))
    print("%7s  %-5s  %-44s  %-34s  %s" % ("count", "tags", "site", "file:line", "kind"))
    for s, where, names, kind in rows:
        print("%7d  %-5s  %-44s  %-34s  %s"
              % (s["count"], s["tags"], s["frame"][:44], where[:34], kind))
        if names and names[0] != s["function"]:
            print("%7s  %-5s    inlined: %s" % ("", "", " <- ".join(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
