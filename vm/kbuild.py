"""kbuild: a variant's cache key, its build directory, and the build.

The build directory of a variant is the only place its outputs live:

    CACHE/build/<variant>-<key>/   Image, vmlinux, vmlinux-gdb.py, Module.symvers,
                                   kt-variant.json, kt/ (init, modules, initramfs)

The key hashes RECIPE, the tarball, the clang version, the fragments and
the patches: a change to any of them is a new directory, never a stale one.
"""

import json
import os
import subprocess
import time
from typing import Any, Dict

from vm import cache
from vm.base import REPO, KtError, Lock, log, run, sha256_text
from vm.variant import Arch, arch_of, config_mismatches, fragment_options, resolve_variant

# Bump when the build recipe below changes in a way that changes outputs.
RECIPE = "3"
# What a complete build dir holds (and the arch's image); a stamp without
# them is a stale cache.
OUTPUTS = ("vmlinux", "vmlinux-gdb.py", "Module.symvers", "usr/gen_init_cpio")


def toolchain_id() -> str:
    out = subprocess.run(["clang", "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "clang?"


def build_key(variant: str) -> str:
    frags, patches = resolve_variant(variant)
    tb = cache.tarball()
    parts = [RECIPE, cache.tarball_sha(tb), toolchain_id()]
    parts += [os.path.basename(f) + open(f).read() for f in frags]
    parts += [os.path.basename(p) + open(p).read() for p in patches]
    return sha256_text(*parts)[:16]


def build_dir(variant: str) -> str:
    return os.path.join(cache.cache_root(), "build", "%s-%s" % (variant, build_key(variant)))


def vmlinux(bdir: str) -> str:
    return os.path.join(bdir, "vmlinux")


def arch(bdir: str) -> Arch:
    return arch_of(kernel_info(bdir)["variant"])


def image(bdir: str) -> str:
    return os.path.join(bdir, arch(bdir).image)


def tree_suffix() -> str:
    """"" for this checkout; "-<hash of its path>" for a student handout
    (labs/HANDOUT), so that handouts sharing the cache never overwrite each
    other's modules and initramfs."""
    if not os.path.exists(os.path.join(REPO, "labs", "HANDOUT")):
        return ""
    return "-" + sha256_text(REPO)[:8]


def kt_dir(bdir: str, *parts: str) -> str:
    """CACHE/build/<variant>-<key>/kt/...: what kasan-tags adds to a build."""
    return os.path.join(bdir, "kt" + tree_suffix(), *parts)


def module_dir(bdir: str) -> str:
    """Where the lab module of labs/module is built for this kernel."""
    return kt_dir(bdir, "module")


def kmake(src: str, bdir: str, *targets: str, logfile: str = "", kbuild: str = "arm64") -> None:
    jobs = os.environ.get("KASAN_TAGS_JOBS") or str(os.cpu_count() or 2)
    run(["make", "-C", src, "O=" + bdir, "ARCH=" + kbuild, "LLVM=1", "-j" + jobs]
        + list(targets), logfile=logfile or None)


def build_kernel(variant: str) -> str:
    """Build (or reuse) the kernel of `variant`; return its build dir."""
    cache.preflight()
    frags, patches = resolve_variant(variant)
    a = arch_of(variant)
    bdir = build_dir(variant)
    stamp = os.path.join(bdir, ".kt-complete")
    with Lock(bdir + ".lock"):
        if os.path.exists(stamp):
            for out in OUTPUTS + (a.image,):
                if not os.path.exists(os.path.join(bdir, out)):
                    raise KtError("stale cache: %s lacks %s; delete that dir"
                                  % (bdir, out))
            return bdir
        src, sha = cache.pristine_tree()
        src = cache.patched_tree(src, sha, patches)
        os.makedirs(bdir, exist_ok=True)
        blog = os.path.join(bdir, "kt-build.log")
        t0 = time.time()
        log("building %s kernel in %s (log: %s)" % (variant, bdir, blog))
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
        kmake(src, bdir, a.image_target, "vmlinux", "scripts_gdb", "modules_prepare",
              "modules", "headers_install", logfile=blog, kbuild=a.kbuild)
        with open(os.path.join(bdir, "kt-variant.json"), "w") as f:
            json.dump({"variant": variant, "src": src, "fragments":
                       [os.path.relpath(x, REPO) for x in frags],
                       "patches": [os.path.relpath(x, REPO) for x in patches],
                       "build_seconds": round(time.time() - t0, 1)}, f, indent=1)
        open(stamp, "w").close()
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
