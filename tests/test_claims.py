# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The claim ledger (Documentation/claims.toml, page_claims.py): every row
names a measurement that exists; every row that the stored runs, the 6.1
tree or the built kernels can measure is measured again here and must get
the verdict the ledger states -- a figure that moves fails here, not only
on the page.  Timings stay "cannot be measured under TCG"."""

import pytest

from Documentation.tools import page_claims

CLAIMS = page_claims.load_claims()
KINDS = {"exact", "measured", "tcg", "qemu", "kernels"}
VERDICTS = {"holds", "differs", page_claims.TCG, "cannot be measured under QEMU"}


def test_rows_are_complete():
    ids = [c["id"] for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c["measure"] in page_claims.MEASURES, c["id"]
        assert c["kind"] in KINDS and c["expect"] in VERDICTS, c["id"]
        assert c["source"] and c["claim"], c["id"]
        if c["kind"] == "tcg":
            assert c["expect"] == page_claims.TCG, c["id"]


def test_the_ledger_has_the_rows_the_pages_quote():
    """The cover letter's figures, each mode's Kconfig figures, the code
    size per mode, and the default kernel's brk count."""
    measures = {c["measure"] for c in CLAIMS}
    assert {"shadow_scale", "slab_overhead", "tag_collisions", "bench_boot", "bench_tcp",
            "shadow_reserved_generic", "shadow_reserved_swtags", "hwtags_memory",
            "text_size", "brk_sites"} <= measures


@pytest.mark.parametrize("claim", CLAIMS, ids=[c["id"] for c in CLAIMS])
def test_each_row_measures_to_its_stated_verdict(claim):
    measured, verdict, note = page_claims.MEASURES[claim["measure"]](claim)
    if verdict == page_claims.NOT_HERE:
        pytest.skip("%s: %s" % (claim["id"], measured))
    assert verdict == claim["expect"], (measured, note)


def test_exact_rows_are_exact():
    """The shadow scale and the tag counts are values, not estimates."""
    rows = {c["measure"]: c for c in CLAIMS}
    m, verdict, _ = page_claims.m_shadow_scale(rows["shadow_scale"])
    if verdict != page_claims.NOT_HERE:
        assert "1/16 and 1/8" in m
    m, verdict, _ = page_claims.m_tag_collisions(rows["tag_collisions"])
    if verdict != page_claims.NOT_HERE:
        assert m.startswith("6.1 draws 254 tags") and " 0/10000 " in m
    m, _, _ = page_claims.m_hwtags_tags(rows["hwtags_tags"])
    assert m == "14 tags drawn: f0..fd"


def test_verdict_helpers_on_planted_figures():
    assert page_claims.within(1 / 15.3, 1 / 16, 0.10)
    assert not page_claims.within(1 / 12, 1 / 16, 0.10)
    assert page_claims.frac(0.0625) == "1/16.0"


def test_the_table_renders_one_row_per_claim():
    rows = [dict(c, measured="m *x*", verdict="holds", note="") for c in CLAIMS]
    text = page_claims.table_rst(rows)
    assert text.count("\n   * - ") == len(CLAIMS) + 1
    assert "m \\*x\\*" in text


def test_a_bench_row_without_bench_says_where_it_comes_from(monkeypatch):
    monkeypatch.setattr(page_claims, "bench", lambda: None)
    m, verdict, why = page_claims.m_bench_boot({})
    assert verdict == page_claims.TCG and "make bench" in m and "TCG" in why
    monkeypatch.setattr(page_claims, "bench", lambda: {
        "none": {"boot_s": 2.0}, "generic": {"boot_s": 5.0}, "swtags": {"boot_s": 4.0}})
    m, verdict, _ = page_claims.m_bench_boot({})
    assert "generic x2.50" in m and "swtags x2.00" in m and verdict == page_claims.TCG


def test_every_row_says_where_its_figures_come_from():
    for r in page_claims.evaluate():
        assert r["origin"], r["id"]
        if r["verdict"] == page_claims.NOT_HERE:
            assert r["origin"].startswith("not measured"), r["id"]
    assert page_claims.origin({"measure": "bench_boot"}, page_claims.NOT_HERE).startswith(
        "not measured")


def test_the_brk_row_falls_back_to_the_bench_run(monkeypatch):
    """No kernel built here: the kept bench run's counts, and the row says so."""
    monkeypatch.setattr(page_claims, "kernel_code_from", lambda: ({}, "kernels built here"))
    monkeypatch.setattr(page_claims, "bench", lambda: {
        "swtags": {"brk_9xx": 0, "outlined_check_calls": 7}, "swtags-brk": {"brk_9xx": 9}})
    monkeypatch.setattr(page_claims, "bench_from", lambda: "bench/stored/results.json, host H")
    m, verdict, _ = page_claims.m_brk_sites({})
    assert verdict == "holds" and "0 brk #0x9xx, 7 calls" in m and "9 brk" in m
    assert page_claims.origin({"measure": "brk_sites"}, verdict).endswith("host H")
    monkeypatch.setattr(page_claims, "bench", lambda: None)
    assert page_claims.m_brk_sites({})[1] == page_claims.NOT_HERE


def test_the_slab_row_reads_the_letters_kb_as_overheads():
    """105 against 40 kB is +162.5% (its "~260%" is the ratio); 47 against 40, +17.5%."""
    m, verdict, _ = page_claims.m_slab_overhead({"tolerance": 0.10})
    if verdict != page_claims.NOT_HERE:
        assert "claimed +162.5%" in m and "claimed +17.5%" in m and "260" not in m
