# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make dist` / `make import` on small fake kernels (no kernel is built).

A teacher's cache (A) with a fake swtags build is archived, then imported
into a student's cache (B): the build lands under B's key with its paths
rebased to B, and build_kernel reuses it without building.  Each way an
archive can be wrong is refused in one line naming what differs."""
import json
import os
import re
import subprocess

import pytest

import vm
from vm import dist, kbuild

OUTS = kbuild.outputs("swtags")


def teacher_build(fake, tmp_path, monkeypatch):
    """A fake swtags build in cache A, with kbuild's links into the tree."""
    root = str(tmp_path / "A")
    monkeypatch.setenv("KASAN_TAGS_CACHE", root)
    bdir = kbuild.build_kernel("swtags")
    tree = os.path.join(os.path.dirname(bdir), "linux-source-6.1")
    os.symlink(tree, os.path.join(bdir, "source"))
    gdbpy = os.path.join(bdir, "vmlinux-gdb.py")
    os.unlink(gdbpy)
    os.symlink(tree + "/scripts/gdb/vmlinux-gdb.py", gdbpy)
    open(os.path.join(bdir, "Makefile"), "w").write("include %s/Makefile\n" % tree)
    open(os.path.join(bdir, "big.o"), "w").write("object")
    os.makedirs(vm.module_dir(bdir))
    kbuild.write_manifest(bdir, OUTS)
    return root, bdir


def student(tmp_path, monkeypatch):
    root = str(tmp_path / "B")
    monkeypatch.setenv("KASAN_TAGS_CACHE", root)
    return root


def test_an_archive_round_trips_and_no_kernel_is_built(fake, tmp_path, monkeypatch):
    a_root, a_bdir = teacher_build(fake, tmp_path, monkeypatch)
    archive = str(tmp_path / "k.tar.zst")
    dist.main_dist(archive, [])
    names = subprocess.run(["tar", "-tf", archive], capture_output=True,
                           text=True).stdout.split()
    assert dist.KT_DIST in names
    assert not any(n.endswith(".o") or re.search(r"/kt(-[0-9a-f]{8})?/", n) for n in names), names

    b_root = student(tmp_path, monkeypatch)
    assert dist.import_archive(archive) == [("swtags", "imported")]
    b_bdir = kbuild.build_dir("swtags")
    assert b_bdir.startswith(b_root) and os.path.basename(b_bdir) == os.path.basename(a_bdir)
    assert os.readlink(os.path.join(b_bdir, "source")).startswith(b_root + "/build/")
    assert os.readlink(os.path.join(b_bdir, "vmlinux-gdb.py")).startswith(b_root + "/build/")
    assert open(os.path.join(b_bdir, "Makefile")).read().startswith("include " + b_root)
    assert kbuild.manifest_errors(b_bdir, OUTS) == []
    builds = fake.builds
    assert kbuild.build_kernel("swtags") == b_bdir and fake.builds == builds
    assert dist.import_archive(archive) == [("swtags", "already in the cache")]


def rewrite(archive, tmp_path, edit):
    """The archive again, with kt-dist.json edited by `edit(meta)`."""
    x = tmp_path / "x"
    x.mkdir()
    subprocess.run(["tar", "-xf", archive, "-C", str(x)], check=True)
    meta = json.load(open(x / dist.KT_DIST))
    edit(meta, x)
    json.dump(meta, open(x / dist.KT_DIST, "w"))
    out = str(tmp_path / "edited.tar.gz")
    subprocess.run(["tar", "-czf", out, "-C", str(x), "."], check=True)
    return out


def key_edit(meta, x):
    meta["variants"]["swtags"]["key"]["fragment kasan.config"] = "0" * 64


def tool_edit(meta, x):
    meta["variants"]["swtags"]["key"]["toolchain"] = "Debian clang version 13.0.1"


def damage_edit(meta, x):
    d = meta["variants"]["swtags"]["dir"]
    os.truncate(x / d / "vmlinux", 10)


def unknown_edit(meta, x):
    meta["variants"]["swtags-x"] = meta["variants"]["swtags"]


def format_edit(meta, x):
    meta["format"] = 99


@pytest.mark.parametrize("edit, message", [
    (key_edit, r"does not match this checkout: swtags: fragment kasan.config differs "
               r"\(archive 000000000000, here [0-9a-f]{12}\)"),
    (tool_edit, r"swtags: toolchain differs \(archive 'Debian clang version 13.0.1', here"),
    (damage_edit, r"variant swtags: vmlinux: 10 bytes, built \d+"),
    (unknown_edit, r"swtags-x: this checkout has no variant swtags-x"),
    (format_edit, r"is not a kasan-tags kernel archive \(kt-dist.json: format 99\)"),
])
def test_a_mismatched_archive_is_refused_naming_what_differs(
        fake, tmp_path, monkeypatch, edit, message):
    teacher_build(fake, tmp_path, monkeypatch)
    archive = str(tmp_path / "k.tar.zst")
    dist.main_dist(archive, ["swtags"])
    bad = rewrite(archive, tmp_path, edit)
    b_root = student(tmp_path, monkeypatch)
    with pytest.raises(vm.KtError, match=message):
        dist.import_archive(bad)
    assert not os.path.exists(os.path.join(b_root, "build")), "nothing half-imported"
    assert [d for d in os.listdir(b_root) if d.startswith("import-")] == []


def test_a_truncated_or_missing_archive_is_one_line(fake, tmp_path, monkeypatch):
    teacher_build(fake, tmp_path, monkeypatch)
    archive = str(tmp_path / "k.tar.zst")
    dist.main_dist(archive, ["swtags"])
    os.truncate(archive, os.path.getsize(archive) // 2)
    student(tmp_path, monkeypatch)
    with pytest.raises(vm.KtError, match=r"^cannot unpack .*k.tar.zst \(truncated or damaged"):
        dist.import_archive(archive)
    with pytest.raises(vm.KtError, match=r"^no archive .*nothere.tar.zst \(make it with"):
        dist.import_archive(str(tmp_path / "nothere.tar.zst"))


def test_dist_builds_a_kernel_on_its_first_use(fake, tmp_path, monkeypatch):
    student(tmp_path, monkeypatch)
    with pytest.raises(vm.KtError, match=r"^no kernel is built in .*B; run `make` first"):
        dist.main_dist(str(tmp_path / "k.tar.zst"), [])
    builds = fake.builds
    dist.main_dist(str(tmp_path / "k.tar.zst"), ["generic"])
    assert fake.builds == builds + 1 and os.path.exists(tmp_path / "k.tar.zst")


def test_the_archive_carries_the_qemu_of_lab_6(fake, tmp_path, monkeypatch):
    """hwtags runs a QEMU fetched from bookworm-backports: make dist carries
    it, make import puts it in place, and no download is needed after."""
    from vm import cache, qemupkg
    root = str(tmp_path / "A")
    monkeypatch.setenv("KASAN_TAGS_CACHE", root)
    monkeypatch.setattr(cache, "variant_tree", lambda top, src, patches: src)  # no real patching
    bdir = kbuild.build_kernel("hwtags")
    kbuild.write_manifest(bdir, kbuild.outputs("hwtags"))
    spec = vm.machine_of_variant("hwtags").package
    top = qemupkg.top_dir(spec)
    prog = os.path.join("usr", "bin", vm.machine_of_variant("hwtags").binary)
    os.makedirs(os.path.join(top, "unpacked-1", "usr", "bin"))
    open(os.path.join(top, "unpacked-1", prog), "w").write("x")
    json.dump({"dir": "unpacked-1"}, open(os.path.join(top, qemupkg.STAMP), "w"))
    archive = str(tmp_path / "k.tar.zst")
    dist.main_dist(archive, ["hwtags"])

    def offline(*_a):
        raise vm.KtError("offline")
    monkeypatch.setattr(qemupkg, "fetch", offline)
    b_root = student(tmp_path, monkeypatch)
    done = dict(dist.import_archive(archive))
    assert done["hwtags"] == "imported" and "imported" in done[os.path.basename(top)]
    got = qemupkg.unpacked(spec)
    assert got.startswith(b_root) and os.path.exists(os.path.join(got, prog))
