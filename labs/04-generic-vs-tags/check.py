"""Lab 4 grader: the trade-off of the series, measured."""
import json
import os

from labs import scenarios

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
