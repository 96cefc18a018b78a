# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-decode on a real x86_64 log: the KASAN KUnit suite on the project's
x86-generic kernel (6.1, generic KASAN, QEMU pc), captured by
`make fixtures` into fixtures/x86-generic.log.xz.  x86 prints `Call Trace:`
inside <TASK> ... </TASK> and marks unreliable frames with "? "."""
import lzma
import os

import pytest

from kasan import report

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                       "x86-generic.log.xz")


@pytest.fixture(scope="module")
def text():
    if not os.path.exists(FIXTURE):
        pytest.fail("missing fixture %s: run `make fixtures`" % FIXTURE)
    with lzma.open(FIXTURE, "rt") as f:
        return f.read()


@pytest.fixture(scope="module")
def reports(text):
    return report.parse_reports(text)


def test_every_report_found_complete_and_generic(text, reports):
    assert len(reports) == text.count("BUG: KASAN: ") == 76
    assert all(not r["truncated"] and not r["interleaved"] for r in reports)
    assert {r["mode"] for r in reports} == {"generic"}
    assert all(r["pointer_tag"] is None and r["memory_tag"] is None for r in reports)


def test_the_first_report_field_by_field(reports):
    r = reports[0]
    assert (r["title"], r["bug_type"], r["access"], r["size"], r["addr"]) == (
        "KASAN: slab-out-of-bounds Write in kmalloc_oob_right", "slab-out-of-bounds",
        "write", 1, "ffff888000de7973")
    assert (r["task"], r["pid"], r["cache"], r["object_size"], r["object"], r["offset"],
            r["relation"]) == ("kunit_try_catch", 14, "kmalloc-128", 128, "ffff888000de7900",
                               115, "inside")
    assert r["buggy_row"]["addr"] == "ffff888000de7900"
    assert r["buggy_row"]["bytes"][14:] == ["03", "fc"]


def test_call_trace_drops_unreliable_frames_and_task_markers(text, reports):
    assert " ? kmalloc_oob_right+0x2c6/0x317" in text and "<TASK>" in text
    assert reports[0]["call_trace"] == [
        "dump_stack_lvl+0x5c/0x6d", "print_report+0x191/0x4a1", "kasan_report+0xa8/0xd4",
        "kmalloc_oob_right+0x2c6/0x317", "kunit_try_run_case+0xdc/0x1c4",
        "kunit_generic_run_threadfn_adapter+0x4b/0x77", "kthread+0x1d0/0x200",
        "ret_from_fork+0x1f/0x30"]
    assert reports[0]["alloc_stack"][-1] == "ret_from_fork+0x1f/0x30"


def test_frees_have_their_free_stack_and_caller(reports):
    by_title = {r["title"]: r for r in reports}
    df = by_title["KASAN: double-free in kmem_cache_double_free"]
    assert (df["cache"], df["object_size"], df["offset"]) == ("test_cache", 200, 0)
    assert len(df["free_stack"]) == 9 and len(df["alloc_stack"]) > 0
    assert "KASAN: invalid-free in kmalloc_pagealloc_invalid_free" in by_title


def test_a_kasan_named_test_function_keeps_its_title(reports):
    """The BUG line names where the access was, even when that function's
    name begins with kasan_ (KUnit's cases do)."""
    titles = {r["title"] for r in reports}
    assert "KASAN: global-out-of-bounds Read in kasan_global_oob_right" in titles
    assert not any(t.endswith(" in kunit_try_run_case") for t in titles)
    # the syzkaller convention skips any name containing "kasan" (syzbot
    # titles never name KASAN's own code); its title is the caller's
    r = next(r for r in reports if r["function"] == "kasan_global_oob_right")
    assert report.syzkaller_title(r) == \
        "KASAN: global-out-of-bounds Read in kunit_try_run_case"
