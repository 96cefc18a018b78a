# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A QEMU from one of Debian's suites other than the installed one,
unpacked into the cache (never installed), for a machine that needs it.

Debian 12's own QEMU (7.2) gives every 16-byte granule of a page the same
MTE tag storage (QEMU issue 1416; fixed upstream by "target/arm: Fix
physical address resolution for MTE", 2023), so `-M virt,mte=on` cannot run
hardware tag-based KASAN.  bookworm-backports carries a later QEMU built for
Debian 12: apt fetches it with a private package list (nothing in
/etc/apt changes, no root needed), dpkg-deb unpacks it, and only the
machines that name it (vm/qemu.py: QemuParams.package) run it."""

import glob
import json
import os
import shutil
import subprocess
from typing import List

from vm import cache
from vm.base import KtError, Lock, log, sha256_file

SOURCES = """Types: deb
URIs: http://deb.debian.org/debian
Suites: %s
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""
STAMP = "kt-qemu.json"


def split_spec(spec: str) -> List[str]:
    """'PACKAGE/SUITE' -> [PACKAGE, SUITE], or a one-line error."""
    parts = spec.split("/")
    if len(parts) != 2 or not all(parts):
        raise KtError("QEMU package %r: expected PACKAGE/SUITE, e.g. "
                      "qemu-system-arm/bookworm-backports" % spec)
    return parts


def apt_options(top: str) -> List[str]:
    """apt-get options that use a package list of our own under top/apt."""
    apt = os.path.join(top, "apt")
    return ["-o", "Dir::Etc::SourceList=/dev/null",
            "-o", "Dir::Etc::SourceParts=" + os.path.join(apt, "sources"),
            "-o", "Dir::State::Lists=" + os.path.join(apt, "lists"),
            "-o", "Dir::Cache=" + os.path.join(apt, "cache"),
            "-o", "Debug::NoLocking=1", "-q"]


def top_dir(spec: str) -> str:
    package, suite = split_spec(spec)
    return os.path.join(cache.cache_root(), "qemu", "%s-%s" % (package, suite))


def unpacked(spec: str) -> str:
    """The unpacked tree of spec's package, fetched on first use."""
    top = top_dir(spec)
    stamp = os.path.join(top, STAMP)
    if not os.path.exists(stamp):
        with Lock(os.path.join(top, ".lock"), "fetching " + spec):
            if not os.path.exists(stamp):
                fetch(spec, top)
    with open(stamp) as f:
        return os.path.join(top, json.load(f)["dir"])


def fetch(spec: str, top: str) -> None:
    package, suite = split_spec(spec)
    opts = apt_options(top)
    for d in ("sources", "lists/partial", "cache/archives/partial"):
        os.makedirs(os.path.join(top, "apt", d), exist_ok=True)
    with open(os.path.join(top, "apt", "sources", suite + ".sources"), "w") as f:
        f.write(SOURCES % suite)
    log("fetching %s from Debian's %s (apt-get download, not installed)" % (package, suite))
    for cmd in (["apt-get", *opts, "update"], ["apt-get", *opts, "download", spec]):
        p = subprocess.run(cmd, cwd=top, capture_output=True, text=True)
        if p.returncode:
            last = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
            raise KtError("cannot fetch %s from Debian's %s (offline?): `apt-get %s`: %s"
                          % (package, suite, cmd[-1], last))
    debs = sorted(glob.glob(os.path.join(top, "%s_*.deb" % package)), key=os.path.getmtime)
    if not debs:
        raise KtError("apt-get download %s left no .deb in %s" % (spec, top))
    deb = debs[-1]
    version = subprocess.run(["dpkg-deb", "-f", deb, "Version"], capture_output=True,
                             text=True).stdout.strip()
    name = "unpacked-" + version.replace(":", "_")
    tmp = os.path.join(top, name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    p = subprocess.run(["dpkg-deb", "-x", deb, tmp], capture_output=True, text=True)
    if p.returncode:
        raise KtError("dpkg-deb -x %s: %s" % (deb, p.stderr.strip()))
    shutil.rmtree(os.path.join(top, name), ignore_errors=True)
    os.rename(tmp, os.path.join(top, name))
    with open(os.path.join(top, STAMP + ".tmp"), "w") as f:
        json.dump({"package": package, "suite": suite, "version": version, "dir": name,
                   "deb": os.path.basename(deb), "sha256": sha256_file(deb)}, f, indent=1)
    os.replace(os.path.join(top, STAMP + ".tmp"), os.path.join(top, STAMP))
    os.unlink(deb)


def binary(spec: str, name: str) -> str:
    """The path of program `name` (e.g. qemu-system-aarch64) in spec's
    package; it must run here (its libraries are Debian 12's)."""
    path = os.path.join(unpacked(spec), "usr", "bin", name)
    if not os.access(path, os.X_OK):
        raise KtError("%s has no usr/bin/%s (remove %s to fetch it again)"
                      % (spec, name, top_dir(spec)))
    p = subprocess.run([path, "--version"], capture_output=True, text=True)
    if p.returncode:
        last = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        raise KtError("%s from %s does not run here: %s" % (name, spec, last))
    return path
