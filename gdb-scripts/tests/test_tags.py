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
