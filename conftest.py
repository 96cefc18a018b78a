# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""pytest fixtures shared by tests/ and gdb-scripts/tests/: real serial
logs, and vm.kbuild with a fake `make` (no kernel is built)."""
import lzma
import os
import time

import pytest

import vm
from vm import cache, kbuild
from kasan import modes

# The import path is pyproject.toml's `pythonpath` (the checkout, gdb-scripts).
REPO = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(REPO, "gdb-scripts", "tests", "fixtures")


def load_fixture(name):
    path = os.path.join(FIXTURES, name + ".log.xz")
    if not os.path.exists(path):
        pytest.fail("missing fixture %s: run `make fixtures`" % path)
    with lzma.open(path, "rt") as f:
        return f.read()


@pytest.fixture(scope="session")
def swtags_log():
    return load_fixture(modes.SW_TAGS.variant)


@pytest.fixture(scope="session")
def generic_log():
    return load_fixture("generic")


@pytest.fixture(scope="session")
def hwtags_log():
    return load_fixture(modes.HW_TAGS.variant)


class FakeKbuild:
    """kmake() as a fake: `make tinyconfig` writes .config, the image
    target writes every output; `fail_at` raises in the middle of that."""

    def __init__(self):
        self.builds, self.fail_at, self.delay = 0, None, 0.0

    def __call__(self, src, bdir, *targets, logfile="", kbuild="arm64", ident=()):
        if "tinyconfig" in targets:
            open(os.path.join(bdir, ".config"), "w").write("CONFIG_X=y\n")
            return
        if "olddefconfig" in targets:
            return
        self.builds += 1
        time.sleep(self.delay)
        outs = vm.kbuild.outputs(modes.SW_TAGS.variant)
        for i, out in enumerate(outs):
            if self.fail_at == i:
                raise vm.KtError("`make -C src` failed (exit 2); full log: %s" % logfile)
            path = os.path.join(bdir, out)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(out.encode() * 1000)


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """vm.kbuild with a fake kmake in a cache under tmp_path (tests/test_faults.py)."""
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "src"
    src.mkdir()
    monkeypatch.setattr(cache, "preflight", lambda *a, **k: None)
    monkeypatch.setattr(cache, "pristine_tree", lambda: (str(src), "0" * 64))
    monkeypatch.setattr(kbuild, "build_key", lambda v: "k" + v)
    monkeypatch.setattr(kbuild, "run", lambda *a, **k: None)
    monkeypatch.setattr(kbuild, "config_mismatches", lambda *a: [])
    k = FakeKbuild()
    monkeypatch.setattr(kbuild, "kmake", k)
    return k
