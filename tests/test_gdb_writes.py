# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The student gdb proxy refuses every write to the VM (vm/student_gdb.py,
issue 54): the pure refusal, the framing as QEMU decodes it (vm/rsp.py), and
a real gdb-multiarch through the real proxy to a fake aarch64 stub that
records every packet it decodes, the way QEMU's does."""
import shutil
import socket
import struct
import subprocess
import threading

import pytest

from vm import gdb, proc, rsp, student_gdb
from vm.student_gdb import READ_ONLY, Gate, refusal

GDB = shutil.which(gdb.GDB)


def test_writes_are_refused():
    for p in (b"P1f=0010000000000000", b"P20=0000000000000000", b"G" + b"00" * 268,
              b"M1000,8:0100000000000000", b"X1000,0:", b"X1000,2:}\x03\x00",
              b"k", b"vKill;1", b"vRun;", b"vFlashWrite:0:\x00", b"R00", b"r", b"i", b"A3,0,616263",
              b"F0,0", b"c1000", b"s1000", b"C05;1000", b"S05;1000",
              b"qXfer:siginfo:write::0:" + b"\x00" * 8,
              b"Qqemu.PhyMemMode:1", b"Qqemu.sstep=0", b"Qqemu.sstep:0", b"qqemu.sstep=0",
              b"QTDP:1:1000:E:0:0", b"QTStart", b"QTSave:2f746d70"):
        assert refusal(p) == READ_ONLY, p


def test_host_file_writes_get_a_file_io_error():
    for p in (b"vFile:pwrite:3,0,abc", b"vFile:unlink:2f746d70",
              b"vFile:open:2f746d70,241,1b6", b"vFile:open:2f746d70,1,0"):
        assert refusal(p) == b"F-1,1", p
    for p in (b"vFile:open:2f746d70,0,0", b"vFile:pread:3,100,0", b"vFile:close:3",
              b"vFile:setfs:0", b"vFile:readlink:2f"):
        assert refusal(p) is None, p


def test_run_control_breakpoints_and_reads_pass_unchanged():
    for p in (b"Z0,ffff800008000000,4", b"z0,ffff800008000000,4", b"Z2,1000,8",
              b"c", b"s", b"C05", b"vCont;c", b"vCont;s:1", b"vCont?", b"bc", b"bs",
              b"g", b"p20", b"m1000,8", b"x1000,8", b"?", b"Hg0", b"qSupported:multiprocess+",
              b"qXfer:features:read:target.xml:0,ffb", b"qqemu.sstep", b"qqemu.PhyMemMode",
              b"QStartNoAckMode", b"QPassSignals:e;10", b"QThreadEvents:1", b"vMustReplyEmpty",
              b"D", b"qRcmd,696e666f207265706c6179"):
        assert refusal(p) is None, p
        out, rest = student_gdb.Proxy._packets(rsp.frame(p))
        assert (out, rest) == (rsp.frame(p), b""), p


def test_frames_decode_as_qemu_decodes_them():
    assert rsp.decode(b"}p1f=00") == b"P1f=00"
    assert rsp.decode(b"a}]b}\x03") == b"a}b#"
    assert rsp.decode(b"0* ") == b"0000"
    assert rsp.decode(b"x*") == b"x" and rsp.decode(b"*!") == b""
    for p in (b"ab#c$d}e*f\x00", bytes(range(256))):
        assert rsp.decode(rsp.encode(p)) == p
        body = rsp.frame(p)[1:-3]
        assert not set(body) & set(b"#$*") and rsp.frame(p).endswith(rsp.checksum(body))
    items, rest = rsp.split(b"+$g#67\x03$m0,4#fd$P")
    assert items == [b"+", b"$g#67", b"\x03", b"$m0,4#fd"] and rest == b"$P"


def test_an_escaped_write_or_monitor_command_is_judged_decoded():
    # maint packet sends its text unescaped: `}p` is `P` to QEMU
    out, rest = student_gdb.Proxy._packets(b"$}p1f=00#00$}QRcmd,71756974#00$*p#00")
    assert out == rsp.frame(b"qRcmd," + student_gdb.DENIED.encode().hex().encode()) + \
        rsp.frame(b"") and rest == b""


def test_a_refused_packet_is_acked_and_answered_by_the_proxy():
    g = Gate()
    q, to_gdb, rest = g.from_gdb(b"+$P1f=00#00")
    assert q == b"+" and to_gdb == b"+" + rsp.frame(READ_ONLY) and rest == b""
    q, to_gdb, _ = g.from_gdb(b"-")             # gdb asks for the reply again
    assert q == b"" and to_gdb == rsp.frame(READ_ONLY)
    q, to_gdb, _ = g.from_gdb(b"+$g#67")        # its ack is the proxy's, not QEMU's
    assert q == b"$g#67" and to_gdb == b""
    assert g.from_gdb(b"+")[0] == b"+"          # an ack of QEMU's reply goes on


def test_no_ack_mode_is_tracked_from_qemus_answer():
    g = Gate()
    assert g.from_gdb(b"$QStartNoAckMode#b0")[0] == b"$QStartNoAckMode#b0"
    assert not g.noack
    assert g.from_qemu(b"+$OK#9a$O") == (b"+$OK#9a", b"$O")
    assert g.noack
    assert g.from_gdb(b"+$M0,1:00#00")[1] == rsp.frame(READ_ONLY)
    g = Gate()
    g.from_gdb(b"$QStartNoAckMode#b0")
    g.from_qemu(b"+$#00")                       # not supported: acks stay
    assert not g.noack and g.from_gdb(b"$P0=00#00")[1].startswith(b"+$E.")


# A fake QEMU: an aarch64 CPU that never runs, memory of zeros
TARGET_XML = ('<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd">'
              '<target><architecture>aarch64</architecture>'
              '<feature name="org.gnu.gdb.aarch64.core">'
              + "".join('<reg name="x%d" bitsize="64"/>' % i for i in range(31))
              + '<reg name="sp" bitsize="64" type="data_ptr"/>'
              '<reg name="pc" bitsize="64" type="code_ptr"/>'
              '<reg name="cpsr" bitsize="32"/></feature></target>')
ENTRY, CODE = 0x400000, 64 + 56                 # tiny_elf(): its code after the headers
REGS = [0x100 + i for i in range(31)] + [0x8000, ENTRY + CODE]   # x0..x30, sp, pc


def qemu_decode(body):
    """A packet's payload as QEMU's gdb_read_byte() decodes it, written
    apart from vm/rsp.py: `}` escapes, `*` repeats the byte before it."""
    out, i = bytearray(), 0
    while i < len(body):
        c, n = body[i], body[i + 1:i + 2]
        if c == ord("}"):
            out += bytes((n[0] ^ 0x20,)) if n else b""
            i += 2
        elif c == ord("*"):
            if n and out and 32 <= n[0] <= 126 and n not in (b"#", b"$"):
                out += out[-1:] * (n[0] - 32 + 3)
            i += 2
        else:
            out.append(c)
            i += 1
    return bytes(out)


class FakeStub:
    """A gdb stub on a Unix socket that checks checksums and decodes
    payloads as QEMU's does, and records each; it would accept writes, so
    any that reach it show in `got`."""

    def __init__(self, path, noack):
        self.got, self.offer_noack, self.noack = [], noack, False
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        try:
            c, _ = self.srv.accept()
        except OSError:
            return
        with c:
            buf = b""
            while True:
                data = c.recv(65536)
                if not data:
                    return
                buf += data
                while b"$" in buf:
                    start = buf.index(b"$")
                    end = buf.find(b"#", start)
                    if end < 0 or len(buf) < end + 3:
                        break
                    body, cs, buf = buf[start + 1:end], buf[end + 1:end + 3], buf[end + 3:]
                    if int(cs, 16) != sum(body) & 0xFF:
                        c.sendall(b"-")
                        continue
                    self.got.append(qemu_decode(body))
                    self.reply(c, self.got[-1])

    def reply(self, c, p):
        ack = b"" if self.noack else b"+"
        c.sendall(ack + rsp.frame(self.answer(p)))
        if p == b"QStartNoAckMode" and self.offer_noack:
            self.noack = True

    def answer(self, p):
        if p.startswith(b"qSupported"):
            return b"PacketSize=1000;qXfer:features:read+" + \
                (b";QStartNoAckMode+" if self.offer_noack else b"")
        if p == b"QStartNoAckMode":
            return b"OK" if self.offer_noack else b""
        if p.startswith(b"qXfer:features:read:target.xml:"):
            off, n = (int(x, 16) for x in p.rsplit(b":", 1)[1].split(b","))
            chunk = TARGET_XML.encode()[off:off + n]
            return (b"l" if off + n >= len(TARGET_XML) else b"m") + chunk
        if p == b"?":
            return b"S05"
        if p == b"g":
            return b"".join(v.to_bytes(8, "little").hex().encode() for v in REGS) + b"00000000"
        if p.startswith(b"p"):
            n = int(p[1:], 16)
            return REGS[n].to_bytes(8, "little").hex().encode() if n < len(REGS) else b"00000000"
        if p.startswith(b"m"):
            return b"00" * int(p.split(b",")[1], 16)
        if p == b"vCont?":
            return b"vCont;c;C;s;S"
        if p in (b"c", b"s") or p.startswith(b"vCont;"):
            return b"S05"                   # stopped again at once
        if p == b"qAttached":
            return b"1"
        if p[:1] in b"PGMXZzHD":
            return b"OK"
        return b""

    def close(self):
        self.srv.close()


def tiny_elf(path):
    """An aarch64 executable of one `ret` at ENTRY, no sections: gdb's
    `call` needs the entry point (it returns there, to a breakpoint)."""
    code = (0xd65f03c0).to_bytes(4, "little")                      # ret
    # ELF64 header: EXEC, EM_AARCH64, one program header right after it
    head = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack(
        "<HHIQQQIHHHHHH", 2, 183, 1, ENTRY, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    # PT_LOAD r-x of the whole file at ENTRY; the code is at ENTRY + CODE
    size = CODE + len(code)
    ph = struct.pack("<IIQQQQQQ", 1, 5, 0, ENTRY, ENTRY, size, size, 0x1000)
    with open(path, "wb") as f:
        f.write(head + ph + code)
    return path


def run_gdb(argv, timeout=60):
    """gdb's output; a gdb that hangs is killed (its process group, by PID)."""
    p = proc.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.reap(p)
        out = p.stdout.read() if p.stdout else b""
        pytest.fail("gdb hung:\n" + out.decode(errors="replace"))
    finally:
        proc.reap(p)
    return out.decode(errors="replace")


WRITES = ["set $x0 = 5", "set $pc = 0", "set {long}0x1000 = 1", "jump *0x1000",
          "call ((long (*)(long))%#x)(1)" % (ENTRY + CODE), "return",
          "maint packet }p0=0500000000000000", "maint packet Qqemu.PhyMemMode:1"]
# What still works: reads, breakpoints, running; a monitor command denied
AFTER = ["print/x $x0", "print/x $pc", "maint packet m1000,4", "break *%#x" % ENTRY,
         "continue", "stepi", "monitor quit", "maint packet }QRcmd,71756974"]


@pytest.mark.skipif(not GDB, reason="gdb-multiarch is not installed")
@pytest.mark.parametrize("noack", [False, True], ids=["acks", "no-acks"])
def test_gdb_through_the_proxy_writes_nothing(tmp_path, noack):
    stub = FakeStub(str(tmp_path / "qemu.sock"), noack)
    proxy = student_gdb.Proxy(str(tmp_path / "gdb.sock"), str(tmp_path / "qemu.sock"))
    argv = [GDB, "-nx", "-q", "-batch", "-iex", "set confirm off",
            tiny_elf(str(tmp_path / "a.out")), "-ex", "target remote " + str(tmp_path / "gdb.sock")]
    for cmd in WRITES + AFTER:
        argv += ["-ex", "echo KT-CMD %s\\n" % cmd.replace("\\", "\\\\"), "-ex", cmd]
    try:
        out = run_gdb(argv)
    finally:
        proxy.close()
        proxy.thread.join(5)
        stub.close()
    wrote = [p for p in stub.got if p[:1] in b"PGMXk" or p.startswith(b"Qqemu")]
    assert wrote == [], out
    assert (b"QStartNoAckMode" in stub.got) == noack and stub.noack == noack
    assert b"qRcmd," + student_gdb.DENIED.encode().hex().encode() in stub.got, out
    assert b"qRcmd,71756974" not in stub.got, out              # quit
    said = dict(s.split("\n", 1) for s in out.split("KT-CMD ")[1:])
    for cmd in WRITES:
        assert "kt: the VM is read-only" in said[cmd] or "Cannot access memory" in said[cmd], \
            (cmd, said[cmd])
    assert "0x100" in said["print/x $x0"] and "%#x" % (ENTRY + CODE) in said["print/x $pc"], out
    assert "received: \"00000000\"" in said["maint packet m1000,4"], out
    ran = {p.split(b",")[0].split(b":")[0] for p in stub.got if p[:1] in b"Zz" or p.startswith(b"vCont;")}
    assert ran == {b"Z0", b"z0", b"vCont;c", b"vCont;s"}, out


def test_a_refused_write_is_a_bad_check_that_says_why():
    """What the student sees: their file's refused write, as a BAD check."""
    from labs.grade import refused

    class Run:
        gdb = ("KT-GDB student\nBreakpoint 1, __kasan_kmalloc ()\n"
               "Could not write register \"x0\"; remote failure reply '%s'\n"
               "KT-GDB stop\nx0: 0x1\n" % student_gdb.READ_ONLY.decode())
    (name, ok, why), = refused(Run())
    assert ok is False and "1 write(s) refused" in why and 'register "x0"' in why
    Run.gdb = "KT-GDB student\nBreakpoint 1, lab_uaf ()\nKT-GDB stop\n"
    assert refused(Run()) == []
