# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kbuild: a variant's cache key, its build directory, and the build.

The build directory of a variant is the only place its outputs live:

    CACHE/build/<variant>-<key>/obj/   Image, vmlinux, vmlinux-gdb.py, Module.symvers,
                                       kt-variant.json, kt/ (init, modules, initramfs)
    CACHE/build/<variant>-<key>/linux-source-6.1/   the tree it compiles (vm.cache)

The key hashes RECIPE, the tarball, the clang version, the fragments and
the patches: a change to any of them is a new directory, never a stale one.
"""

import glob
import json
import os
import shutil
import subprocess
import time
import tomllib
from typing import Any, Dict, List, Sequence, Tuple

from vm import cache
from vm.base import REPO, KtError, Lock, log, run, sha256_file, sha256_text
from vm.variant import (Arch, arch_of, config_mismatches, fragment_options, inherited_directive,
                        resolve_variant, variants)

# Bump when the build recipe below changes in a way that changes outputs.
RECIPE = "4"
# What a complete build dir holds (and the arch's image); a stamp without
# them is a stale cache.
OUTPUTS = ("vmlinux", "vmlinux-gdb.py", "Module.symvers", "usr/gen_init_cpio")


def toolchain_id() -> str:
    out = subprocess.run(["clang", "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "clang?"


IDENTITY = os.path.join(REPO, "vm", "configs", "build-identity.toml")


def identity_args(variant: str) -> List[str]:
    """make's KBUILD_BUILD_TIMESTAMP, _USER and _HOST of the variant
    (vm/configs/build-identity.toml): the kernel's version line, the same
    wherever it is built."""
    try:
        with open(IDENTITY, "rb") as f:
            data = tomllib.load(f)
        stamps = data["timestamp"]
        return ["KBUILD_BUILD_TIMESTAMP=" + stamps.get(variant, stamps["default"]),
                "KBUILD_BUILD_USER=" + data["user"], "KBUILD_BUILD_HOST=" + data["host"]]
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError) as e:
        raise KtError("vm/configs/build-identity.toml: %s" % e)


def _key_inputs(variant: str) -> List[Tuple[str, str]]:
    frags, patches = resolve_variant(variant)
    parts = [("recipe", RECIPE), ("tarball", cache.tarball_sha(cache.tarball())),
             ("toolchain", toolchain_id()), ("identity", " ".join(identity_args(variant)))]
    parts += [("fragment " + os.path.basename(f), os.path.basename(f) + open(f).read())
              for f in frags]
    parts += [("patch " + os.path.basename(p), os.path.basename(p) + open(p).read())
              for p in patches]
    plugin = plugin_source(variant)
    if plugin:
        parts.append(("plugin " + os.path.basename(plugin),
                      os.path.basename(plugin) + open(plugin).read()))
    return parts


def plugin_source(variant: str) -> str:
    """The LLVM pass plugin a variant's fragments load (`# kt-plugin: PATH`,
    relative to the checkout; lab 8's ptrcmp), or ""."""
    rel = inherited_directive(variant, "plugin", "")
    if not rel:
        return ""
    path = os.path.join(REPO, rel)
    if not os.path.exists(path):
        raise KtError("variant %s names a missing plugin %s" % (variant, rel))
    return path


def build_plugin(source: str) -> str:
    """CACHE/plugins/NAME-<sha>.so, built from `source` with Debian's clang++
    and llvm-14-dev if not built yet.  The sha of the source is in the file
    name, so that a changed plugin is a new -fpass-plugin argument: ccache
    hashes the argument, not the plugin's content."""
    name = os.path.splitext(os.path.basename(source))[0]
    out = os.path.join(cache.cache_root(), "plugins", "%s-%s.so" % (
        name, sha256_file(source)[:16]))
    if os.path.exists(out):
        return out
    if not shutil.which("llvm-config-14") or not shutil.which("clang++"):
        raise KtError("building the %s plugin needs llvm-14-dev and clang (Debian packages "
                      "llvm-14-dev, clang); run `make deps`" % name)
    flags = subprocess.run(["llvm-config-14", "--cxxflags"], capture_output=True,
                           text=True).stdout.split()
    os.makedirs(os.path.dirname(out), exist_ok=True)
    p = subprocess.run(["clang++", "-shared", "-fPIC", *flags, source, "-o", out + ".tmp"],
                       capture_output=True, text=True)
    if p.returncode:
        errs = [ln for ln in p.stderr.splitlines() if "error" in ln] or \
            p.stderr.strip().splitlines() or ["exit %d" % p.returncode]
        raise KtError("the %s plugin does not build: %s" % (name, errs[0]))
    os.replace(out + ".tmp", out)
    return out


def extra_kcflags(bdir: str) -> str:
    """The compiler flags a build's variant adds (its plugin, lab 8), for the
    kernel and for the out-of-tree modules built for it: from the variant's
    fragments, so that an imported build (vm.dist) gets them too."""
    variant = os.path.basename(os.path.dirname(bdir.rstrip("/"))).rsplit("-", 1)[0]
    if variant not in variants():
        return ""
    plugin = plugin_source(variant)
    return "-fpass-plugin=" + build_plugin(plugin) if plugin else ""


def build_key(variant: str) -> str:
    return sha256_text(*[text for _, text in _key_inputs(variant)])[:16]


def key_parts(variant: str) -> List[Tuple[str, str]]:
    """The key's inputs, named: the recipe, the tarball's sha256 and clang's
    version as they are, each fragment and patch as the sha256 of its text.
    `make import` compares them to say what differs between a teacher's
    archive and a student's checkout."""
    return [(name, sha256_text(text) if " " in name else text)
            for name, text in _key_inputs(variant)]


def build_dir(variant: str) -> str:
    return os.path.join(cache.cache_root(), "build", "%s-%s" % (variant, build_key(variant)),
                        "obj")


def outputs(variant: str) -> Tuple[str, ...]:
    """What a complete build of `variant` holds: OUTPUTS and its image."""
    return OUTPUTS + (arch_of(variant).image,)


def vmlinux(bdir: str) -> str:
    return os.path.join(bdir, "vmlinux")


def arch(bdir: str) -> Arch:
    return arch_of(kernel_info(bdir)["variant"])


def image(bdir: str) -> str:
    return os.path.join(bdir, arch(bdir).image)


def tree_suffix() -> str:
    """"-<hash of this tree's path>": every tree (a checkout, a clone, a
    student's handout, make check's copies) that shares the cache has its
    own module and initramfs dir, so that one tree's module build never
    replaces the .ko another tree's gdb or kasan-decode is reading.  The
    transcripts show it as kt/ (labs/transcripts.py: clean_paths)."""
    return "-" + sha256_text(REPO)[:8]


def kt_dir(bdir: str, *parts: str) -> str:
    """CACHE/build/<variant>-<key>/kt/...: what kasan-tags adds to a build."""
    return os.path.join(bdir, "kt" + tree_suffix(), *parts)


def module_dir(bdir: str) -> str:
    """Where the lab module of labs/module is built for this kernel."""
    return kt_dir(bdir, "module")


def ccache_args() -> List[str]:
    """CC=/HOSTCC= through Debian's ccache, its store in CACHE/ccache.

    ccache hashes the compiler, every argument and the preprocessed source
    (or, in direct mode, the content of every header read), so a hit is
    exactly an unchanged compilation: it cannot hide a change of config,
    patch or toolchain.  The store is the cache's own (KASAN_TAGS_CACHE
    moves both); KASAN_TAGS_CCACHE=0 turns it off."""
    if os.environ.get("KASAN_TAGS_CCACHE", "1") == "0" or not shutil.which("ccache"):
        return []
    os.environ["CCACHE_DIR"] = os.path.join(cache.cache_root(), "ccache")
    os.environ.setdefault("CCACHE_MAXSIZE", "8G")
    return ["CC=ccache clang", "HOSTCC=ccache clang"]


def path_args(bdir: str) -> List[str]:
    """What makes a build's compilations independent of where it lives.

    Every build compiles ../linux-source-6.1 from its obj/ (vm.cache:
    variant_tree).  CCACHE_BASEDIR makes ccache hash (and pass the compiler)
    paths under the build's own directory relative to obj/, and
    -fdebug-prefix-map writes "." for obj/ as DW_AT_comp_dir, which ccache
    then hashes instead of the directory: a variant that is swtags plus one
    patch hits ccache for every file the patch does not touch.  gdb finds
    the sources through `directory OBJ` (vm.gdb: gdb_cmd)."""
    os.environ["CCACHE_BASEDIR"] = os.path.dirname(bdir)
    return [("KCFLAGS=-fdebug-prefix-map=%s=. " % bdir + extra_kcflags(bdir)).strip()]


def ccache_counts() -> Dict[str, int]:
    """ccache's hit and miss counters now ({} without ccache); a build's
    share is the difference (shared if two builds run at once)."""
    if not ccache_args():
        return {}
    p = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True)
    stats = dict(ln.split("\t", 1) for ln in p.stdout.splitlines() if "\t" in ln)
    try:
        return {"hits": int(stats.get("direct_cache_hit", 0)) +
                int(stats.get("preprocessed_cache_hit", 0)),
                "misses": int(stats.get("cache_miss", 0))}
    except ValueError:
        return {}


def kmake(src: str, bdir: str, *targets: str, logfile: str = "", kbuild: str = "arm64",
          ident: Sequence[str] = ()) -> None:
    jobs = os.environ.get("KASAN_TAGS_JOBS") or str(os.cpu_count() or 2)
    run(["make", "-C", src, "O=" + bdir, "ARCH=" + kbuild, "LLVM=1", "-j" + jobs]
        + ccache_args() + path_args(bdir) + list(ident) + list(targets),
        logfile=logfile or None)


def write_manifest(bdir: str, outputs: Tuple[str, ...]) -> None:
    """The stamp of a complete build: each output's size, mtime and sha256,
    written last (atomically), so that a build killed at any point has none."""
    files: Dict[str, Any] = {}
    for out in outputs:
        path = os.path.join(bdir, out)
        if os.path.islink(path):
            # vmlinux-gdb.py: kbuild's link into the source tree
            files[out] = {"link": os.readlink(path)}
            continue
        st = os.stat(path)
        files[out] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns,
                      "sha256": sha256_file(path)}
    stamp = os.path.join(bdir, ".kt-complete")
    with open(stamp + ".tmp", "w") as f:
        json.dump({"recipe": RECIPE, "files": files}, f, indent=1)
    os.replace(stamp + ".tmp", stamp)


def manifest_errors(bdir: str, outputs: Tuple[str, ...]) -> List[str]:
    """What no longer matches the stamp: "FILE: why" for each output that is
    missing, of another size, or (when its mtime moved) of another hash.  An
    empty stamp (a build from before manifests) gets its manifest now."""
    stamp = os.path.join(bdir, ".kt-complete")
    try:
        with open(stamp) as f:
            text = f.read()
        files = json.loads(text)["files"] if text.strip() else None
    except (OSError, ValueError, KeyError, TypeError):
        return [".kt-complete: unreadable"]
    if not isinstance(files, (dict, type(None))):
        return [".kt-complete: unreadable"]
    errs = []
    for out in outputs:
        path = os.path.join(bdir, out)
        want = files.get(out) if files else None
        if os.path.islink(path):
            # Its target is the tree, which an imported build extracts on
            # first use (build_kernel): the link itself is what was built.
            if isinstance(want, dict) and "link" in want and os.readlink(path) != want["link"]:
                errs.append("%s: links to %s, built %s" % (out, os.readlink(path), want["link"]))
            continue
        if not os.path.exists(path):
            errs.append("%s: missing" % out)
            continue
        if files is None:
            continue
        st = os.stat(path)
        if not isinstance(want, dict):
            errs.append("%s: not in the manifest" % out)
        elif st.st_size != want.get("size"):
            errs.append("%s: %d bytes, built %s" % (out, st.st_size, want.get("size")))
        elif st.st_mtime_ns != want.get("mtime_ns") and \
                sha256_file(path) != want.get("sha256"):
            errs.append("%s: changed since the build (sha256)" % out)
    if files is None and not errs:
        write_manifest(bdir, outputs)
    return errs


# What a cold build takes on 2 cores with no earlier build to go by:
# FACTS.md's machine measured 160-260 s each (about 35 s when ccache has
# it); a fresh 2-core machine of this project measured 541 s for swtags and
# 900-1030 s for generic, none and hwtags with other work beside them
# (closing notes of 2026-12-07): the guess is the slower machine's
FIRST_BUILD_GUESS = 600


def expected_seconds() -> float:
    """How long a kernel build takes here: the median of this cache's
    builds that compiled (ccache misses), else FIRST_BUILD_GUESS."""
    took = []
    for info in glob.glob(os.path.join(cache.cache_root(), "build", "*", "obj",
                                       "kt-variant.json")):
        try:
            with open(info) as f:
                d = json.load(f)
            if d.get("ccache", {}).get("misses", 1) > 100:
                took.append(float(d["build_seconds"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(took)[len(took) // 2] if took else FIRST_BUILD_GUESS


def build_kernel(variant: str) -> str:
    """Build (or reuse) the kernel of `variant`; return its build dir."""
    cache.preflight()
    frags, patches = resolve_variant(variant)
    a = arch_of(variant)
    bdir = build_dir(variant)
    stamp = os.path.join(bdir, ".kt-complete")
    with Lock(bdir + ".lock", "building the %s kernel" % variant):
        if os.path.exists(stamp):
            damaged = manifest_errors(bdir, outputs(variant))
            if not damaged:
                if not os.path.exists(os.path.join(bdir, "source")):
                    # An imported build (vm.dist): its tree is this
                    # machine's own tarball, extracted on first use.
                    src, _ = cache.pristine_tree()
                    cache.variant_tree(os.path.dirname(bdir), src, patches)
                return bdir
            log("the cached %s kernel is damaged (%s); rebuilding it"
                % (variant, "; ".join(damaged)))
            os.unlink(stamp)
            for out in outputs(variant):
                if any(d.startswith(out + ":") for d in damaged) and \
                        os.path.exists(os.path.join(bdir, out)):
                    os.unlink(os.path.join(bdir, out))
        src, _ = cache.pristine_tree()
        src = cache.variant_tree(os.path.dirname(bdir), src, patches)
        os.makedirs(bdir, exist_ok=True)
        blog = os.path.join(bdir, "kt-build.log")
        t0, cc0 = time.time(), ccache_counts()
        log("building the %s kernel, on its first use: about %d min on this machine "
            "(`make import` takes a teacher's instead); log: %s" % (
                variant, max(1, round(expected_seconds() / 60)), blog))
        kmake(src, bdir, "tinyconfig", logfile=blog, kbuild=a.kbuild)
        run([os.path.join(src, "scripts/kconfig/merge_config.sh"), "-m", "-O", bdir,
             os.path.join(bdir, ".config")] + frags, logfile=blog)
        kmake(src, bdir, "olddefconfig", logfile=blog, kbuild=a.kbuild)
        bad = config_mismatches(fragment_options(frags),
                                open(os.path.join(bdir, ".config")).read())
        if bad:
            k, v, got = bad[0]
            raise KtError("config option %s=%s did not take effect (got %s)%s"
                          % (k, v, got, "; and %d more" % (len(bad) - 1)
                             if len(bad) > 1 else ""))
        try:
            kmake(src, bdir, a.image_target, "vmlinux", "scripts_gdb", "modules_prepare",
                  "modules", "headers_install", logfile=blog, kbuild=a.kbuild,
                  ident=identity_args(variant))
        except KtError as e:
            # No stamp: the next run resumes the build where kbuild stopped.
            raise cache.disk_full(bdir, "building the %s kernel" % variant,
                                  cache.BUILD_MIB) or e
        with open(os.path.join(bdir, "kt-variant.json"), "w") as f:
            json.dump({"variant": variant, "src": src, "fragments":
                       [os.path.relpath(x, REPO) for x in frags],
                       "patches": [os.path.relpath(x, REPO) for x in patches],
                       "build_seconds": round(time.time() - t0, 1),
                       "ccache": {k: n - cc0.get(k, 0) for k, n in ccache_counts().items()}},
                      f, indent=1)
        write_manifest(bdir, outputs(variant))
        log("built %s in %.0f s" % (variant, time.time() - t0))
    return bdir


def kernel_info(bdir: str) -> Dict[str, Any]:
    """kt-variant.json of a build: variant, source tree, fragments, build time."""
    with open(os.path.join(bdir, "kt-variant.json")) as f:
        info: Dict[str, Any] = json.load(f)
    return info


def kernel_release(bdir: str) -> str:
    with open(os.path.join(bdir, "include/config/kernel.release")) as f:
        return f.read().strip()


def source_tree(bdir: str) -> str:
    """The (pristine or patched) kernel tree this build dir was built from."""
    return os.path.realpath(os.path.join(bdir, "source"))
