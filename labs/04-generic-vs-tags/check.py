# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 4 grader: the trade-off of the series, measured."""
import json
import os

from labs import exercises, scenarios
from kasan.modes import GENERIC, NONE_VARIANT as NONE, SW_TAGS

SW, GEN = SW_TAGS.variant, GENERIC.variant
COMPARED = (SW_TAGS, GENERIC)
# The scenarios whose reports the table compares; which mode reports each
# is expected.toml's (labs/module), not this file's.
BUGS = ("oob-in-granule", "uaf-realloc", "double-free", "invalid-free")

HERE = os.path.dirname(os.path.abspath(__file__))


def check_table(run):
    path = os.path.join(os.path.dirname(run.paths[0]), "table.json")
    try:
        t = json.load(open(path))
    except (OSError, ValueError):
        tail = run.host[-300:]  # mutation: equivalent (message length)
        return [("table computed", False, "no %s: %s" % (path, tail))]
    return check_table_data(t)


def shown(frac):
    return "measured 1/%.1f" % (1 / frac) if frac else "no Memory: line"  # mutation: equivalent (message)


def check_table_data(t):
    """The checks on table.json's content (pure, tested offline)."""
    b = t.get("bugs", {})

    def caught(name, mode):
        """True/False when the scenario ran on that kernel; None when it did not."""
        got = b.get(name, {}).get(mode)
        return None if got is None else bool(got)

    res = []
    for name in BUGS:
        want = {m.variant: scenarios.reported(name, m.name) for m in COMPARED}
        res.append(("%s: reported by %s (expected.toml)" % (name, " and ".join(
            v for v, w in want.items() if w) or "neither"),
            all(caught(name, v) is not None and caught(name, v) == w for v, w in want.items()),
            "%s (None: not run)" % b.get(name)))
    col = t.get("collision", {})
    if "1" in col:
        k, n = col["1"]
        lo, hi = scenarios.binomial_bounds(n, 1 / 127)
        res.append(("tag collisions, one draw apart: within the binomial band of 1/127",
                    n > 0 and lo <= k <= hi, "%d of %d, band [%d, %d]" % (k, n, lo, hi)))
    else:
        res.append(("tag collisions, one draw apart: within the binomial band of 1/127",
                    False, "no collision result (gap=1) in the swtags log"))
    mem = t.get("memory", {})
    for m, expect in ((GEN, 8), (SW, 16)):
        frac = (mem.get(m) or {}).get("shadow_fraction")
        res.append(("%s shadow is 1/%d of RAM (within 10%%)" % (m, expect),
                    frac is not None and abs(frac * expect - 1) < 0.10,
                    shown(frac)))
    sl = {m: (mem.get(m) or {}).get("slab") for m in (NONE, GEN, SW)}
    res.append(("Slab after boot: generic grows it more than swtags",
                None not in sl.values() and sl[GEN] - sl[NONE] > sl[SW] - sl[NONE],
                str(sl)))
    return res


# -- Exercises ---------------------------------------------------------------

# exercise id: (scenario, the kernel that must report, the one that must not)
STUDENT = {"4.1": ("student-generic-only", GEN, SW),
           "4.2": ("student-tags-only", SW, GEN)}


def lab_idea(ex_id, r):
    """The lab's own bug of this kind, which does not count: an overflow
    that stays in the object's last granule (oob-in-granule) for 4.1, a
    use-after-free of a reused slot (uaf-realloc) for 4.2."""
    if ex_id == "4.1":
        return (r["bug_type"] == "slab-out-of-bounds" and r["relation"] == "to the right"
                and r["object_size"] and r["offset"] + r["object_size"] % 16 < 16
                and r["object_size"] % 16 != 0)
    return r["bug_type"] == "use-after-free"


def ex_student_bug(run, runs, ex):
    scn, yes, no = STUDENT[ex["id"]]
    logs = {GEN: run, SW: runs.get("ex-student-" + SW)}
    if logs[SW] is None:
        return [("the swtags run of your scenarios", False, "step ex-student-swtags did not run")]
    res = []
    for kernel in (yes, no):
        text = logs[kernel].serial
        if "KT-SCENARIO-END %s" % scn not in text:
            err = [ln for ln in text.splitlines() if "KT-ERROR" in ln]
            return [("%s ran to its end on %s" % (scn, kernel), False,
                     (err[:1] or ["no end marker; the kernel died? see the serial log"])[0])]
    reps = exercises.reports_of(logs[yes].serial, scn)
    mine = [r for r in reps if r["module"] == "kasan_student"]
    res.append(("%s reports %s, in your code (kasan_student)" % (yes, scn), bool(mine),
                "%d report(s), %d in kasan_student: %s" % (
                    len(reps), len(mine), "; ".join(r["title"] for r in reps) or "none")))
    other = exercises.reports_of(logs[no].serial, scn)
    # an absent report is evidence only once the bug is there: a scenario
    # that does nothing is not missed by the other mode
    res.append(("%s does not report %s" % (no, scn), bool(mine) and not other,
                "; ".join(r["title"] for r in other) if other else
                "first make %s report it, in your code" % yes))
    if mine:
        res.append(("not the lab's own bug of this kind", not lab_idea(ex["id"], mine[0]),
                    mine[0]["title"]))
    return res
