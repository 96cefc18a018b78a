#!/usr/bin/python3
"""kasan-tags pipeline: Debian's linux-source tarball -> tagged kernel -> QEMU.

Only this file knows kbuild, QEMU, gdb invocations and the cache layout.
Everything else asks it: "the build dir of variant X", "boot X with this
command line and give me the log", "attach gdb in batch and run this file".

    vm/kt.py doctor                     what is missing, one line each
    vm/kt.py kernel [-V VARIANT]        build (or reuse) a kernel, print its dir
    vm/kt.py boot   [-V VARIANT] [--cmdline ...] [--run a,b] [--gdb]
    vm/kt.py shell  [-V VARIANT] [--gdb]
    vm/kt.py gdb    [-V VARIANT] [--batch FILE]   attach to `boot --gdb`
"""

import argparse
import atexit
import fcntl
import glob
import hashlib
import json
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VM = os.path.join(REPO, "vm")
CONFIGS = os.path.join(VM, "configs")
DEFAULT_VARIANT = "swtags"
# Bump when the build recipe below changes in a way that changes outputs.
RECIPE = "3"
START_MARK = "KT-INIT-START"
END_MARK = "KT-INIT-END"
PANIC_RE = re.compile(r"Kernel panic - not syncing|---\[ end Kernel panic")

# command -> Debian package that provides it (for one-line preflight errors)
TOOLS = {
    "clang": "clang", "ld.lld": "lld", "llvm-objdump": "llvm",
    "qemu-system-aarch64": "qemu-system-arm", "gdb-multiarch": "gdb-multiarch",
    "bc": "bc", "bison": "bison", "flex": "flex", "cpio": "cpio",
    "rsync": "rsync", "xz": "xz-utils", "make": "make", "perl": "perl",
}


class KtError(Exception):
    """An expected failure: printed as one line, exit status 2."""


def log(msg):
    print("kt: " + msg, file=sys.stderr, flush=True)


def cache_root():
    env = os.environ.get("KASAN_TAGS_CACHE")
    if env:
        return os.path.abspath(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(xdg, "kasan-tags")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_text(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


# ---------------------------------------------------------------- preflight

def missing_tools(names=None):
    names = names or TOOLS
    return [(t, TOOLS[t]) for t in names if shutil.which(t) is None]


def preflight(names=None, need_tarball=True):
    miss = missing_tools(names)
    if miss:
        pkgs = " ".join(sorted({p for _, p in miss}))
        raise KtError("missing %s (Debian package: %s); run `make deps`"
                      % (", ".join(t for t, _ in miss), pkgs))
    if need_tarball:
        tarball()
    os.makedirs(cache_root(), exist_ok=True)
    st = os.statvfs(cache_root())
    free = st.f_bavail * st.f_frsize
    if free < 3 << 30:
        raise KtError("only %d MiB free in %s; a kernel build needs ~3 GiB "
                      "(set KASAN_TAGS_CACHE elsewhere)" % (free >> 20, cache_root()))


def tarball():
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


def tarball_sha(path):
    """sha256 of the tarball, memoised by (path, size, mtime)."""
    st = os.stat(path)
    memo = os.path.join(cache_root(), "tarball-sha.json")
    key = "%s:%d:%d" % (path, st.st_size, st.st_mtime_ns)
    try:
        with open(memo) as f:
            data = json.load(f)
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


class Lock:
    """An exclusive flock on a file, so two runs never build one dir at once."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.f = open(self.path, "w")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *a):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def run(cmd, cwd=None, logfile=None):
    """Run a build step; on failure show the tail of its output."""
    if logfile:
        with open(logfile, "ab") as lf:
            lf.write(("\n$ " + " ".join(cmd) + "\n").encode())
            lf.flush()
            p = subprocess.run(cmd, cwd=cwd, stdout=lf, stderr=subprocess.STDOUT)
        if p.returncode:
            with open(logfile, "rb") as lf:
                tail = lf.read()[-3000:].decode(errors="replace")
            sys.stderr.write(tail)
            raise KtError("`%s` failed (exit %d); full log: %s"
                          % (" ".join(cmd[:4]), p.returncode, logfile))
        return
    p = subprocess.run(cmd, cwd=cwd)
    if p.returncode:
        raise KtError("`%s` failed (exit %d)" % (" ".join(cmd), p.returncode))


# ---------------------------------------------------------------- sources

def pristine_tree():
    """Extract the tarball once into CACHE/src/<sha>/; never built in."""
    tb = tarball()
    sha = tarball_sha(tb)
    top = os.path.join(cache_root(), "src", sha[:16])
    with Lock(top + ".lock"):
        done = os.path.join(top, ".kt-extracted")
        if not os.path.exists(done):
            log("extracting %s into %s" % (tb, top))
            shutil.rmtree(top, ignore_errors=True)
            tmp = top + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            run(["tar", "-C", tmp, "-xf", tb])
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


def patched_tree(src, sha, patches):
    """A copy of the pristine tree (hard links) with `patches` applied."""
    if not patches:
        return src
    key = sha256_text(sha, *[open(p, "rb").read() for p in patches])[:16]
    top = os.path.join(cache_root(), "src", "patched-" + key)
    with Lock(top + ".lock"):
        dst = os.path.join(top, os.path.basename(src))
        if not os.path.exists(os.path.join(top, ".kt-patched")):
            shutil.rmtree(top, ignore_errors=True)
            os.makedirs(top)
            run(["cp", "-al", src, dst])
            for p in patches:
                log("applying %s" % os.path.relpath(p, REPO))
                # patch(1) writes each file anew, so the hard links to the
                # pristine tree are broken exactly where the patch touches.
                run(["patch", "-p1", "-s", "--no-backup-if-mismatch", "-d", dst,
                     "-i", p])
            with open(os.path.join(top, ".kt-patched"), "w") as f:
                f.write("\n".join(patches) + "\n")
    return dst


# ---------------------------------------------------------------- variants

def variants():
    """Every vm/configs/NAME.config is a variant; shared pieces live in
    vm/configs/fragments/ and are pulled in with `# kt-include:`."""
    return sorted(f[:-7] for f in os.listdir(CONFIGS) if f.endswith(".config"))


def resolve_variant(name):
    """Return (fragment paths in merge order, patch paths) of a variant.

    A fragment may say `# kt-include: other.config` and
    `# kt-patch: patches/experiments/NN-x.patch` (relative to the repo)."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name or "") or \
            not os.path.exists(os.path.join(CONFIGS, name + ".config")):
        raise KtError("unknown variant %r; known: %s" % (name, ", ".join(variants())))
    frags, patches = [os.path.join(CONFIGS, "fragments", "base.config")], []

    def visit(path):
        for line in open(path):
            m = re.match(r"#\s*kt-include:\s*(\S+)", line)
            if m:
                # a variant, or a shared piece from vm/configs/fragments/
                inc = os.path.join(CONFIGS, m.group(1))
                if not os.path.exists(inc):
                    inc = os.path.join(CONFIGS, "fragments", m.group(1))
                if not os.path.exists(inc):
                    raise KtError("%s includes missing %s" % (path, m.group(1)))
                visit(inc)
            m = re.match(r"#\s*kt-patch:\s*(\S+)", line)
            if m:
                p = os.path.join(REPO, m.group(1))
                if not os.path.exists(p):
                    raise KtError("%s names missing patch %s" % (path, m.group(1)))
                patches.append(p)
        if path not in frags:
            frags.append(path)
    visit(os.path.join(CONFIGS, name + ".config"))
    return frags, patches


def fragment_options(paths):
    """{CONFIG_X: value} that the fragments ask for ('n' for 'is not set')."""
    want = {}
    for path in paths:
        for line in open(path):
            line = line.strip()
            m = re.fullmatch(r"(CONFIG_\w+)=(.*)", line)
            if m:
                want[m.group(1)] = m.group(2)
            m = re.fullmatch(r"# (CONFIG_\w+) is not set", line)
            if m:
                want[m.group(1)] = "n"
    return want


def config_mismatches(want, dotconfig_text):
    have = {}
    for line in dotconfig_text.splitlines():
        m = re.fullmatch(r"(CONFIG_\w+)=(.*)", line)
        if m:
            have[m.group(1)] = m.group(2)
    bad = []
    for k, v in want.items():
        got = have.get(k, "n")
        if got != v:
            bad.append((k, v, got))
    return bad


def toolchain_id():
    out = subprocess.run(["clang", "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "clang?"


def build_key(variant):
    frags, patches = resolve_variant(variant)
    tb = tarball()
    parts = [RECIPE, tarball_sha(tb), toolchain_id()]
    parts += [os.path.basename(f) + open(f).read() for f in frags]
    parts += [os.path.basename(p) + open(p).read() for p in patches]
    return sha256_text(*parts)[:16]


def build_dir(variant):
    return os.path.join(cache_root(), "build", "%s-%s" % (variant, build_key(variant)))


def kmake(src, bdir, *targets, logfile=None):
    jobs = os.environ.get("KASAN_TAGS_JOBS") or str(os.cpu_count() or 2)
    run(["make", "-C", src, "O=" + bdir, "ARCH=arm64", "LLVM=1", "-j" + jobs]
        + list(targets), logfile=logfile)


def build_kernel(variant):
    """Build (or reuse) the kernel of `variant`; return its build dir."""
    preflight()
    frags, patches = resolve_variant(variant)
    bdir = build_dir(variant)
    stamp = os.path.join(bdir, ".kt-complete")
    with Lock(bdir + ".lock"):
        if os.path.exists(stamp):
            for out in ("arch/arm64/boot/Image", "vmlinux", "vmlinux-gdb.py",
                        "Module.symvers", "usr/gen_init_cpio"):
                if not os.path.exists(os.path.join(bdir, out)):
                    raise KtError("stale cache: %s lacks %s; delete that dir"
                                  % (bdir, out))
            return bdir
        src, sha = pristine_tree()
        src = patched_tree(src, sha, patches)
        os.makedirs(bdir, exist_ok=True)
        blog = os.path.join(bdir, "kt-build.log")
        t0 = time.time()
        log("building %s kernel in %s (log: %s)" % (variant, bdir, blog))
        kmake(src, bdir, "tinyconfig", logfile=blog)
        run([os.path.join(src, "scripts/kconfig/merge_config.sh"), "-m", "-O", bdir,
             os.path.join(bdir, ".config")] + frags, logfile=blog)
        kmake(src, bdir, "olddefconfig", logfile=blog)
        bad = config_mismatches(fragment_options(frags),
                                open(os.path.join(bdir, ".config")).read())
        if bad:
            k, v, got = bad[0]
            raise KtError("config option %s=%s did not take effect (got %s)%s"
                          % (k, v, got, "; and %d more" % (len(bad) - 1)
                             if len(bad) > 1 else ""))
        kmake(src, bdir, "Image", "vmlinux", "scripts_gdb", "modules_prepare",
              "modules", "headers_install", logfile=blog)
        with open(os.path.join(bdir, "kt-variant.json"), "w") as f:
            json.dump({"variant": variant, "src": src, "fragments":
                       [os.path.relpath(x, REPO) for x in frags],
                       "patches": [os.path.relpath(x, REPO) for x in patches],
                       "build_seconds": round(time.time() - t0, 1)}, f, indent=1)
        open(stamp, "w").close()
        log("built %s in %.0f s" % (variant, time.time() - t0))
    return bdir


def kernel_info(bdir):
    with open(os.path.join(bdir, "kt-variant.json")) as f:
        return json.load(f)


def kernel_release(bdir):
    with open(os.path.join(bdir, "include/config/kernel.release")) as f:
        return f.read().strip()


# ---------------------------------------------------------------- guest side

def build_prog(bdir, name):
    """vm/init/NAME.c -> a static aarch64 program against the tree's nolibc."""
    src = kernel_info(bdir)["src"]
    out = os.path.join(bdir, "kt", name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cfile = os.path.join(VM, "init", name + ".c")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(cfile):
        return out
    run(["clang", "--target=aarch64-linux-gnu", "-fuse-ld=lld", "-Os", "-Wall",
         "-Werror", "-static", "-nostdlib", "-ffreestanding", "-fno-stack-protector",
         "-fno-asynchronous-unwind-tables", "-include",
         os.path.join(src, "tools/include/nolibc/nolibc.h"),
         "-I", os.path.join(bdir, "usr/include"), "-o", out, cfile])
    return out


def build_init(bdir):
    """PID 1: vm/init/init.c."""
    return build_prog(bdir, "init")


def build_module(bdir):
    """Out-of-tree lab module(s) from labs/module, built in the build dir."""
    srcdir = os.path.join(REPO, "labs", "module")
    if not os.path.isdir(srcdir):
        return []
    mdir = os.path.join(bdir, "kt", "module")
    os.makedirs(mdir, exist_ok=True)
    # kbuild builds an external module where its sources are; keep the repo
    # clean and the variants apart by syncing the sources into the build dir.
    run(["rsync", "-a", "--delete", "--exclude=*.o", "--exclude=*.ko",
         "--exclude=.*", "--exclude=*.mod*", "--exclude=modules.order",
         "--exclude=Module.symvers", "--exclude=*.toml", srcdir + "/", mdir + "/"])
    blog = os.path.join(mdir, "kt-module-build.log")
    open(blog, "w").close()
    run(["make", "-C", bdir, "M=" + mdir, "ARCH=arm64", "LLVM=1", "modules"],
        logfile=blog)
    return sorted(glob.glob(os.path.join(mdir, "*.ko")))


def busybox():
    """Debian's static arm64 busybox, unpacked into the cache (not installed)."""
    bb = os.path.join(cache_root(), "busybox", "bin", "busybox")
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


def build_initramfs(bdir, name="default", shell=False):
    """initramfs with /init, the lab modules, and (for `shell`) busybox."""
    init = build_init(bdir)
    spec = ["dir /dev 0755 0 0", "nod /dev/console 0600 0 0 c 5 1",
            "dir /proc 0755 0 0", "dir /sys 0755 0 0", "dir /tmp 0755 0 0",
            "dir /lib 0755 0 0", "dir /lib/modules 0755 0 0",
            "file /init %s 0755 0 0" % init,
            "file /tcpbench %s 0755 0 0" % build_prog(bdir, "tcpbench")]
    for ko in build_module(bdir):
        spec.append("file /lib/modules/%s %s 0644 0 0" % (os.path.basename(ko), ko))
    if shell:
        spec += ["dir /bin 0755 0 0", "file /bin/busybox %s 0755 0 0" % busybox()]
        spec += ["slink /bin/%s busybox 0777 0 0" % a for a in
                 ("sh", "ls", "cat", "echo", "poweroff", "mount", "dmesg", "grep",
                  "head", "tail", "free", "ps", "vi", "less", "hexdump")]
    out = os.path.join(bdir, "kt", "initramfs-%s.cpio" % name)
    with open(out + ".list", "w") as f:
        f.write("\n".join(spec) + "\n")
    with open(out, "wb") as f:
        p = subprocess.run([os.path.join(bdir, "usr/gen_init_cpio"), out + ".list"],
                           stdout=f)
    if p.returncode:
        raise KtError("gen_init_cpio failed for %s" % out)
    return out


# ---------------------------------------------------------------- QEMU

_children = []


def _kill_children(*_a):
    for p in list(_children):
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
    _children.clear()


def _on_signal(sig, _frame):
    _kill_children()
    sys.exit(128 + sig)


atexit.register(_kill_children)
for _s in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(_s, _on_signal)


def _die_with_parent():
    """In the child: get SIGKILL when the parent dies, even by SIGKILL."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def spawn(cmd, **kw):
    """Start a child in its own process group; it is killed when we exit
    (atexit, SIGTERM/SIGHUP handlers, and PR_SET_PDEATHSIG for SIGKILL)."""
    p = subprocess.Popen(cmd, start_new_session=True, preexec_fn=_die_with_parent, **kw)
    _children.append(p)
    return p


def reap(p, grace=3):
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(grace)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
    if p in _children:
        _children.remove(p)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BASE_CMDLINE = "console=ttyAMA0 nokaslr panic=-1 kasan_multi_shot"


def qemu_cmd(bdir, initrd, cmdline, gdb_port=None, interactive=False, mem="512M"):
    cmd = ["qemu-system-aarch64", "-M", "virt", "-cpu", "max", "-m", mem,
           "-nographic", "-no-reboot", "-nic", "none",
           "-kernel", os.path.join(bdir, "arch/arm64/boot/Image"),
           "-initrd", initrd, "-append", cmdline]
    if not interactive:
        cmd += ["-monitor", "none"]
    if gdb_port:
        cmd += ["-gdb", "tcp:127.0.0.1:%d" % gdb_port, "-S"]
    return cmd


class Boot:
    """The result of one boot: the serial log and how it ended."""

    def __init__(self, log_path, text, status, seconds):
        self.log_path, self.text, self.status, self.seconds = \
            log_path, text, status, seconds

    @property
    def ok(self):
        return self.status == "ok"

    def tail(self, n=40):
        return "\n".join(self.text.splitlines()[-n:])


def boot(bdir, cmdline="", timeout=300, log_path=None, echo=False, initrd=None,
         gdb_port=None, on_start=None, shell_input=None):
    """Boot a kernel non-interactively; return a Boot.

    status: ok (reached END_MARK, QEMU exited), panic, timeout, or exit
    (QEMU ended without the end marker).  shell_input is typed on the
    serial console once a busybox prompt appears (tests of `make shell`)."""
    initrd = initrd or build_initramfs(bdir)
    full = (BASE_CMDLINE + " " + cmdline).strip()
    log_path = log_path or os.path.join(bdir, "kt", "boot.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    cmd = qemu_cmd(bdir, initrd, full, gdb_port=gdb_port)
    t0 = time.time()
    p = spawn(cmd, stdin=subprocess.PIPE if shell_input else subprocess.DEVNULL,
              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if on_start:
        on_start(p)
    buf, status = bytearray(), None
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    with open(log_path, "wb") as lf:
        lf.write(("# kt boot: %s\n" % " ".join(cmd)).encode())
        while True:
            left = t0 + timeout - time.time()
            if left <= 0:
                status = "timeout"
                break
            if not sel.select(min(left, 1.0)):
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            lf.write(chunk)
            lf.flush()
            if echo:
                sys.stdout.write(chunk.decode(errors="replace"))
                sys.stdout.flush()
            if shell_input and b"/ # " in buf:
                p.stdin.write(shell_input.encode())
                p.stdin.close()
                shell_input = None
    sel.close()
    reap(p)
    text = buf.decode(errors="replace").replace("\r\n", "\n")
    if status is None:
        if END_MARK in text:
            status = "ok"
        elif PANIC_RE.search(text):
            status = "panic"
        else:
            status = "exit"
    return Boot(log_path, text, status, time.time() - t0)


def gdb_cmd(bdir, port, batch_files=(), extra=()):
    cmd = ["gdb-multiarch", "-q", "-iex", "add-auto-load-safe-path " + bdir,
           "-iex", "set pagination off", "-iex", "set confirm off"]
    if batch_files:
        cmd[1:1] = ["-nx", "-batch"]
    cmd += [os.path.join(bdir, "vmlinux"),
            "-ex", "target remote 127.0.0.1:%d" % port]
    gs = os.path.join(REPO, "gdb-scripts", "kasan.py")
    if os.path.exists(gs):
        cmd += ["-ex", "source " + gs]
    cmd += list(extra)
    for f in batch_files:
        cmd += ["-x", f]
    return cmd


def wait_port(port, deadline):
    """Until QEMU's gdb stub accepts connections (it listens before running)."""
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def boot_gdb(bdir, gdb_file, cmdline="", timeout=300, log_path=None):
    """Boot halted under a gdb stub and run `gdb-multiarch -batch -x gdb_file`.

    Returns (Boot, gdb transcript).  When gdb ends it detaches and the VM
    runs on to the end marker; both have the same timeout and both are
    killed by PID whatever happens."""
    port = free_port()
    log_path = log_path or os.path.join(bdir, "kt", "gdb-boot.log")
    out = {"text": b""}
    qemu = {}

    def start(q):
        qemu["q"] = q
        th.start()

    def run_gdb():
        if not wait_port(port, time.time() + 20):
            out["text"] = b"kt: QEMU's gdb stub never listened\n"
            return
        g = spawn(gdb_cmd(bdir, port, [gdb_file]), stdin=subprocess.DEVNULL,
                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        chunks = []
        reader = threading.Thread(target=lambda: chunks.append(g.stdout.read()), daemon=True)
        reader.start()
        # Wait for gdb itself without reaping it, so that its process group
        # can be killed safely: children of gdb (`shell ...`) must not
        # outlive it and keep the pipe open.
        deadline, timed_out = time.time() + timeout, False
        while os.waitid(os.P_PID, g.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            if time.time() > deadline:
                timed_out = True
                break
            time.sleep(0.1)
        try:
            os.killpg(g.pid, signal.SIGKILL)
        except OSError:
            pass
        g.wait()
        _children.remove(g)
        reader.join(5)
        out["text"] = b"".join(chunks)
        if timed_out:
            out["text"] += b"kt: gdb timed out after %ds\n" % timeout
        if g.returncode:
            # gdb failed or was killed: the VM may sit halted at a breakpoint
            # forever, so stop it now rather than at the boot timeout.
            out["text"] += b"\nkt: gdb exited with status %d; QEMU stopped\n" % (
                g.returncode & 0xff)
            reap(qemu["q"])
    th = threading.Thread(target=run_gdb, daemon=True)
    b = boot(bdir, cmdline, timeout=timeout, log_path=log_path, gdb_port=port,
             on_start=start)
    th.join(timeout)
    text = out["text"].decode(errors="replace")
    with open(os.path.splitext(log_path)[0] + ".gdb.txt", "w") as f:
        f.write(text)
    return b, text


def interactive(cmd):
    """Run QEMU or gdb on the terminal; Ctrl-C goes to the child."""
    p = subprocess.Popen(cmd)
    _children.append(p)
    while True:
        try:
            rc = p.wait()
            break
        except KeyboardInterrupt:
            continue
    _children.remove(p)
    return rc


def port_file(variant):
    return os.path.join(cache_root(), "qemu-gdb-%s.json" % variant)


# ---------------------------------------------------------------- CLI

def cmd_doctor(a):
    miss = missing_tools()
    for t, pkg in miss:
        print("missing: %s (apt package %s)" % (t, pkg))
    try:
        print("tarball: %s" % tarball())
    except KtError as e:
        print("missing: " + str(e))
        miss.append(e)
    for mod in ("sphinx", "pytest"):
        if subprocess.run(["/usr/bin/python3", "-c", "import " + mod],
                          capture_output=True).returncode:
            print("missing: python module %s for /usr/bin/python3 (apt package "
                  "python3-%s)" % (mod, mod))
            miss.append(mod)
    print("cache: %s" % cache_root())
    if miss:
        raise KtError("%d thing(s) missing; run `make deps`" % len(miss))
    print("ok: everything the pipeline needs is installed")


def cmd_kernel(a):
    print(build_kernel(a.variant))


def cmd_builddir(a):
    print(build_dir(a.variant))


def scenario_cmdline(names):
    return ("kt_run=" + names) if names else ""


def cmd_boot(a):
    bdir = build_kernel(a.variant)
    cmdline = " ".join(x for x in (a.cmdline, scenario_cmdline(a.run)) if x)
    if a.gdb:
        port = free_port()
        full = (BASE_CMDLINE + (" kt_shell=1 " if a.shell else " ") + cmdline).strip()
        cmd = qemu_cmd(bdir, build_initramfs(bdir, shell=a.shell), full, gdb_port=port,
                       interactive=True)
        with open(port_file(a.variant), "w") as f:
            json.dump({"port": port, "pid": os.getpid(), "bdir": bdir}, f)
        print("kt: QEMU halted, gdb stub on 127.0.0.1:%d; in another terminal: "
              "make gdb%s   (quit QEMU: Ctrl-A X)" %
              (port, "" if a.variant == DEFAULT_VARIANT else " VARIANT=" + a.variant),
              flush=True)
        try:
            return interactive(cmd)
        finally:
            try:
                os.unlink(port_file(a.variant))
            except OSError:
                pass
    if a.shell:
        full = (BASE_CMDLINE + " kt_shell=1 " + cmdline).strip()
        print("kt: starting a shell in the %s kernel; leave with `poweroff -f` "
              "or Ctrl-A X" % a.variant, flush=True)
        return interactive(qemu_cmd(bdir, build_initramfs(bdir, "shell", shell=True),
                                    full, interactive=True))
    log_path = a.log or os.path.join(bdir, "kt", "boot.log")
    b = boot(bdir, cmdline, timeout=a.timeout, log_path=log_path, echo=not a.quiet)
    print("kt: boot %s in %.1f s; serial log: %s" % (b.status, b.seconds, b.log_path),
          file=sys.stderr)
    if not b.ok:
        if a.quiet:
            print(b.tail(), file=sys.stderr)
        raise KtError("boot did not reach %s (%s)" % (END_MARK, b.status))
    errors = [ln.strip() for ln in b.text.splitlines() if ln.startswith("KT-ERROR")]
    if errors:
        raise KtError(errors[0][len("KT-ERROR "):] +
                      ("; and %d more KT-ERROR lines" % (len(errors) - 1)
                       if len(errors) > 1 else ""))
    return 0


def cmd_gdb(a):
    try:
        with open(port_file(a.variant)) as f:
            info = json.load(f)
        os.kill(info["pid"], 0)
    except (OSError, ValueError, KeyError):
        raise KtError("no halted QEMU for variant %s; start `make qemu-gdb%s` in "
                      "another terminal first" % (a.variant, "" if a.variant ==
                                                   DEFAULT_VARIANT else
                                                   " VARIANT=" + a.variant))
    extra = []
    for f in a.x or ():
        extra += ["-x", f]
    cmd = gdb_cmd(info["bdir"], info["port"], [a.batch] if a.batch else (), extra)
    return interactive(cmd)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="vm/kt.py", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def add(name, fn, help_):
        p = sub.add_parser(name, help=help_)
        p.add_argument("-V", "--variant", default=os.environ.get("VARIANT") or
                       DEFAULT_VARIANT)
        p.set_defaults(fn=fn)
        return p
    add("doctor", cmd_doctor, "say what is missing")
    add("kernel", cmd_kernel, "build or reuse a kernel, print its build dir")
    add("builddir", cmd_builddir, "print the build dir (no build)")
    p = add("boot", cmd_boot, "boot in QEMU")
    p.add_argument("--cmdline", default="")
    p.add_argument("--run", default="", help="lab scenarios to run, a,b,c")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--log")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--gdb", action="store_true", help="halt with a gdb stub")
    p.add_argument("--shell", action="store_true", help="interactive busybox shell")
    p = add("gdb", cmd_gdb, "attach gdb-multiarch to `boot --gdb`")
    p.add_argument("--batch")
    p.add_argument("-x", action="append")
    a = ap.parse_args(argv)
    try:
        return a.fn(a) or 0
    except KtError as e:
        print("kasan-tags: error: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kasan-tags: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
