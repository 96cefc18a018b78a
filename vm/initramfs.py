# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The guest side: the nolibc PID 1 and tools (vm/init/*.c), the lab
module(s) of labs/module, Debian's static arm64 busybox, the initramfs."""

import glob
import os
import re
import shutil
import subprocess
import sys
from typing import List, Sequence, Tuple

from vm import cache
from vm.base import REPO, VM, KtError, Lock, run, sha256_file
from vm.kbuild import arch, extra_kcflags, kernel_info, kt_dir, module_dir
from vm.variant import fragment_options, lab_module_of, resolve_variant, variants

# Where Debian's static arm64 busybox is unpacked, in the cache.
BUSYBOX = os.path.join("busybox", "bin", "busybox")
BUSYBOX_APPLETS = ("sh", "ls", "cat", "echo", "poweroff", "mount", "dmesg", "grep",
                   "head", "tail", "free", "ps", "vi", "less", "hexdump")


def build_prog(bdir: str, name: str) -> str:
    """vm/init/NAME.c -> a static program for the kernel's arch against the
    tree's nolibc."""
    src = kernel_info(bdir)["src"]
    out = kt_dir(bdir, name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cfile = os.path.join(VM, "init", name + ".c")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(cfile):
        return out
    run(["clang", "--target=" + arch(bdir).clang_target, "-fuse-ld=lld", "-Os", "-Wall",
         "-Werror", "-static", "-nostdlib", "-ffreestanding", "-fno-stack-protector",
         "-fno-asynchronous-unwind-tables", "-include",
         os.path.join(src, "tools/include/nolibc/nolibc.h"),
         "-I", os.path.join(bdir, "usr/include"), "-o", out, cfile])
    return out


def build_init(bdir: str) -> str:
    """PID 1: vm/init/init.c."""
    return build_prog(bdir, "init")


def build_module(bdir: str) -> List[str]:
    """Out-of-tree lab module(s) from labs/module, built in the build dir."""
    srcdir = os.path.join(REPO, "labs", "module")
    if not os.path.isdir(srcdir) or not lab_module_of(kernel_info(bdir)["variant"]):
        return []
    mdir = module_dir(bdir)
    os.makedirs(mdir, exist_ok=True)
    # kbuild builds an external module where its sources are; keep the repo
    # clean and the variants apart by syncing the sources into the build dir.
    # --chmod: a read-only checkout (a teacher's shared mount) gives a writable copy
    run(["rsync", "-a", "--chmod=u+w", "--delete", "--exclude=*.o", "--exclude=*.ko",
         "--exclude=.*", "--exclude=*.mod*", "--exclude=modules.order",
         "--exclude=Module.symvers", "--exclude=*.toml", "--exclude=kt-module*", srcdir + "/", mdir + "/"])
    student_qfq(bdir, mdir)
    blog = os.path.join(mdir, "kt-module-build.log")
    # the variant's own compiler flags (its plugin: lab 8) reach the module too
    extra = extra_kcflags(bdir)
    stamp = os.path.join(mdir, "kt-module.stamp")
    inputs = module_inputs(bdir, mdir, extra)
    if not up_to_date(stamp, inputs, mdir):
        # kbuild, even with nothing to do, takes a second or more: it runs
        # only when the sources, the flags or the kernel changed
        # What the last build left goes first: the sync keeps each source's
        # time in its tree, and a source changed to an older file (another
        # tree's, a restored one) would look older than its .o to kbuild.
        for name in os.listdir(mdir):
            if BUILT.search(name) and os.path.isfile(os.path.join(mdir, name)):
                os.unlink(os.path.join(mdir, name))
        open(blog, "w").close()
        # Every tree compiles its module at one path, a link to its own
        # directory: KASAN's global descriptors (generic mode) name the
        # source file as the compiler was given it, and a handout's module
        # must be the same bytes as the solution tree's.  The debug info
        # names the tree's own directory (gdb reads its sources there).
        canon = os.path.join(bdir, "kt-module")
        with Lock(canon + ".lock", "building a lab module of this kernel"):
            tmp = "%s.%d" % (canon, os.getpid())
            os.symlink(mdir, tmp)
            os.replace(tmp, canon)
            flags = (extra + " " if extra else "") + "-fdebug-prefix-map=%s=%s" % (canon, mdir)
            compile_module(bdir, ["make", "-C", bdir, "M=" + canon, "ARCH=arm64", "LLVM=1",
                                  "modules", "KCFLAGS=" + flags], mdir, blog)
        with open(stamp, "w") as f:
            f.write(inputs + "built " + " ".join(sorted(
                n for n in os.listdir(mdir) if n.endswith(".ko"))) + "\n")
    else:
        # the sync gave the sources their tree's times: a .ko of the same
        # sources older than them would make gdb warn "Source file is more
        # recent than executable" in one tree and not in another
        for ko in glob.glob(os.path.join(mdir, "*.ko")):
            os.utime(ko)
    if not os.path.exists(os.path.join(srcdir, "kasan_mystery.c")):
        use_shipped(bdir, mdir)
    return sorted(glob.glob(os.path.join(mdir, "*.ko")))


# Lab 9's exercise 9.2: the student's fix of the reverted sch_qfq.c, as a
# patch; built as student_qfq.ko (labs/module/Kbuild, qfq_student.h) on the
# kernels whose tree carries the revert
STUDENT_QFQ = {"source": "net/sched/sch_qfq.c",
               "fix": os.path.join("labs", "09-real-bug", "student", "fix.patch"),
               "revert": "10-qfq-revert-lmax-check.patch"}
HUNK_FILE = re.compile(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", re.M)
# What an added line of the fix may not say: a fix changes what the QFQ code
# does, not what KASAN checks (no_sanitize, kasan_*, the _NOCHECK reads, an
# untagged pointer), nor what the grader reads on the console (printing,
# the program's or the markers' words), nor how it is built
FORBIDDEN = re.compile(
    r"(\w*no_sanitize\w*|\w*kasan\w*|\w*NOCHECK\w*|__attribute__|\basm\b|__asm__|"
    r"\w*printk\w*|\bpr_\w+|\w*console\w*|\btty\w*|\w*uart\w*|\bdev_(?:err|warn|info)\b|"
    r"qfq-lmax|KT-|KASAN|^\s*#\s*(?:include|define|undef|pragma|line)\b|_Pragma|"
    r"\bMODULE_\w+|\bmodule_(?:init|exit|param)\b|\bsymbol_\w+|kallsyms\w*)", re.M)


def forbidden(text: str) -> List[str]:
    """The words of FORBIDDEN in the lines a patch adds (its '+' lines)."""
    added = "\n".join(ln[1:] for ln in text.splitlines()
                      if ln.startswith("+") and not ln.startswith("+++"))
    return sorted({m.group(1).strip() for m in FORBIDDEN.finditer(added)})


def student_qfq(bdir: str, mdir: str) -> None:
    """student_qfq.c in the module's dir: the kernel tree's sch_qfq.c with
    the student's fix.patch applied, by GNU patch in the sandbox (the
    patch is the student's); where it does not apply, student_qfq.reject
    says why and no module is built (the qfq-lmax program's "student"
    step then fails to load it)."""
    info = kernel_info(bdir)
    fix = os.path.join(REPO, STUDENT_QFQ["fix"])
    out, note = os.path.join(mdir, "student_qfq.c"), os.path.join(mdir, "student_qfq.reject")
    for path in (out, note):
        if os.path.exists(path):
            os.unlink(path)
    if not os.path.exists(fix) or not any(
            os.path.basename(p) == STUDENT_QFQ["revert"] for p in info.get("patches", [])):
        return
    text = open(fix, errors="replace").read()
    others = sorted(set(HUNK_FILE.findall(text)) - {STUDENT_QFQ["source"], "/dev/null"})
    words = forbidden(text)
    if others:
        why = "it changes %s; only %s may change" % (", ".join(others), STUDENT_QFQ["source"])
    elif words:
        why = ("it adds %s: a fix changes what the QFQ code does, not what KASAN checks, "
               "what the console shows or how the file is built" % ", ".join(words))
    elif not re.search(r"^@@ ", text, re.M):
        # no change yet (a handout's file): the reverted file as it is
        shutil.copyfile(os.path.join(info["src"], STUDENT_QFQ["source"]), out)
        why = ""
    else:
        shutil.copyfile(fix, os.path.join(mdir, "student_qfq.patch"))
        why = sandboxed_patch(os.path.join(info["src"], STUDENT_QFQ["source"]), mdir)
    if why:
        with open(note, "w") as f:
            f.write("%s does not apply to the reverted %s: %s\n" % (
                STUDENT_QFQ["fix"], STUDENT_QFQ["source"], why))
        if os.path.exists(out):
            os.unlink(out)


def sandboxed_patch(source: str, mdir: str) -> str:
    """GNU patch, in the sandbox: SOURCE + mdir/student_qfq.patch ->
    mdir/student_qfq.c; "" or why it failed (its own words)."""
    from vm import sandbox
    r = sandbox.run(["patch", "--batch", "--force", "--no-backup-if-mismatch",
                     "--reject-file=-", "-o", os.path.join(mdir, "student_qfq.c"),
                     "-i", os.path.join(mdir, "student_qfq.patch"), source],
                    ro=[os.path.dirname(source)], rw=[mdir], timeout=60, mem=1 << 30)
    if r.status == "ok":
        return ""
    lines = [ln for ln in (r.out + r.err).decode(errors="replace").splitlines() if ln.strip()]
    return "%s (%s)" % (r.status, "; ".join(lines[-3:]) or "no output")


# A module build's bounds: its time, the compiler's address space
MODULE_TIMEOUT = 900
MODULE_MEM = 8 << 30


def compile_module(bdir: str, cmd: List[str], mdir: str, blog: str) -> None:
    """kbuild on labs/module in a sandbox (vm/sandbox.py): the student's C
    file is compiled there, and C can name any file of this machine (an
    #include, an assembler .incbin) and put it in the module, whose output
    comes back as a run.  The sandbox shows the kernel's build and source
    trees, the plugin the flags name and Debian's alternatives links,
    read-only, and the module's own directory; nothing else of the cache,
    the checkout or the home."""
    from vm import sandbox
    # /etc/alternatives: Debian's awk (kbuild's scripts) is a link through it
    ro = [bdir, kernel_info(bdir)["src"], "/etc/alternatives"] + [
        p for p in re.findall(r"=(/[^\s=]+)", " ".join(cmd)) if os.path.isfile(p)]
    scratch = sandbox.scratch_dir()
    try:
        p = sandbox.spawn(cmd, scratch, ro=ro, rw=[mdir], mem=MODULE_MEM,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        status, out, _ = sandbox.collect(p, b"", MODULE_TIMEOUT, 16 << 20)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    with open(blog, "ab") as f:
        f.write(("\n$ (sandboxed) %s\n" % " ".join(cmd)).encode() + out)
    if status != "ok":
        sys.stderr.write(out[-3000:].decode(errors="replace"))
        raise KtError("the lab module's build failed (%s); full log: %s" % (status, blog))


# What kbuild makes or keeps in the module's build dir, not a source
BUILT = re.compile(r"(\.o|\.ko|\.mod.*|\.stamp|\.log|\.cmd|modules\.order|Module\.symvers)$")


def module_inputs(bdir: str, mdir: str, extra: str) -> str:
    """What a module build depends on, as text: each source file's digest
    (the synced labs/module), the extra flags and the kernel's .config
    and Module.symvers (size and mtime: a rebuilt kernel)."""
    # "at kt-module": compiled at the one path of every tree (build_module)
    lines = ["kcflags " + extra, "at kt-module"]
    for name in sorted(os.listdir(mdir)):
        path = os.path.join(mdir, name)
        if os.path.isfile(path) and not name.startswith(".") and not BUILT.search(name):
            lines.append("%s %s" % (name, sha256_file(path)))
    for name in (".config", "Module.symvers"):
        st = os.stat(os.path.join(bdir, name))
        lines.append("%s %d %d" % (name, st.st_size, st.st_mtime_ns))
    return "\n".join(lines) + "\n"


def up_to_date(stamp: str, inputs: str, mdir: str) -> bool:
    """The stamp a module build left says these inputs, and its modules
    (its last line) are all still there."""
    try:
        text = open(stamp).read()
    except OSError:
        return False
    body, _, built = text.rstrip("\n").rpartition("\n")
    kos = built.split()[1:]
    return body + "\n" == inputs and bool(kos) and \
        all(os.path.exists(os.path.join(mdir, k)) for k in kos)


# Where the lab module puts one file per scenario (kasan_lab.c's LAB_DEBUGFS)
LAB_DEBUGFS = "/sys/kernel/debug/kasan_lab/"
SCENARIO_TABLE = re.compile(r"struct lab_scenario \w+\[\] = \{(.*?)\n\};", re.S)
SCENARIO_NAME = re.compile(r'^\s*\{ "([\w-]+)",', re.M)


def table_scenarios(c_text: str) -> List[str]:
    """Scenario names in a module source's `struct lab_scenario X[]` tables."""
    return [n for t in SCENARIO_TABLE.findall(c_text) for n in SCENARIO_NAME.findall(t)]


# Scenarios that are guest programs, not functions of a lab module: a real
# kernel bug reached from user space (lab 9).  NAME is /NAME in the guest,
# built from vm/init/<NAME, '-' as '_'>.c; `make run SCENARIO=NAME` has the
# init run it (kt_exec=NAME: vm/qemu.py, scenario_cmdline), and the program
# prints the KT-SCENARIO-BEGIN/END markers itself.  Each needs a kernel
# option that only some variants have (its value: the option), and, like
# the OPTIONAL modules, is in the initramfs only when the command line runs
# it: every other run's initramfs, and so its boot, stays what it was.
PROGRAMS = {"qfq-lmax": "CONFIG_NET_SCH_QFQ"}


def program_source(name: str) -> str:
    """vm/init/NAME.c's NAME for scenario NAME of PROGRAMS (qfq_lmax)."""
    return name.replace("-", "_")


def scenario_names() -> List[str]:
    """Every scenario the lab modules' sources define (labs/module/*.c),
    then the guest programs' (PROGRAMS)."""
    out: List[str] = []
    for c in sorted(glob.glob(os.path.join(REPO, "labs", "module", "*.c"))):
        out += table_scenarios(open(c).read())
    return out + sorted(PROGRAMS)


def program_variants(name: str) -> List[str]:
    """The variants whose kernel has what program scenario NAME needs."""
    return [v for v in variants()
            if fragment_options(resolve_variant(v)[0]).get(PROGRAMS[name]) == "y"]


def check_scenarios(names: str, variant: str = "") -> None:
    """Refuse unknown names in `kt_run=a,b` before anything is built or
    booted.  A handout ships kasan_mystery.ko without its source: a name
    found as a string in a shipped module counts too.  With a variant, a
    program scenario must be one its kernel can run."""
    known = scenario_names()
    shipped = [open(k, "rb").read() for k in glob.glob(os.path.join(
        REPO, "labs", "module", "shipped", "*", "*.ko"))]
    for n in re.split(r"[, ]", names):
        if n and n != "list" and n not in known and \
                not any(b"\0" + n.encode() + b"\0" in k for k in shipped):
            raise KtError("unknown scenario %r; `make run SCENARIO=list` lists them: %s"
                          % (n, ", ".join(known)))
        if variant and n in PROGRAMS and variant not in program_variants(n):
            raise KtError("scenario %s needs a kernel with %s=y, which variant %s has not; "
                          "VARIANT= one of: %s" % (n, PROGRAMS[n], variant,
                                                   ", ".join(program_variants(n))))


def shipped_module(bdir: str) -> str:
    """Where a handout keeps kasan_mystery.ko built for this very kernel:
    named by the build dir, so a changed kernel can never use a stale one."""
    return os.path.join(REPO, "labs", "module", "shipped", build_name(bdir),
                        "kasan_mystery.ko")


def build_name(bdir: str) -> str:
    """<variant>-<key> of a build dir (CACHE/build/<variant>-<key>/obj)."""
    return os.path.basename(os.path.dirname(bdir.rstrip("/")))


def use_shipped(bdir: str, mdir: str) -> None:
    """A handout has no kasan_mystery.c: copy the shipped module, if any."""
    dest = os.path.join(mdir, "kasan_mystery.ko")
    if os.path.exists(dest):
        os.unlink(dest)
    if os.path.exists(shipped_module(bdir)):
        shutil.copy(shipped_module(bdir), dest)


def busybox() -> str:
    """Debian's static arm64 busybox, unpacked into the cache (not installed)."""
    bb = os.path.join(cache.cache_root(), BUSYBOX)
    if os.path.exists(bb):
        return bb
    top = os.path.dirname(os.path.dirname(bb))
    debs = glob.glob(os.path.join(top, "busybox-static_*_arm64.deb"))
    if not debs:
        os.makedirs(top, exist_ok=True)
        p = subprocess.run(["apt-get", "download", "busybox-static:arm64"], cwd=top,
                           capture_output=True, text=True)
        debs = glob.glob(os.path.join(top, "busybox-static_*_arm64.deb"))
        if p.returncode or not debs:
            raise KtError("cannot download busybox-static:arm64 (run `make deps`, "
                          "which adds the arm64 architecture): %s"
                          % (p.stderr.strip().splitlines() or ["?"])[-1])
    x = os.path.join(top, "x")
    run(["dpkg-deb", "-x", debs[0], x])
    os.makedirs(os.path.dirname(bb), exist_ok=True)
    shutil.copy(os.path.join(x, "bin", "busybox"), bb)
    return bb


# busybox scripts of the shell initramfs (vm/init/), run with kt_sh=NAME
SCRIPTS = ("workload.sh",)
INIT_DIR = os.path.join(REPO, "vm", "init")

# The mtime of every file in an initramfs: the epoch (build_initramfs)
CPIO_MTIME = 0


# Modules of scenarios that only some runs need: the students' own
# (labs/module/kasan_student.c) and lab 3's mysteries (kasan_mystery.c, a
# shipped binary in a handout), by the prefix of their scenarios' names;
# and lab 9's student_qfq.ko, which a qfq-lmax script's "student" step loads
# (kt_qfq=student,...: no scenario of its own)
OPTIONAL = {"kasan_student.ko": "student-", "kasan_mystery.ko": "mystery-",
            "student_qfq.ko": None}


def optional_modules(cmdline: str) -> Tuple[str, ...]:
    """The OPTIONAL modules this command line runs a scenario of (kt_run=
    student-..., mystery-..., or list, which lists them all), and the
    PROGRAMS it runs (kt_exec=NAME).  Only those are in the initramfs: a
    module that a run does not use must not move its tags and counts -- a
    student's stub and solution differ in size, and a handout has the
    mystery module for one kernel only."""
    out = set()
    for word in cmdline.split():
        if word.startswith("kt_run="):
            for name in word[7:].split(","):
                out |= {ko for ko, prefix in OPTIONAL.items()
                        if prefix and (name == "list" or name.startswith(prefix))}
        elif word.startswith("kt_exec="):
            out |= {name for name in word[8:].split(",") if name in PROGRAMS}
        elif word.startswith("kt_qfq=") and "student" in word[7:].split(","):
            out.add("student_qfq.ko")
    return tuple(sorted(out))


def student_of(cmdline: str) -> bool:
    """Does this command line run the student's module?"""
    return bool({"kasan_student.ko", "student_qfq.ko"} & set(optional_modules(cmdline)))


def build_initramfs(bdir: str, name: str = "default", shell: bool = False,
                    optional: Sequence[str] = ()) -> str:
    """initramfs with /init, the lab modules (of the OPTIONAL ones, only
    those named), the PROGRAMS named, and (for `shell`) busybox.

    One run at a time builds them (a student's `make lab N=1` while `make`
    grades lab 1 in another terminal); the archive is replaced atomically,
    so a QEMU reading the previous one keeps it."""
    suffix = "".join("-" + (x if x in PROGRAMS else x.split("_")[1].split(".")[0])
                     for x in sorted(optional))
    with Lock(kt_dir(bdir, "initramfs.lock"), "building the lab module and initramfs"):
        return _build_initramfs(bdir, name + suffix, shell, tuple(optional))


def guest_module(bdir: str, ko: str) -> str:
    """The module as the guest gets it: without its debug info and build
    id, which name the directory it was built in (a handout builds it
    elsewhere), so that every tree puts the same bytes in the initramfs.
    gdb reads the full .ko on the host (kasan-modsyms)."""
    out = kt_dir(bdir, "guest-modules", os.path.basename(ko))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    run(["llvm-strip", "--strip-debug", "--remove-section=.note.gnu.build-id",
         "-o", out + ".tmp", ko])
    os.replace(out + ".tmp", out)
    return out


def _build_initramfs(bdir: str, name: str, shell: bool, optional: Tuple[str, ...]) -> str:
    init = build_init(bdir)
    spec = ["dir /dev 0755 0 0", "nod /dev/console 0600 0 0 c 5 1",
            "dir /proc 0755 0 0", "dir /sys 0755 0 0", "dir /tmp 0755 0 0",
            "dir /lib 0755 0 0", "dir /lib/modules 0755 0 0",
            "file /init %s 0755 0 0" % init,
            "file /tcpbench %s 0755 0 0" % build_prog(bdir, "tcpbench")]
    spec += ["file /%s %s 0755 0 0" % (p, build_prog(bdir, program_source(p)))
             for p in optional if p in PROGRAMS]
    for ko in build_module(bdir):
        if os.path.basename(ko) not in OPTIONAL or os.path.basename(ko) in optional:
            spec.append("file /lib/modules/%s %s 0644 0 0" % (os.path.basename(ko),
                                                              guest_module(bdir, ko)))
    if shell:
        spec += ["dir /bin 0755 0 0", "file /bin/busybox %s 0755 0 0" % busybox()]
        spec += ["slink /bin/%s busybox 0777 0 0" % a for a in BUSYBOX_APPLETS]
        spec += ["file /%s %s 0644 0 0" % (f, os.path.join(INIT_DIR, f)) for f in SCRIPTS]
    out = kt_dir(bdir, "initramfs-%s.cpio" % name)
    with open(out + ".list", "w") as f:
        f.write("\n".join(spec) + "\n")
    with open(out + ".tmp", "wb") as cpio:
        # -t: one mtime for every file.  The kernel's unpacking of the
        # archive takes a few more or fewer instructions with other mtimes,
        # which moves every later timestamp of a deterministic boot: a
        # rebuilt module must give the same bytes (vm/qemu.py: ICOUNT).
        p = subprocess.run([os.path.join(bdir, "usr/gen_init_cpio"), "-t", str(CPIO_MTIME),
                            out + ".list"], stdout=cpio)
    if p.returncode:
        raise KtError("gen_init_cpio failed for %s" % out)
    with open(out + ".tmp", "rb") as f:
        data = f.read()
    with open(out + ".tmp", "wb") as f:
        f.write(one_mtime(data, CPIO_MTIME))
    os.replace(out + ".tmp", out)
    return out


def one_mtime(data: bytes, mtime: int) -> bytes:
    """A newc archive with every entry's mtime set to MTIME.  6.1's
    gen_init_cpio -t sets it for directories, nodes and links only; a
    regular file keeps its own (usr/gen_init_cpio.c: cpio_mkfile), so a
    rebuilt module changed the archive's bytes and the boot's timing."""
    out, pos = bytearray(data), 0
    while pos + 110 <= len(out) and out[pos:pos + 6] == b"070701":
        namesize = int(out[pos + 94:pos + 102], 16)
        filesize = int(out[pos + 54:pos + 62], 16)
        out[pos + 46:pos + 54] = b"%08X" % mtime
        name_end = pos + 110 + namesize
        data_start = (name_end + 3) & ~3
        if out[pos + 110:name_end - 1] == b"TRAILER!!!":
            break
        pos = (data_start + filesize + 3) & ~3
    return bytes(out)
