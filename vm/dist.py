# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make dist` / `make import`: built kernels from one machine to many.

A teacher builds once and runs `make dist`; each student runs `make import
FILE=kasan-tags-kernels.tar.zst` and their first `make grade` builds no
kernel.  The archive holds, per variant, the build dir without its object
files (Image, vmlinux, vmlinux-gdb.py, Module.symvers, .config, the
generated headers and host tools that out-of-tree modules build with), plus
Debian's static busybox, the licence texts (COPYING, LICENSES/: the kernels
are Linux, GPL-2.0-only, built from Debian's linux-source tarball and this
checkout's patches) and KT_DIST, which records:

    format, the exporting cache root, and per variant its build dir name and
    the parts of its cache key (kbuild.key_parts: the recipe, the tarball's
    sha256 and clang's version as they are, each fragment and patch as the
    sha256 of its text)

An import recomputes those parts from the student's checkout and refuses
the archive, naming what differs, unless they are equal; then it checks
every file of each build's manifest (.kt-complete), rewrites the paths
that name the exporting cache (symlinks, the build dir's Makefile), and
moves the builds into place.  The kernel tree itself is not shipped: the
student's own tarball (same sha256, part of the key) is extracted on first
use, which kbuild.build_kernel does when a build dir's `source` is missing.
"""

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Sequence, Tuple

from vm import cache
from vm.base import REPO, KtError, Lock, log
from vm.initramfs import BUSYBOX
from vm import qemupkg
from vm.kbuild import build_dir, build_kernel, key_parts, manifest_errors, outputs
from vm.qemu import machine_of_variant
from vm.variant import variants

KT_DIST = "kt-dist.json"
FORMAT = 1
# Not shipped: objects and their command records (kbuild rebuilds nothing
# from them for an external module), link intermediates, and kasan-tags'
# per-checkout outputs (kt*/: modules and initramfs, rebuilt by the student).
SKIP_SUFFIXES = (".o", ".a", ".cmd", ".mod.c")
SKIP_PREFIXES = (".tmp_", "kt")


# What every archive carries besides the kernels: the licences they are
# under (COPYING names the source of each binary), from this checkout.
LICENCE_DIR = "LICENSES"


def licence_members() -> List[str]:
    """COPYING and LICENSES/*, relative to the checkout."""
    top = os.path.join(REPO, LICENCE_DIR)
    out = ["COPYING"] + sorted(os.path.join(LICENCE_DIR, f) for f in
                               (os.listdir(top) if os.path.isdir(top) else []))
    if len(out) == 1 or not os.path.isfile(os.path.join(REPO, "COPYING")):
        raise KtError("this checkout has no COPYING or no %s/: the archive must carry "
                      "the kernels' licence" % LICENCE_DIR)
    return out


def compressor() -> List[str]:
    return ["--zstd"] if shutil.which("zstd") else ["--gzip"]


def shipped(bdir: str) -> List[str]:
    """Paths (relative to bdir) the archive carries for one build dir."""
    out = []
    for root, dirs, files in os.walk(bdir):
        rel = os.path.relpath(root, bdir)
        if rel == ".":
            dirs[:] = [d for d in dirs if not d.startswith(SKIP_PREFIXES)]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            if name.endswith(SKIP_SUFFIXES) or name.startswith(".tmp_") or \
                    rel == "." and name.startswith("kt") and name != "kt-variant.json":
                continue
            out.append(os.path.normpath(os.path.join(rel, name)))
    return sorted(out)


def complete(v: str) -> bool:
    """Is this checkout's build of `v` in the cache, whole?"""
    bdir = build_dir(v)
    return os.path.exists(os.path.join(bdir, ".kt-complete")) and \
        not manifest_errors(bdir, outputs(v))


def dist(path: str, names: Sequence[str]) -> Dict[str, Any]:
    """Write the archive of the variants `names` to `path`, building first
    any of them that is not built yet (a kernel is built on its first use)."""
    root = cache.cache_root()
    meta: Dict[str, Any] = {"format": FORMAT, "cache_root": root, "variants": {}}
    members = []
    for v in names:
        bdir = build_dir(v)
        if not complete(v):
            build_kernel(v)
        rel = os.path.relpath(bdir, root)
        meta["variants"][v] = {"dir": rel, "key": dict(key_parts(v))}
        members += [os.path.join(rel, p) for p in shipped(bdir)]
    if os.path.exists(os.path.join(root, BUSYBOX)):
        members.append(BUSYBOX)
    # The QEMU a variant's machine runs from another Debian suite (hwtags:
    # bookworm-backports), so that a classroom without network runs lab 6.
    meta["qemu"] = []
    for spec in sorted({machine_of_variant(v).package for v in names} - {""}):
        tree = qemupkg.unpacked(spec)
        top = os.path.dirname(tree)
        meta["qemu"].append(os.path.relpath(top, root))
        members.append(os.path.relpath(os.path.join(top, qemupkg.STAMP), root))
        for dirpath, _, files in os.walk(tree):
            members += [os.path.relpath(os.path.join(dirpath, f), root) for f in files]
    tmp = tempfile.mkdtemp(prefix="kt-dist-")
    try:
        with open(os.path.join(tmp, KT_DIST), "w") as f:
            json.dump(meta, f, indent=1)
        lst = os.path.join(tmp, "members")
        with open(lst, "w") as f:
            f.write("\n".join(members) + "\n")
        out = os.path.abspath(path)
        try:
            subprocess.run(["tar", "-c", "-f", out + ".tmp"] + compressor() +
                           ["-C", tmp, KT_DIST, "-C", REPO] + licence_members() +
                           ["-C", root, "--no-recursion", "-T", lst],
                           check=True, stderr=subprocess.PIPE)
        except subprocess.CalledProcessError as e:
            why = e.stderr.decode(errors="replace").strip().splitlines()
            raise KtError("could not write %s: %s"
                          % (out, why[-1] if why else "tar exit %d" % e.returncode))
        os.replace(out + ".tmp", out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return meta


def short(value: str) -> str:
    return value[:12] if all(c in "0123456789abcdef" for c in value) else repr(value[:60])


def key_differences(v: str, archived: Dict[str, str]) -> List[str]:
    """What the archive built `v` from that this checkout would not."""
    mine = dict(key_parts(v))
    diff = []
    for part in sorted(set(mine) | set(archived)):
        if part not in archived:
            diff.append("%s is in this checkout, not in the archive" % part)
        elif part not in mine:
            diff.append("%s is in the archive, not in this checkout" % part)
        elif mine[part] != archived[part]:
            diff.append("%s differs (archive %s, here %s)"
                        % (part, short(archived[part]), short(mine[part])))
    return diff


def rebase(bdir: str, old: str, new: str) -> None:
    """Paths under the exporting cache `old` now name the cache `new`."""
    for root, dirs, files in os.walk(bdir):
        for name in files + dirs:
            p = os.path.join(root, name)
            if os.path.islink(p):
                t = os.readlink(p)
                if t == old or t.startswith(old + "/"):
                    os.unlink(p)
                    os.symlink(new + t[len(old):], p)
    for name in ("Makefile", "kt-variant.json", ".kt-complete"):
        p = os.path.join(bdir, name)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p) as f:
                text = f.read()
            with open(p, "w") as f:
                f.write(text.replace(old + "/", new + "/"))


def read_meta(tmp: str, path: str) -> Dict[str, Any]:
    try:
        with open(os.path.join(tmp, KT_DIST)) as f:
            meta: Dict[str, Any] = json.load(f)
        if meta.get("format") != FORMAT or not isinstance(meta.get("variants"), dict):
            raise ValueError("format %r" % meta.get("format"))
        for v, d in meta["variants"].items():
            if not (isinstance(d, dict) and isinstance(d.get("key"), dict)
                    and isinstance(d.get("dir"), str)
                    and os.path.normpath(d["dir"]).startswith("build/")):
                raise ValueError("variant %r" % v)
        return meta
    except (OSError, ValueError) as e:
        raise KtError("%s is not a kasan-tags kernel archive (%s: %s)" % (path, KT_DIST, e))


def import_archive(path: str) -> List[Tuple[str, str]]:
    """Install the archive's builds into this cache; [(variant, status)]."""
    if not os.path.isfile(path):
        raise KtError("no archive %s (make it with `make dist` on the teacher's machine)"
                      % path)
    root = cache.cache_root()
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="import-", dir=root)
    try:
        p = subprocess.run(["tar", "-x", "-f", os.path.abspath(path), "-C", tmp],
                           stderr=subprocess.PIPE)
        if p.returncode:
            why = p.stderr.decode(errors="replace").strip().splitlines()
            raise KtError("cannot unpack %s (truncated or damaged?): %s"
                          % (path, why[-1] if why else "tar exit %d" % p.returncode))
        meta = read_meta(tmp, path)
        for v, d in sorted(meta["variants"].items()):
            diff = key_differences(v, d["key"]) if v in variants() else \
                ["this checkout has no variant %s" % v]
            if diff:
                raise KtError("archive %s does not match this checkout: %s: %s%s"
                              % (path, v, diff[0], "; and %d more" % (len(diff) - 1)
                                 if len(diff) > 1 else ""))
        done = []
        for v, d in sorted(meta["variants"].items()):
            src = os.path.join(tmp, d["dir"])
            errs = manifest_errors(src, outputs(v))
            if errs:
                raise KtError("archive %s: variant %s: %s" % (path, v, errs[0]))
            dst = build_dir(v)
            with Lock(dst + ".lock", "importing the %s kernel" % v):
                if complete(v):
                    done.append((v, "already in the cache"))
                    continue
                rebase(src, meta["cache_root"], root)
                shutil.rmtree(dst, ignore_errors=True)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.rename(src, dst)
                done.append((v, "imported"))
        for top in meta.get("qemu", []):
            src, dst = os.path.join(tmp, top), os.path.join(root, top)
            if os.path.normpath(top).startswith("qemu/") and os.path.isdir(src) and \
                    not os.path.exists(os.path.join(dst, qemupkg.STAMP)):
                shutil.rmtree(dst, ignore_errors=True)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.rename(src, dst)
                done.append((os.path.basename(top), "imported (QEMU, no download needed)"))
        bb, mine = os.path.join(tmp, BUSYBOX), os.path.join(root, BUSYBOX)
        if os.path.exists(bb) and not os.path.exists(mine):
            os.makedirs(os.path.dirname(mine), exist_ok=True)
            os.rename(bb, mine)
        return done
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main_dist(path: str, names: Sequence[str]) -> None:
    """Every variant built in this cache unless `names` says which."""
    names = list(names) or [v for v in variants() if complete(v)]
    if not names:
        raise KtError("no kernel is built in %s; run `make` first" % cache.cache_root())
    meta = dist(path, names)
    log("wrote %s: %d kernel(s) (%s), %d MiB"
        % (path, len(meta["variants"]), ", ".join(meta["variants"]),
           os.path.getsize(path) >> 20))


def main_import(path: str) -> None:
    for v, status in import_archive(path):
        log("%s: %s" % (v, status))
