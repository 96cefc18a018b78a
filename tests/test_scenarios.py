# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The scenario checker accepts the real logs and rejects altered ones."""
import re

from labs import scenarios


# Scenarios added to kasan_lab.c after gdb-scripts/tests/fixtures/*.log were
# captured (`make fixtures` boots them; their KUnit runs hold cases other
# tests read): `make check` runs them live against expected.toml.
NEWER_THAN_THE_LOGS = {"uaf-field"}


def test_real_logs_pass(swtags_log, generic_log):
    for text, mode in ((swtags_log, "sw_tags"), (generic_log, "generic")):
        bad = [(n, e) for n, e in scenarios.check_log(text, mode) if e and not (
            n in NEWER_THAN_THE_LOGS and "KT-SCENARIO-BEGIN %s\n" % n not in text)]
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


def ev(*lines):
    """Module events from 'event k=v ...' strings, as events() returns them."""
    return [(ln.split()[0], dict(kv.split("=", 1) for kv in ln.split()[1:])) for ln in lines]


PTR = "ptr name=p ptr=35ffff8000b7f800 tag=35 addr=ffffff8000b7f800 size=128 cache=k align=16"


def test_tags_shadow_must_cover_every_granule():
    ok = ev(PTR, "shadow of=p granule=16 granules=8 shadow=35*8,fe*1")
    assert scenarios.check_tags(ok, "sw_tags") == []
    assert scenarios.check_tags(ev(PTR, "shadow of=p granule=16 granules=8 shadow=35*9"),
                                "sw_tags") == []
    short = ev(PTR, "shadow of=p granule=16 granules=8 shadow=35*7,fe*2")
    assert scenarios.check_tags(short, "sw_tags") == [
        "p size 128: shadow 35*7,fe*2 is not tag 35 for all 8 granules"]
    other = ev(PTR, "shadow of=p granule=16 granules=8 shadow=36*8")
    assert len(scenarios.check_tags(other, "sw_tags")) == 1
    assert scenarios.check_tags(ev(PTR), "sw_tags") == ["no ptr/shadow lines"]
    assert scenarios.check_tags(ev("shadow of=p granule=16 granules=8 shadow=35*8", PTR),
                                "sw_tags") == ["no ptr/shadow lines"]


def test_tags_reserved_alignment_and_generic():
    for tag in ("fe", "ff"):
        e = ev(PTR.replace("tag=35", "tag=" + tag),
               "shadow of=p granule=16 granules=8 shadow=%s*8" % tag)
        assert scenarios.check_tags(e, "sw_tags") == ["allocation got reserved tag %s" % tag]
    e = ev(PTR.replace("tag=35", "tag=fd"), "shadow of=p granule=16 granules=8 shadow=fd*8")
    assert scenarios.check_tags(e, "sw_tags") == []
    e = ev(PTR.replace("align=16", "align=8"), "shadow of=p granule=16 granules=8 shadow=35*8")
    assert scenarios.check_tags(e, "sw_tags") == ["object ffffff8000b7f800 not 16-byte aligned"]
    gen = ev(PTR.replace("tag=35", "tag=ff"), "shadow of=p granule=8 granules=16 shadow=00*16")
    assert scenarios.check_tags(gen, "generic") == []
    assert scenarios.check_tags(ev(PTR, "shadow of=p granule=8 granules=16 shadow=00*16"),
                                "generic") == ["generic pointer has tag 35, expected ff"]


def rounds(cache, tags):
    return ["round cache=%s round=%d ptr=x tag=%s" % (cache, i, t) for i, t in enumerate(tags)]


def test_ctor_tag_rules():
    ok = ev(*rounds("kasan_lab_ctor", ["aa", "aa"]), *rounds("kasan_lab_plain", ["01", "02"]))
    assert scenarios.check_ctor_tag(ok, "sw_tags") == []
    bad = ev(*rounds("kasan_lab_ctor", ["aa", "ab"]), *rounds("kasan_lab_plain", ["01", "01"]))
    assert scenarios.check_ctor_tag(bad, "sw_tags") == [
        "ctor cache tags changed: ['aa', 'ab']", "plain cache kept one tag: ['01', '01']"]
    few = ev(*rounds("kasan_lab_ctor", ["aa", "aa"]), *rounds("kasan_lab_plain", ["01"]))
    assert scenarios.check_ctor_tag(few, "sw_tags") == ["missing rounds"]
    assert scenarios.check_ctor_tag(ev(*rounds("kasan_lab_ctor", ["aa"]),
                                       *rounds("kasan_lab_plain", ["01", "02"])),
                                    "sw_tags") == ["missing rounds"]
    gen = ev(*rounds("kasan_lab_ctor", ["ff", "ff"]), *rounds("kasan_lab_plain", ["ff", "ff"]))
    assert scenarios.check_ctor_tag(gen, "generic") == []
    assert scenarios.check_ctor_tag(ok, "generic") == ["generic tags not ff"]


def test_binomial_bounds_edges():
    assert scenarios.binomial_bounds(10000, 1 / 127) == (34, 123)   # 78.7 +- 5 sigma (8.84)
    assert scenarios.binomial_bounds(100, 0.5) == (25, 75)
    assert scenarios.binomial_bounds(10, 0.01) == (0, 2)
    assert scenarios.binomial_bounds(0, 0.5) == (0, 0)


COLL = ["result gap=0 rounds=10000 same_slot=10000 same_tag=0",
        "result gap=1 rounds=10000 same_slot=10000 same_tag=79",
        "result reserved_tags=0"]


def test_collision_rules():
    assert scenarios.check_collision(ev(*COLL), "sw_tags") == []
    assert scenarios.check_collision(ev(*COLL), "generic") == []
    assert scenarios.check_collision(ev(COLL[0]), "sw_tags") == ["missing result lines"]
    assert scenarios.check_collision(ev(COLL[1]), "sw_tags") == ["missing result lines"]
    e = ev(COLL[0].replace("same_tag=0", "same_tag=1"), *COLL[1:])
    assert len(scenarios.check_collision(e, "sw_tags")) == 1
    for k, ok in ((34, True), (33, False), (123, True), (124, False)):
        e = ev(COLL[0], COLL[1].replace("same_tag=79", "same_tag=%d" % k), COLL[2])
        assert (scenarios.check_collision(e, "sw_tags") == []) == ok, k
    e = ev(*COLL[:2], "result reserved_tags=3")
    assert scenarios.check_collision(e, "sw_tags") == ["reserved tags 0xfe/0xff were issued"]
    assert scenarios.check_collision(ev(*COLL[:2]), "sw_tags") == [
        "reserved tags 0xfe/0xff were issued"]
    hist = "hist from=f0 counts=" + ",".join(["1"] * 14 + ["0", "0"])
    assert scenarios.check_collision(ev(*COLL, hist), "sw_tags") == []
    hist = "hist from=f0 counts=" + ",".join(["1"] * 15 + ["2"])
    assert scenarios.check_collision(ev(*COLL, hist), "sw_tags") == [
        "histogram shows tags fe/ff: ['1', '2']"]


def segment(swtags_log, name):
    return swtags_log.split("KT-SCENARIO-BEGIN %s\n" % name)[1].split("KT-SCENARIO-END")[0]


def check(lines_text, name, mode="sw_tags"):
    exp = scenarios.load_expected()[name]
    return scenarios.check_scenario(name, lines_text.splitlines(), mode, exp)


def test_begin_end_and_access_required(swtags_log):
    for name in ("oob-in-granule", "match-all", "uaf"):
        seg = segment(swtags_log, name)
        assert check(seg, name) == []
        only = "\n".join(ln for ln in seg.splitlines()
                         if re.search(r"kasan_lab: %s (begin|end)" % name, ln))
        assert "no 'access' line: the scenario did not get that far" in check(only, name)
        no_end = "\n".join(ln for ln in seg.splitlines() if " end" not in ln)
        assert "scenario did not finish (no 'end' line)" in check(no_end, name)
        assert check("", name) == ["scenario did not start (no 'begin' line)"]
    seg = segment(swtags_log, "collision")
    only = "\n".join(ln for ln in seg.splitlines() if re.search(r"collision (begin|end)", ln))
    assert "no 'result' line: the scenario did not get that far" in check(only, "collision")


def test_free_report_tags_are_compared(swtags_log):
    seg = segment(swtags_log, "double-free")
    assert check(seg, "double-free") == []
    bad = re.sub(r"Pointer tag: \[([0-9a-f]{2})\]", "Pointer tag: [01]", seg)
    assert any("free report's pointer tag 01 is not the object's" in e
               for e in check(bad, "double-free"))


def test_report_tags_must_be_the_modules(swtags_log):
    seg = segment(swtags_log, "uaf")
    bad = re.sub(r"memory tag: \[([0-9a-f]{2})\]", "memory tag: [01]", seg)
    assert any(e.startswith("report tags") for e in check(bad, "uaf"))


def test_module_prediction_must_match(swtags_log):
    seg = segment(swtags_log, "uaf").replace("outcome=report", "outcome=missed")
    assert any("module predicts missed" in e for e in check(seg, "uaf"))
    seg = segment(swtags_log, "oob-in-granule").replace("outcome=missed", "outcome=report")
    assert any("module predicts report" in e for e in check(seg, "oob-in-granule"))


def test_report_in_a_non_lab_function(swtags_log):
    seg = segment(swtags_log, "uaf").replace("in lab_uaf", "in other_fn")
    assert any("report names other_fn, not a lab_ function" in e for e in check(seg, "uaf"))


def test_cut_lines_are_errors_not_crashes(swtags_log):
    seg = segment(swtags_log, "ctor-tag")
    cut = re.sub(r"(ctor-tag round cache=\S+) round=.*", r"\1", seg, count=1)
    errs = check(cut, "ctor-tag")
    assert any(e.startswith("check ctor_tag: a line lacks a field or is cut") for e in errs)


def test_results_must_match(swtags_log):
    seg = segment(swtags_log, "ptr-compare")
    assert check(seg, "ptr-compare") == []
    exp = scenarios.load_expected()["ptr-compare"]["sw_tags"]["results"]
    k, v = next(iter(exp.items()))
    bad = seg.replace("%s=%s" % (k, v), "%s=other" % k)
    assert "result %s=other, expected %s" % (k, v) in check(bad, "ptr-compare")


def test_ptr_without_shadow_is_not_a_pair():
    assert scenarios.check_tags(ev(PTR, "expect mode=sw_tags outcome=x"), "sw_tags") == [
        "no ptr/shadow lines"]


def test_collision_band_is_1_in_127_at_large_n():
    e = ev(COLL[0], "result gap=1 rounds=100000 same_slot=100000 same_tag=925", COLL[2])
    assert scenarios.check_collision(e, "sw_tags") == []


def test_garbage_in_a_segment_is_skipped(swtags_log):
    """Junk bytes are skipped like any non-report line: garbage alone is a
    scenario without a report, garbage around a real one changes nothing."""
    errs = check("kasan_lab: uaf begin\n" + "\x00" * 50 + "\nkasan_lab: uaf end\n", "uaf")
    assert "reports none, expected ['use-after-free read']" in errs
    seg = segment(swtags_log, "uaf")
    noisy = "\n".join("\x00\x1b[6n" + ln if i % 3 == 0 else ln
                      for i, ln in enumerate(seg.splitlines()))
    assert check(noisy, "uaf") == []


def test_hw_collision_check_edges():
    """Pinned by `make mutation`: a repeat count outside its band, and a
    histogram that counts a tag outside 0xf0..0xfd, are each an error; a
    histogram with zeros outside the range is not."""
    from labs import scenarios as sc
    res = {g: {"same_slot": "10000", "same_tag": str(round(10000 * p))}
           for g, p in sc.HW_REPEAT.items()}
    res["reserved"] = {"reserved_tags": "0"}
    ok_hist = [("hist", {"from": "ee", "counts": "0,0," + ",".join(["5"] * 14) + ",0,0"})]
    assert sc.check_collision_hw(ok_hist, res) == []
    bad_hist = [("hist", {"from": "ee", "counts": "1,0," + ",".join(["5"] * 14)})]
    assert sc.check_collision_hw(bad_hist, res) == ["histogram shows tag ee (1 times)"]
    far = {**res, 0: {"same_slot": "10000", "same_tag": "0"}}
    assert sc.check_collision_hw([], far)[0].startswith("gap 0: 0/10000 repeats, outside")


# -- the guest programs' scenarios: vm/init/expected.toml, per variant --------

QFQ_LOG = """KT-EXEC-BEGIN /qfq-lmax
KT-SCENARIO-BEGIN qfq-lmax
qfq-lmax: begin cve=CVE-2023-31436 fix=3037933448f6
qfq-lmax: mtu dev=lo set=600000 ret=0 mtu=600000
qfq-lmax: up dev=lo ret=0 flags=0x49
qfq-lmax: predict lmax=600014 txqlen=1000 min_slot_shift=25 index=25 max_index=24 oob=1
qfq-lmax: qdisc dev=lo kind=qfq handle=1: parent=root ret=0 msg=""
qfq-lmax: class dev=lo classid=1:1 weight=1 lmax=none ret=%(cls)s msg="%(msg)s"
qfq-lmax: access send to=127.0.0.1:5202 prio=0x10001 bytes=15
%(reports)s
qfq-lmax: sent ret=15
qfq-lmax: recv ret=%(recv)s delivered=%(delivered)s
qfq-lmax: end class=%(cls)s
KT-SCENARIO-END qfq-lmax
KT-EXEC-END /qfq-lmax
"""
# what the 6.1 tree's fix answers (vm/init/qfq_lmax.c's lines, as printed)
QFQ_FIXED = QFQ_LOG % dict(cls=-22, msg="sch_qfq: MTU size out of bounds for qfq", reports="",
                           recv=-11, delivered=0)


def qfq_report(swtags_log, offset):
    """The fixture's first sw-tags report (KUnit's kmalloc_oob_right), made
    into the read that vm/init/expected.toml predicts for exp-qfq-revert."""
    lines = swtags_log.splitlines()
    bug = next(i for i, ln in enumerate(lines) if "BUG: KASAN: slab-out-of-bounds in" in ln)
    end = next(i for i in range(bug + 1, len(lines)) if lines[i].endswith("=" * 66))
    rep = "\n".join(lines[bug - 1:end + 1])
    for old, new in (("Write of size 1", "Read of size 4"), ("kmalloc_oob_right", "qfq_activate_agg"),
                     ("kunit_try_catch", "qfq-lmax"),
                     ("kmalloc-128 of size 128", "kmalloc-8k of size 8192"),
                     ("112 bytes inside of", "%d bytes inside of" % offset),
                     ("128-byte region", "8192-byte region")):
        assert old in rep, old
        rep = rep.replace(old, new)
    return rep


def test_program_expectations_name_the_programs_and_their_kernels():
    assert scenarios.program_expected_errors() == []


def test_program_expectation_errors_are_found(tmp_path):
    bad = tmp_path / "expected.toml"
    bad.write_text('[nope]\n[qfq-lmax]\nevnts = []\n[qfq-lmax.variants.swtags]\nreports = []\n'
                   '[qfq-lmax.variants.swtags-qfq]\nreports = ["x read"]\nfields = []\n'
                   'colour = 1\n')
    errs = [e.split(": ", 1)[1] for e in scenarios.program_expected_errors(str(bad))]
    assert errs == ["[nope] is not a program scenario (vm/initramfs.py: PROGRAMS)",
                    "[qfq-lmax] unknown key 'evnts'",
                    "[qfq-lmax.variants.swtags] is not a variant with CONFIG_NET_SCH_QFQ=y",
                    "[qfq-lmax.variants.swtags-qfq] unknown key 'colour'",
                    "[qfq-lmax.variants.swtags-qfq] has 0 fields for 1 reports"]


def test_a_program_log_is_checked_against_its_variant(swtags_log):
    assert scenarios.check_program_log(QFQ_FIXED, "swtags-qfq") == [("qfq-lmax", [])]
    assert dict(scenarios.check_program_log(QFQ_FIXED, "exp-qfq-revert"))["qfq-lmax"] == [
        "reports none, expected ['slab-out-of-bounds read', 'slab-out-of-bounds read']",
        "class ret=-22, expected 0", "recv delivered=0, expected 1"]
    reverted = QFQ_LOG % dict(cls=0, msg="", recv=15, delivered=1, reports="\n".join(
        qfq_report(swtags_log, off) for off in (7904, 7908)))
    assert scenarios.check_program_log(reverted, "exp-qfq-revert") == [("qfq-lmax", [])]
    # the generic kernel's reports are generic ones
    assert "report 1: mode=sw-tags, expected generic" in \
        dict(scenarios.check_program_log(reverted, "exp-qfq-revert-generic"))["qfq-lmax"]
    cut = QFQ_FIXED.split("qfq-lmax: access")[0] + "KT-SCENARIO-END qfq-lmax\n"
    errs = dict(scenarios.check_program_log(cut, "swtags-qfq"))["qfq-lmax"]
    assert "no 'access' line: the scenario did not get that far" in errs
    assert scenarios.check_program_log("KT-INIT-START\n", "swtags-qfq") == [
        ("qfq-lmax", ["scenario not run (no KT-SCENARIO-BEGIN qfq-lmax)"])]
    assert scenarios.check_program_log(QFQ_FIXED, "exp-fixed-tag") == [
        ("qfq-lmax", ["vm/init/expected.toml has no row for qfq-lmax on variant exp-fixed-tag"])]


def test_a_program_report_is_checked_field_by_field(swtags_log):
    reverted = QFQ_LOG % dict(cls=0, msg="", recv=15, delivered=1, reports="\n".join(
        (qfq_report(swtags_log, 7904), qfq_report(swtags_log, 7904).replace(
            "qfq_activate_agg", "qfq_slot_insert").replace("Read of", "Write of"))))
    assert dict(scenarios.check_program_log(reverted, "exp-qfq-revert"))["qfq-lmax"] == [
        "reports ['slab-out-of-bounds read', 'slab-out-of-bounds write'], expected "
        "['slab-out-of-bounds read', 'slab-out-of-bounds read']",
        "report 2 names qfq_slot_insert, not one of qfq_activate_agg",
        "report 2: offset=7904, expected 7908"]
