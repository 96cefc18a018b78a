# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The faults a classroom hits in its first hour, on a fake kbuild (no
kernel is built): a build killed half-way, a damaged cached kernel, two
runs at once, a full disk during extract and build.

Each fault ends in one line and a consistent cache: the next run with the
fault gone succeeds.  vm.kbuild's own logic is what runs; only `make`, tar
and the tarball are fakes."""
import os
import subprocess
import threading
import time

import pytest

import vm
from vm import cache, kbuild, variant


ARM64_IMAGE = variant.ARCHES["arm64"].image


def kbuild_outputs():
    return kbuild.outputs("swtags")


def test_a_build_killed_half_way_is_built_again(fake):
    fake.fail_at = 2
    with pytest.raises(vm.KtError, match="failed"):
        kbuild.build_kernel("swtags")
    bdir = kbuild.build_dir("swtags")
    assert not os.path.exists(os.path.join(bdir, ".kt-complete"))
    fake.fail_at = None
    assert kbuild.build_kernel("swtags") == bdir
    assert fake.builds == 2
    assert kbuild.build_kernel("swtags") == bdir and fake.builds == 2, "reused"


@pytest.mark.parametrize("damage", ["truncate", "delete", "same-size"])
@pytest.mark.parametrize("out", ["vmlinux", ARM64_IMAGE, "Module.symvers"])
def test_a_damaged_kernel_is_rebuilt_before_any_boot(fake, damage, out, capsys):
    bdir = kbuild.build_kernel("swtags")
    path = os.path.join(bdir, out)
    if damage == "truncate":
        os.truncate(path, 100)
    elif damage == "delete":
        os.unlink(path)
    else:
        data = bytearray(open(path, "rb").read())
        data[10] ^= 1
        open(path, "wb").write(bytes(data))
    assert kbuild.build_kernel("swtags") == bdir
    assert fake.builds == 2
    err = capsys.readouterr().err
    assert "the cached swtags kernel is damaged (%s:" % out in err
    assert kbuild.manifest_errors(bdir, kbuild_outputs()) == []


def test_an_intact_kernel_is_not_rebuilt(fake):
    """The BAD case of the test above: touching a file (same bytes) is no damage."""
    bdir = kbuild.build_kernel("swtags")
    os.utime(os.path.join(bdir, "vmlinux"))
    kbuild.build_kernel("swtags")
    assert fake.builds == 1


def test_an_empty_stamp_from_an_older_build_gets_a_manifest(fake):
    bdir = kbuild.build_kernel("swtags")
    open(os.path.join(bdir, ".kt-complete"), "w").close()
    assert kbuild.manifest_errors(bdir, kbuild_outputs()) == []
    os.truncate(os.path.join(bdir, "vmlinux"), 1)
    assert kbuild.manifest_errors(bdir, kbuild_outputs())[0].startswith("vmlinux: 1 bytes")


def test_two_runs_at_once_build_once(fake, capsys):
    fake.delay = 1.0
    out = []
    th = [threading.Thread(target=lambda: out.append(kbuild.build_kernel("swtags")))
          for _ in range(2)]
    th[0].start()
    time.sleep(0.3)
    th[1].start()
    for t in th:
        t.join(20)
    assert len(out) == 2 and out[0] == out[1]
    assert fake.builds == 1
    assert "waiting: another run is building the swtags kernel" in capsys.readouterr().err


def test_disk_full_during_the_build(fake, monkeypatch):
    fake.fail_at = 1
    monkeypatch.setattr(cache, "free_mib", lambda p: 3)
    with pytest.raises(vm.KtError, match=r"^no space left in .*swtags-kswtags/obj while building "
                       r"the swtags kernel: it needs about 600 MiB, 3 MiB are free"):
        kbuild.build_kernel("swtags")
    monkeypatch.setattr(cache, "free_mib", lambda p: 10000)
    fake.fail_at = None
    kbuild.build_kernel("swtags")
    assert fake.builds == 2


def test_another_build_failure_is_not_called_disk_full(fake, monkeypatch):
    fake.fail_at = 1
    monkeypatch.setattr(cache, "free_mib", lambda p: 10000)
    with pytest.raises(vm.KtError, match="^`make -C src` failed"):
        kbuild.build_kernel("swtags")


def test_preflight_names_the_space_needed(tmp_path, monkeypatch):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path))
    monkeypatch.setattr(cache, "tarball", lambda: "/x.tar.xz")
    monkeypatch.setattr(cache, "free_mib", lambda p: 500)
    with pytest.raises(vm.KtError, match="only 500 MiB free in %s; .* need about 2700 MiB"
                       % tmp_path):
        cache.preflight()


def fake_tarball(tmp_path, monkeypatch, mib):
    """A tarball of `mib` MiB of incompressible data in linux-source-6.1/."""
    d = tmp_path / "t" / "linux-source-6.1"
    d.mkdir(parents=True)
    (d / "blob").write_bytes(os.urandom(mib << 20))
    tb = tmp_path / "linux-source-6.1.tar"
    subprocess.run(["tar", "-C", str(tmp_path / "t"), "-cf", str(tb), "linux-source-6.1"],
                   check=True)
    monkeypatch.setattr(cache, "tarball", lambda: str(tb))
    return tb


def tmpfs(path, mib):
    path.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % mib, "tmpfs", str(path)],
                       capture_output=True, text=True)
    if p.returncode:
        pytest.skip("cannot mount a small tmpfs here (%s): the disk-full extract "
                    "is then tested only on the fake" % (p.stderr.strip() or "not root"))


def test_disk_full_during_extract_on_a_real_small_tmpfs(tmp_path, monkeypatch):
    fake_tarball(tmp_path, monkeypatch, 12)
    mnt = tmp_path / "mnt"
    tmpfs(mnt, 8)
    try:
        monkeypatch.setenv("KASAN_TAGS_CACHE", str(mnt))
        with pytest.raises(vm.KtError, match=r"^no space left in %s/src while extracting "
                           r"the kernel tree: it needs about 1500 MiB, 0 MiB are free"
                           % mnt):
            cache.pristine_tree()
        left = os.listdir(mnt / "src")
        assert [x for x in left if not x.endswith(".lock")] == [], left
        subprocess.run(["mount", "-o", "remount,size=64m", str(mnt)], check=True)
        src, _ = cache.pristine_tree()
        assert os.path.getsize(os.path.join(src, "blob")) == 12 << 20
    finally:
        subprocess.run(["umount", "-l", str(mnt)])
