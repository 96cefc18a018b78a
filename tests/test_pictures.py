# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Documentation/tools/pictures.py on real captured data: each SVG parses,
and carries the run's values as text and in its aria-label."""
import xml.etree.ElementTree as ET

import pytest

from Documentation.tools import pictures
from kasan import report
from labs import scenarios
from labs.lab import by_number
from tests.graderlib import load

NS = "{http://www.w3.org/2000/svg}"


def texts(svg):
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg" and root.get("role") == "img" and root.get("aria-label")
    return root, " ".join(t.text or "" for t in root.iter(NS + "text"))


def first_report(log, scn):
    return report.parse_reports("\n".join(scenarios.segments(log)[scn]))[0]


def test_pointer_shows_every_byte_and_the_tag():
    root, t = texts(pictures.pointer(0xB3FFFF8001011580))
    assert "b3" in t.split() and "tag 0xb3" in t and "0xffffff8001011580" in t
    assert "tag 0xb3" in root.get("aria-label")


def test_tag_map_of_a_real_swtags_report(swtags_log):
    r = first_report(swtags_log, "uaf-realloc")
    root, t = texts(pictures.tag_map(r))
    buggy = r["buggy_row"]["bytes"]
    assert " ".join(buggy) in root.get("aria-label")
    assert "pointer tag %s, memory tag %s" % (r["pointer_tag"], r["memory_tag"]) in t
    assert "bad access (framed)" in t


def test_tag_map_of_a_real_generic_report(generic_log):
    r = first_report(generic_log, "oob-in-granule")
    root, t = texts(pictures.tag_map(r))
    assert "one cell = 8 bytes" in t and "03" in t.split()


def test_tag_map_refuses_a_report_without_memory_state(swtags_log):
    r = dict(first_report(swtags_log, "uaf"), memory_state=[])
    with pytest.raises(ValueError, match="no buggy memory-state row"):
        pictures.tag_map(r)


def test_scenario_strip_frames_the_access():
    root, t = texts(pictures.scenario_strip("sw-tags, oob-in-granule", "sw_tags", "6e*8,fe*1",
                                            0xFFFFFF8001011600, 16, 0xFFFFFF800101167D,
                                            "6e", "6e"))
    assert t.split().count("6e") >= 8 and "access (not reported)" in t
    assert "access at 0xffffff800101167d" in root.get("aria-label")


def test_chain_from_a_captured_backtrace():
    gdb = load(by_number(2).folder, "brk", "gdb")
    from labs.lab import backtrace, gdb_sections
    frames = backtrace(gdb_sections(gdb)["backtrace"])
    assert [f for f, _ in frames[:2]] == ["kasan_handler", "call_break_hook"]
    root, t = texts(pictures.chain("brk path", frames))
    assert "kasan_handler" in t and "arch/arm64/kernel/traps.c" in t
    assert root.get("aria-label").endswith("call_break_hook -> kasan_handler")


def test_anatomy_marks_the_parts(swtags_log):
    lines = [report.clean(ln) for ln in "\n".join(scenarios.segments(swtags_log)["uaf"]).splitlines()]
    start = next(i for i, ln in enumerate(lines) if "BUG: KASAN" in ln)
    root, t = texts(pictures.anatomy(lines[start:], max_lines=200))
    for part in ("title", "access", "tags", "stacks", "object", "memory state"):
        assert "%s at line" % part in root.get("aria-label"), part


def test_outcomes_says_which_match():
    root, t = texts(pictures.outcomes([("no-tbi", "silent", "silent"),
                                       ("fixed-tag", "same", "misses-bugs"),
                                       ("no-brk-hook", None, None)]))
    assert "silent  = prediction" in t and "misses-bugs  differs" in t and "(not run)" in t
    root, t = texts(pictures.outcomes([("no-tbi", "silent", "silent")], predictions=False))
    assert "predicted" not in t and "silent" not in root.get("aria-label").split("measured")[0]


def test_shadow_map_from_a_captured_run():
    """Lab 1's slab run: the pointer, the shadow address and the memory tag
    kasan-tag printed give the offset back, and each step of the arithmetic."""
    from labs.lab import gdb_sections
    gdb = load(by_number(1).folder, "slab", "gdb")
    kv = dict((k.strip(), v.strip()) for k, _, v in
              (ln.partition(":") for ln in gdb_sections(gdb)["kasan-tag"]) if _)
    ptr, shadow = int(kv["pointer"], 16), int(kv["shadow"], 16)
    out = pictures.shadow_map(ptr, shadow, kv["memory tag"].split()[0])
    root = ET.fromstring(out)
    untagged = ptr | (0xFF << 56)
    assert "0x%016x" % untagged in out and "0x%016x" % (untagged >> 4) in out
    offset = (shadow - (untagged >> 4)) & ((1 << 64) - 1)
    assert "0x%016x" % offset in root.get("aria-label")
    assert "memory tag %s" % kv["memory tag"].split()[0] in out
