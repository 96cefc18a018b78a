# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A gdb step that runs a student's gdb file: two sessions on one halted VM.

    QEMU (sandboxed, -sandbox on)  <-- socket --  proxy (here)  <-- socket --  gdb 1
                                   <-- socket --  gdb 2 (here, trusted)

1. QEMU starts halted in a sandbox (vm/sandbox.py) with its gdb stub on a
   Unix socket; its serial console comes to this process on a pipe.
2. gdb 1 runs in a sandbox of its own: the step's part above the line
   `# kt-trusted: VAR ...` of its gdb file, which sources the student's
   file (copied into the sandbox), then prints `KT-CARRY VAR 0x...` for
   each VAR and ends with `disconnect`: the VM stays halted where the
   student left it.  It reaches QEMU only through a proxy here, which
   passes the gdb remote protocol through but
   - turns every `monitor` command (QEMU's monitor: it can write files and
     run programs) other than the replay's own into an unknown one, and
   - refuses every write to the VM's state: registers (`set $x0 = ...`,
     `set $pc = ...`), memory (`set {long}addr = ...`), and so inferior
     calls (`call f()`), `jump` and `return`, which write registers first.
     The proxy answers those packets itself with an error (gdb prints
     `Could not write register ...` or `Cannot access memory ...`); QEMU
     never sees them (see refusal()).
   So nothing gdb 1 did can change what gdb 2 reads except by running the
   VM: continue, step, breakpoints and watchpoints.
3. gdb 2, the project's, attaches to the same halted VM and runs the part
   below the line, with `$VAR` set from the carried values (numbers only).
   What it prints is the state of the VM, not what the student claims.

Returns the serial log, and the transcript: gdb 1's output under a
`KT-GDB student` marker (any `KT-GDB` line of the student's own turned
into `kt-gdb(student)`, so that it cannot open a section of the grader's),
then gdb 2's.
"""

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from typing import Dict, List, Optional, Sequence, Tuple

from vm import proc, rsp, runcache, sandbox
from vm.base import REPO, KtError, sha256_text
from vm.gdb import LOADER, gdb_cmd, kept_run
from vm.initramfs import build_initramfs, optional_modules
from vm.kbuild import kt_dir, vmlinux
from vm.qemu import Boot, collect, full_cmdline, qemu_cmd, seed_of

TRUSTED = re.compile(r"^#\s*kt-trusted:?(.*)$", re.M)
CARRY = re.compile(r"^KT-CARRY (\w+) (0x[0-9a-f]{1,16})$", re.M)
# The monitor commands a student's gdb may send (lab 7: the replay's)
MONITOR_ALLOWED = re.compile(r"^\s*(info replay|replay_break\s+\d+|replay_delete_break|"
                             r"replay_seek\s+\d+|help\s*\w*)\s*$")
DENIED = "not-allowed-in-grading"
MEM_QEMU = 6 << 30
MEM_GDB = 4 << 30
# The longest packet the proxy waits for the end of
MAX_PACKET = 1 << 20


def split(text: str) -> Optional[Tuple[str, str, List[str]]]:
    """(student part, trusted part, carried variables) of a step's gdb file,
    or None when it has no `# kt-trusted:` line (it runs no student code)."""
    m = TRUSTED.search(text)
    if not m:
        return None
    names = m.group(1).split()
    if not all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
        raise KtError("bad variable in %r" % m.group(0))
    return text[:m.start()], text[m.end():], names


def student_files(part: str) -> List[str]:
    """The files under the checkout that the student part sources."""
    return re.findall(r"^\s*source\s+%s/(\S+)\s*$" % re.escape(REPO), part, re.M)


def filter_packet(data: bytes) -> bytes:
    """A packet from the student's gdb as QEMU should get it: a `monitor`
    command not in MONITOR_ALLOWED becomes an unknown command."""
    if data.startswith(b"qRcmd,"):
        try:
            cmd = bytes.fromhex(data[6:].decode()).decode(errors="replace")
        except ValueError:
            cmd = ""
        if not MONITOR_ALLOWED.match(cmd):
            return b"qRcmd," + DENIED.encode().hex().encode()
    return data


# The proxy's own answer to a write.  gdb 13 takes `E.text` as an error
# as it takes `Enn`, and shows the text where it shows the reply.
READ_ONLY = b"E.kt: the VM is read-only while grading (no register or memory writes)"
# vFile packets (host files) answer `F-1,errno`: 1 is gdb's EPERM
FILE_DENIED = b"F-1,1"
# Kinds (first byte) that write the VM's state or end it:
#   P, G   one register, all registers      (set $x0 = ..., call, jump, return)
#   M, X   memory, in hex or in binary      (set {long}addr = ..., set var v = ...)
#   F      the reply to a File-I/O request: its result goes into the guest
#   A, R, r   start the program again (with new arguments), reset
#   i, I   cycle step, at an address
#   k      kill: QEMU exits and gdb 2 would read nothing
WRITES = b"PGMXFARriIk"
# Prefixes of the same, for the kinds that also have reads
#   vKill, vRun, vFlash...: kill, start again, write flash
#   QTDP, QTStart: tracepoints (a fast one writes a jump into the code)
#   QTSave: writes a file where the stub runs
WRITE_PREFIXES = (b"vKill", b"vRun", b"vFlash", b"QTDP", b"QTStart", b"QTSave",
                  # QEMU's stub settings outlive the connection: physical
                  # addresses for gdb 2's reads, and how its steps run
                  b"Qqemu.PhyMemMode:", b"Qqemu.sstep", b"qqemu.sstep=")
# The host I/O a student's gdb may use: reads
FILE_READS = (b"vFile:pread:", b"vFile:close:", b"vFile:fstat:", b"vFile:stat:",
              b"vFile:readlink:", b"vFile:setfs:")


def refusal(payload: bytes) -> Optional[bytes]:
    """The proxy's own reply to a packet (decoded payload) from the student's
    gdb that would write the VM's state, or None to pass the packet on.
    Run control (c, s, vCont, bc, bs), breakpoints and watchpoints (Z, z)
    and reads (?, g, p, m, x, q...) pass.  A `call` or `return` fails at its
    first register write, before anything runs."""
    kind = payload[:1]
    if kind and kind in WRITES:
        return READ_ONLY
    if kind in (b"c", b"s") and len(payload) > 1:
        return READ_ONLY                    # c ADDR, s ADDR: resume at ADDR, a pc write
    if kind in (b"C", b"S") and b";" in payload:
        return READ_ONLY                    # C SIG;ADDR
    if payload.startswith(WRITE_PREFIXES) or _is_qxfer_write(payload):
        return READ_ONLY
    if payload.startswith(b"vFile:") and not _is_file_read(payload):
        return FILE_DENIED
    return None


def _is_qxfer_write(payload: bytes) -> bool:
    """qXfer:OBJECT:write:... (siginfo: what the inferior sees of a signal)."""
    parts = payload.split(b":")
    return parts[0] == b"qXfer" and len(parts) > 2 and parts[2] == b"write"


def _is_file_read(payload: bytes) -> bool:
    """A vFile packet that writes no file: pread, close, ..., or open with
    flags 0 (O_RDONLY, no O_CREAT or O_TRUNC)."""
    if payload.startswith(FILE_READS):
        return True
    args = payload[len(b"vFile:open:"):].split(b",")
    return payload.startswith(b"vFile:open:") and len(args) >= 2 and \
        args[1].strip(b"0") == b""


class Gate:
    """What the proxy does with each byte, without sockets: the packets from
    the student's gdb that reach QEMU, the replies the proxy makes itself,
    and the acknowledgements those need.

    Until both sides agree on QStartNoAckMode (gdb asks, QEMU answers OK),
    each packet is acknowledged with `+` by its receiver; a `-` asks for it
    again.  So the proxy acks a packet it refuses, then replies, and keeps
    the reply until gdb acks it (that `+` is the proxy's, not QEMU's)."""

    def __init__(self) -> None:
        self.noack = False                  # QStartNoAckMode accepted
        self.asked_noack = False            # ... asked, QEMU's answer to come
        self.owed: Optional[bytes] = None   # our reply, until gdb acks it

    def from_gdb(self, buf: bytes) -> Tuple[bytes, bytes, bytes]:
        """(to QEMU, to gdb, rest to keep for the next read) of what gdb sent."""
        items, rest = rsp.split(buf)
        to_qemu, to_gdb = b"", b""
        for item in items:
            if item == b"+" and self.owed is not None:
                self.owed = None            # gdb acks the proxy's reply
            elif item == b"-" and self.owed is not None:
                to_gdb += self.owed         # gdb asks for it again
            elif item[:1] != b"$":
                to_qemu += item             # an ack of QEMU's, or 0x03
            else:
                data = rsp.payload(item)
                reply = refusal(data)
                if reply is None:
                    if data == b"QStartNoAckMode":
                        self.asked_noack = True
                    to_qemu += rsp.frame(filter_packet(data))
                elif self.noack:
                    to_gdb += rsp.frame(reply)
                else:
                    self.owed = rsp.frame(reply)
                    to_gdb += b"+" + self.owed
        if len(rest) > MAX_PACKET:
            rest = b""                      # QEMU would drop it too (4 KiB)
        return to_qemu, to_gdb, rest

    def from_qemu(self, buf: bytes) -> Tuple[bytes, bytes]:
        """(to gdb, rest) of what QEMU sent: whole packets only, so that a
        reply of the proxy's never lands inside one of QEMU's."""
        items, rest = rsp.split(buf)
        for item in items:
            if item[:1] == b"$" and self.asked_noack:
                self.noack = rsp.payload(item) == b"OK"
                self.asked_noack = False
        return b"".join(items), rest


class Proxy:
    """gdb remote protocol from `listen` (the student's side) to `target`
    (QEMU), one connection, through a Gate."""

    def __init__(self, listen: str, target: str):
        self.target = target
        self.gate = Gate()
        self.lock = threading.Lock()        # one writer at a time to gdb
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(listen)
        os.chmod(listen, 0o777)
        self.srv.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            a, _ = self.srv.accept()
        except OSError:
            return
        b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            b.connect(self.target)
        except OSError:
            a.close()
            return
        down = threading.Thread(target=self._down, args=(b, a), daemon=True)
        down.start()
        buf = b""
        try:
            while True:
                chunk = a.recv(65536)
                if not chunk:
                    break
                with self.lock:
                    to_qemu, to_gdb, buf = self.gate.from_gdb(buf + chunk)
                    if to_gdb:
                        a.sendall(to_gdb)
                if to_qemu:
                    b.sendall(to_qemu)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        down.join(5)

    @staticmethod
    def _packets(buf: bytes) -> Tuple[bytes, bytes]:
        """(what to send on to QEMU, what is left incomplete) of buf, from a
        fresh Gate."""
        to_qemu, _, rest = Gate().from_gdb(buf)
        return to_qemu, rest

    def _down(self, src: socket.socket, dst: socket.socket) -> None:
        buf = b""
        try:
            while True:
                chunk = src.recv(65536)
                if not chunk:
                    break
                with self.lock:
                    out, buf = self.gate.from_qemu(buf + chunk)
                    if out:
                        dst.sendall(out)
        except OSError:
            pass
        try:
            dst.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def close(self) -> None:
        self.srv.close()


def _wait_socket(path: str, p: "subprocess.Popen[bytes]", seconds: float) -> bool:
    end = time.time() + seconds
    while time.time() < end and p.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def _gdb_out(p: "subprocess.Popen[bytes]", timeout: float, limit: int = 4 << 20) -> str:
    """What a gdb wrote (stdout and stderr together), within timeout; then
    its process group is killed."""
    status, out, _ = sandbox.collect(p, b"", timeout, limit)
    text = out.decode(errors="replace")
    if status == "timeout":
        text += "\nkt: gdb timed out after %ds\n" % int(timeout)
    elif status == "output limit":
        text += "\nkt: gdb printed more than %d bytes; stopped\n" % limit
    return text


def neutral(text: str) -> str:
    """The student's output, unable to open a section of the grader's."""
    return re.sub(r"^KT-GDB ", "kt-gdb(student) ", text, flags=re.M)


def boot_gdb_student(bdir: str, gdb_text: str, cmdline: str = "", timeout: float = 300,
                     log_path: Optional[str] = None, initrd: Optional[str] = None,
                     rr: Optional[Tuple[str, str]] = None) -> Tuple[Boot, str]:
    """Run a step's gdb file that sources a student's file (see above):
    (Boot of the serial console, transcript)."""
    sandbox.require()
    parts = split(gdb_text)
    if parts is None:
        raise KtError("a student gdb step needs a `# kt-trusted:` line")
    student_part, trusted_part, names = parts
    log_path = log_path or kt_dir(bdir, "gdb-boot.log")
    gdb_txt = os.path.splitext(log_path)[0] + ".gdb.txt"
    initrd = initrd or build_initramfs(bdir, optional=optional_modules(cmdline))
    files: Dict[str, str] = {}
    for rel in student_files(student_part):
        if not re.match(r"labs/[^/]+/student/[^/]+$", rel):
            raise KtError("a student part may source only labs/*/student/ files, not %s" % rel)
        try:
            with open(os.path.join(REPO, rel), errors="replace") as f:
                files[rel] = f.read(1 << 20)
        except OSError as e:
            files[rel] = "echo kt: %s is missing (%s)\\n\n" % (rel, e.strerror)
        student_part = student_part.replace("%s/%s" % (REPO, rel), "%s/%s" % (sandbox.SCRATCH, rel))
    argv = qemu_cmd(bdir, initrd, full_cmdline(cmdline), None, rr=rr)
    k = None
    if runcache.enabled() and seed_of(argv).isdigit():
        k = runcache.key(argv, runcache.gdb_extra(LOADER, vmlinux(bdir)) + [
            "student-gdb", sha256_text(student_part, trusted_part, *names,
                                       *sorted("%s\0%s" % kv for kv in files.items())),
            "rr" if rr else "boot"])
        got = kept_run(k, argv, log_path, gdb_txt)
        if got:
            return got
    qdir, gdir = sandbox.scratch_dir(), sandbox.scratch_dir(files)
    out = {"student": "", "trusted": ""}
    try:
        b = _sessions(bdir, argv, qdir, gdir, student_part, trusted_part, names, timeout,
                      log_path, initrd, rr, out)
    finally:
        shutil.rmtree(qdir, ignore_errors=True)
        shutil.rmtree(gdir, ignore_errors=True)
    text = "KT-GDB student\n" + neutral(out["student"]) + out["trusted"]
    with open(gdb_txt, "w") as f:
        f.write(text)
    if k and b.status != "timeout" and "kt: gdb timed out" not in text:
        runcache.put(k, b.raw, {"status": b.status, "gdb": text})
    return b, text


def _sessions(bdir: str, argv: List[str], qdir: str, gdir: str, student_part: str,
              trusted_part: str, names: Sequence[str], timeout: float, log_path: str,
              initrd: str, rr: Optional[Tuple[str, str]], out: Dict[str, str]) -> Boot:
    """QEMU, then gdb 1 through the proxy, then gdb 2; the serial console."""
    top = os.path.dirname(bdir)                 # the variant's obj/ and its tree
    qsock, psock = os.path.join(qdir, "qemu-gdb.sock"), os.path.join(gdir, "gdb.sock")
    qargv = argv + ["-chardev", "socket,id=ktgdb,path=%s/qemu-gdb.sock,server=on,wait=off"
                    % sandbox.SCRATCH, "-gdb", "chardev:ktgdb", "-S",
                    "-sandbox", "on,obsolete=deny,elevateprivileges=deny,spawn=deny,"
                    "resourcecontrol=deny"]
    ro = sorted({top, os.path.dirname(initrd)} - {rr[1] if rr else ""})
    exe = shutil.which(qargv[0]) or qargv[0]
    if not exe.startswith("/usr/"):
        ro.append(os.path.dirname(os.path.dirname(exe)))
    q = sandbox.spawn(qargv, qdir, ro=ro, rw=[rr[1]] if rr else [], mem=MEM_QEMU,
                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.STDOUT)
    try:
        if not _wait_socket(qsock, q, 20):
            raise KtError("QEMU did not open its gdb stub (%s)" % qsock)

        def sessions() -> None:
            proxy = Proxy(psock, qsock)
            try:
                # the project's gdb commands (gdb-scripts, and vm for kasan-modsyms)
                g1 = sandbox.spawn(_gdb1(bdir, student_part, names, gdir), gdir,
                                   ro=[top, os.path.join(REPO, "gdb-scripts"),
                                       os.path.join(REPO, "vm")], mem=MEM_GDB,
                                   env={"PYTHONPATH": "%s:%s/gdb-scripts" % (REPO, REPO)},
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
                out["student"] = _gdb_out(g1, timeout)
            finally:
                proxy.close()
                proxy.thread.join(5)
            carried = {n: v for n, v in CARRY.findall(out["student"]) if n in names}
            tfile = os.path.join(qdir, "trusted.gdb")
            with open(tfile, "w") as f:
                f.write("".join("set $%s = %s\n" % kv for kv in sorted(carried.items())))
                f.write(trusted_part)
            g2 = proc.spawn(gdb_cmd(bdir, 0, [tfile], remote=qsock), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out["trusted"] = _gdb_out(g2, timeout)
            if g2.returncode:
                proc.reap(q)
        th = threading.Thread(target=sessions, daemon=True)
        th.start()
        b = collect(q, argv, log_path, timeout)
        th.join(timeout)
    finally:
        proc.reap(q)
    return b


def _gdb1(bdir: str, student_part: str, names: Sequence[str], gdir: str) -> List[str]:
    """gdb 1's command: the student part, one file per carried variable (a
    missing one is an error of its own file only), then `disconnect`."""
    files = ["part.gdb"] + ["carry-%s.gdb" % n for n in names] + ["end.gdb"]
    texts = [student_part] + ['printf "KT-CARRY %s 0x%%lx\\n", $%s\n' % (n, n) for n in names] \
        + ["disconnect\n"]
    for name, text in zip(files, texts):
        with open(os.path.join(gdir, name), "w") as f:
            f.write(text)
    return gdb_cmd(bdir, 0, ["%s/%s" % (sandbox.SCRATCH, f) for f in files],
                   remote="%s/gdb.sock" % sandbox.SCRATCH)
