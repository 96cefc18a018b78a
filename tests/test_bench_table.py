# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""bench/table.py: the bench table and its computed sentences, on made-up results."""
from bench import table

COVER = {"boot_s": {"none": 1.7, "generic": 5.0, "swtags": 5.0},
         "tcp_mbit": {"none": 8330, "generic": 3170, "swtags": 2850},
         "slab_kb": {"none": 40, "generic": 105, "swtags": 47}}


def results(brk_tcp=2000, brk_insn=3e9):
    base = {"reserved_kb": 10000, "image_kb": 3000, "depot_kb": 0, "ram_kb": 524288}
    r = {m: dict(base) for m in table.MODES}
    for m, tcp, insn in (("none", 5000, 1e9), ("generic", 2000, 3e9), ("swtags", 500, 6e9),
                         ("swtags-outline", 400, 7e9), ("swtags-brk", brk_tcp, brk_insn)):
        r[m].update(tcp_mbit=tcp, insn_per_tcp_mb=insn, boot_s=1.0, slab_kb=3000)
    r["generic"]["reserved_kb"] = 10000 + 65536 + 8192
    r["generic"]["depot_kb"] = 8192
    r["swtags"]["reserved_kb"] = 10000 + 32768
    return r


def test_rows_and_shadow_share():
    rows = dict(table.rows(results()))
    assert rows["loopback TCP, Mbit/s"] == ["5000", "2000", "500", "400", "2000", "--"]  # no hwtags row: "--"
    assert rows["shadow, share of RAM"][:3] == ["--", "1/8.0", "1/16.0"]
    assert rows["kmalloc+kfree, ns, kasan.stacktrace=off"] == ["--"] * 6


def test_ratio_rows_put_2018_beside_the_brk_kernel():
    rows = dict(table.ratio_rows(results(), COVER))
    assert rows["TCP throughput"] == ["0.40", "0.38", "0.10", "0.40", "0.34"]
    assert rows["instructions per TCP MiB"] == ["3.00", "--", "6.00", "3.00", "--"]


def test_gap_sentences_follow_the_numbers():
    closes = table.gap_sentences(results())
    assert closes[0] == ("loopback TCP throughput: swtags 0.25 x generic's speed, swtags-brk "
                         "1.00 x -- inlining every check closes the gap: swtags-brk is as fast "
                         "as generic or faster.")
    assert "closes the gap" in closes[1]
    narrows = table.gap_sentences(results(brk_tcp=1000, brk_insn=4.5e9))
    assert "narrows the gap" in narrows[0] and "narrows the gap" in narrows[1]
    same = table.gap_sentences(results(brk_tcp=500, brk_insn=6e9))
    assert "does not close the gap" in same[0]
    r = results()
    del r["swtags-brk"]["tcp_mbit"]
    assert not any(s.startswith("loopback") for s in table.gap_sentences(r))


def test_text_and_rst_render():
    meta = {"qemu": "QEMU 7.2", "machine": "m", "runs": 5, "date": "d"}
    txt = table.text(results(), meta, COVER)
    assert "swtags-brk" in txt.splitlines()[1] and "closes the gap" in txt
    rst = table.rst(results(), meta, COVER)
    assert ".. list-table:: Ratios to the kernel without KASAN" in rst
    assert "* loopback TCP throughput" in rst


def test_each_row_is_timed_on_its_own_qemu():
    """hwtags boots on virt-mte (QEMU from bookworm-backports): its -icount
    twin is virt-mte-icount, the others' virt-icount."""
    from bench import kasan_modes
    assert kasan_modes.icount_machine("hwtags").name == "virt-mte-icount"
    assert kasan_modes.icount_machine("swtags").name == "virt-icount"
    assert "hwtags" in kasan_modes.TAG_MODES and "generic" not in kasan_modes.TAG_MODES
    assert dict(table.rows({"none": {"qemu": "QEMU emulator version 7.2.11"}}))["QEMU"][0] == \
        "QEMU emulator version 7.2.11"


def test_the_page_shows_the_own_run_else_the_kept_one(tmp_path):
    from bench import table
    assert table.last_results(str(tmp_path)) == (None, "")
    for d, date in ((table.KEPT, "kept"), (table.OWN, "own")):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "results.json").write_text('{"meta": {"date": "%s"}}' % date)
        data, where = table.last_results(str(tmp_path))
        assert (data["meta"]["date"], where) == (date, d)
