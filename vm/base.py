# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What every part of the pipeline shares: paths, the error type, hashing,
running a build step, and a file lock."""

import fcntl
import hashlib
import os
import subprocess
import sys
from typing import Callable, Optional, Sequence, Union

from vm import proc

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VM = os.path.join(REPO, "vm")


class KtError(Exception):
    """An expected failure: printed as one line, exit status 2."""


def one_line_errors(fn: Callable[[], Optional[int]]) -> int:
    """An entry point's body: a KtError is one line and exit 2, never a
    traceback; otherwise fn's exit code (None: 0)."""
    try:
        return fn() or 0
    except KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2


def log(msg: str) -> None:
    print("kt: " + msg, file=sys.stderr, flush=True)


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_text(*parts: Union[str, bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


class Lock:
    """An exclusive flock on a file, so two runs never build one dir at once.
    The run that waits says so (two terminals, two students on one machine)."""

    def __init__(self, path: str, what: str = ""):
        self.path, self.what = path, what

    def __enter__(self) -> "Lock":
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.f = open(self.path, "w")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("waiting: another run is %s (lock %s); this one goes on when it is done"
                % (self.what or "using this cache entry", self.path))
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *a: object) -> None:
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def run(cmd: Sequence[str], cwd: Optional[str] = None,
        logfile: Optional[str] = None) -> None:
    """Run a build step; on failure show the tail of its output.  It runs
    in a process group of its own that dies with us (vm/proc.py: a kernel
    build's make and every compiler under it), never left behind."""
    if logfile:
        with open(logfile, "ab") as lf:
            lf.write(("\n$ " + " ".join(cmd) + "\n").encode())
            lf.flush()
            rc = _wait(proc.spawn(cmd, cwd=cwd, stdout=lf, stderr=subprocess.STDOUT))
        if rc:
            with open(logfile, "rb") as lf:
                tail = lf.read()[-3000:].decode(errors="replace")
            sys.stderr.write(tail)
            raise KtError("`%s` failed (exit %d); full log: %s"
                          % (" ".join(cmd[:4]), rc, logfile))
        return
    rc = _wait(proc.spawn(cmd, cwd=cwd))
    if rc:
        raise KtError("`%s` failed (exit %d)" % (" ".join(cmd), rc))


def _wait(p: "subprocess.Popen[bytes]") -> int:
    try:
        return p.wait()
    finally:
        proc.reap(p, grace=0)
