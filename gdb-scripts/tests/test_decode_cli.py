# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-decode as a command: output and exit status for good and bad input,
and symbolization with both back ends on a real object."""
import json
import lzma
import os
import shutil
import subprocess

import pytest

from conftest import FIXTURES

DECODE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "kasan-decode")


def run(args, data=b"", env=None):
    return subprocess.run([DECODE] + args, input=data, env=env,
                          capture_output=True, timeout=60)


def swtags():
    return lzma.open(os.path.join(FIXTURES, "swtags.log.xz")).read()


def test_json_one_object_per_report():
    p = run(["--json", "-"], swtags())
    assert p.returncode == 0, p.stderr
    objs = [json.loads(ln) for ln in p.stdout.splitlines()]
    assert len(objs) > 300
    from kasan import report
    assert set(objs[0]) == set(report.FIELDS)
    assert {o["mode"] for o in objs} == {"sw-tags"}


def test_help_documents_every_key_and_exit_code():
    from kasan import report
    p = run(["--help"])
    out = p.stdout.decode()
    assert p.returncode == 0
    for key in report.FIELDS:
        assert "\n  %s " % key in out, key
    for code in range(5):
        assert "\n  %d  " % code in out, code


def test_human_summary():
    p = run(["-"], swtags())
    assert b"KASAN_TAG_INVALID" in p.stdout and p.returncode == 0


def test_syzkaller_titles():
    p = run(["--json", "--title=syzkaller", "-"], swtags())
    by_loc = {}
    for ln in p.stdout.splitlines():
        r = json.loads(ln)
        by_loc.setdefault(r["location"].partition("+")[0], set()).add(r["title"])
    assert by_loc["kmalloc_oob_right"] >= {"KASAN: slab-out-of-bounds Write in kmalloc_oob_right"}
    # invalid-free in kfree: the allocator frames are skipped, not named
    assert by_loc["kfree"] == {"KASAN: invalid-free in " + f for f in (
        "kmalloc_pagealloc_invalid_free", "kmalloc_double_kzfree", "lab_invalid_free",
        "lab_double_free")}
    # the use-after-free inside kfree_sensitive is titled there (not ksize)
    assert by_loc["kfree_sensitive"] == {"KASAN: use-after-free Read in kfree_sensitive"}
    # the outlined check's __hwasan_tag_mismatch and the helper are skipped
    assert by_loc["memchr"] == {"KASAN: slab-out-of-bounds Read in kunit_try_run_case"}
    titles = set().union(*by_loc.values())
    assert not any("double-free" in t or "hwasan" in t for t in titles)
    # a mem*/str* helper is never the function: its caller is
    helpers = {"strlen", "strnlen", "strcmp", "strncmp", "strchr", "strrchr", "memcmp",
               "memchr", "memset", "memmove", "memcpy"}
    assert not {t.rsplit(" in ", 1)[1] for t in titles} & helpers
    # like syzkaller, "kasan" anywhere in a name skips the frame: KUnit's
    # kasan_* cases are titled by their caller
    assert by_loc["kasan_bitops_tags"] == {
        "KASAN: slab-out-of-bounds Write in kunit_try_run_case",
        "KASAN: slab-out-of-bounds Read in kunit_try_run_case"}


# The frames of a public syzbot report (syzkaller's pkg/report testdata
# linux/report/216, titled "KASAN: invalid-free in xt_free_table_info"),
# retyped in a short x86_64 form: kvfree is skipped as a "vfree" helper.
SYZBOT_216 = """\
[  368.542732] ==================================================================
[  368.550228] BUG: KASAN: double-free or invalid-free in kvfree+0x36/0x60
[  368.558547] CPU: 1 PID: 4260 Comm: syz-executor4 Not tainted 4.16.0-rc4+ #254
[  368.575111] Call Trace:
[  368.577669]  dump_stack+0x194/0x24d
[  368.581271]  ? kvfree+0x36/0x60
[  368.597583]  print_address_description+0x73/0x250
[  368.608891]  kasan_report_invalid_free+0x55/0x80
[  368.613620]  __kasan_slab_free+0x145/0x170
[  368.621077]  kasan_slab_free+0xe/0x10
[  368.624851]  kfree+0xd9/0x260
[  368.627930]  kvfree+0x36/0x60
[  368.631009]  xt_free_table_info+0xaf/0x170
[  368.635228]  __do_replace+0x810/0xa70
[  368.639016]  ? compat_table_info+0x4a0/0x4a0
[  368.651731]  do_ip6t_set_ctl+0x40f/0x5f0
[  368.985119] ==================================================================
"""


def test_syzkaller_title_of_a_public_report():
    p = run(["--json", "--title=syzkaller", "-"], SYZBOT_216.encode())
    r = json.loads(p.stdout)
    assert r["title"] == "KASAN: invalid-free in xt_free_table_info"
    assert r["call_trace"][:2] == ["dump_stack+0x194/0x24d", "print_address_description+0x73/0x250"]


def test_exit_codes(tmp_path):
    assert run(["-"], b"").returncode == 1
    assert run(["-"], b"no reports here\n").returncode == 1
    p = run(["-"], os.urandom(4096))
    assert p.returncode == 1 and b"Traceback" not in p.stderr
    p = run([str(tmp_path / "missing.log")])
    assert p.returncode == 2 and p.stderr.count(b"\n") == 1
    p = run(["--modules", str(tmp_path), "-"], b"x")
    assert p.returncode == 2 and b"--modules needs --vmlinux" in p.stderr


@pytest.mark.parametrize("content, says", [
    (None, b"no such file"),
    (b"", b"is empty"),
    (b"#!/bin/sh\necho not an object\n", b"not an ELF file"),
    (b"\x7fELF\x02\x01\x01" + b"\0" * 57, b"no section headers"),
])
def test_bad_vmlinux_is_refused_in_one_line(tmp_path, content, says):
    path = tmp_path / "vmlinux"
    if content is not None:
        path.write_bytes(content)
    p = run(["--vmlinux", str(path), "-"], swtags())
    assert p.returncode == 2 and says in p.stderr and p.stderr.count(b"\n") == 1, p.stderr
    assert p.stdout == b""


C_SOURCE = """int g(int x);

int f1(int x)
{
\treturn g(x) + 1;
}

int f2(int x)
{
\tint y = g(x);

\treturn y * 2;
}
"""


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    """A real object with DWARF, the same stripped of DWARF, and stripped."""
    if not shutil.which("clang") or not shutil.which("llvm-objcopy"):
        pytest.skip("clang/llvm-objcopy not installed (make deps)")
    d = tmp_path_factory.mktemp("obj")
    (d / "t.c").write_text(C_SOURCE)
    so = d / "t.so"
    subprocess.run(["clang", "-g", "-O1", "-shared", "-fPIC", "-nostdlib", "-o", str(so),
                    str(d / "t.c")], check=True, timeout=60)
    subprocess.run(["llvm-objcopy", "--strip-debug", str(so), str(d / "nodwarf.so")], check=True)
    subprocess.run(["llvm-objcopy", "--strip-all", str(so), str(d / "stripped.so")], check=True)
    return d


def test_stripped_and_dwarfless_objects_are_refused(objects):
    for name, says in (("nodwarf.so", b"no DWARF"), ("stripped.so", b"stripped")):
        p = run(["--vmlinux", str(objects / name), "-"], swtags())
        assert p.returncode == 2 and says in p.stderr and p.stderr.count(b"\n") == 1


def sizes(obj):
    out = subprocess.run(["llvm-nm", "-S", str(obj)], capture_output=True, text=True).stdout
    return {p[3]: int(p[1], 16) for p in map(str.split, out.splitlines()) if len(p) == 4}


def frames_for(obj):
    s = sizes(obj)
    # return addresses just after each function's call to g (lines 5 and 10)
    calls = {}
    dis = subprocess.run(["llvm-objdump", "-d", str(obj)], capture_output=True,
                         text=True).stdout
    fn = None
    for line in dis.splitlines():
        if line.endswith(">:"):
            fn, start = line.split("<")[1][:-2], int(line.split()[0], 16)
        elif fn in ("f1", "f2") and "call" in line and fn not in calls:
            addr = int(line.split(":")[0], 16)
            length = len(line.split("\t")[1].split())
            calls[fn] = addr + length - start
    return ["f1+0x%x/0x%x" % (calls["f1"], s["f1"]), "f2+0x%x/0x%x" % (calls["f2"], s["f2"]),
            "f2+0x0/0x%x" % s["f2"], "nosuch+0x4/0x8", "f1+0x1/0x%x [mod]" % s["f1"]]


def test_symbolize_with_llvm_symbolizer(objects):
    from kasan import decode
    sym = decode.Symbolizer(str(objects / "t.so"))
    try:
        got = sym.frames(frames_for(objects / "t.so"))
    finally:
        sym.close()
    # the object's own files are named relative to its directory
    assert [g.split(" ", 1)[1] if " " in g else None for g in got[:2]] == ["t.c:5", "t.c:10"]
    assert got[2].startswith("f2+0x0/") and got[2].endswith("t.c:9")   # the entry
    assert got[3] == "nosuch+0x4/0x8"                                   # not in the table
    assert got[4].endswith("[mod]")                                     # no mod.ko found
    assert sym.nm_runs == 1


def test_symbolize_with_addr2line_gives_each_frame_its_own_line(
        objects, tmp_path, monkeypatch):
    """With llvm-symbolizer hidden: the addr2line back end, all addresses in
    one run; an address it cannot resolve does not shift the next one."""
    from kasan import decode
    frames = frames_for(objects / "t.so")
    frames.insert(0, "f1+0x%x/0x%x" % (0x100000, sizes(objects / "t.so")["f1"]))
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("addr2line", "nm"):
        os.symlink(shutil.which(tool), bin_ / tool)
    monkeypatch.setenv("PATH", str(bin_))
    sym = decode.Symbolizer(str(objects / "t.so"))
    assert os.path.basename(sym.tool) == "addr2line"
    got = sym.frames(frames)
    assert got[0] == frames[0]                       # beyond the function: ?? stays bare
    assert got[1].endswith("t.c:5") and got[2].endswith("t.c:10")


def test_both_back_ends_agree(objects, tmp_path, monkeypatch):
    from kasan import decode
    frames = frames_for(objects / "t.so")
    a = decode.symbolize(frames, str(objects / "t.so"))
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("addr2line", "nm"):
        os.symlink(shutil.which(tool), bin_ / tool)
    monkeypatch.setenv("PATH", str(bin_))
    assert decode.symbolize(frames, str(objects / "t.so")) == a


def test_no_tools_leaves_frames_alone(tmp_path, monkeypatch):
    from kasan import decode
    monkeypatch.setenv("PATH", str(tmp_path))
    assert decode.symbolize(["f1+0x4/0x8"], "vmlinux") == ["f1+0x4/0x8"]


def test_an_internal_error_is_exit_4(monkeypatch, capsys):
    from kasan import decode, report

    def boom(*a, **k):
        raise ZeroDivisionError("a bug")
    monkeypatch.setattr(report, "iter_reports", boom)
    assert decode.main(["/dev/null"]) == 4
    err = capsys.readouterr().err
    assert err == "kasan-decode: internal error: ZeroDivisionError: a bug\n"


def test_truncated_exit_3():
    data = swtags()
    cut = data[: data.index(b"Memory state around")]
    p = run(["-"], cut)
    assert p.returncode == 3 and b"truncated" in p.stderr


def test_modules_of_this_checkout_not_another_trees(tmp_path):
    """A kasan-tags build dir that two checkouts share holds a module dir
    of each (kt-HASH/module): without --modules, a frame "[kasan_lab]" is
    read from this checkout's kasan_lab.ko, never from the other tree's,
    which that tree may be rebuilding at that moment (issue 53: lab 3's
    decode once printed a frame without its source line)."""
    from kasan import decode
    from vm.kbuild import module_dir
    (tmp_path / "kt-variant.json").write_text("{}")
    (tmp_path / "vmlinux").write_text("")
    other = tmp_path / "kt-00000000" / "module"
    other.mkdir(parents=True)
    (other / "kasan_lab.ko").write_text("another tree's")
    ours = module_dir(str(tmp_path))
    os.makedirs(ours)
    open(os.path.join(ours, "kasan_lab.ko"), "w").close()
    sym = decode.Symbolizer(str(tmp_path / "vmlinux"), check=False)
    assert sym.modules == ours
    assert sym._object("kasan_lab") == os.path.join(ours, "kasan_lab.ko")
    os.unlink(tmp_path / "kt-variant.json")   # not a kasan-tags build: the whole dir
    assert decode.default_modules(str(tmp_path / "vmlinux")) == str(tmp_path)
