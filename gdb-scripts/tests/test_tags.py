# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The pure tag/shadow/ESR helpers behind the gdb commands."""
import pytest

from kasan import tags

SW = tags.Params("sw_tags", 0xefffffc000000000)
GEN = tags.Params("generic", 0xdfffffc000000000)


def test_tag_and_untag():
    p = 0x35ffff8000b7f870
    assert tags.tag_of(p) == 0x35
    assert tags.untag(p) == 0xffffff8000b7f870
    assert tags.set_tag(0xffffff8000b7f870, 0x35) == p
    assert tags.is_kernel_address(p) and not tags.is_kernel_address(0x1234)


def test_shadow_address_matches_the_kernel():
    # seen in a live VM: kasan-tag 0x26ffff8001003d00 -> shadow 0xffffffb8001003d0
    assert tags.mem_to_shadow(0x26ffff8001003d00, SW) == 0xffffffb8001003d0
    # the tag does not change the shadow address
    assert tags.mem_to_shadow(0xffffff8001003d00, SW) == 0xffffffb8001003d0
    assert tags.mem_to_shadow(0xffffff8001003d00, GEN) == \
        ((0xffffff8001003d00 >> 3) + 0xdfffffc000000000) & tags.MASK64


def test_access_rule():
    assert tags.access_passes(0x35, 0x35)
    assert tags.access_passes(0xFF, 0xFE)       # match-all
    assert not tags.access_passes(0x35, 0xFE)


def test_esr_decoding():
    c = tags.ESR_CONSTANTS_6_1
    d = tags.decode_esr(0xF2000930, c)
    assert d["is_brk"] and d["is_kasan"] and d["recover"] and d["write"] and d["size"] == 1
    d = tags.decode_esr(0xF2000923, c)
    assert not d["write"] and d["size"] == 8
    assert not tags.decode_esr(0xF2000800, c)["is_kasan"]      # BUG_BRK_IMM
    assert not tags.decode_esr(0x96000004, c)["is_brk"]        # a data abort
    with pytest.raises(tags.KasanError):
        tags.decode_esr(1 << 40, c)
    assert "not recoverable" in "\n".join(tags.format_esr(tags.decode_esr(0xF2000910, c), c))


def test_defines_from_headers():
    text = "#define KASAN_BRK_IMM\t\t\t0x900\n#define KASAN_BRK_MASK\t\t\t0x0ff\n"
    assert tags.parse_defines(text, ["KASAN_BRK_IMM", "KASAN_BRK_MASK"]) == {
        "KASAN_BRK_IMM": 0x900, "KASAN_BRK_MASK": 0xFF}


def test_params_from_config():
    cfg = tags.parse_config('CONFIG_KASAN_SW_TAGS=y\nCONFIG_KASAN_SHADOW_OFFSET=0xefffffc000000000\n')
    p = tags.params_from_config(cfg)
    assert p.mode == "sw_tags" and p.granule == 16
    with pytest.raises(tags.KasanError, match="not a KASAN kernel"):
        tags.params_from_config({"CONFIG_KASAN_SHADOW_OFFSET": "0x0"})


def test_shadow_rows_like_a_report():
    start = tags.row_start(0x26ffff8001003d00, SW)
    assert start == 0xffffff8001003b00
    rows = tags.shadow_rows(0x26ffff8001003d10, [0xFE] * 80, start, SW)
    assert rows[2].startswith(">ffffff8001003d00: fe") and rows[3].strip() == "^"
    assert rows[3].index("^") == 1 + 16 + 2 + 3


def test_generic_shadow_values():
    assert tags.describe_generic(0) == "all 8 bytes accessible"
    assert "this byte is not" in tags.describe_generic(3, 5)
    assert "freed slab object" in tags.describe_generic(0xFB)


def test_u64_wraps_at_64_bits():
    assert tags.to_u64(-1) == 0xFFFFFFFFFFFFFFFF
    assert tags.to_u64(1 << 64) == 0
    assert tags.set_tag(-1, 0x12) == 0x12FFFFFFFFFFFFFF
    assert tags.tag_of(0x12 << 56) == 0x12 and tags.tag_of(1 << 64) == 0


def test_reserved_tags():
    # include/linux/kasan-tags.h in 6.1: KASAN_TAG_KERNEL 0xFF, KASAN_TAG_INVALID 0xFE
    assert (tags.TAG_KERNEL, tags.TAG_INVALID, tags.TAG_SHIFT) == (0xFF, 0xFE, 56)


def test_kernel_address_needs_all_eight_bits():
    assert tags.is_kernel_address(0x00FF000000000000)
    for bad in (0x00F0000000000000, 0x000F000000000000, 0x007F000000000000,
                0x00FE000000000000, 0xFF7FFFFFFFFFFFFF):
        assert not tags.is_kernel_address(bad), hex(bad)


def test_memory_tag_ff_is_not_match_all():
    assert not tags.access_passes(0x35, 0xFF)     # untagged memory, tagged pointer
    assert tags.access_passes(0xFF, 0xFF) and tags.access_passes(0xFF, 0x35)
    assert not tags.access_passes(0x35, 0x36)


def test_describe_tag_by_role():
    # 0xff in memory is what kasan_unpoison() writes for an untagged pointer;
    # memory nothing tagged reads 0xfe in 6.1 (KASAN_SHADOW_INIT), not 0xff
    assert tags.describe_tag(0xFF) == ("0xff KASAN_TAG_KERNEL: unpoisoned through an "
                                       "untagged pointer (only a 0xff pointer passes)")
    assert "untagged memory" not in tags.describe_tag(0xFF)
    assert tags.describe_tag(0xFF, memory=False) == ("0xff KASAN_TAG_KERNEL: match-all, "
                                                     "never checked")
    assert tags.describe_tag(0xFE) == (
        "0xfe KASAN_TAG_INVALID: no allocation owns it (a freed object, a redzone, a free "
        "page, invalid vmalloc; sw-tags: also shadow never tagged)")
    assert "never gives a pointer" in tags.describe_tag(0xFE, memory=False)
    assert tags.describe_tag(0x0A) == "0x0a" and tags.describe_tag(0xFD) == "0xfd"


def test_generic_poison_values_are_6_1s():
    # mm/kasan/kasan.h (6.1, CONFIG_KASAN_GENERIC): KASAN_PAGE_FREE 0xFF,
    # KASAN_PAGE_REDZONE 0xFE, KASAN_SLAB_REDZONE 0xFC, KASAN_SLAB_FREE 0xFB,
    # KASAN_SLAB_FREETRACK 0xFA, KASAN_GLOBAL_REDZONE 0xF9,
    # KASAN_VMALLOC_INVALID 0xF8, KASAN_STACK_LEFT..PARTIAL 0xF1..0xF4,
    # KASAN_ALLOCA_LEFT/RIGHT 0xCA/0xCB
    assert {k: v.split()[0] for k, v in tags.GENERIC_POISON.items()} == {
        0xFF: "freed", 0xFE: "kmalloc_large", 0xFC: "slab", 0xFB: "freed", 0xFA: "freed",
        0xF9: "global", 0xF8: "vmalloc", 0xF1: "stack", 0xF2: "stack", 0xF3: "stack",
        0xF4: "stack", 0xCA: "alloca", 0xCB: "alloca"}
    assert tags.GENERIC_POISON[0xFB] == "freed slab object"
    assert tags.GENERIC_POISON[0xFA] == "freed object (free track)"


def test_generic_shadow_zero_is_all_eight_bytes():
    assert tags.describe_generic(0) == "all 8 bytes accessible"
    assert tags.describe_generic(0, 7) == "all 8 bytes accessible"


def test_generic_shadow_edges():
    assert tags.describe_generic(1, 0) == "first 1 bytes accessible"
    assert tags.describe_generic(7, 6) == "first 7 bytes accessible"
    assert tags.describe_generic(7, 7) == "first 7 bytes accessible (this byte is not)"
    assert tags.describe_generic(8) == "poisoned: unknown (0x08)"
    assert tags.describe_generic(0xFC) == "poisoned: slab redzone (0xfc)"


def test_every_esr_bit():
    c = tags.ESR_CONSTANTS_6_1
    for imm, write, recover, size in ((0x900, False, False, 1), (0x911, True, False, 2),
                                      (0x922, False, True, 4), (0x933, True, True, 8),
                                      (0x924, False, True, 16)):
        d = tags.decode_esr((0x3C << 26) | (1 << 25) | imm, c)
        assert (d["ec"], d["il"], d["imm"], d["is_brk"], d["is_kasan"]) == (
            0x3C, 1, imm, True, True)
        assert (d["write"], d["recover"], d["size"]) == (write, recover, size), hex(imm)
    assert tags.decode_esr(0x3C << 26 | 0x930, c)["il"] == 0
    # the KASAN range is brk #0x900..#0x9ff
    assert tags.decode_esr(0xF20009FF, c)["is_kasan"]
    assert not tags.decode_esr(0xF20008FF, c)["is_kasan"]
    assert not tags.decode_esr(0xF2000A00, c)["is_kasan"]
    assert not tags.decode_esr(0xE2000930, c)["is_kasan"]     # EC 0x38, not BRK64
    assert tags.decode_esr(0xFFFFFFFF, c)["imm"] == 0xFFFF
    with pytest.raises(tags.KasanError, match="does not fit in 32 bits"):
        tags.decode_esr(1 << 32, c)
    assert tags.decode_esr((1 << 32) - 1, c)["esr"] == 0xFFFFFFFF


def test_format_esr_lines():
    c = tags.ESR_CONSTANTS_6_1
    assert tags.format_esr(tags.decode_esr(0x96000004, c), c) == [
        "ESR 0x96000004: EC 0x25 (not a brk), IL 1, immediate 0x004",
        "not a KASAN brk (KASAN uses brk #0x900..#0x9ff)"]
    lines = tags.format_esr(tags.decode_esr(0xF2000930, c), c)
    assert lines == [
        "ESR 0xf2000930: EC 0x3c (BRK64, a brk instruction), IL 1, immediate 0x930",
        "KASAN brk: 0x930 = KASAN_BRK_IMM 0x900 | RECOVER 0x20 | WRITE 0x10 | size log2 0",
        "write of 1 byte(s); recoverable: kasan_handler reports, then pc += 4 and the "
        "kernel goes on"]
    assert tags.format_esr(tags.decode_esr(0xF2000903, c), c)[1:] == [
        "KASAN brk: 0x903 = KASAN_BRK_IMM 0x900 | (read) size log2 3",
        "read of 8 byte(s); not recoverable: kasan_handler reports and calls die()"]


def test_generic_default_offset_is_the_first_byte():
    assert tags.describe_generic(1) == "first 1 bytes accessible"


def test_hw_tags_has_no_shadow():
    cfg = tags.parse_config("CONFIG_KASAN_HW_TAGS=y\nCONFIG_ARM64_MTE=y\n")
    p = tags.params_from_config(cfg)
    assert p.mode == "hw_tags" and p.tagged and not p.has_shadow and p.granule == 16
    with pytest.raises(tags.KasanError, match="no shadow memory"):
        tags.mem_to_shadow(0xf3ffff8001003d00, p)
    assert SW.has_shadow and GEN.has_shadow and not GEN.tagged


def test_allocation_tag_output():
    assert tags.parse_allocation_tag("$1 = 0xb\n") == 0xFB
    assert tags.parse_allocation_tag("$2 = 14") == 0xFE
    assert tags.parse_allocation_tag("Memory tagging not supported") is None
    assert tags.parse_allocation_tag("") is None


def test_hw_tag_lines_never_guess_the_memory_tag():
    out = "\n".join(tags.hw_tag_lines(0xf3ffff8001003d08, None))
    assert "pointer tag: f3" in out and "granule:     0xffffff8001003d00" in out
    assert "not readable here" in out and "access:" not in out
    out = "\n".join(tags.hw_tag_lines(0xf3ffff8001003d08, 0xFE))
    assert "memory tag:  fe" in out and "FAILS" in out
    assert "passes (tags equal)" in "\n".join(tags.hw_tag_lines(0xf3ffff8001003d08, 0xF3))
    assert "not one of them" in "\n".join(tags.hw_tag_lines(0x35ffff8001003d08, None))
