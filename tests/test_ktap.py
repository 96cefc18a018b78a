"""KTAP parser and the KUnit verdict, on logs of this project's kernels."""
import tomllib
import os

from vm import ktap
from conftest import REPO

EXP = tomllib.load(open(os.path.join(REPO, "vm", "kunit-expected.toml"), "rb"))


def test_swtags_suite_counts(swtags_log):
    s = ktap.parse(swtags_log)["kasan"]
    assert s.counts() == {"pass": 47, "fail": 0, "skip": 8}
    assert s.plan == 55 and s.complete and s.status == "pass"
    assert s.summary == {"pass": 47, "fail": 0, "skip": 8, "total": 55}
    assert s.cases[0].name == "kmalloc_oob_right"
    ok, lines = ktap.judge({"kasan": s}, EXP["swtags"])
    assert ok, lines


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
