# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""KTAP parser and the KUnit verdict, on logs of this project's kernels."""
import tomllib
import os

from vm import ktap
from conftest import REPO

EXP = tomllib.load(open(os.path.join(REPO, "vm", "kunit-expected.toml"), "rb"))


def test_swtags_suite_counts(swtags_log):
    """This captured run met a tag collision: ksize_unpoisons_memory's
    ptr[128] hit a neighbour that had drawn the pointer's tag."""
    s = ktap.parse(swtags_log)["kasan"]
    assert s.counts() == {"pass": 46, "fail": 1, "skip": 8}
    assert s.plan == 55 and s.complete and s.status == "fail"
    assert s.summary == {"pass": 46, "fail": 1, "skip": 8, "total": 55}
    assert s.cases[0].name == "kmalloc_oob_right"
    ok, lines = ktap.judge({"kasan": s}, EXP["swtags"])
    assert ok, lines
    assert [ln.split(":")[0] for ln in lines[1:]] == ["chance miss ksize_unpoisons_memory"]
    assert lines[1].endswith('(KASAN failure expected in "((volatile char *)ptr)[real_size]", '
                             'but none occurred)')


def test_hwtags_chance_miss(hwtags_log):
    s = ktap.parse(hwtags_log)["kasan"]
    assert [c.name for c in s.failed()] == ["kmalloc_oob_right"]
    ok, lines = ktap.judge({"kasan": s}, EXP["hwtags"])
    assert ok and lines[1].startswith("chance miss kmalloc_oob_right:"), lines
    # Not listed: the same miss fails the gate.
    ok, lines = ktap.judge({"kasan": s}, dict(EXP["hwtags"], chance_misses=[]))
    assert not ok and "FAILED case kmalloc_oob_right" in lines


def test_chance_miss_only_when_the_report_did_not_come():
    miss = ("    # a: EXPECTATION FAILED at mm/kasan/kasan_test.c:150\n"
            "    KASAN failure expected in \"ptr[128]\", but none occurred\n")
    other = ("    # a: EXPECTATION FAILED at mm/kasan/kasan_test.c:151\n"
             "    Expected ptr == NULL, but\n")
    exp = dict(EXP1, min_pass=2, chance_misses=["a"])
    for diag, want in ((miss, True), (other, False), (miss + other, False), ("", False)):
        text = suite([("not ok", "a"), ("ok", "b")]).replace("    not ok 1", diag + "    not ok 1")
        ok, lines = ktap.judge(ktap.parse(text), exp)
        assert ok == want, (diag, lines)
    # A miss counts toward min_pass; it does not excuse a missing pass.
    text = suite([("not ok", "a"), ("ok", "b")]).replace("    not ok 1", miss + "    not ok 1")
    assert not ktap.judge(ktap.parse(text), dict(exp, min_pass=3))[0]
    # A report line between the expectation and the result is not the case's.
    text = suite([("not ok", "a")]).replace("    not ok 1", "    # a: EXPECTATION FAILED at x\n"
                                            "BUG: KASAN: but none occurred\n    not ok 1")
    assert not ktap.judge(ktap.parse(text), dict(EXP1, min_pass=0, chance_misses=["a"]))[0]


def test_generic_known_failure_is_reported(generic_log):
    suites = ktap.parse(generic_log)
    assert [c.name for c in suites["kasan"].failed()] == ["vmalloc_oob"]
    ok, lines = ktap.judge(suites, EXP["generic"])
    assert ok
    assert any(ln.startswith("known upstream failure vmalloc_oob") for ln in lines)


def test_unknown_failure_fails(swtags_log):
    text = swtags_log.replace("    ok 1 kmalloc_oob_right", "    not ok 1 kmalloc_oob_right")
    ok, lines = ktap.judge(ktap.parse(text), EXP["swtags"])
    assert not ok and "FAILED case kmalloc_oob_right" in lines


def test_truncated_log_is_incomplete(swtags_log):
    cut = swtags_log[: swtags_log.index("ok 30 ")]
    ok, lines = ktap.judge(ktap.parse(cut), EXP["swtags"])
    assert not ok and any("incomplete" in ln for ln in lines)


def test_no_suite_means_crash():
    ok, lines = ktap.judge(ktap.parse("[    0.1] Booting Linux\n"), EXP["swtags"])
    assert not ok and "not found" in lines[0]


def test_skip_reason_must_be_allowed():
    text = ("    # Subtest: kasan\n    1..2\n    ok 1 a\n"
            "    ok 2 b # SKIP Test requires CONFIG_FOO=y\nok 1 kasan\n")
    ok, lines = ktap.judge(ktap.parse(text), dict(EXP["swtags"], min_pass=1))
    assert not ok and "unexpected skip b" in lines[-1]


def test_crlf_and_timestamps():
    text = "[    1.0]     # Subtest: kasan\r\n[    1.0]     1..1\r\n[ 2.5]     ok 1 x\r\nok 1 kasan\r\n"
    s = ktap.parse(text)["kasan"]
    assert s.counts()["pass"] == 1 and s.complete


def suite(cases, plan=None, summary=True, own="ok"):
    """A small KTAP suite: cases is [(status line, name)]."""
    n = len(cases)
    lines = ["    # Subtest: kasan", "    1..%d" % (n if plan is None else plan)]
    for i, (st, name) in enumerate(cases, 1):
        lines.append("    %s %d %s" % (st, i, name))
    if summary:
        p = sum(1 for st, _ in cases if st == "ok")
        f = sum(1 for st, _ in cases if st.startswith("not ok"))
        lines.append("# kasan: pass:%d fail:%d skip:0 total:%d" % (p, f, n))
    lines.append("%s 1 kasan" % own)
    return "\n".join(lines) + "\n"


EXP1 = {"suite": "kasan", "min_pass": 1}


def test_suite_own_not_ok_fails_even_if_cases_pass():
    ok, lines = ktap.judge(ktap.parse(suite([("ok", "a")], own="not ok")), EXP1)
    assert not ok and "suite kasan itself is reported not ok" in lines
    assert ktap.judge(ktap.parse(suite([("ok", "a")])), EXP1) == (
        True, ["# kasan: pass:1 fail:0 skip:0 total:1"])


def test_suite_status_and_plan():
    s = ktap.parse(suite([("ok", "a"), ("ok", "b")]))["kasan"]
    assert (s.status, s.plan, s.complete) == ("pass", 2, True)
    s = ktap.parse(suite([("ok", "a")], plan=2))["kasan"]
    assert not s.complete
    s = ktap.parse(suite([("ok", "a")]).replace("ok 1 kasan\n", ""))["kasan"]
    assert s.status is None and not s.complete
    assert repr(s.cases[0]) == "Case(1, 'a', 'pass')"


def test_directives():
    text = suite([("ok", "a # SKIP needs CONFIG_X=y"), ("not ok", "b # TODO later"),
                  ("ok", "c # TODO done")], summary=False)
    s = ktap.parse(text)["kasan"]
    assert [(c.name, c.status, c.reason) for c in s.cases] == [
        ("a", "skip", "needs CONFIG_X=y"), ("b", "fail", "later"), ("c", "pass", "done")]
    assert s.counts() == {"pass": 1, "fail": 1, "skip": 1}
    assert [c.name for c in s.skipped()] == ["a"] and [c.name for c in s.failed()] == ["b"]


def test_summary_must_agree():
    text = suite([("ok", "a"), ("ok", "b")]).replace("pass:2 fail:0", "pass:1 fail:1")
    ok, lines = ktap.judge(ktap.parse(text), EXP1)
    assert not ok and any("summary line" in ln for ln in lines)


def test_min_pass_edges():
    text = suite([("ok", "a"), ("ok", "b")])
    assert ktap.judge(ktap.parse(text), dict(EXP1, min_pass=2))[0]
    ok, lines = ktap.judge(ktap.parse(text), dict(EXP1, min_pass=3))
    assert not ok and lines[-1] == "only 2 passed, expected at least 3"
    skipped = suite([("ok", "a # SKIP why")], summary=False)
    assert ktap.judge(ktap.parse(skipped), {"suite": "kasan", "allowed_skips": ["why"]})[0]


def test_known_failure_only_by_name():
    text = suite([("ok", "a"), ("not ok", "b")])
    exp = dict(EXP1, known_failures=[{"case": "b", "reason": "upstream\n  bug"}])
    assert ktap.judge(ktap.parse(text), exp) == (True, [
        "# kasan: pass:1 fail:1 skip:0 total:2", "known upstream failure b: upstream bug"])
    exp = dict(EXP1, known_failures=[{"case": "c", "reason": "x"}])
    assert not ktap.judge(ktap.parse(text), exp)[0]


def test_variant_without_kasan():
    none = {"suite": ""}
    ok, lines = ktap.judge(ktap.parse(suite([("ok", "a")])), none)
    assert not ok and lines == ["suite kasan ran, but this variant has no KASAN"]
    assert ktap.judge(ktap.parse(""), none) == (
        False, ["no KTAP header: KUnit never ran (empty or cut log?)"])
    assert ktap.judge(ktap.parse("[    0.33] KTAP version 1\n[    0.33] 1..0\n"), none) == (
        True, ["KUnit ran, no kasan suite in this variant (as expected)"])
