# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 4 grader: the trade-off of the series, measured."""
import json
import os

from labs import exercises, scenarios
from kasan.modes import GENERIC, NONE_VARIANT as NONE, SW_TAGS

SW, GEN = SW_TAGS.variant, GENERIC.variant
SW_GRANULE, GEN_GRANULE = 16, 8  # bytes a memory tag, a generic shadow byte describe
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
        res.append(("tag collisions, one allocation in between: within the binomial band of 1/127",
                    n > 0 and lo <= k <= hi, "%d of %d, band [%d, %d]" % (k, n, lo, hi)))
    else:
        res.append(("tag collisions, one allocation in between: within the binomial band of 1/127",
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


def accessible(r):
    """The bytes of a generic report's object that its shadow says were
    allocated (6.1's describe_object_addr measures `inside` against the
    cache's object size, not the kmalloc size): 00 is 8 bytes, 1..7 that
    many and the end; None without the object's shadow rows."""
    cells = {}
    for row in r["memory_state"]:
        base = int(row["addr"], 16)
        cells.update((base + GEN_GRANULE * i, int(b, 16)) for i, b in enumerate(row["bytes"]))
    at, n = int(r["object"], 16), 0
    while at in cells:
        if cells[at]:
            return n + cells[at] if cells[at] < GEN_GRANULE else n
        at, n = at + GEN_GRANULE, n + GEN_GRANULE
    return None


def lab_idea(ex_id, r):
    """The lab's own bug of this kind, which does not count: an overflow
    that stays in the object's last 16-byte granule (oob-in-granule) for
    4.1, whatever the size; a use-after-free (uaf-realloc) for 4.2."""
    if ex_id == "4.1":
        if r["bug_type"] != "slab-out-of-bounds" or r["offset"] is None or r["object"] is None:
            return False
        size = r["object_size"] if r["relation"] == "to the right" else accessible(r)
        return size is not None and size <= r["offset"] < -(-size // SW_GRANULE) * SW_GRANULE
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


# -- Known mistakes (labs/mistakes.py): what the two kernels did with the
# student's scenario --------------------------------------------------------

# KASAN_TAG_INVALID: the memory tag 6.1's sw-tags gives a freed object's granules
FREED_TAG = "fe"


def seen(run, runs, ex_id):
    """{kernel: the KASAN reports of the exercise's scenario on it}."""
    scn = STUDENT[ex_id][0]
    logs = {GEN: run, SW: runs["ex-student-" + SW]}
    return {k: exercises.reports_of(v.serial, scn) for k, v in logs.items()}


def in_student(reps):
    return [r for r in reps if r["module"] == "kasan_student"]


def mistake_generic_only_last_granule(run, runs):
    # generic's report is an overflow into the object's last granule
    mine = in_student(seen(run, runs, "4.1")[GEN])
    return bool(mine) and lab_idea("4.1", mine[0])


def freed_read_on_both(run, runs):
    """4.1: the sw-tags report of a use-after-free generic reports too, or None."""
    s = seen(run, runs, "4.1")
    mine = in_student(s[GEN])
    if mine and mine[0]["bug_type"] == "use-after-free" and s[SW]:
        return s[SW][0]
    return None


def mistake_generic_only_freed_read(run, runs):
    # sw-tags reports it too, against the tag of freed memory
    r = freed_read_on_both(run, runs)
    return r is not None and r["memory_tag"] == FREED_TAG


def mistake_generic_only_reused_slot(run, runs):
    # sw-tags reports it too, against a live object's (new) tag
    r = freed_read_on_both(run, runs)
    return r is not None and r["memory_tag"] not in (None, FREED_TAG, r["pointer_tag"])


def mistake_generic_only_modes_swapped(run, runs):
    s = seen(run, runs, "4.1")
    return not s[GEN] and bool(in_student(s[SW]))


def mistake_tags_only_lab_uaf_realloc(run, runs):
    # sw-tags alone reports it, as a use-after-free
    s = seen(run, runs, "4.2")
    mine = in_student(s[SW])
    return bool(mine) and lab_idea("4.2", mine[0]) and not s[GEN]


def both_report(run, runs, bug_type):
    s = seen(run, runs, "4.2")
    mine = in_student(s[GEN])
    return bool(mine) and mine[0]["bug_type"] == bug_type and bool(s[SW])


def mistake_tags_only_quarantine_forgotten(run, runs):
    # generic reports the stale read too: the freed slot was not reused
    return both_report(run, runs, "use-after-free")


def mistake_tags_only_redzone_hit(run, runs):
    # generic reports the overflow too: it hit a redzone
    return both_report(run, runs, "slab-out-of-bounds")


def mistake_tags_only_modes_swapped(run, runs):
    s = seen(run, runs, "4.2")
    return not s[SW] and bool(in_student(s[GEN]))
