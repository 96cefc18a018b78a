# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""vm/: the pipeline's pure parts: variants, fragments, config check, cache key."""
import os
import shutil
import subprocess
import time

import pytest

import vm
from vm import cache, kbuild, proc, qemu, variant


@pytest.fixture
def configs(tmp_path, monkeypatch):
    d = tmp_path / "configs"
    shutil.copytree(variant.CONFIGS, d)
    monkeypatch.setattr(variant, "CONFIGS", str(d))
    monkeypatch.setattr(cache, "tarball", lambda: "/usr/src/linux-source-6.1.tar.xz")
    monkeypatch.setattr(cache, "tarball_sha", lambda p: "0" * 64)
    monkeypatch.setattr(kbuild, "toolchain_id", lambda: "clang 14")
    return d


def test_variants_listed():
    assert {"swtags", "swtags-outline", "generic", "none"} <= set(variant.variants())


def test_swtags_includes_kasan(configs):
    frags, patches = variant.resolve_variant("swtags")
    names = [os.path.basename(f) for f in frags]
    assert names == ["base.config", "kasan.config", "swtags.config"] and patches == []
    want = variant.fragment_options(frags)
    assert want["CONFIG_KASAN_SW_TAGS"] == "y" and want["CONFIG_RANDOMIZE_BASE"] == "n"


def test_unknown_variant(configs):
    with pytest.raises(vm.KtError, match="unknown variant 'nope'"):
        variant.resolve_variant("nope")
    with pytest.raises(vm.KtError):
        variant.resolve_variant("../etc/passwd")


def test_missing_patch_named(configs):
    (configs / "x.config").write_text("# kt-patch: patches/experiments/none.patch\n")
    with pytest.raises(vm.KtError, match="missing patch"):
        variant.resolve_variant("x")


def test_config_mismatch():
    want = {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": "y"}
    have = "CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\n"
    assert variant.config_mismatches(want, have) == [("CONFIG_B", "n", "y"), ("CONFIG_C", "y", "n")]


def test_key_follows_fragments(configs):
    k1 = kbuild.build_key("swtags")
    assert k1 != kbuild.build_key("generic")
    with open(configs / "fragments" / "base.config", "a") as f:
        f.write("CONFIG_X=y\n")
    k2 = kbuild.build_key("swtags")
    assert k2 != k1
    with open(configs / "fragments" / "kasan.config", "a") as f:
        f.write("# a comment changes the text, so the key too\n")
    assert kbuild.build_key("swtags") != k2


def test_cache_root_override(monkeypatch, tmp_path):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path))
    assert cache.cache_root() == str(tmp_path)
    monkeypatch.delenv("KASAN_TAGS_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_root() == os.path.join(str(tmp_path), "kasan-tags")


def test_arch_directive(configs):
    (configs / "x.config").write_text("# kt-arch: x86_64\n")
    assert variant.arch_of("x").kbuild == "x86_64"
    assert os.path.basename(variant.resolve_variant("x")[0][0]) == "base-x86_64.config"
    (configs / "y.config").write_text("# kt-arch: mips\n")
    with pytest.raises(vm.KtError, match="unknown arch 'mips'"):
        variant.arch_of("y")


def test_missing_include_named(configs):
    (configs / "y.config").write_text("# kt-include: nope.config\n")
    with pytest.raises(vm.KtError, match="includes missing nope.config"):
        variant.resolve_variant("y")


def test_every_variant_resolves():
    for v in variant.variants():
        frags, patches = variant.resolve_variant(v)
        assert os.path.basename(frags[0]) == variant.arch_of(v).base
        assert all(os.path.exists(p) for p in patches)


@pytest.mark.parametrize("split", [5, 30, 100])
def test_a_halted_guest_ends_its_boot(tmp_path, split):
    """x86 without ACPI halts on poweroff and QEMU stays up: the runner
    stops it at the kernel's last line, not at the boot timeout (whatever
    the chunk in which the line arrives, even split inside it)."""
    out = "KT-INIT-END\n[    2.7] reboot: System halted\n"
    script = "printf '%s'; sleep 0.2; printf '%s'; sleep 60" % (out[:split], out[split:])
    p = proc.spawn(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t0 = time.time()
    b = qemu.collect(p, ["fake"], str(tmp_path / "boot.log"), timeout=30)
    assert b.status == "ok" and time.time() - t0 < 10
    assert p.returncode is not None


def test_a_guest_that_never_halts_times_out(tmp_path):
    p = proc.spawn(["sh", "-c", "echo reboot: System; sleep 60"], stdout=subprocess.PIPE)
    assert qemu.collect(p, ["fake"], str(tmp_path / "boot.log"), timeout=1).status == "timeout"


def test_a_variant_tree_is_the_pristine_tree_with_its_patches(tmp_path):
    """vm.cache.variant_tree: a hard-link copy beside the build's objects,
    patched; the pristine file is untouched, and a changed patch makes the
    tree again (as it changes the kernel's key: test_key_follows_patches)."""
    src = tmp_path / "src" / "linux-source-6.1"
    src.mkdir(parents=True)
    (src / "a.c").write_text("one\n")
    (src / "b.c").write_text("same\n")
    patch = tmp_path / "p.patch"
    patch.write_text("--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-one\n+two\n")
    top = tmp_path / "build" / "v-key"
    dst = cache.variant_tree(str(top), str(src), [str(patch)])
    assert dst == str(top / "linux-source-6.1")
    assert (top / "linux-source-6.1" / "a.c").read_text() == "two\n"
    assert (src / "a.c").read_text() == "one\n", "the pristine tree is never written"
    assert os.stat(src / "b.c").st_ino == os.stat(top / "linux-source-6.1" / "b.c").st_ino
    patch.write_text("--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-one\n+three\n")
    cache.variant_tree(str(top), str(src), [str(patch)])
    assert (top / "linux-source-6.1" / "a.c").read_text() == "three\n"


def test_key_follows_patches(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "tarball_sha", lambda p: "0" * 64)
    monkeypatch.setattr(cache, "tarball", lambda: "/usr/src/linux-source-6.1.tar.xz")
    patch = tmp_path / "01-x.patch"
    patch.write_text("one\n")
    monkeypatch.setattr(kbuild, "resolve_variant", lambda v: ([], [str(patch)]))
    k1 = kbuild.build_key("exp-no-tbi")
    patch.write_text("two\n")
    assert kbuild.build_key("exp-no-tbi") != k1, "a changed patch is another kernel"


def test_a_variant_s_plugin_flag_comes_from_its_fragments(monkeypatch):
    """An imported build (make import) has no record of how it was built but
    its name: the plugin flag of lab 8's modules follows the variant."""
    monkeypatch.setattr(kbuild, "build_plugin", lambda src: "/p/" + os.path.basename(src))
    assert kbuild.extra_kcflags("/c/build/ptrcmp-0123/obj") == "-fpass-plugin=/p/ptrcmp.cpp"
    assert kbuild.extra_kcflags("/c/build/swtags-0123/obj") == ""
    assert kbuild.extra_kcflags("/c/build/nosuchvariant-0123/obj") == ""


def test_a_build_step_dies_with_its_caller():
    """vm.base.run (a kernel build's make and the compilers under it) is a
    process group that dies with the Python that started it: a killed
    make check or make kernel leaves no build running."""
    import signal
    import sys
    secs = "600.%d" % os.getpid()           # a sleep no other process runs
    code = ("import vm; vm.install_signal_handlers(); from vm.base import run; "
            "run(['sh', '-c', 'sleep %s & sleep %s; wait'])" % (secs, secs))
    path = os.pathsep.join([vm.REPO, os.path.join(vm.REPO, "gdb-scripts")])
    env = dict(os.environ, PYTHONPATH=path)
    p = subprocess.Popen([sys.executable, "-c", code], env=env)

    def running(n):
        for _ in range(200):
            out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
            if sum(1 for ln in out.splitlines() if ln == "sleep " + secs) == n:
                return True
            time.sleep(0.05)
        return False
    assert running(2)
    p.send_signal(signal.SIGTERM)
    p.wait(10)
    assert running(0)
