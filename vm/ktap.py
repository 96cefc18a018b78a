# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Parse KTAP (KUnit's test output) out of a kernel serial log.

Pure functions over text: timestamps, CRLF and interleaved printk lines
(the KASAN reports the suite provokes) are tolerated.

    suites = parse(log_text)
    suites["kasan"].counts()  -> {"pass": 47, "fail": 0, "skip": 8}
"""

import re
from typing import Any, Dict, Iterator, List, Optional, Tuple

TS = re.compile(r"^\[\s*\d+\.\d+\]\s?")
RESULT = re.compile(r"^(?P<ind>\s*)(?P<ok>not ok|ok) (?P<num>\d+)(?: -)? "
                    r"(?P<name>[^#]*?)\s*(?:#\s*(?P<dir>SKIP|TODO)\b\s*(?P<why>.*))?$")
SUBTEST = re.compile(r"^(?P<ind>\s*)# Subtest: (?P<name>\S+)")
PLAN = re.compile(r"^(?P<ind>\s*)1\.\.(?P<n>\d+)\s*$")
HEADER = re.compile(r"^(?:KTAP|TAP) version \d+\s*$")
SUMMARY = re.compile(r"^\s*# (?P<name>\S+): pass:(?P<p>\d+) fail:(?P<f>\d+) "
                     r"skip:(?P<s>\d+) total:(?P<t>\d+)")


class Suites(Dict[str, "Suite"]):
    """{suite name: Suite}; .header: KUnit printed its top-level
    "KTAP version N" (it does even with no suite at all: "1..0")."""
    header = False


class Case:
    def __init__(self, num: int, name: str, status: str, reason: str = "",
                 diag: Optional[List[str]] = None):
        self.num, self.name, self.status, self.reason = num, name, status, reason
        # The case's own lines before its result ("# name: EXPECTATION
        # FAILED at ...", "KASAN failure expected in ..., but none occurred").
        self.diag = diag or []

    def missed_only(self) -> bool:
        """Every failed expectation of the case is a KASAN report that did
        not come ("but none occurred"), and nothing else failed."""
        text = "\n".join(self.diag)
        n = text.count("but none occurred")
        return n > 0 and text.count("FAILED at") == n

    def __repr__(self) -> str:
        return "Case(%d, %r, %r)" % (self.num, self.name, self.status)


class Suite:
    def __init__(self, name: str, indent: int):
        self.name, self.indent = name, indent
        self.cases: List[Case] = []
        self.plan: Optional[int] = None
        self.summary: Optional[Dict[str, int]] = None
        self.status: Optional[str] = None

    def counts(self) -> Dict[str, int]:
        c = {"pass": 0, "fail": 0, "skip": 0}
        for case in self.cases:
            c[case.status] += 1
        return c

    @property
    def complete(self) -> bool:
        return self.status is not None and (self.plan is None or
                                            len(self.cases) == self.plan)

    def failed(self) -> List[Case]:
        return [c for c in self.cases if c.status == "fail"]

    def skipped(self) -> List[Case]:
        return [c for c in self.cases if c.status == "skip"]


def clean_lines(text: str) -> Iterator[str]:
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        yield TS.sub("", line, count=1)  # mutation: equivalent (TS is anchored at ^)


def _status(m: "re.Match[str]") -> str:
    if m.group("dir") == "SKIP":
        return "skip"
    return "pass" if m.group("ok") == "ok" else "fail"


def parse(text: str) -> Suites:
    """Return {suite name: Suite} for every (sub)suite found in the log."""
    suites = Suites()
    stack: List[Suite] = []
    diag: List[str] = []
    for line in clean_lines(text):
        if HEADER.match(line):
            suites.header = True
            continue
        m = SUBTEST.match(line)
        if m:
            s = Suite(m.group("name"), len(m.group("ind")))
            suites[s.name] = s
            stack.append(s)
            continue
        m = PLAN.match(line)
        if m and stack and len(m.group("ind")) == stack[-1].indent:
            stack[-1].plan = int(m.group("n"))
            continue
        m = SUMMARY.match(line)
        if m and m.group("name") in suites:
            suites[m.group("name")].summary = {
                "pass": int(m.group("p")), "fail": int(m.group("f")),
                "skip": int(m.group("s")), "total": int(m.group("t"))}
            continue
        m = RESULT.match(line)
        if not m:
            # A case's diagnostics are indented like its result line; the
            # KASAN reports it provokes are not indented.
            if stack and len(line) - len(line.lstrip()) >= stack[-1].indent:
                diag.append(line.strip())
            continue
        ind, name, st = len(m.group("ind")), m.group("name").strip(), _status(m)
        # A suite's own result line is printed one level further out.
        while stack and ind < stack[-1].indent:
            s = stack.pop()
            if s.name == name:
                s.status = st
        if stack and ind == stack[-1].indent:
            stack[-1].cases.append(Case(int(m.group("num")), name, st,
                                        (m.group("why") or "").strip(), diag))
        diag = []
    return suites


def judge(suites: Dict[str, Suite], exp: Dict[str, Any]) -> Tuple[bool, List[str]]:
    """Compare parsed suites with one variant's entry of kunit-expected.toml.

    Returns (ok, lines): lines name every failure (known ones with their
    reason, so they are reported in every run) and the summary."""
    name = exp.get("suite", "")
    if not name:
        if "kasan" in suites:
            return False, ["suite kasan ran, but this variant has no KASAN"]
        if not getattr(suites, "header", False):
            return False, ["no KTAP header: KUnit never ran (empty or cut log?)"]
        return True, ["KUnit ran, no kasan suite in this variant (as expected)"]
    s = suites.get(name)
    if s is None:
        return False, ["suite %s not found in the log (did the kernel crash "
                       "before KUnit ran?)" % name]
    c = s.counts()
    lines = ["# %s: pass:%d fail:%d skip:%d total:%d" % (
        name, c["pass"], c["fail"], c["skip"], len(s.cases))]
    ok = True
    if s.status == "fail" and not s.failed():
        # The suite's own "not ok" with no failed case: something the cases
        # do not show failed (a crash between cases, an init error).
        ok = False
        lines.append("suite %s itself is reported not ok" % name)
    if not s.complete:
        ok = False
        lines.append("suite %s incomplete: %d of %s cases reported" %
                     (name, len(s.cases), s.plan))
    if s.summary and (s.summary["pass"], s.summary["fail"], s.summary["skip"]) != \
            (c["pass"], c["fail"], c["skip"]):
        ok = False
        lines.append("summary line %s disagrees with the parsed cases" % s.summary)
    known = {k["case"]: k["reason"] for k in exp.get("known_failures", [])}
    chance, missed = set(exp.get("chance_misses", [])), 0
    for case in s.failed():
        if case.name in known:
            lines.append("known upstream failure %s: %s" % (
                case.name, " ".join(known[case.name].split())))
        elif case.name in chance and case.missed_only():
            missed += 1
            lines.append("chance miss %s: its bad access lands in a neighbouring object or "
                         "page, which had drawn the pointer's tag (%s)" % (
                             case.name, " ".join(case.diag[-1:])))
        else:
            ok = False
            lines.append("FAILED case %s" % case.name)
    for case in s.skipped():
        if not any(a in case.reason for a in exp.get("allowed_skips", [])):
            ok = False
            lines.append("unexpected skip %s (%s)" % (case.name, case.reason))
    # A chance miss counts as a pass: the floor still catches any other loss.
    if c["pass"] + missed < exp.get("min_pass", 0):
        ok = False
        lines.append("only %d passed, expected at least %d" % (c["pass"], exp["min_pass"]))
    return ok, lines
