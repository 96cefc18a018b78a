# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Check what the kasan_lab scenarios did against labs/module/expected.toml.

Pure functions over a serial log: split it at the init's
KT-SCENARIO-BEGIN/END markers, read the module's "kasan_lab: <scenario>
<event> key=value" lines and the KASAN reports (gdb-scripts/kasan/report.py)
of each scenario, and compare with the expectations kept as data.
"""

import os
import re
import tomllib

from kasan import modes
from kasan import report as kreport
from shared.scenario_log import KV, LAB_LINE, binomial_bounds, events, segments  # noqa: F401
from vm.initramfs import PROGRAMS, program_variants, table_scenarios

HERE = os.path.dirname(os.path.abspath(__file__))

EXPECTED = os.path.join(HERE, "module", "expected.toml")


MODULE_C = os.path.join(HERE, "module", "kasan_lab.c")
MODES = tuple(m.name for m in modes.ALL)
TAGGED = tuple(m.name for m in modes.TAGGED)
EXPECTED_KEYS = {"check", "benchmark", "events", *MODES}
# The random tags each mode draws (6.1 include/linux/kasan-tags.h:
# KASAN_TAG_MIN..KASAN_TAG_MAX; 0xfe and 0xff are reserved in both).
TAG_RANGE = {m.name: m.tag_range for m in modes.TAGGED}
MODE_KEYS = {"reports", "results"}


def load_expected(path=EXPECTED, benchmarks=False):
    """{scenario: expectations} of expected.toml; without the benchmarks
    (`benchmark = true`: timed by `make bench`, not checked)."""
    with open(path, "rb") as f:
        exp = tomllib.load(f)
    return {k: v for k, v in exp.items() if benchmarks or not v.get("benchmark")}


def reported(name, mode, path=EXPECTED):
    """Does 6.1 report scenario NAME in MODE (modes' name: sw_tags...)? From
    expected.toml, where the tables of labs 4 and 6 take their expectations.
    None where a student's copy lacks the row (its hw_tags rows answer lab
    6's predictions: `# kt-teacher` lines, labs/edition.py)."""
    row = load_expected(path)[name].get(mode)
    return None if row is None else bool(row["reports"])


def teacher_only(exp, mode):
    """A scenario's row of MODE is not in this copy: a student tree."""
    return mode not in exp and os.path.exists(os.path.join(HERE, "HANDOUT"))


def expected_errors(c_path=MODULE_C, toml_path=EXPECTED):
    """The module's table and expected.toml must name the same scenarios,
    and every entry must use only known keys and checks."""
    rel = os.path.relpath(toml_path, os.path.dirname(HERE))
    names = table_scenarios(open(c_path).read())
    exp = load_expected(toml_path, benchmarks=True)
    errs = []
    if not names:
        errs.append("%s: no scenarios[] table found" % os.path.relpath(c_path, os.path.dirname(HERE)))
    for n in names:
        if n not in exp:
            errs.append("%s: scenario %r of kasan_lab.c has no entry" % (rel, n))
    for n, e in exp.items():
        if n not in names:
            errs.append("%s: [%s] is not a scenario of kasan_lab.c" % (rel, n))
        for k in sorted(set(e) - EXPECTED_KEYS):
            errs.append("%s: [%s] unknown key %r" % (rel, n, k))
        for mode in MODES:
            for k in sorted(set(e.get(mode, {})) - MODE_KEYS):
                errs.append("%s: [%s] unknown key %s.%s" % (rel, n, mode, k))
        if e.get("check") and e["check"] not in CHECKS:
            errs.append("%s: [%s] check %r is not one of %s" % (
                rel, n, e["check"], ", ".join(CHECKS)))
    return errs


def _shadow_runs(s):
    runs = []
    for part in s.split(","):
        val, n = part.split("*")
        runs.append((val, int(n)))
    return runs


def check_tags(ev, mode):
    errs = []
    ptrs = [(a, b) for (e, a), (e2, b) in zip(ev, ev[1:]) if e == "ptr" and e2 == "shadow"]
    if not ptrs:
        return ["no ptr/shadow lines"]
    for p, sh in ptrs:
        runs = _shadow_runs(sh["shadow"])
        n = int(sh["granules"])
        if mode in TAGGED:
            lo, hi = TAG_RANGE[mode]
            if p["tag"] in ("fe", "ff"):
                errs.append("allocation got reserved tag %s" % p["tag"])
            elif not lo <= int(p["tag"], 16) <= hi:
                errs.append("allocation got tag %s, outside %02x..%02x" % (p["tag"], lo, hi))
            if not (runs[0][0] == p["tag"] and runs[0][1] >= n):
                errs.append("%s size %s: shadow %s is not tag %s for all %d granules"
                            % (p["name"], p["size"], sh["shadow"], p["tag"], n))
            if p["align"] != "16":
                errs.append("object %s not 16-byte aligned" % p["addr"])
        elif p["tag"] != "ff":
            errs.append("generic pointer has tag %s, expected ff" % p["tag"])
    return errs


def check_ctor_tag(ev, mode):
    tags = {}
    for e, kv in ev:
        if e == "round":
            tags.setdefault(kv["cache"], []).append(kv["tag"])
    ctor, plain = tags.get("kasan_lab_ctor", []), tags.get("kasan_lab_plain", [])
    if len(ctor) < 2 or len(plain) < 2:
        return ["missing rounds"]
    if mode in TAGGED:
        errs = []
        if len(set(ctor)) != 1:
            errs.append("ctor cache tags changed: %s" % ctor)
        if len(set(plain)) == 1:
            errs.append("plain cache kept one tag: %s" % plain)
        return errs
    return [] if set(ctor + plain) == {"ff"} else ["generic tags not ff"]


def check_collision(ev, mode):
    res = {}
    for e, kv in ev:
        if e == "result" and "gap" in kv:
            res[int(kv["gap"])] = kv
        elif e == "result":
            res["reserved"] = kv
    if mode not in TAGGED:
        return []
    errs = []
    if 0 not in res or 1 not in res:
        return ["missing result lines"]
    if mode == modes.HW_TAGS.name:
        return errs + check_collision_hw(ev, res)
    if int(res[0]["same_tag"]) != 0:
        errs.append("gap 0: %s repeats; consecutive LCG draws alternate parity, "
                    "so 0 expected" % res[0]["same_tag"])  # mutation: equivalent (message)
    n = int(res[1]["same_slot"])
    lo, hi = binomial_bounds(n, 1 / 127)
    k = int(res[1]["same_tag"])
    if not lo <= k <= hi:
        errs.append("gap 1: %d/%d repeats, outside [%d, %d] (binomial, p=1/127)"
                    % (k, n, lo, hi))
    if res.get("reserved", {}).get("reserved_tags") != "0":
        errs.append("reserved tags 0xfe/0xff were issued")
    for e, kv in ev:
        if e == "hist" and kv["from"] == "f0":
            counts = kv["counts"].split(",")
            if counts[14:] != ["0", "0"]:
                errs.append("histogram shows tags fe/ff: %s" % counts[14:])
    return errs


# hw-tags on QEMU: IRG follows the architecture's deterministic algorithm
# even with GCR_EL1.RRND=1 (QEMU 10.0, the machine virt-mte's QEMU:
# target/arm/tcg/mte_helper.c, HELPER(irg): "Our IMPDEF choice for
# GCR_EL1.RRND==1 is to continue to use the deterministic algorithm"): the
# next tag is the previous one advanced by a 4-bit LFSR offset o through
# the 14 allowed tags, a step of o mod 14.  A step of 0 (o = 0 or 14)
# repeats the tag: 2/16.  Two draws repeat it when their steps add up to
# 14: (2*2 + 2*1 + 1*2 + 11)/256 = 19/256.
HW_REPEAT = modes.HW_REPEAT


def check_collision_hw(ev, res):
    """hw-tags: each gap's repeats within the 5-sigma band of HW_REPEAT,
    and only the tags 0xf0..0xfd drawn."""
    errs = []
    for gap, p in HW_REPEAT.items():
        n, k = int(res[gap]["same_slot"]), int(res[gap]["same_tag"])
        lo, hi = binomial_bounds(n, p)
        if n == 0 or not lo <= k <= hi:
            errs.append("gap %d: %d/%d repeats, outside [%d, %d] (binomial, p=%.4f)"
                        % (gap, k, n, lo, hi, p))
    if res.get("reserved", {}).get("reserved_tags") != "0":
        errs.append("reserved tags 0xfe/0xff were issued")
    for e, kv in ev:
        if e == "hist":
            first = int(kv["from"], 16)
            for i, c in enumerate(kv["counts"].split(",")):
                if c != "0" and not 0xF0 <= first + i <= 0xFD:
                    errs.append("histogram shows tag %02x (%s times)" % (first + i, c))
    return errs


CHECKS = {"tags": check_tags, "ctor_tag": check_ctor_tag, "collision": check_collision}


def kinds(reps):
    """What expected.toml calls the reports: ["use-after-free write", ...]."""
    return ["%s %s" % (r["bug_type"], r["access"]) for r in reps]


def check_scenario(name, lines, mode, exp):
    """Return a list of error strings (empty = as expected)."""
    errs = []
    ev = events(lines, name)
    names = [e for e, _ in ev]
    if "begin" not in names:
        return ["scenario did not start (no 'begin' line)"]
    if "end" not in names:
        errs.append("scenario did not finish (no 'end' line)")
    for need in exp.get("events", []):
        # e.g. "access": the module printed it just before the bad access,
        # so without it the bug never happened and "no report" means nothing.
        if need not in names:
            errs.append("no '%s' line: the scenario did not get that far" % need)
    m = exp.get(mode, {})
    try:
        reps = kreport.parse_reports("\n".join(lines), mode_hint=mode)
    except kreport.ReportError as e:
        return [str(e)]
    got = kinds(reps)
    want = m.get("reports", [])
    if got != want:
        errs.append("reports %s, expected %s" % (
            got or "none", want or "none"))  # mutation: equivalent (message)
    outcome = [kv.get("outcome") for e, kv in ev if e == "expect"]
    for o in outcome:
        if o in ("report", "missed") and (o == "report") != bool(want):
            errs.append("module predicts %s but expected.toml lists %s" % (o, want))
    access = [kv for e, kv in ev if e == "access"]
    for r in reps:
        if r["truncated"]:
            errs.append("truncated report: %s" % r["title"])
        if not (r["function"] or "").startswith("lab_"):
            errs.append("report names %s, not a lab_ function" % r["function"])
    if mode in TAGGED:
        # The report's tags are the ones the module saw just before the access.
        acc_reps = [r for r in reps if r["access"] in ("read", "write")]
        for r, a in zip(acc_reps, [a for a in access if a.get("tag") != "ff"]):
            if (r["pointer_tag"], r["memory_tag"]) != (a.get("tag"), a.get("memtag")):
                errs.append("report tags %s/%s differ from the module's %s/%s" % (
                    r["pointer_tag"], r["memory_tag"], a.get("tag"), a.get("memtag")))
        # A free report's pointer tag is the freed pointer's: the module's `ptr`.
        ptrs = [kv.get("tag") for e, kv in ev if e == "ptr"]
        for r in reps:
            if r["access"] == "free" and r["pointer_tag"] not in ptrs[:1]:
                errs.append("free report's pointer tag %s is not the object's %s" % (
                    r["pointer_tag"], ptrs[:1] or "(no ptr line)"))  # mutation: equivalent (message)
    results = {}
    for e, kv in ev:
        if e in ("result", "reuse"):
            results.update(kv)
    for k, v in m.get("results", {}).items():
        if results.get(k) != str(v):
            errs.append("result %s=%s, expected %s" % (k, results.get(k), v))
    if exp.get("check"):
        errs += run_check(exp["check"], ev, mode)
    return errs


def run_check(name, ev, mode):
    """CHECKS[name] on a scenario's events; a cut or garbled line is one
    error, never an exception."""
    try:
        return CHECKS[name](ev, mode)
    except (KeyError, ValueError, IndexError) as e:
        return ["check %s: a line lacks a field or is cut (%s: %s)" % (
            name, type(e).__name__, e)]


def check_log(text, mode, names=None, expected=None):
    """[(scenario, [errors])] for every scenario in expected.toml (or names);
    [errors] is None for a row this copy does not hold (teacher_only)."""
    expected = expected or load_expected()
    segs = segments(text)
    out = []
    for name in names or expected:
        if name not in segs:
            out.append((name, ["scenario not run (no KT-SCENARIO-BEGIN %s)" % name]))
            continue
        if teacher_only(expected[name], mode):
            out.append((name, None))    # graded by the teacher
            continue
        out.append((name, check_scenario(name, segs[name], mode, expected[name])))
    return out


# -- the guest programs' scenarios (vm/initramfs.py: PROGRAMS), per variant ----

PROGRAM_EXPECTED = os.path.join(os.path.dirname(HERE), "vm", "init", "expected.toml")
PROGRAM_KEYS = {"events", "results", "variants"}
PROGRAM_VARIANT_KEYS = {"results", "reports", "functions", "fields"}


def load_program_expected(path=PROGRAM_EXPECTED):
    """{scenario: expectations} of vm/init/expected.toml."""
    with open(path, "rb") as f:
        return tomllib.load(f)


def program_expected_errors(path=PROGRAM_EXPECTED):
    """vm/init/expected.toml and PROGRAMS name the same scenarios, with
    known keys, and each row's variant is one whose kernel can run it."""
    rel = os.path.relpath(path, os.path.dirname(HERE))
    exp = load_program_expected(path)
    errs = ["%s: program scenario %r has no entry" % (rel, n) for n in PROGRAMS if n not in exp]
    for n, e in exp.items():
        if n not in PROGRAMS:
            errs.append("%s: [%s] is not a program scenario (vm/initramfs.py: PROGRAMS)" % (rel, n))
            continue
        errs += ["%s: [%s] unknown key %r" % (rel, n, k) for k in sorted(set(e) - PROGRAM_KEYS)]
        for v, row in e.get("variants", {}).items():
            if v not in program_variants(n):
                errs.append("%s: [%s.variants.%s] is not a variant with %s=y"
                            % (rel, n, v, PROGRAMS[n]))
            errs += ["%s: [%s.variants.%s] unknown key %r" % (rel, n, v, k)
                     for k in sorted(set(row) - PROGRAM_VARIANT_KEYS)]
            if len(row.get("fields", row.get("reports", []))) != len(row.get("reports", [])):
                errs.append("%s: [%s.variants.%s] has %d fields for %d reports" % (
                    rel, n, v, len(row["fields"]), len(row.get("reports", []))))
    return errs


def program_events(lines, name):
    """A program's own lines: [(event, {key: value})] of "NAME: event k=v"."""
    line = re.compile(r"^%s: (?P<event>[\w-]+)(?P<rest>.*)$" % re.escape(name))
    ev = []
    for ln in lines:
        m = line.match(kreport.clean(ln))
        if m:
            ev.append((m.group("event"), dict(KV.findall(m.group("rest")))))
    return ev


def check_program(name, lines, variant, exp):
    """Errors of one program scenario's lines on VARIANT's kernel (empty =
    as expected)."""
    row = exp.get("variants", {}).get(variant)
    if row is None:
        return ["vm/init/expected.toml has no row for %s on variant %s" % (name, variant)]
    ev = program_events(lines, name)
    seen = [e for e, _ in ev]
    errs = ["no '%s' line: the scenario did not get that far" % need
            for need in exp.get("events", []) if need not in seen]
    try:
        reps = kreport.parse_reports("\n".join(lines))
    except kreport.ReportError as e:
        return errs + [str(e)]
    got, want = kinds(reps), row.get("reports", [])
    if got != want:
        errs.append("reports %s, expected %s" % (got or "none", want or "none"))
    fields = row.get("fields", [])
    for i, r in enumerate(reps):
        if r["truncated"]:
            errs.append("truncated report: %s" % r["title"])
        if row.get("functions") and r["function"] not in row["functions"]:
            errs.append("report %d names %s, not one of %s"
                        % (i + 1, r["function"], ", ".join(row["functions"])))
        for k, v in (fields[i] if i < len(fields) else {}).items():
            if str(r.get(k)) != str(v):
                errs.append("report %d: %s=%s, expected %s" % (i + 1, k, r.get(k), v))
    said = {}
    for e, kv in ev:
        said.setdefault(e, {}).update(kv)
    for part in (exp.get("results", {}), row.get("results", {})):
        for e, kvs in part.items():
            for k, v in kvs.items():
                if said.get(e, {}).get(k) != str(v):
                    errs.append("%s %s=%s, expected %s" % (e, k, said.get(e, {}).get(k), v))
    return errs


def check_program_log(text, variant, names=None, expected=None):
    """[(scenario, [errors])] for every program scenario of expected (or names)
    in a serial log of VARIANT's kernel."""
    expected = expected or load_program_expected()
    segs = segments(text)
    return [(n, check_program(n, segs[n], variant, expected[n]) if n in segs
             else ["scenario not run (no KT-SCENARIO-BEGIN %s)" % n])
            for n in names or expected]
