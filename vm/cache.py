# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The cache outside the repository: preflight, the linux-source tarball,
the pristine extracted tree and the hard-link copy each build compiles.

    CACHE/src/<sha16>/linux-source-6.1/     pristine, never built in
    CACHE/build/<variant>-<key>/linux-source-6.1/   its hard-link copy, patched
    CACHE/build/<variant>-<key>/obj/                the build (vm.kbuild)
"""

import glob
import json
import os
import re
import shutil
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple

from vm.base import REPO, KtError, Lock, log, run, sha256_file

# command -> Debian package that provides it (for one-line preflight errors)
TOOLS = {
    "clang": "clang", "ld.lld": "lld", "llvm-objdump": "llvm",
    "qemu-system-aarch64": "qemu-system-arm", "gdb-multiarch": "gdb-multiarch",
    "qemu-img": "qemu-utils",
    "bc": "bc", "bison": "bison", "flex": "flex", "cpio": "cpio",
    "rsync": "rsync", "xz": "xz-utils", "make": "make", "perl": "perl",
    "setpriv": "util-linux", "bwrap": "bubblewrap",
}


def cache_root() -> str:
    env = os.environ.get("KASAN_TAGS_CACHE")
    if env:
        return os.path.abspath(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(xdg, "kasan-tags")


def missing_tools(names: Optional[Sequence[str]] = None) -> List[Tuple[str, str]]:
    return [(t, TOOLS[t]) for t in (names or TOOLS) if shutil.which(t) is None]


def preflight(names: Optional[Sequence[str]] = None, need_tarball: bool = True) -> None:
    miss = missing_tools(names)
    if miss:
        pkgs = " ".join(sorted({p for _, p in miss}))
        raise KtError("missing %s (Debian package: %s); run `make deps`"
                      % (", ".join(t for t, _ in miss), pkgs))
    if need_tarball:
        tarball()
    os.makedirs(cache_root(), exist_ok=True)
    free = free_mib(cache_root())
    if free < TREE_MIB + 2 * BUILD_MIB:
        raise KtError("only %d MiB free in %s; the tree and a kernel build need about "
                      "%d MiB (set KASAN_TAGS_CACHE elsewhere)"
                      % (free, cache_root(), TREE_MIB + 2 * BUILD_MIB))


# What a step needs on disk, in MiB: the extracted 6.1 tree, one build dir
# (measured here: about 1.4 GiB and 0.5 GiB).
TREE_MIB, BUILD_MIB = 1500, 600


def free_mib(path: str) -> int:
    st = os.statvfs(path)
    return (st.f_bavail * st.f_frsize) >> 20


def disk_full(path: str, what: str, need_mib: int) -> Optional[KtError]:
    """After a failed step: the one-line error if the disk under `path` is
    (nearly) full, else None (the step failed for another reason)."""
    free = free_mib(path)
    if free >= 64:
        return None
    return KtError("no space left in %s while %s: it needs about %d MiB, %d MiB are "
                   "free; free some (or set KASAN_TAGS_CACHE elsewhere) and run again"
                   % (path, what, need_mib, free))


def tarball() -> str:
    """The linux-source-X.Y tarball the `linux-source` package pulled in."""
    want = None
    try:
        dep = subprocess.run(["dpkg-query", "-W", "-f=${Depends}", "linux-source"],
                             capture_output=True, text=True).stdout
        m = re.search(r"linux-source-([0-9.]+)", dep)
        want = m and m.group(1)
    except OSError:
        pass
    if os.environ.get("KASAN_TAGS_LINUX"):
        want = os.environ["KASAN_TAGS_LINUX"]
    if want:
        path = "/usr/src/linux-source-%s.tar.xz" % want
        if os.path.exists(path):
            return path
    found = sorted(glob.glob("/usr/src/linux-source-6.1*.tar.xz"))
    if found:
        return found[-1]
    raise KtError("no /usr/src/linux-source-6.1.tar.xz; run `make deps` "
                  "(Debian package linux-source)")


def tarball_sha(path: str) -> str:
    """sha256 of the tarball, memoised by (path, size, mtime)."""
    st = os.stat(path)
    memo = os.path.join(cache_root(), "tarball-sha.json")
    key = "%s:%d:%d" % (path, st.st_size, st.st_mtime_ns)
    try:
        with open(memo) as f:
            data: Dict[str, str] = json.load(f)
        if data.get("key") == key:
            return data["sha"]
    except (OSError, ValueError):
        pass
    sha = sha256_file(path)
    os.makedirs(cache_root(), exist_ok=True)
    with open(memo + ".tmp", "w") as f:
        json.dump({"key": key, "sha": sha}, f)
    os.replace(memo + ".tmp", memo)
    return sha


def pristine_tree() -> Tuple[str, str]:
    """Extract the tarball once into CACHE/src/<sha>/; never built in."""
    tb = tarball()
    sha = tarball_sha(tb)
    top = os.path.join(cache_root(), "src", sha[:16])
    with Lock(top + ".lock", "extracting the kernel tree"):
        done = os.path.join(top, ".kt-extracted")
        if not os.path.exists(done):
            log("extracting %s into %s" % (tb, top))
            shutil.rmtree(top, ignore_errors=True)
            tmp = top + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            try:
                run(["tar", "-C", tmp, "-xf", tb])
            except KtError as e:
                full = disk_full(os.path.dirname(tmp), "extracting the kernel tree",
                                 TREE_MIB)
                # Nothing half-extracted stays: the next run starts afresh.
                shutil.rmtree(tmp, ignore_errors=True)
                raise full or e
            os.rename(tmp, top)
            with open(done, "w") as f:
                f.write(tb + "\n")
        subdirs = [d for d in os.listdir(top) if d.startswith("linux-source")]
        if len(subdirs) != 1:
            raise KtError("stale or broken source cache %s; delete it" % top)
        src = os.path.join(top, subdirs[0])
    if os.path.exists(os.path.join(src, ".config")) or \
            os.path.exists(os.path.join(src, "include/config")):
        raise KtError("source cache %s was built in-tree (kbuild would refuse "
                      "O= builds); delete %s" % (src, top))
    return src, sha


def variant_tree(top: str, src: str, patches: Sequence[str]) -> str:
    """TOP/<tree name>: a hard-link copy of the pristine tree with `patches`
    applied, the tree one build compiles.

    Every variant's tree sits at the same place relative to its objects
    (TOP/obj builds ../linux-source-6.1), so that with ccache's base_dir
    two variants that differ by one patch compile the same command lines
    and share every object the patch does not touch (vm.kbuild.ccache_env)."""
    dst = os.path.join(top, os.path.basename(src))
    stamp = os.path.join(top, ".kt-tree")
    want = "".join(os.path.relpath(p, REPO) + " " + sha256_file(p) + "\n" for p in patches)
    try:
        with open(stamp) as f:
            if f.read() == want and os.path.isdir(dst):
                return dst
    except OSError:
        pass
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(top, exist_ok=True)
    run(["cp", "-al", src, dst])
    for p in patches:
        log("applying %s" % os.path.relpath(p, REPO))
        # patch(1) writes each file anew, so the hard links to the
        # pristine tree are broken exactly where the patch touches.
        run(["patch", "-p1", "-s", "--no-backup-if-mismatch", "-d", dst, "-i", p])
    with open(stamp, "w") as f:
        f.write(want)
    return dst
