# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb-multiarch on a halted VM: the one way a session is set up.

`halted_vm()` starts QEMU stopped at its first instruction with a gdb stub
on a free port and always kills it on exit.  `make qemu-gdb` runs it with
the console on the terminal, `make lab` with the console in a log file
and gdb on the terminal, the graders (`boot_gdb`) with gdb in batch mode.
"""

import json
import os
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from vm import proc
from vm.base import REPO, KtError
from vm.cache import cache_root
from vm.initramfs import build_initramfs, optional_modules
from vm.kbuild import kt_dir, vmlinux
from vm import runcache
from vm.qemu import (Boot, collect, free_port, full_cmdline, qemu_cmd, replayed, seed_of, start,
                     wait_port)

LOADER = os.path.join(REPO, "gdb-scripts", "kasan.py")


# The debugger: Debian's gdb-multiarch (it embeds /usr/bin/python3)
GDB = "gdb-multiarch"


def gdb_cmd(bdir: str, port: int, batch_files: Sequence[str] = (),
            extra: Sequence[str] = (), remote: Optional[str] = None) -> List[str]:
    """gdb-multiarch on vmlinux, attached to the stub (on `port`, or the Unix
    socket `remote`), lx-* and kasan-* loaded."""
    # `directory`: the sources are ../linux-source-6.1 from DW_AT_comp_dir
    # ".", the build dir (vm.kbuild: path_args)
    cmd = [GDB, "-q", "-iex", "add-auto-load-safe-path " + bdir,
           "-iex", "directory " + bdir,
           "-iex", "set pagination off", "-iex", "set confirm off"]
    if batch_files:
        cmd[1:1] = ["-nx", "-batch"]
    cmd += [vmlinux(bdir), "-ex", "target remote " + (remote or "127.0.0.1:%d" % port)]
    if os.path.exists(LOADER):
        cmd += ["-ex", "source " + LOADER]
    cmd += list(extra)
    for f in batch_files:
        cmd += ["-x", f]
    return cmd


class HaltedVM:
    """A QEMU halted under a gdb stub: its port, process and serial log."""

    def __init__(self, bdir: str, port: int, qemu: "subprocess.Popen[bytes]",
                 argv: List[str], serial: Optional[str]):
        self.bdir, self.port, self.qemu, self.argv, self.serial = \
            bdir, port, qemu, argv, serial

    def gdb_argv(self, batch_files: Sequence[str] = (),
                 extra: Sequence[str] = ()) -> List[str]:
        return gdb_cmd(self.bdir, self.port, batch_files, extra)

    def collect(self, timeout: float) -> Boot:
        """For a piped console: read it to the end (or timeout), then reap."""
        assert self.serial
        return collect(self.qemu, self.argv, self.serial, timeout)

    def wait(self) -> int:
        """For a terminal console: until the user quits QEMU."""
        while True:
            try:
                return self.qemu.wait()
            except KeyboardInterrupt:
                continue


@contextmanager
def halted_vm(bdir: str, cmdline: str = "", serial: Optional[str] = None,
              pipe: bool = False, terminal: bool = False, initrd: Optional[str] = None,
              stub_wait: float = 20, rr: Optional[Tuple[str, str]] = None) -> Iterator[HaltedVM]:
    """QEMU halted with a gdb stub on a free port; killed when the block ends.

    terminal: console and QEMU's monitor on this terminal (make qemu-gdb);
    pipe: console on a pipe, read with .collect() (batch graders);
    otherwise: console written to `serial` (make lab).  rr: a replay
    (vm/record.py), which gdb can run backwards."""
    port = free_port()
    initrd = initrd or build_initramfs(bdir, optional=optional_modules(cmdline))
    if terminal:
        argv = qemu_cmd(bdir, initrd, full_cmdline(cmdline), port, interactive=True, rr=rr)
        q = proc.foreground(argv)
    elif pipe:
        q, argv = start(bdir, cmdline, initrd, port, rr=rr)
    else:
        assert serial
        os.makedirs(os.path.dirname(serial), exist_ok=True)
        argv = qemu_cmd(bdir, initrd, full_cmdline(cmdline), port, rr=rr)
        with open(serial, "wb") as lf:
            q = proc.spawn(argv, stdin=subprocess.DEVNULL, stdout=lf,
                           stderr=subprocess.STDOUT)
    try:
        if not terminal and not wait_port(port, time.time() + stub_wait):
            raise KtError("QEMU did not open its gdb stub on port %d%s" % (
                port, "; see " + serial if serial else ""))
        yield HaltedVM(bdir, port, q, argv, serial)
    finally:
        proc.reap(q)


def _run_gdb(vm: HaltedVM, gdb_file: str, timeout: float,
             on_gdb: Optional[Callable[[int], None]]) -> bytes:
    """gdb -batch -x gdb_file against vm, bounded by timeout; its output."""
    g = proc.spawn(vm.gdb_argv([gdb_file]), stdin=subprocess.DEVNULL,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if on_gdb:
        on_gdb(g.pid)
    chunks: List[bytes] = []
    assert g.stdout is not None
    out = g.stdout
    reader = threading.Thread(target=lambda: chunks.append(out.read()), daemon=True)
    reader.start()
    # Wait for gdb without reaping it, so that its process group can be
    # killed safely: children of gdb (`shell ...`) must not outlive it.
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
    proc.forget(g)
    reader.join(5)
    text = b"".join(chunks)
    if timed_out:
        text += b"kt: gdb timed out after %ds\n" % int(timeout)
    if g.returncode:
        # gdb failed or was killed: the VM may sit halted at a breakpoint
        # forever, so stop it now rather than at the boot timeout.
        text += b"\nkt: gdb exited with status %d; QEMU stopped\n" % (g.returncode & 0xff)
        proc.reap(vm.qemu)
    return text


def kept_run(k: str, argv: List[str], log_path: str,
             gdb_txt: str) -> Optional[Tuple[Boot, str]]:
    """A gdb run kept in vm/runcache.py under key k, written out as if it
    had run now (its serial log and gdb transcript), or None."""
    kept = runcache.get(k)
    if not kept:
        return None
    b = replayed(argv, log_path, kept[0], kept[1]["status"], False)
    with open(gdb_txt, "w") as f:
        f.write(kept[1]["gdb"])
    return b, kept[1]["gdb"]


def boot_gdb(bdir: str, gdb_file: str, cmdline: str = "", timeout: float = 300,
             log_path: Optional[str] = None,
             on_gdb: Optional[Callable[[int], None]] = None,
             initrd: Optional[str] = None,
             rr: Optional[Tuple[str, str]] = None,
             cache: Optional[bool] = None) -> Tuple[Boot, str]:
    """Boot halted under a gdb stub and run `gdb-multiarch -batch -x gdb_file`.

    Returns (Boot, gdb transcript).  When gdb ends it detaches and the VM
    runs on to the end marker; both have the same timeout and both are
    killed by PID whatever happens.  on_gdb(pid) is told gdb's PID."""
    log_path = log_path or kt_dir(bdir, "gdb-boot.log")
    gdb_txt = os.path.splitext(log_path)[0] + ".gdb.txt"
    # A kept run (vm/runcache.py): its QEMU argv (with the stub), the gdb
    # file, gdb and what gdb loads.  A replay keys its recording by these
    # too, so it is kept like a boot.
    k = None
    initrd = initrd or build_initramfs(bdir, optional=optional_modules(cmdline))
    argv = qemu_cmd(bdir, initrd, full_cmdline(cmdline), 1, rr=rr)
    if (runcache.enabled() if cache is None else cache) and not on_gdb and \
            seed_of(argv).isdigit():
        k = runcache.key(argv,
                         runcache.gdb_extra(gdb_file, vmlinux(bdir)) + ["rr" if rr else "boot"])
        got = kept_run(k, argv, log_path, gdb_txt)
        if got:
            return got
    out = {"text": b""}
    try:
        with halted_vm(bdir, cmdline, serial=log_path, pipe=True, initrd=initrd,
                       rr=rr) as vm:
            def run() -> None:
                out["text"] = _run_gdb(vm, gdb_file, timeout, on_gdb)
            th = threading.Thread(target=run, daemon=True)
            th.start()
            b = vm.collect(timeout)
            th.join(timeout)
    except KtError as e:
        b = Boot(log_path, "", "exit", 0.0)
        out["text"] = ("kt: %s\n" % e).encode()
    text = out["text"].decode(errors="replace")
    with open(gdb_txt, "w") as f:
        f.write(text)
    if k and b.status != "timeout" and "kt: gdb timed out" not in text:
        runcache.put(k, b.raw, {"status": b.status, "gdb": text})
    return b, text


def port_file(variant: str) -> str:
    """Where `make qemu-gdb` records its stub's port for `make gdb`."""
    return os.path.join(cache_root(), "qemu-gdb-%s.json" % variant)


def write_port_file(variant: str, vm: HaltedVM) -> None:
    with open(port_file(variant), "w") as f:
        json.dump({"port": vm.port, "pid": os.getpid(), "bdir": vm.bdir}, f)
