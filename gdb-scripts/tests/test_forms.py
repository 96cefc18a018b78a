# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-decode on every input form of fixtures/forms/ (see its README):
each form gives the reports of clean.log, field for field."""
import lzma
import os
import subprocess
import sys

import pytest

from kasan import report

FORMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "forms")
DECODE = os.path.join(os.path.dirname(FORMS), "..", "..", "kasan", "decode.py")
SAME_AS_CLEAN = ("dmesg", "dmesg-T", "dmesg-x", "dmesg-iso", "dmesg-color",
                 "journalctl-k", "kmsg", "serial-noise")
# Not part of what a report says: where it is in the file, who printed it.
WHERE = ("line", "caller")


def form(name):
    path = os.path.join(FORMS, name + ".log.xz")
    if not os.path.exists(path):
        pytest.fail("missing fixture %s: run `make fixtures`" % path)
    with lzma.open(path, "rb") as f:
        return f.read()


def decode(data):
    return report.parse_reports(data.decode("utf-8", errors="replace"))


def fields(r):
    return {k: v for k, v in r.items() if k not in WHERE}


@pytest.fixture(scope="module")
def clean():
    return decode(form("clean"))


def test_clean_values(clean):
    """The fields themselves, read off the log by hand once."""
    assert [r["bug_type"] for r in clean] == [
        "slab-out-of-bounds", "invalid-access", "use-after-free", "invalid-access",
        "double-free", "invalid-access"]
    first = clean[0]
    assert (first["access"], first["size"], first["addr"]) == ("write", 1, "19ffff8000b84870")
    assert (first["function"], first["task"], first["pid"]) == (
        "kmalloc_oob_right", "kunit_try_catch", 19)
    assert (first["mode"], first["truncated"], first["interleaved"]) == ("sw-tags", False, False)
    uaf = clean[2]
    assert (uaf["pointer_tag"], uaf["memory_tag"], uaf["module"]) == ("cd", "fe", "kasan_lab")
    assert uaf["call_trace"][7] == "lab_uaf+0x138/0x144 [kasan_lab]"
    assert uaf["buggy_row"]["addr"] == "ffffff8000b92000"   # the row of 16 granules
    assert all(not r["problems"] for r in clean)


@pytest.mark.parametrize("name", SAME_AS_CLEAN)
def test_form_gives_the_clean_reports(clean, name):
    got = decode(form(name))
    assert [fields(r) for r in got] == [fields(r) for r in clean]


@pytest.mark.parametrize("name", ("dmesg-color", "serial-noise", "kmsg"))
def test_cli_reads_the_form(name, tmp_path):
    path = tmp_path / (name + ".log")
    path.write_bytes(form(name))
    p = subprocess.run([sys.executable, DECODE, "--json", str(path)], capture_output=True,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(DECODE))))
    assert p.returncode == 0, p.stderr
    assert p.stdout.count(b"\n") == 6


def test_two_boots_give_each_report_its_kernels_mode():
    got = decode(form("two-boots"))
    assert [(r["mode"], r["bug_type"], r["function"]) for r in got] == [
        ("generic", "use-after-free", "lab_uaf"), ("sw-tags", "use-after-free", "lab_uaf")]
    assert got[0]["pointer_tag"] is None and got[1]["pointer_tag"] == "cd"


def test_caller_ids_demultiplex_two_cpus(clean):
    got = decode(form("smp-callers"))
    assert [r["caller"] for r in got] == ["T19", "T20"]
    assert [fields(r) for r in got] == [fields(r) for r in clean[:2]]


def test_without_caller_ids_a_mix_is_flagged_not_invented(clean):
    originals = [fields(r) for r in clean[:2]]
    got = decode(form("smp-no-callers"))
    assert got, "the reports are not dropped"
    for r in got:
        assert r["interleaved"] or fields(r) in originals
    assert any(r["interleaved"] for r in got)


def test_no_false_flags_on_the_real_logs(swtags_log, generic_log):
    """The checks for mixed and cut reports flag none of 432 clean ones."""
    for log, n in ((swtags_log, 342), (generic_log, 90)):
        reps = report.parse_reports(log)
        assert len(reps) == n
        assert [r["line"] for r in reps if r["truncated"] or r["interleaved"]] == []


def test_chunks_decoded_in_parallel_give_one_pass(tmp_path, capsys):
    """Big files are decoded by several processes, chunk by chunk: the same
    output as one pass, even with chunks far smaller than a report and the
    forms that carry a mode, junk or caller ids across chunk seams."""
    import argparse
    from kasan import decode as kdecode
    data = b"".join(form(n) for n in ("two-boots", "serial-noise", "kmsg", "smp-callers",
                                      "smp-no-callers", "dmesg-color")) * 2
    path = tmp_path / "big.log"
    path.write_bytes(data)
    a = argparse.Namespace(json=True, title="project", vmlinux=None, modules=None, log=str(path))
    one = kdecode.parallel(a, 1, size=1 << 30)
    one_out = capsys.readouterr().out
    for size in (3000, 20000):
        assert kdecode.parallel(a, 2, size=size) == one
        assert capsys.readouterr().out == one_out
    assert one[0] == len(decode_all := decode(data)) and one[0] > 40
    assert one_out.count('"mode": "generic"') == sum(r["mode"] == "generic" for r in decode_all) == 2
