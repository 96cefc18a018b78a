# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The wall between the teacher's code and the student's: bubblewrap.

Everything a student wrote that can run -- the Python of an exercise, gdb
sourcing a student's gdb file, the QEMU that gdb drives, and the compiler
of their C module (vm/initramfs.py) -- runs in a sandbox made here, and
only data (its output) comes back:

    r = sandbox.run(["/usr/bin/python3", "-I", "-S", "/sandbox/driver.py"],
                    files={"driver.py": text, "student/x.py": text},
                    stdin=b"{...}", timeout=30)
    r.status ("ok", "exit N", "timeout", "output limit"), r.out, r.err

What a sandbox is (bwrap, Debian's bubblewrap):
  - a read-only view of /usr (the system: Python's standard library, gdb,
    QEMU) and of the paths it is given (`ro`: a kernel's build directory,
    the project's gdb commands); nothing else of this machine, no /etc,
    no home, no checkout;
  - one private writable scratch directory, /sandbox, and a private /tmp;
  - no network (its own network namespace, loopback only), its own PID,
    IPC, UTS and user namespaces (uid 65534 there), no capabilities, a new session
    (no terminal to type into);
  - ended with its parent (--die-with-parent, and the process group is
    killed by PID: vm/proc.py), after `timeout` seconds;
  - limits: address space (`mem`), the size of a file it writes, no core
    dumps (prlimit), and `out_limit` bytes of output.
What it is not: a limit on CPU or on the number of processes (a fork bomb
is stopped by the timeout, not before), nor a defence against a kernel
or bubblewrap bug.

Which wall (wall(), probed once, recorded in every grading's results):
  "bwrap"            the above, with a /proc of the sandbox's own PID
                     namespace: on a machine, or a container that allows it;
  "bwrap-outer-proc" the same, but /proc is the enclosing one, read-only:
                     a container's default security (masked /proc, default
                     seccomp, no CAP_SYS_ADMIN) refuses a new proc mount
                     ("Can't mount proc on /newroot/proc").  The sandbox
                     keeps its own PID namespace, so it can signal nothing
                     outside, and its uid cannot read another process's
                     environment or memory there; it sees their command
                     lines.
Where neither starts, require() stops with one line saying why: grading
never goes on without its wall.
"""

import os
import selectors
import shutil
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Sequence, Tuple

from vm import proc
from vm.base import KtError

# Where the scratch directory is seen inside
SCRATCH = "/sandbox"
# Defaults: a Python exercise; gdb and QEMU ask for more
MEM = 1 << 30
FSIZE = 64 << 20
OUT_LIMIT = 4 << 20


class Result:
    """What a sandboxed process left: its status, stdout, stderr."""

    def __init__(self, status: str, out: bytes, err: bytes, seconds: float):
        self.status, self.out, self.err, self.seconds = status, out, err, seconds

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def text(self) -> str:
        return self.out.decode(errors="replace")


# The walls, strongest first: how each mounts the sandbox's /proc
WALLS = {"bwrap": ["--proc", "/proc"], "bwrap-outer-proc": ["--ro-bind", "/proc", "/proc"]}
_WALL: List[str] = []           # the probed wall, once: [name] or ["", why]


def available() -> bool:
    return shutil.which("bwrap") is not None and shutil.which("prlimit") is not None


def _probe(name: str) -> str:
    """"" when a sandbox of this wall runs /usr/bin/true here, else bwrap's
    first line of complaint."""
    scratch = tempfile.mkdtemp(prefix="kt-sandbox-probe-")
    try:
        p = subprocess.run(argv(scratch, wall_name=name) + ["/usr/bin/true"],
                           capture_output=True, text=True, timeout=60)
        said = p.stderr.strip().splitlines() or ["exit %d" % p.returncode]
        return "" if p.returncode == 0 else said[0]
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def wall() -> str:
    """The strongest wall this machine (or container) lets bwrap build:
    a name of WALLS.  KtError, in one line, where none starts."""
    if not available():
        raise KtError("the sandbox needs bwrap (package bubblewrap) and prlimit "
                      "(util-linux): run `make deps`")
    if not _WALL:
        forced = os.environ.get("KASAN_TAGS_WALL", "")
        if forced and forced not in WALLS:
            raise KtError("KASAN_TAGS_WALL=%s: not a wall (%s)" % (forced, ", ".join(WALLS)))
        why = ""
        for name in [forced] if forced else list(WALLS):
            why = _probe(name)
            if not why:
                _WALL[:] = [name]
                break
        else:
            _WALL[:] = ["", why]
    if not _WALL[0]:
        raise KtError("the sandbox cannot start here, so nothing of a student's can run: "
                      "bwrap says %r (it needs user namespaces; in a container the "
                      "default security is enough, a seccomp profile that forbids "
                      "unshare is not)" % _WALL[1])
    return _WALL[0]


def wall_used() -> Optional[str]:
    """The wall this process has used, if any (for the results)."""
    return _WALL[0] if _WALL and _WALL[0] else None


def require() -> None:
    wall()


def argv(scratch: str, ro: Sequence[str] = (), rw: Sequence[str] = (),
         mem: int = MEM, fsize: int = FSIZE, env: Optional[Dict[str, str]] = None,
         wall_name: Optional[str] = None) -> List[str]:
    """The command that runs a command in a sandbox whose scratch dir is
    `scratch` (seen as /sandbox), with the paths of `ro` read-only and of
    `rw` writable, each at its own path; behind `wall_name` (default: the
    wall this machine allows, wall())."""
    cmd = ["prlimit", "--as=%d" % mem, "--fsize=%d" % fsize, "--core=0", "--",
           "bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
           "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL",
           "--ro-bind", "/usr", "/usr"]
    for link in ("bin", "lib", "lib64", "sbin"):
        if os.path.islink("/" + link):
            cmd += ["--symlink", os.readlink("/" + link), "/" + link]
    cmd += WALLS[wall_name or wall()] + ["--dev", "/dev", "--tmpfs", "/tmp"]
    for p in ro:
        cmd += ["--ro-bind", p, p]
    for p in rw:
        cmd += ["--bind", p, p]
    cmd += ["--bind", scratch, SCRATCH, "--chdir", SCRATCH, "--clearenv",
            "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", SCRATCH,
            "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8"]
    for k, v in sorted((env or {}).items()):
        cmd += ["--setenv", k, v]
    return cmd + ["--"]


def scratch_dir(files: Optional[Dict[str, str]] = None) -> str:
    """A new scratch directory holding `files` ({relative path: text})."""
    d = tempfile.mkdtemp(prefix="kt-sandbox-")
    for rel, text in (files or {}).items():
        path = os.path.join(d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return d


def spawn(cmd: Sequence[str], scratch: str, ro: Sequence[str] = (), rw: Sequence[str] = (),
          mem: int = MEM, env: Optional[Dict[str, str]] = None,
          **kw: object) -> "subprocess.Popen[bytes]":
    """Start `cmd` in a sandbox on `scratch`: a child of vm/proc.py (its own
    process group, killed with us)."""
    require()
    return proc.spawn(argv(scratch, ro, rw, mem, env=env) + list(cmd),
                      **kw)


def run(cmd: Sequence[str], files: Optional[Dict[str, str]] = None, stdin: bytes = b"",
        ro: Sequence[str] = (), timeout: float = 30, mem: int = MEM,
        out_limit: int = OUT_LIMIT, scratch: Optional[str] = None,
        env: Optional[Dict[str, str]] = None, rw: Sequence[str] = ()) -> Result:
    """Run `cmd` in a new sandbox holding `files`, the paths of `rw`
    writable; its Result.  The scratch directory is removed afterwards
    unless it was given."""
    own = scratch is None
    scratch = scratch or scratch_dir(files)
    t0 = time.time()
    try:
        p = spawn(cmd, scratch, ro, rw, mem=mem, env=env, stdin=subprocess.PIPE,
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        status, out, err = collect(p, stdin, timeout, out_limit)
        return Result(status, out, err, time.time() - t0)
    finally:
        if own:
            shutil.rmtree(scratch, ignore_errors=True)


def collect(p: "subprocess.Popen[bytes]", stdin: bytes, timeout: float,
            out_limit: int) -> Tuple[str, bytes, bytes]:
    """Feed stdin, read stdout and stderr up to out_limit bytes in all,
    until the process ends or the time is up; kill its group either way."""
    assert p.stdout is not None
    if p.stdin:
        try:
            p.stdin.write(stdin)
            p.stdin.close()
        except BrokenPipeError:
            pass
    streams = [s for s in (p.stdout, p.stderr) if s is not None]
    bufs = {s.fileno(): bytearray() for s in streams}
    sel = selectors.DefaultSelector()
    for fd in bufs:
        sel.register(fd, selectors.EVENT_READ)
    deadline, status = time.time() + timeout, None
    while sel.get_map():
        left = deadline - time.time()
        if left <= 0:
            status = "timeout"
            break
        for k, _ in sel.select(min(left, 1.0)):
            chunk = os.read(k.fd, 65536)
            if not chunk:
                sel.unregister(k.fd)
                continue
            bufs[k.fd] += chunk
            if sum(len(b) for b in bufs.values()) > out_limit:
                status = "output limit"
                break
        if status:
            break
    sel.close()
    if status is None:
        try:    # both pipes closed: the process is ending
            p.wait(max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            status = "timeout"
    proc.reap(p, grace=0)
    rc = p.returncode
    if status is None:
        status = "ok" if rc == 0 else "exit %d" % (rc if rc >= 0 else 128 - rc)
    return status, bytes(bufs[p.stdout.fileno()]), \
        bytes(bufs[p.stderr.fileno()]) if p.stderr else b""
