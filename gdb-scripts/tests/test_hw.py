# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-decode on a real hardware tag-based KASAN log: the KASAN KUnit
suite and every lab scenario on the project's hwtags kernel (6.1, arm64
MTE under QEMU's -M virt,mte=on), captured by `make fixtures` into
fixtures/hwtags.log.xz.  A hw-tags report from a tag check fault has tags
but no access size (the fault gives none), and its memory state rows are
memory tags read from tag storage, not shadow."""
import json
import lzma
import os

import pytest

from conftest import FIXTURES
from kasan import report
from test_decode_cli import run


@pytest.fixture(scope="module")
def raw():
    path = os.path.join(FIXTURES, "hwtags.log.xz")
    if not os.path.exists(path):
        pytest.fail("missing fixture %s: run `make fixtures`" % path)
    return lzma.open(path).read()


@pytest.fixture(scope="module")
def reports(raw):
    return report.parse_reports(raw.decode(errors="replace"))


def test_every_report_found_whole_and_hw_tags(raw, reports):
    assert len(reports) == raw.count(b"BUG: KASAN: ") == 92
    assert {r["mode"] for r in reports} == {"hw-tags"}
    assert not any(r["truncated"] or r["interleaved"] for r in reports)
    assert report.detect_mode(raw.decode(errors="replace")) == "hw-tags"


def test_tags_in_the_mte_range_and_no_size(reports):
    # A tag check fault gives no size; the software checks hw-tags still
    # makes (e.g. krealloc's kasan_check_byte) say "Read of size 1".
    acc = [r for r in reports if r["access"] in ("read", "write")]
    assert {r["size"] for r in acc} == {0, 1}
    assert sum(r["size"] == 0 for r in acc) > 3 * sum(r["size"] == 1 for r in acc)
    for r in reports:
        for t in (r["pointer_tag"], r["memory_tag"]):
            assert t is None or int(t, 16) >= 0xF0, r["title"]


def test_a_lab_report_field_by_field(reports):
    r = next(x for x in reports if x["function"] == "lab_uaf")
    assert (r["bug_type"], r["access"], r["cache"], r["object_size"]) == (
        "use-after-free", "read", "kmalloc-128", 128)
    assert r["memory_tag"] == "fe" and r["pointer_tag"] != "fe"
    assert r["alloc_stack"] and r["free_stack"]


def test_decode_says_hw_tags(raw):
    p = run(["--json", "-"], raw)
    assert p.returncode == 0, p.stderr
    objs = [json.loads(ln) for ln in p.stdout.splitlines()]
    assert len(objs) == 92 and {o["mode"] for o in objs} == {"hw-tags"}
    text = run(["-"], raw).stdout.decode()
    assert "(hw-tags: the CPU's fault gives no size)" in text
    assert "the tag in tag storage of the granule" in text
    assert "memory tags row " in text and "shadow row" not in text
