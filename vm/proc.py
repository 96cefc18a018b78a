# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Process supervision: every QEMU and gdb is a child in its own process
group, killed by PID whatever happens to us.

 - normal exit and exceptions: an atexit hook kills what is left;
 - SIGTERM/SIGHUP: `install_signal_handlers()` (called by entry points
   only, never at import) kills the children and exits;
 - SIGKILL of this process: the child was started through
   `setpriv --pdeathsig KILL`, so the kernel kills it (no preexec_fn,
   which Python documents as unsafe in the presence of threads).

PR_SET_PDEATHSIG fires when the *thread* that forked the child ends: spawn
from the thread that outlives the child (boot_gdb waits in the same thread).
"""

import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from typing import Any, Iterator, List, Sequence

_children: List["subprocess.Popen[bytes]"] = []
_starting = [0]                 # children being started right now
_pending: List[int] = []        # a signal that came while they were
PR_SET_PDEATHSIG = 1


def _killpg(p: "subprocess.Popen[bytes]", sig: int = signal.SIGKILL) -> None:
    """Signal the child's process group, or the child alone when it shares
    ours (a foreground() child: the group is this process's own)."""
    try:
        if os.getpgid(p.pid) == p.pid:
            os.killpg(p.pid, sig)
        else:
            os.kill(p.pid, sig)
    except OSError:
        pass


def kill_children(wait: bool = True) -> None:
    """SIGKILL every child's process group; reap them unless told not to.

    A signal handler must not wait: the main thread may be inside
    Popen.wait() holding its lock, and waiting again would deadlock."""
    for p in list(_children):
        if p.returncode is None:
            _killpg(p)
            if wait:
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    pass
    if wait:
        _children.clear()


def _on_signal(sig: int, _frame: Any) -> None:
    if _starting[0]:
        _pending.append(sig)    # the child is not in _children yet
        return
    kill_children(wait=False)
    sys.exit(128 + sig)


@contextlib.contextmanager
def _starting_child() -> Iterator[None]:
    """Hold SIGTERM/SIGHUP while a child is started and recorded: exiting
    inside Popen() would leave a child that is nobody's to kill, and one
    whose setpriv had not yet asked for its own death signal."""
    _starting[0] += 1
    try:
        yield
    finally:
        _starting[0] -= 1
        if _pending and not _starting[0]:
            _on_signal(_pending.pop(0), None)


atexit.register(kill_children)


def install_signal_handlers() -> None:
    """For entry points: SIGTERM and SIGHUP kill the children, then exit.
    The parent's death (make, or the shell of its recipe, killed) is a
    SIGTERM too (PR_SET_PDEATHSIG), so that we are never left orphaned."""
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:      # it died before the prctl
        os.kill(os.getpid(), signal.SIGTERM)


def spawn(cmd: Sequence[str], **kw: Any) -> "subprocess.Popen[bytes]":
    """Start a child in its own process group that dies with us."""
    with _starting_child():
        p = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "--"] + list(cmd),
                             start_new_session=True, **kw)
        _children.append(p)
    return p


def forget(p: "subprocess.Popen[bytes]") -> None:
    if p in _children:
        _children.remove(p)


def reap(p: "subprocess.Popen[bytes]", grace: float = 3) -> None:
    """Stop a child (SIGTERM, then SIGKILL after `grace` s) and reap it."""
    if p.poll() is None:
        _killpg(p, signal.SIGTERM)
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            _killpg(p)
            p.wait()
    forget(p)


def foreground(cmd: Sequence[str]) -> "subprocess.Popen[bytes]":
    """Start a child on this terminal (same process group, so Ctrl-C and
    the tty reach it) that still dies with us."""
    with _starting_child():
        p = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "--"] + list(cmd))
        _children.append(p)
    return p


def interactive(cmd: Sequence[str]) -> int:
    """Run QEMU or gdb on the terminal; Ctrl-C goes to the child."""
    p = foreground(cmd)
    while True:
        try:
            rc = p.wait()
            break
        except KeyboardInterrupt:
            continue
    forget(p)
    return rc


def descendants(pid: int) -> List[int]:
    """PIDs of every live descendant of `pid` (from /proc), for tests."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [pid]
    while todo:
        cur = todo.pop()
        kids = [c for c, pp in parent.items() if pp == cur]
        out += kids
        todo += kids
    return out


def gone(pid: int) -> bool:
    """True when pid no longer runs (gone, or a zombie awaiting its reaper)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            return "\nState:\tZ" in f.read()
    except OSError:
        return True


def wait_for(pred: Any, seconds: float) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.1)
    return False
