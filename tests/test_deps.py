# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make deps` (vm/deps) as an ordinary user without sudo: it names the
missing packages and the one command an administrator must run, and does
nothing else; with everything installed it succeeds unprivileged."""
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

from tests.checklib import NOBODY
from vm.base import VM
pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="needs root to become the user nobody (setpriv)")


@pytest.fixture
def tmp_path():
    """A directory nobody can read (pytest's own is root's, mode 0700)."""
    top = tempfile.mkdtemp(prefix="kt-deps-")
    yield pathlib.Path(top)
    shutil.rmtree(top, ignore_errors=True)


def deps_as_nobody(tmp_path, packages):
    d = tmp_path / "vm"
    d.mkdir()
    shutil.copy(os.path.join(VM, "deps"), d / "deps")
    (d / "packages.txt").write_text("# test list\n" + "\n".join(packages) + "\n")
    os.chmod(tmp_path, 0o755)
    os.chmod(d, 0o755)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    return subprocess.run(NOBODY + [str(d / "deps")], capture_output=True, text=True,
                          env=env, timeout=60)


def test_missing_packages_name_the_administrators_command(tmp_path):
    p = deps_as_nobody(tmp_path, ["make", "kt-no-such-package"])
    assert p.returncode == 1
    err = p.stderr.strip().splitlines()
    assert "deps: missing packages: kt-no-such-package" in err
    assert err[-1] == ("deps: error: not root and no sudo; an administrator must run "
                       "(as root): apt-get update && apt-get install -y "
                       "--no-install-recommends kt-no-such-package")
    assert "apt-get update" not in p.stdout, "it did not try to install"


def test_everything_installed_needs_no_privilege(tmp_path):
    p = deps_as_nobody(tmp_path, ["make"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "deps: all 1 packages are installed"
