# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 6 grader: the third mode -- hardware tag-based KASAN (MTE) -- on the
lab's scenarios, in sync and async mode, against the other two modes, and
the QEMU defect that kept it from running on Debian 12's own QEMU."""
import json
import os
import re

from kasan import report
from labs import scenarios
from labs.exercises import load_answers
from labs.modes import caught
from vm import metrics
from kasan.modes import GENERIC, HW_TAGS, NONE_VARIANT as NONE, SW_TAGS

SW, HW, GEN = SW_TAGS.variant, HW_TAGS.variant, GENERIC.variant

BOOT_LINE = re.compile(r"KernelAddressSanitizer initialized \(hw-tags, mode=(\w+)")


def boot_mode(serial):
    m = BOOT_LINE.search(serial)
    return m.group(1) if m else None


def check_hwtags(run):
    """Every scenario of the step against expected.toml's hw_tags column."""
    res = [("the kernel says hw-tags, mode=sync", boot_mode(run.serial) == "sync",
            "boot line: %s" % (boot_mode(run.serial) or "no hw-tags boot line"))]
    names = [n for n in scenarios.load_expected() if n in scenarios.segments(run.serial)]
    res.append(("the scenarios ran", len(names) >= 5, "ran: %s" % ", ".join(names)))
    for name, errs in scenarios.check_log(run.serial, HW_TAGS.name, names):
        res.append(("scenario %s as in expected.toml (hw_tags)" % name,
                    None if errs is None else not errs,
                    TEACHER if errs is None else "; ".join(errs)))
    return res


def check_async(run):
    """The uaf scenario in async mode: the report that is left.  (The sync
    report of the same bug is checked by the hwtags step, expected.toml.)"""
    res = [("the kernel says hw-tags, mode=async", boot_mode(run.serial) == "async",
            "boot line: %s" % (boot_mode(run.serial) or "no hw-tags boot line"))]
    a = run.reports("uaf")
    res.append(("one report, invalid-access, no address",
                len(a) == 1 and a[0]["bug_type"] == "invalid-access" and a[0]["addr"] is None,
                "; ".join("%s at %s" % (r["bug_type"], r["addr"]) for r in a) or "no report"))
    res.append(("it says no details are available",
                report.ASYNC_LINE in run.serial, "not in the log"))
    res.append(("its stack is where the kernel noticed, not lab_uaf",
                len(a) == 1 and a[0]["function"] not in (None, "lab_uaf"),
                "; ".join(str(r["function"]) for r in a) or "no report"))
    return res


def check_table(run):
    path = os.path.join(os.path.dirname(run.paths[0]), "table.json")
    try:
        t = json.load(open(path))
    except (OSError, ValueError):
        return [("table computed", False, "no %s: %s" % (path, run.host[-300:]))]
    return check_table_data(t)


# What each mode must do with each scenario of the table: True = reported,
# False = missed -- as expected.toml (labs/module) says 6.1 does.
MUST = {name: {m.variant: scenarios.reported(name, m.name) for m in (GENERIC, SW_TAGS, HW_TAGS)}
        for name in ("oob-in-granule", "uaf-realloc", "match-all", "uaf", "double-free")}


TEACHER = "graded by your teacher (the hw-tags outcomes are what exercise 6.1 asks)"


def check_table_data(t):
    """The checks on table.json's content (pure, tested offline)."""
    b = t.get("bugs", {})
    res = []
    for name, modes in MUST.items():
        row = b.get(name, {})
        if None in modes.values():
            res.append(("%s: as expected.toml says" % name, None, TEACHER))
            continue
        ok = all(row.get(m) is not None and bool(row[m]) == want for m, want in modes.items())
        res.append(("%s: reported by %s only" % (name, ", ".join(
            m for m, w in modes.items() if w)), ok, str(row)))
    tags = t.get("tags", [])
    res.append(("hwtags pointer tags lie in f0..fd (4 bits; fe, ff reserved)",
                len(tags) >= 8 and all(0xF0 <= x <= 0xFD for x in tags),
                " ".join("%02x" % x for x in tags) or "none seen"))
    col = t.get("collision", {}).get(HW, {})
    for gap, p in scenarios.HW_REPEAT.items():
        k, n = col.get(str(gap), (0, 0))
        lo, hi = scenarios.binomial_bounds(n, p)
        # the rate as the page names it: gap + 1 offsets of 4 bits (2/16, 19/256)
        rate = "%d/%d" % (round(p * 16 ** (gap + 1)), 16 ** (gap + 1))
        res.append(("hwtags collisions, gap %d: within the binomial band of %s (QEMU's "
                    "IRG)" % (gap, rate), n > 0 and lo <= k <= hi,
                    "%d of %d, band [%d, %d]" % (k, n, lo, hi)))
    mem = t.get("memory", {})
    sh = {m: metrics.shadow_kb(mem[m], mem[NONE]) if mem.get(m) and mem.get(NONE) else None
          for m in (SW, HW)}
    ram = (mem.get(HW) or {}).get("ram")
    res.append(("hwtags reserves no shadow: under 1/128 of RAM beyond none (image and stack "
                "depot apart), while swtags reserves over 1/32",
                None not in sh.values() and bool(ram) and sh[HW] < ram / 128
                and sh[SW] > ram / 32,
                "beyond none, kB: %s; RAM %s kB" % (sh, ram)))
    return res


def check_qemu72(run):
    return tag_dump(run.serial, whole_page=True)


def check_qemu10(run):
    return tag_dump(run.serial, whole_page=False) + [
        ("the kernel boots to init's end", "KT-INIT-END" in run.serial, "no KT-INIT-END")]


DUMP = re.compile(r"kt-tags after (1st alloc|one dc gva at \+0x800|one stg at \+0xc00) "
                  r"page \w+: (.*)$", re.M)


def runs_of(line):
    """'f3*4@800 f0*2@840 ' -> [(0xf3, 4, 0x800), (0xf0, 2, 0x840)].  Each
    run ends in a space; a line cut at the kernel's buffer ends in a cut
    run, which is dropped."""
    out = []
    for part in line.rstrip("\r").split(" ")[:-1]:
        m = re.match(r"([0-9a-f]{2})\*(\d+)@([0-9a-f]+)$", part)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2)), int(m.group(3), 16)))
    return out


def tagged(runs, tag):
    """The granule offsets that carry `tag`."""
    return [off + 16 * i for t, n, off in runs if t == tag for i in range(n)]


def retagged(before, after, tag):
    """The granule offsets that carry `tag` in the dump `after` and did not
    in the dump `before` (the object's own random tag may be f3 or f4)."""
    had = set(tagged(before, tag))
    return [off for off in tagged(after, tag) if off not in had]


def tag_dump(serial, whole_page):
    """Experiment 08's dump: which granules one DC GVA (tag f3, at +0x800)
    and one STG (tag f4, at +0xc00) tagged.  Architecturally: the 4
    granules of the 64-byte block, and the one granule."""
    got = {m.group(1).split()[-1]: runs_of(m.group(2)) for m in DUMP.finditer(serial)}
    if set(got) != {"alloc", "+0x800", "+0xc00"}:
        return [("the experiment printed its three dumps", False, "found: %s" % sorted(got))]
    if whole_page:
        gva, stg = tagged(got["+0x800"], 0xF3), tagged(got["+0xc00"], 0xF4)
        shown = [off for _, n, off in got["+0xc00"]] + [0]
        return [("QEMU 7.2: one DC GVA retags the whole page", len(gva) == 256,
                 "%d granules tagged f3" % len(gva)),
                ("QEMU 7.2: one STG retags more than its granule", len(stg) > 1,
                 "%d granules tagged f4" % len(stg)),
                ("QEMU 7.2: ... every even granule (of the dump's part shown)",
                 len(stg) > 1 and stg == [x for x in range(0, max(shown) + 16, 32)
                                          if x <= max(stg)],
                 "f4 at %s" % [hex(x) for x in stg[:8]])]
    gva = retagged(got["alloc"], got["+0x800"], 0xF3)
    stg = retagged(got["+0x800"], got["+0xc00"], 0xF4)
    return [("one DC GVA tags the 4 granules of its 64-byte block",
             gva == [0x800, 0x810, 0x820, 0x830], "newly f3 at %s" % [hex(x) for x in gva]),
            ("one STG tags its one granule", stg == [0xC00],
             "newly f4 at %s" % [hex(x) for x in stg])]


# -- Exercises ----------------------------------------------------------------

PREDICTED = ("report", "missed")


def ex_predict_hw(run, _runs, ex):
    """6.1: for each scenario, will hw-tags report it?  Graded on the run."""
    try:
        pred = load_answers(__file__, "predictions.toml").get(HW, {})
    except (OSError, ValueError) as e:
        return [("predictions.toml is a TOML file", False, str(e))]
    res = []
    for name in sorted(MUST):
        p = pred.get(name, "")
        got = caught(run.serial, name)
        if p not in PREDICTED:
            res.append(("%s: a prediction" % name, False,
                        "%r is not one of %s" % (p, ", ".join(PREDICTED))))
        elif got is None:
            res.append(("%s: ran" % name, False, "not in this run"))
        else:
            res.append(("%s: you predicted %s" % (name, p), (p == "report") == bool(got),
                        "hw-tags: %s" % (", ".join(got) or "no report")))
    return res


def ex_async_answers(run, runs, _ex):
    """6.2: what the async report of uaf says, read from the run."""
    try:
        ans = load_answers(__file__, "predictions.toml").get("async", {})
    except (OSError, ValueError) as e:
        return [("predictions.toml is a TOML file", False, str(e))]
    reps = run.reports("uaf")
    if len(reps) != 1:
        return [("the async run reported uaf once", False, "%d reports" % len(reps))]
    r = reps[0]
    return [("bug_type", ans.get("bug_type") == r["bug_type"], "the report: %s" % r["bug_type"]),
            ("has_address", ans.get("has_address") == (r["addr"] is not None),
             "the report %s an address" % ("gives" if r["addr"] is not None else "gives no")),
            ("names_lab_uaf", ans.get("names_lab_uaf") == (r["function"] == "lab_uaf"),
             "the report's function: %s" % r["function"])]


def check_hwtags_qemu72(run):
    """The unpatched hwtags kernel on QEMU 7.2: a false report, no init."""
    reps = run.reports()
    return [("a KASAN report on QEMU 7.2", bool(reps),
             "; ".join(r["title"] for r in reps[:3]) or "no report"),
            ("before init ran", "KT-INIT-START" not in run.serial,
             "init started" if "KT-INIT-START" in run.serial else "")]


# -- Known mistakes (the grader-only mistakes-teacher.toml) --------------------
# 6.1: the student's prediction for one scenario, as ex_predict_hw reads it,
# against what the hwtags run did with it.  6.2: one async answer against the
# run's report (and, for the bug type, the sync report of the hwtags run).

def wrong_prediction(run, _runs, name):
    """The prediction for scenario NAME is one of PREDICTED and the run
    says the other."""
    p = load_answers(__file__, "predictions.toml").get(HW, {}).get(name)
    got = caught(run.serial, name)
    return p in PREDICTED and got is not None and (p == PREDICTED[0]) != bool(got)


def async_answer(run, key):
    """(the student's async answer KEY, the async run's one report of uaf)."""
    reps = run.reports("uaf")
    ans = load_answers(__file__, "predictions.toml").get("async", {}).get(key)
    return ans, (reps[0] if len(reps) == 1 else None)


def mistake_hwtags_async_bug_type_as_sync(run, runs):
    # the bug type of the sync report of the same bug (the hwtags run)
    ans, r = async_answer(run, "bug_type")
    sync = {s["bug_type"] for s in runs[HW].reports("uaf")}  # its step is named so
    return r is not None and ans != r["bug_type"] and ans in sync


def mistake_hwtags_async_address_recorded(run, runs):
    ans, r = async_answer(run, "has_address")
    return r is not None and isinstance(ans, bool) and ans != (r["addr"] is not None)


def mistake_hwtags_async_stack_at_the_access(run, runs):
    ans, r = async_answer(run, "names_lab_uaf")
    return r is not None and isinstance(ans, bool) and ans != (r["function"] == "lab_uaf")
