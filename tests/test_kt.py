"""The pipeline's pure parts: variants, fragments, config check, cache key."""
import os
import shutil

import pytest

import kt


@pytest.fixture
def configs(tmp_path, monkeypatch):
    d = tmp_path / "configs"
    shutil.copytree(kt.CONFIGS, d)
    monkeypatch.setattr(kt, "CONFIGS", str(d))
    monkeypatch.setattr(kt, "tarball", lambda: "/usr/src/linux-source-6.1.tar.xz")
    monkeypatch.setattr(kt, "tarball_sha", lambda p: "0" * 64)
    monkeypatch.setattr(kt, "toolchain_id", lambda: "clang 14")
    return d


def test_variants_listed():
    assert {"swtags", "swtags-outline", "generic", "none"} <= set(kt.variants())


def test_swtags_includes_kasan(configs):
    frags, patches = kt.resolve_variant("swtags")
    names = [os.path.basename(f) for f in frags]
    assert names == ["base.config", "kasan.config", "swtags.config"] and patches == []
    want = kt.fragment_options(frags)
    assert want["CONFIG_KASAN_SW_TAGS"] == "y" and want["CONFIG_RANDOMIZE_BASE"] == "n"


def test_unknown_variant(configs):
    with pytest.raises(kt.KtError, match="unknown variant 'nope'"):
        kt.resolve_variant("nope")
    with pytest.raises(kt.KtError):
        kt.resolve_variant("../etc/passwd")


def test_missing_patch_named(configs):
    (configs / "x.config").write_text("# kt-patch: patches/experiments/none.patch\n")
    with pytest.raises(kt.KtError, match="missing patch"):
        kt.resolve_variant("x")


def test_config_mismatch():
    want = {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": "y"}
    have = "CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\n"
    assert kt.config_mismatches(want, have) == [("CONFIG_B", "n", "y"), ("CONFIG_C", "y", "n")]


def test_key_follows_fragments(configs):
    k1 = kt.build_key("swtags")
    assert k1 != kt.build_key("generic")
    with open(configs / "fragments" / "base.config", "a") as f:
        f.write("CONFIG_X=y\n")
    k2 = kt.build_key("swtags")
    assert k2 != k1
    with open(configs / "fragments" / "kasan.config", "a") as f:
        f.write("# a comment changes the text, so the key too\n")
    assert kt.build_key("swtags") != k2


def test_cache_root_override(monkeypatch, tmp_path):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path))
    assert kt.cache_root() == str(tmp_path)
    monkeypatch.delenv("KASAN_TAGS_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert kt.cache_root() == os.path.join(str(tmp_path), "kasan-tags")


def test_missing_include_named(configs):
    (configs / "y.config").write_text("# kt-include: nope.config\n")
    with pytest.raises(kt.KtError, match="includes missing nope.config"):
        kt.resolve_variant("y")


def test_every_variant_resolves():
    for v in kt.variants():
        frags, patches = kt.resolve_variant(v)
        assert os.path.basename(frags[0]) == "base.config"
        assert all(os.path.exists(p) for p in patches)
