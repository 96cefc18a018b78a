"""Lab 4 grader: the trade-off of the series, measured."""
import json
import os

from labs import exercises, scenarios

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

    def ran(*names):
        return all(caught(n, m) is not None for n in names for m in ("swtags", "generic"))
    res = [("oob-in-granule: generic only", ran("oob-in-granule") and
            caught("oob-in-granule", "generic") and not caught("oob-in-granule", "swtags"),
            "%s (None: not run)" % b.get("oob-in-granule")),
           ("uaf-realloc: tags only", ran("uaf-realloc") and caught("uaf-realloc", "swtags")
            and not caught("uaf-realloc", "generic"), "%s (None: not run)" % b.get("uaf-realloc")),
           ("double-free and invalid-free: both modes",
            all(caught(n, m) for n in ("double-free", "invalid-free")
                for m in ("swtags", "generic")), str({n: b.get(n) for n in (
                    "double-free", "invalid-free")}))]
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
    for m, expect in (("generic", 8), ("swtags", 16)):
        frac = (mem.get(m) or {}).get("shadow_fraction")
        res.append(("%s shadow is 1/%d of RAM (within 10%%)" % (m, expect),
                    frac is not None and abs(frac * expect - 1) < 0.10,
                    shown(frac)))
    sl = {m: (mem.get(m) or {}).get("slab") for m in ("none", "generic", "swtags")}
    res.append(("Slab after boot: generic grows it more than swtags",
                None not in sl.values() and sl["generic"] - sl["none"] > sl["swtags"] - sl["none"],
                str(sl)))
    return res


# -- Exercises ---------------------------------------------------------------

# exercise id: (scenario, the kernel that must report, the one that must not)
STUDENT = {"4.1": ("student-generic-only", "generic", "swtags"),
           "4.2": ("student-tags-only", "swtags", "generic")}


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
    logs = {"generic": run, "swtags": runs.get("ex-student-swtags")}
    if logs["swtags"] is None:
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
    res.append(("%s does not report %s" % (no, scn), not other,
                "; ".join(r["title"] for r in other)))
    if mine:
        res.append(("not the lab's own bug of this kind", not lab_idea(ex["id"], mine[0]),
                    mine[0]["title"]))
    return res
