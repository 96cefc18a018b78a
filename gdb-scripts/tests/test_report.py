"""The KASAN report parser on real reports from this project's kernels."""
import random

import pytest

from kasan import report


def by_function(reports, fn):
    return [r for r in reports if r["function"] == fn]


def test_first_kmalloc_oob_right(swtags_log):
    reps = report.parse_reports(swtags_log)
    r = by_function(reps, "kmalloc_oob_right")[0]
    assert r["title"] == "KASAN: slab-out-of-bounds Write in kmalloc_oob_right"
    assert (r["bug_type"], r["access"], r["size"]) == ("slab-out-of-bounds", "write", 1)
    assert r["memory_tag"] == "fe" and r["pointer_tag"] == r["addr"][:2]
    assert (r["cache"], r["object_size"], r["offset"]) == ("kmalloc-128", 128, 112)
    assert r["mode"] == "sw_tags" and r["task"] == "kunit_try_catch"
    assert r["alloc_stack"] and report.first_caller(r["alloc_stack"]).startswith(
        "kmalloc_oob_right+")
    assert r["buggy_row"]["bytes"][7] == "fe" and len(r["buggy_row"]["bytes"]) == 16
    assert not any(x["truncated"] for x in reps)


def test_generic_report(generic_log):
    reps = report.parse_reports(generic_log)
    r = by_function(reps, "kmalloc_oob_right")[0]
    assert r["mode"] == "generic" and r["pointer_tag"] is None
    assert r["addr"].startswith("ffff")


def test_lab_uaf_realloc_tags(swtags_log):
    reps = by_function(report.parse_reports(swtags_log), "lab_uaf_realloc")
    assert len(reps) == 1
    r = reps[0]
    assert r["bug_type"] == "use-after-free" and r["module"] == "kasan_lab"
    assert r["pointer_tag"] != r["memory_tag"] and r["memory_tag"] != "fe"
    assert r["free_stack"]


def test_double_free_names_the_caller(swtags_log):
    r = by_function(report.parse_reports(swtags_log), "lab_double_free")[0]
    assert r["access"] == "free" and r["title"] == "KASAN: double-free in lab_double_free"


def test_no_timestamps_and_crlf(swtags_log):
    a = report.parse_reports(swtags_log)
    plain = "\r\n".join(report.PREFIX.sub("", ln) for ln in swtags_log.split("\n"))
    b = report.parse_reports(plain)
    assert [r["title"] for r in a] == [r["title"] for r in b]


def one_report(log):
    start = log.index("BUG: KASAN:")
    start = log.rindex("\n", 0, start) + 1
    end = log.index("=====", log.index("Memory state", start))
    return log[start:log.index("\n", end) + 1]


def test_truncated(swtags_log):
    rep = one_report(swtags_log)
    r = report.parse_reports(rep[: len(rep) // 2])
    assert len(r) == 1 and r[0]["truncated"]


def test_interleaved(swtags_log):
    rep = one_report(swtags_log)
    lines = rep.splitlines()
    mixed = "\n".join(lines[:5] + one_report(swtags_log).splitlines() + lines[5:])
    reps = report.parse_reports(mixed)
    assert len(reps) == 2 and reps[0]["truncated"] and not reps[1]["truncated"]


def test_empty_and_no_report():
    assert report.parse_reports("") == []
    assert report.parse_reports("[ 0.0] Linux version 6.1\nhello\n") == []


def test_garbage():
    with pytest.raises(report.ReportError):
        report.parse_reports(bytes(range(256)).decode("latin-1") * 20)


def test_mutations_never_crash(swtags_log):
    """Delete, duplicate, cut and corrupt lines: always a list of dicts."""
    rng = random.Random(1)
    base = one_report(swtags_log).splitlines()
    for _ in range(300):
        lines = list(base)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(lines))
            op = rng.choice("dcxt")
            if op == "d":
                del lines[i]
            elif op == "c":
                lines.insert(i, lines[rng.randrange(len(lines))])
            elif op == "x":
                lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
            else:
                lines[i] = "".join(rng.choice("0123456789abcdef:[] x") for _ in lines[i])
            if not lines:
                break
        try:
            reps = report.parse_reports("\n".join(lines))
        except report.ReportError:
            continue
        for r in reps:
            assert set(report.FIELDS) <= set(r)
            report.summary(r)


def test_memory_state_has_five_rows(swtags_log):
    r = report.parse_reports(swtags_log)[0]
    assert len(r["memory_state"]) == 5
    assert [x["buggy"] for x in r["memory_state"]] == [False, False, True, False, False]
