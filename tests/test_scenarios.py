"""The scenario checker accepts the real logs and rejects altered ones."""
import re

from labs import scenarios


def test_real_logs_pass(swtags_log, generic_log):
    for text, mode in ((swtags_log, "sw_tags"), (generic_log, "generic")):
        bad = [(n, e) for n, e in scenarios.check_log(text, mode) if e]
        assert not bad


def test_missing_report_fails(swtags_log):
    seg = swtags_log.split("KT-SCENARIO-BEGIN uaf-realloc")[1]
    text = swtags_log.replace("KT-SCENARIO-BEGIN uaf-realloc" + seg.split("KT-SCENARIO-END")[0],
                              "KT-SCENARIO-BEGIN uaf-realloc\nkasan_lab: uaf-realloc begin\n"
                              "kasan_lab: uaf-realloc end\n")
    errs = dict(scenarios.check_log(text, "sw_tags"))["uaf-realloc"]
    assert any("expected ['use-after-free read']" in e for e in errs)


def test_wrong_mode_fails(swtags_log):
    errs = dict(scenarios.check_log(swtags_log, "generic"))
    assert errs["oob-in-granule"] and errs["tags"]


def test_unexpected_report_fails(swtags_log):
    # Pretend sw-tags had caught the in-granule overflow.
    uaf = swtags_log.split("KT-SCENARIO-BEGIN uaf\n")[1].split("KT-SCENARIO-END")[0]
    rep = "\n".join(ln for ln in uaf.splitlines() if "kasan_lab:" not in ln)
    text = swtags_log.replace("KT-SCENARIO-END oob-in-granule", rep + "\nKT-SCENARIO-END oob-in-granule")
    errs = dict(scenarios.check_log(text, "sw_tags"))["oob-in-granule"]
    assert any("expected none" in e for e in errs)


def test_collision_bound(swtags_log):
    lo, hi = scenarios.binomial_bounds(10000, 1 / 127)
    assert lo < 10000 / 127 < hi and hi - lo < 100
    text = re.sub(r"(collision result gap=1 rounds=\d+ same_slot=\d+) same_tag=\d+",
                  r"\1 same_tag=400", swtags_log)
    errs = dict(scenarios.check_log(text, "sw_tags"))["collision"]
    assert any("outside" in e for e in errs)


def test_scenario_not_run():
    assert dict(scenarios.check_log("KT-INIT-START\n", "sw_tags"))["uaf"] == [
        "scenario not run (no KT-SCENARIO-BEGIN uaf)"]
