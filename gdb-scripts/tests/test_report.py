# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The KASAN report parser on real reports from this project's kernels; the
format's helpers (report_format.py) and the summary (report_summary.py)."""
import random

from kasan import report, report_format, report_summary


def by_function(reports, fn):
    return [r for r in reports if r["function"] == fn]


def test_first_kmalloc_oob_right(swtags_log):
    reps = report.parse_reports(swtags_log)
    r = by_function(reps, "kmalloc_oob_right")[0]
    assert r["title"] == "KASAN: slab-out-of-bounds Write in kmalloc_oob_right"
    assert (r["bug_type"], r["access"], r["size"]) == ("slab-out-of-bounds", "write", 1)
    assert r["memory_tag"] == "fe" and r["pointer_tag"] == r["addr"][:2]
    assert (r["cache"], r["object_size"], r["offset"]) == ("kmalloc-128", 128, 112)
    assert r["mode"] == "sw-tags" and r["task"] == "kunit_try_catch"
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
    # a whole report printed inside another: the outer one resumes after it,
    # complete, and is flagged; the inner one is intact
    (alone,) = report.parse_reports(rep)
    assert len(reps) == 2 and not reps[0]["truncated"] and not reps[1]["truncated"]
    assert reps[0]["interleaved"] and not reps[1]["interleaved"]
    assert dict(reps[0], interleaved=False, line=1) == dict(alone, line=1)
    # two reports whose lines alternate, without caller ids: flagged, not mixed
    other = one_report(swtags_log[swtags_log.index(rep) + len(rep):]).splitlines()
    zipped = [x for pair in zip(lines, other) for x in pair]
    assert any(r["interleaved"] for r in report.parse_reports("\n".join(zipped)))


def test_empty_and_no_report():
    assert report.parse_reports("") == []
    assert report.parse_reports("[ 0.0] Linux version 6.1\nhello\n") == []


def test_garbage():
    assert report.parse_reports(bytes(range(256)).decode("latin-1") * 20) == []


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


SEP = "=" * 66
WILD = "\n".join([
    SEP, "BUG: KASAN: wild-memory-access in f1+0x10/0x20",
    "Read of size 8 at addr 00ff000000000000 by task t/7", SEP,
    SEP, "BUG: KASAN: null-ptr-deref in f2+0x1/0x2 [mod]",
    "Write at addr 0000000000000010 by task u/8", "", "Call trace:",
    " dump_backtrace+0x0/0x1", " kasan_report+0x0/0x1", " __kmem_cache_free+0x1/0x2",
    " caller_fn+0x4/0x8 [mod]", SEP, ""])


def test_reports_without_shadow_split_at_the_separator():
    reps = report.parse_reports(WILD)
    assert [(r["bug_type"], r["access"], r["size"], r["addr"], r["task"], r["pid"], r["line"])
            for r in reps] == [
        ("wild-memory-access", "read", 8, "00ff000000000000", "t", 7, 2),
        ("null-ptr-deref", "write", 0, "0000000000000010", "u", 8, 6)]
    assert reps[1]["module"] == "mod" and reps[1]["function"] == "f2"
    assert reps[1]["call_trace"][-1] == "caller_fn+0x4/0x8 [mod]"


def test_separator_in_the_head_does_not_end_a_report():
    text = "\n".join(["BUG: KASAN: use-after-free in g+0x1/0x2", SEP,
                      "Read of size 1 at addr ffff000000000001 by task t/1", SEP])
    (r,) = report.parse_reports(text)
    assert r["addr"] == "ffff000000000001" and r["function"] == "g"


def test_function_falls_back_to_the_caller_of_the_allocator():
    text = "\n".join([SEP, "BUG: KASAN: double-free in __kmem_cache_free+0x1/0x2",
                      "Free of addr ffff000000000000 by task t/1", "Call trace:",
                      " kasan_report_invalid_free+0x1/0x2", " kfree+0x1/0x2",
                      " my_func+0x8/0x10", SEP])
    (r,) = report.parse_reports(text)
    assert r["function"] == "my_func" and r["title"] == "KASAN: double-free in my_func"
    nolocation = text.replace(" in __kmem_cache_free+0x1/0x2", "")
    assert report.parse_reports(nolocation)[0]["function"] == "my_func"
    lone = text.replace(" my_func+0x8/0x10\n", "")
    assert report.parse_reports(lone)[0]["function"] == "__kmem_cache_free"
    plain = text.replace("__kmem_cache_free+0x1/0x2", "helper+0x1/0x2", 1)
    assert report.parse_reports(plain)[0]["function"] == "helper"


def test_offsets_with_sign_and_size():
    def off(rel, n, size_line=True):
        lines = [SEP, "BUG: KASAN: slab-out-of-bounds in h+0x1/0x2",
                 "Read of size 1 at addr ffff000000000100 by task t/1",
                 "The buggy address belongs to the object at ffff000000000000"]
        if size_line:
            lines.append(" which belongs to the cache kmalloc-128 of size 128")
        lines += ["The buggy address is located %d bytes %s of" % (n, rel),
                  " 123-byte region [ffff000000000000, ffff00000000007b)", SEP]
        return report.parse_reports("\n".join(lines))[0]
    assert off("inside", 5)["offset"] == 5
    r = off("to the right", 5)
    assert (r["offset"], r["object_size"], r["cache"]) == (133, 128, "kmalloc-128")
    assert off("to the left", 5)["offset"] == -5
    r = off("to the right", 5, size_line=False)
    assert (r["offset"], r["object_size"], r["cache"]) == (128, 123, None)


def test_truncation_rule():
    base = [SEP, "BUG: KASAN: use-after-free in h+0x1/0x2",
            "Read of size 1 at addr ffff000000000100 by task t/1", "Call trace:", " h+0x1/0x2"]
    rows = ["Memory state around the buggy address:",
            ">ffff000000000100: fe fe fe fe fe fe fe fe fe fe fe fe fe fe fe fe",
            "                    ^"]
    assert not report.parse_reports("\n".join(base + rows + [SEP]))[0]["truncated"]
    assert report.parse_reports("\n".join(base + [SEP]))[0]["truncated"]
    assert report.parse_reports("\n".join(base + rows))[0]["truncated"]    # no end separator
    free = [SEP, "BUG: KASAN: double-free in k+0x1/0x2",
            "Free of addr ffff000000000100 by task t/1", "Call trace:", " k+0x1/0x2",
            " el0t_64_sync+0x148/0x14c", SEP]
    assert not report.parse_reports("\n".join(free))[0]["truncated"]
    # every report prints a call trace: one that ends before it is cut short
    no_trace = free[:3] + free[-1:]
    assert report.parse_reports("\n".join(no_trace))[0]["truncated"]
    # and a call trace that stops before the entry frame is cut short too
    assert report.parse_reports("\n".join(free[:-2] + free[-1:]))[0]["truncated"]
    r = report.parse_reports("\n".join(base + rows + [SEP]))[0]
    assert r["buggy_row"]["addr"] == "ffff000000000100" and len(r["memory_state"]) == 1


def test_mode_hint_and_detection():
    text = "\n".join([SEP, "BUG: KASAN: use-after-free in h+0x1/0x2",
                      "Read of size 1 at addr ffff000000000100 by task t/1", SEP])
    assert report.parse_reports(text)[0]["mode"] == "generic"
    assert report.parse_reports(text, "sw_tags")[0]["mode"] == "sw-tags"
    boot = "kasan: KernelAddressSanitizer initialized (sw-tags, stacktrace=on)\n"
    assert report_format.detect_mode(boot) == "sw-tags"
    assert report_format.detect_mode(boot.replace("sw-tags", "generic")) == "generic"
    assert report_format.detect_mode(boot.replace("sw-tags", "hw-tags")) == "hw-tags"
    assert report_format.detect_mode(boot.replace("sw-tags", "odd")) == "odd"
    assert report_format.detect_mode("nothing") is None
    assert report.parse_reports(boot + text)[0]["mode"] == "sw-tags"
    tagged = text.replace(SEP + "\n", SEP + "\n", 1).replace(
        "by task t/1", "by task t/1\nPointer tag: [35], memory tag: [fe]")
    assert report.parse_reports(tagged)[0]["mode"] == "sw-tags"
    hw = boot.replace("sw-tags", "hw-tags") + tagged
    assert report.parse_reports(hw)[0]["mode"] == "hw-tags"
    # two boots in one file: each report has its own kernel's mode
    two = boot.replace("sw-tags", "generic") + text + "\n" + boot + tagged
    assert [r["mode"] for r in report.parse_reports(two)] == ["generic", "sw-tags"]


def test_binary_input_is_no_report():
    assert report.parse_reports("\x00" + "x" * 100) == []
    assert report.parse_reports("\x01\x02\x03\x04" * 100) == []
    assert report.parse_reports("plain text\n" * 10) == []
    assert report.parse_reports("") == []


def test_first_caller_fallback():
    assert report_format.first_caller(["kfree+0x1/0x2", "__kasan_x+0x1/0x2"]) == "__kasan_x+0x1/0x2"
    assert report_format.first_caller(["kfree+0x1/0x2", "me+0x1/0x2", "you+0x1/0x2"]) == "me+0x1/0x2"
    assert report_format.first_caller([]) is None


def summary_of(**kw):
    r = report._new(1, None, None)
    r.update(title="T", mode="sw-tags", access="read", size=None, addr="a", task="t", pid=1,
             pointer_tag="35", memory_tag="36")
    r.update(kw)
    return report_summary.summary(r).splitlines()


def test_summary_lines():
    assert summary_of()[1] == "  read of 0 byte(s) at a by t/1"
    assert summary_of(size=4)[1] == "  read of 4 byte(s) at a by t/1"
    assert summary_of(access="free")[1] == "  free of a by t/1"
    # 0xfe is not only a freed object: without a cache it is a page (or a
    # kmalloc_large redzone, invalid vmalloc, never-tagged shadow)
    assert summary_of(memory_tag="fe")[3] == (
        "  memory tag fe = KASAN_TAG_INVALID: not a slab object: a free page, a "
        "kmalloc_large redzone or invalid vmalloc space, or shadow nothing has tagged "
        "since boot")
    assert "freed object" not in summary_of(memory_tag="fe")[3]
    assert summary_of(memory_tag="fe", mode="hw-tags")[3].endswith("invalid vmalloc space")
    assert summary_of(memory_tag="fe", cache="kmalloc-128", object_size=128)[3] == (
        "  memory tag fe = KASAN_TAG_INVALID: in a slab of cache kmalloc-128: a freed "
        "object, or slab memory no object holds (a redzone, a slot never allocated)")
    assert summary_of()[3].startswith("  memory tag 36 is another allocation's tag")
    assert summary_of(memory_tag="35")[3].startswith("  the tags match: not a tag mismatch, "
                                                     "but a access")
    assert "but a free" in summary_of(memory_tag="35", access="free")[3]
    assert len(summary_of(pointer_tag="ff")) == 3
    assert summary_of(mode="generic")[2].startswith("  generic mode: no tags")
    assert summary_of(cache="kmalloc-8", object="o", offset=3, relation="inside")[-1] == (
        "  object o in cache kmalloc-8 (0 bytes), access at offset 3 (inside)")
    assert summary_of(alloc_stack=["kfree+0x1/0x2", "me+0x1/0x2"])[-1] == (
        "  allocated at me+0x1/0x2")
    assert summary_of(free_stack=["you+0x1/0x2"])[-1] == "  freed at you+0x1/0x2"
    assert summary_of(buggy_row={"addr": "r", "bytes": ["fe", "35"]})[-1] == (
        "  shadow row r: fe 35")
    assert summary_of(truncated=True)[-1].startswith("  (report is truncated")
    hw = summary_of(mode="hw-tags", size=0, buggy_row={"addr": "r", "bytes": ["fe"]})
    assert hw[1] == "  read at a by t/1 (hw-tags: the CPU's fault gives no size)"
    assert "the tag in tag storage" in hw[2] and hw[-1] == "  memory tags row r: fe"
    asy = summary_of(mode="hw-tags", access=None, pointer_tag=None, memory_tag=None)
    assert asy[1].startswith("  asynchronous (kasan.mode=async)") and len(asy) == 2


ASYNC = """[    0.825225] BUG: KASAN: invalid-access
[    0.825564] Asynchronous fault: no details available
[    0.825922]
[    0.826382] CPU: 0 PID: 1 Comm: init Tainted: G           O       6.1.192 #1
[    0.833307] Hardware name: linux,dummy-virt (DT)
[    0.833705] Call trace:
[    0.834044]  dump_backtrace+0xd0/0xec
[    0.835196]  show_stack+0x14/0x1c
[    0.835442]  dump_stack_lvl+0x6c/0x84
[    0.835622]  kasan_report_async+0x7c/0x94
[    0.835787]  mte_thread_switch+0x74/0xa8
[    0.835969]  __switch_to+0x5c/0xb0
[    0.836144]  __schedule+0x364/0x440
[    0.836287]  schedule+0x30/0x54
[    0.836419]  do_notify_resume+0x110/0x440
[    0.836576]  el0_svc+0x50/0x9c
[    0.836706]  el0t_64_sync_handler+0x40/0xdc
[    0.836897]  el0t_64_sync+0x170/0x174
[    0.837272] ==================================================================
"""


def test_an_async_report_is_hw_tags_and_whole():
    """6.1's kasan_report_async (hw-tags, kasan.mode=async), as captured by
    lab 6's async step: no access line, no tags, no memory state."""
    r = report.parse_reports(ASYNC)[0]
    assert (r["bug_type"], r["mode"], r["access"], r["addr"], r["truncated"]) == (
        "invalid-access", "hw-tags", None, None, False)
    assert r["function"] == "mte_thread_switch"
    cut = report.parse_reports(ASYNC.split("Call trace:")[0])[0]
    assert cut["truncated"] and cut["mode"] == "hw-tags"


def test_invalid_free_with_equal_tags_is_explained(swtags_log):
    r = by_function(report.parse_reports(swtags_log), "lab_invalid_free")[0]
    assert r["pointer_tag"] == r["memory_tag"]
    text = report.summary(r)
    assert "another allocation's tag" not in text and "the tags match" in text


def test_offset_to_the_right_without_any_size():
    text = "\n".join([SEP, "BUG: KASAN: slab-out-of-bounds in h+0x1/0x2",
                      "Read of size 1 at addr ffff000000000100 by task t/1",
                      "The buggy address belongs to the object at ffff000000000000",
                      "The buggy address is located 5 bytes to the right of", SEP])
    r = report.parse_reports(text)[0]
    assert (r["offset"], r["object_size"]) == (5, None)


# -- pinned by `make mutation` (survivors of its run on report.py, before its
# line helpers moved to report_format.py) ------------------------------------

def test_clean_line_strips_each_prefix_kind():
    assert report_format.clean("[    1.000000] BUG: KASAN: x") == "BUG: KASAN: x"
    # dmesg -T: a bracket, but a date, not a timestamp: the outer prefix goes
    assert report_format.clean_line("[Mon Dec  6 10:00:00 2026] BUG: KASAN: use-after-free in f") == \
        (None, "BUG: KASAN: use-after-free in f")
    # non-ASCII noise goes even when the line is printable
    assert report_format.clean("[    1.000000] h\u00e9llo") == "hllo"
    assert report_format.clean_line("[    2.000000][   T42] kasan_lab: x") == ("T42", "kasan_lab: x")


def test_num_refuses_what_no_u64_holds():
    r = {"problems": []}
    assert report_format._num(r, "size", "18446744073709551615") == (1 << 64) - 1
    assert report_format._num(r, "size", "18446744073709551616") is None
    assert r["problems"] == ["size: a 20-digit value, larger than any u64"]


def test_name_drops_compiler_suffixes():
    assert report_format._name("foo.isra.0+0x10/0x20") == "foo"
    assert report_format._name("bar.cold+0x1/0x2 [kasan_lab]") == "bar"
    assert report_format._name("baz+0x1/0x2") == "baz"


def test_clean_line_iso_and_journal_prefixes():
    assert report_format.clean("2026-12-06T10:00:00,123456+00:00 BUG: KASAN: x") == "BUG: KASAN: x"
    assert report_format.clean("Dec  6 10:00:00 host kernel: BUG: KASAN: x") == "BUG: KASAN: x"


def test_callers_find_the_format_and_the_summary_in_report():
    """report.py is the module callers import: what moved to
    report_format.py and report_summary.py is the same object there."""
    for name in report.__all__:
        assert hasattr(report, name), name
    for home in (report_format, report_summary):
        for name in set(report.__all__) & set(vars(home)):
            assert getattr(report, name) is getattr(home, name), name
    assert report.summary is report_summary.summary and report.clean is report_format.clean
    assert {"KEYS", "MODES", "ASYNC_LINE", "first_caller", "syzkaller_title",
            "split_lines"} <= set(report.__all__)
