# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Containers made from Debian's packages only, and run as a grading
platform runs them: podman with its default security (masked /proc, its
default seccomp profile, no added capability, not privileged).

    tag = container.image("sandbox-test")     vm/images/sandbox-test.txt
    r = container.run(tag, ["python3", "-m", "pytest", ...], mounts, 900)

An image's recipe is data: vm/images/NAME.txt names its Debian suite
(`suite: bookworm`), its mmdebstrap variant (`variant: minbase`; apt by
default) and its packages.  mmdebstrap makes it from Debian's archive
(nothing from a registry), into CACHE/images/NAME-KEY.tar (rootfs()), KEY
being the sha of the recipe; `podman import` makes it the image
kasan-tags-NAME:KEY.  A changed recipe is a new key: an image never hides
a change.

On this kind of machine podman needs runc and cgroupfs (crun refuses the
cgroup layout), and a nofile/nproc ulimit it can set (shared/FACTS.md).
"""

import os
import shutil
import subprocess
import time
from typing import List, Optional, Sequence, Tuple

from vm import cache, proc
from vm.base import REPO, KtError, Lock, log, sha256_text

IMAGES = os.path.join(REPO, "vm", "images")
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager=cgroupfs"]
RUN_FLAGS = ["--rm", "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=20000:20000"]


def available() -> Tuple[bool, str]:
    """(podman and mmdebstrap are here, why not)."""
    missing = [t for t in ("podman", "mmdebstrap", "runc") if shutil.which(t) is None]
    return (not missing, "needs %s (make deps installs them)" % ", ".join(missing)
            if missing else "")


def recipe(name: str) -> Tuple[str, str, List[str], str]:
    """(suite, variant, packages, key) of vm/images/NAME.txt."""
    path = os.path.join(IMAGES, name + ".txt")
    if not os.path.exists(path):
        raise KtError("no image recipe %s (images: %s)" % (path, ", ".join(sorted(
            f[:-4] for f in os.listdir(IMAGES) if f.endswith(".txt")))))
    text = open(path).read()
    suite, variant, pkgs = "", "apt", []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("suite:"):
            suite = line.split(":", 1)[1].strip()
        elif line.startswith("variant:"):
            variant = line.split(":", 1)[1].strip()
        elif line:
            pkgs += line.split()
    if not suite or not (pkgs or variant == "minbase"):
        raise KtError("%s: needs a `suite:` line and packages (or `variant: minbase`)" % path)
    return suite, variant, pkgs, sha256_text(name, text)[:12]


def _has_image(tag: str) -> bool:
    p = subprocess.run(PODMAN + ["image", "exists", tag], capture_output=True)
    return p.returncode == 0


def rootfs(name: str) -> str:
    """CACHE/images/NAME-KEY.tar: recipe NAME's root filesystem, made by
    mmdebstrap from Debian's archive if it is not there yet."""
    suite, variant, pkgs, key = recipe(name)
    top = os.path.join(cache.cache_root(), "images")
    os.makedirs(top, exist_ok=True)
    tar = os.path.join(top, "%s-%s.tar" % (name, key))
    with Lock(os.path.join(top, name + ".lock")):
        if not os.path.exists(tar):
            if shutil.which("mmdebstrap") is None:
                raise KtError("containers: needs mmdebstrap (make deps installs it)")
            log("making the %s root filesystem (Debian %s, %s, %d packages) with mmdebstrap"
                % (name, suite, variant, len(pkgs)))
            p = subprocess.run(["mmdebstrap", "--variant=" + variant]
                               + (["--include=" + ",".join(pkgs)] if pkgs else [])
                               + [suite, tar[:-4] + ".tmp.tar"], capture_output=True,
                               text=True, timeout=1800)
            if p.returncode:
                said = p.stderr.strip().splitlines() or ["?"]
                raise KtError("mmdebstrap %s failed: %s" % (suite, said[-1]))
            os.replace(tar[:-4] + ".tmp.tar", tar)
    return tar


def image(name: str) -> str:
    """The podman image of recipe NAME, made if it is not there yet: its tag."""
    ok, why = available()
    if not ok:
        raise KtError("containers: %s" % why)
    key = recipe(name)[3]
    tag = "localhost/kasan-tags-%s:%s" % (name, key)
    if _has_image(tag):
        return tag
    tar = rootfs(name)
    with Lock(os.path.join(os.path.dirname(tar), name + ".import.lock")):
        if not _has_image(tag):
            p = subprocess.run(PODMAN + ["import", tar, tag], capture_output=True, text=True,
                               timeout=600)
            if p.returncode:
                raise KtError("podman import %s failed: %s" % (tar, p.stderr.strip()[-300:]))
    return tag


def run(tag: str, cmd: Sequence[str], mounts: Sequence[Tuple[str, str, str]] = (),
        timeout: float = 900, extra: Sequence[str] = (),
        workdir: Optional[str] = None) -> Tuple[int, str]:
    """Run cmd in a new container of image `tag` with podman's default
    security and no network; mounts: (host path, container path, "ro" or
    "rw").  (exit code, output); the container is killed at the timeout."""
    name = "kasan-tags-%d-%d" % (os.getpid(), time.monotonic_ns())
    args = PODMAN + ["run"] + RUN_FLAGS + ["--name", name, "--network", "none"] + list(extra)
    for host, inside, mode in mounts:
        args += ["-v", "%s:%s:%s" % (host, inside, mode)]
    if workdir:
        args += ["-w", workdir]
    p = proc.spawn(args + [tag] + list(cmd), stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        subprocess.run(PODMAN + ["kill", name], capture_output=True, timeout=60)
        proc.reap(p)
        return -1, "timeout after %d s" % timeout
    finally:
        proc.reap(p, grace=0)
        subprocess.run(PODMAN + ["rm", "-f", name], capture_output=True, timeout=60)
