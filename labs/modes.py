# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What the lab tables compare across KASAN modes, read from serial logs:
which reports each scenario got, the tag-collision counts, and memory.

Pure functions over the logs of `kt_run=...` boots (labs 4 and 6)."""

from shared.tables import text_table
from kasan import report
from labs import scenarios
from vm import metrics


def caught(text, name):
    """The bug types KASAN reported inside scenario `name`: a list, empty
    when it ran and nothing was reported, None when it did not run."""
    seg = scenarios.segments(text).get(name)
    if seg is None:
        return None
    return [r["bug_type"] for r in report.parse_reports("\n".join(seg))]


def cell(got):
    """A table cell for caught()'s answer."""
    return ", ".join(got) if got else ("not run" if got is None else "MISSED")


def memory(text):
    """The boot's Memory: line in kB, with Slab: of /proc/meminfo."""
    m = metrics.memory(text)
    if m:
        m["slab"] = metrics.slab_kb(text)
    return m


def collisions(text):
    """{gap: (same_tag, same_slot)} of the collision scenario's results."""
    out = {}
    ev = scenarios.events(scenarios.segments(text).get("collision", []), "collision")
    for e, kv in ev:
        if e == "result" and "gap" in kv:
            out[int(kv["gap"])] = (int(kv["same_tag"]), int(kv["same_slot"]))
    return out


def collision_line(gap, k, n, p=None):
    """One sentence on a collision count, with the 5-sigma band of p."""
    band = ""
    if p:
        lo, hi = scenarios.binomial_bounds(n, p)
        band = "; 5-sigma band for 1/%.1f: [%d, %d]" % (1 / p, lo, hi)
    return ("collision, %d allocation(s) between free and reuse: %d of %d reuses kept the "
            "tag (1 in %s)%s" % (gap, k, n, "%.0f" % (n / k) if k else "never", band))


def memory_lines(mem, kernels, shadow_ratio=None):
    """The memory table of `kernels` (those whose boot printed one), then
    for each KASAN kernel what it reserves beyond none.  shadow_ratio
    {kernel: N}: say that its shadow is 1/N of the linear map.
    Returns (lines, {kernel: extra kB})."""
    cols = ("ram", "reserved", "image", "depot", "slab")
    lines = [text_table(["kernel", "RAM kB", "reserved kB", "image kB", "stackdepot kB",
                         "Slab kB"],
                        [(m, [str(mem[m][k]) for k in cols]) for m in kernels if mem.get(m)]),
             "(reserved: what the kernel keeps at boot -- its image, page tables, the stack "
             "depot's hash table, the KASAN shadow where there is one)"]
    extra = {}
    for m in kernels:
        if m == "none" or not mem.get(m) or not mem.get("none"):
            continue
        x = extra[m] = metrics.shadow_kb(mem[m], mem["none"])
        lines.append("%s reserves %d kB more than none beyond its image and stack depot%s%s" % (
            m, x, ": 1/%.1f of RAM" % (mem[m]["ram"] / x) if x > 0 else "",
            " (shadow of the linear map: 1/%d)" % shadow_ratio[m]
            if m in (shadow_ratio or {}) else ""))
    return lines, extra
