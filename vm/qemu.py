# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""QEMU: the machine as data, one boot, its serial log and how it ended.

A variant picks its machine with `# kt-machine: NAME` in a fragment
(default `virt`); MACHINES holds each machine's parameters, in the way
kunit's qemu_configs/*.py hold theirs."""

import dataclasses
import os
import random
import re
import selectors
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from vm import proc, qemupkg, runcache
from vm.base import KtError, log
from vm.kbuild import image, kernel_info, kt_dir
from vm.initramfs import PROGRAMS, build_initramfs, optional_modules
from vm.variant import CONFIGS, inherited_directive

START_MARK = "KT-INIT-START"
END_MARK = "KT-INIT-END"
# A kernel with no way to power the machine off (our x86 tinyconfig has no
# ACPI) halts instead: 6.1's reboot syscall turns POWER_OFF into HALT when
# !kernel_can_power_off() and kernel_halt() prints this (kernel/reboot.c).
# The guest will print nothing more, so the runner stops QEMU.
HALTED = b"reboot: System halted"
PANIC_RE = re.compile(r"Kernel panic - not syncing|---\[ end Kernel panic")
BASE_CMDLINE = "console=ttyAMA0 nokaslr panic=-1 kasan_multi_shot"

# Determinism.  -icount shift=0 runs the one vCPU by an instruction count:
# guest time is 1 ns per instruction, so every timer interrupt lands on the
# same instruction on every boot, and sleep=off lets an idle guest jump to
# its next timer instead of waiting for the host's clock.  -seed fixes
# QEMU's guest RNG, which fills the device tree's rng-seed: the kernel's
# random pool (the random sizes and page orders of KUnit's
# match_all_not_assigned).
# Neither tag generator reads that pool: sw-tags seeds its own from the
# cycle counter at boot (6.1 mm/kasan/sw_tags.c:43), and hw-tags' IRG is,
# in QEMU, an LFSR that 6.1 seeds from the same counter
# (arch/arm64/kernel/mte.c:325); under -icount both seeds are instruction
# counts, the same on every boot.  So the seed reaches them through
# kt_seed= on the command line, which the init hands to the lab module:
# it advances the generator by (seed mod 65536) draws (kasan_lab.c: seed_tags()).
# Same kernel, initramfs, command line and seed: the same bytes.
ICOUNT = "shift=0,sleep=off"
DEFAULT_SEED = 1
SEED_MAX = 2 ** 32 - 1


def run_seed() -> int:
    """The seed of this run: SEED= (make exports it), DEFAULT_SEED if unset.

    SEED=random draws one, says which, and keeps it in the environment, so
    that every boot of this run, and of the processes it starts, uses it."""
    value = os.environ.get("SEED", "").strip()
    if not value:
        return DEFAULT_SEED
    if value == "random":
        n = random.SystemRandom().randint(0, SEED_MAX)
        os.environ["SEED"] = str(n)
        log("SEED=random drew SEED=%d; type SEED=%d to run this again" % (n, n))
        return n
    if not value.isdigit() or int(value) > SEED_MAX:
        raise KtError("SEED must be a number from 0 to %d, or `random` (not %r)"
                      % (SEED_MAX, value))
    return int(value)


@dataclass(frozen=True)
class QemuParams:
    """How one emulated machine is started (qemu-system-aarch64 argv)."""
    name: str
    machine: str = "virt"
    cpu: str = "max"
    mem: str = "512M"
    # Debian's QEMU lacks efi-virtio.rom: no NIC, or QEMU exits at once.
    extra: Tuple[str, ...] = ("-nic", "none")
    binary: str = "qemu-system-aarch64"
    console: str = "ttyAMA0"      # the serial console's name in this machine
    # "PACKAGE/SUITE": run the binary of that Debian package, unpacked into
    # the cache (vm/qemupkg.py), instead of the installed one
    package: str = ""
    # -icount's argument ("" runs by the host's clock: not reproducible)
    icount: str = ICOUNT

    def executable(self) -> str:
        return qemupkg.binary(self.package, self.binary) if self.package else self.binary

    def argv(self, kernel: str, initrd: str, cmdline: str, gdb_port: Optional[int] = None,
             interactive: bool = False, seed: Optional[int] = None,
             rr: Optional[Tuple[str, str]] = None) -> List[str]:
        """seed: None for no seed (and no kt_seed=); the seed is not
        reproducible without icount.  rr: ("record" or "replay", the
        recording's directory), vm/record.py."""
        cmdline = cmdline.replace("console=ttyAMA0", "console=" + self.console)
        icount = self.icount
        if interactive and icount and not rr:
            # A person at the console: with sleep=off an idle guest spins a
            # host core and its clock races ahead (seen: 450 s of guest time
            # in 14 s); a session typed by hand is not reproducible anyway.
            # (A replay keeps the recording's own -icount.)
            icount = icount.replace("sleep=off", "sleep=on")
        det: List[str] = ["-icount", icount] if icount else []
        if rr:
            if not self.icount:
                raise KtError("machine %s runs by the host's clock: it cannot record"
                              % self.name)
            mode, rdir = rr
            # a replay only reads its recording: several may replay it at
            # once (two trees' runs of one step are the same recording), so
            # no image lock; a recording is made by one run at a time (vm/record.py)
            det = ["-icount", "%s,rr=%s,rrfile=%s,rrsnapshot=init" % (
                icount, mode, os.path.join(rdir, "rec.bin")),
                "-drive", "file=%s,if=none,id=rr%s" % (
                    os.path.join(rdir, "snap.qcow2"),
                    ",file.locking=off" if mode == "replay" else "")]
        if seed is not None:
            det += ["-seed", str(seed)]
            cmdline += " kt_seed=%d" % seed
        cmd = [self.executable(), "-M", self.machine, "-cpu", self.cpu, "-m", self.mem,
               "-nographic", "-no-reboot", *self.extra, *det,
               "-kernel", kernel, "-initrd", initrd, "-append", cmdline]
        if not interactive:
            cmd += ["-monitor", "none"]
        if gdb_port:
            cmd += ["-gdb", "tcp:127.0.0.1:%d" % gdb_port, "-S"]
        return cmd

    def realtime(self) -> "QemuParams":
        """This machine by the host's clock: no -icount, no seed (for
        measuring wall time and guest-timed figures, `make bench`)."""
        return dataclasses.replace(self, name=self.name + "-realtime", icount="")

    def describe(self) -> str:
        return "-M %s -cpu %s (TCG, no KVM), %s, 1 vCPU" % (
            self.machine, self.cpu, self.mem.replace("M", " MiB"))


MACHINES: Dict[str, QemuParams] = {
    "virt": QemuParams("virt"),
    # For `make bench`: -icount shift=0 advances the guest clock by 1 ns per
    # executed instruction, so guest-timed figures become instruction counts
    # (every machine does that now; this one lets the guest sleep when idle).
    "virt-icount": QemuParams("virt-icount", icount="shift=0"),
    # Hardware tag-based KASAN: QEMU's emulated MTE, tag storage included.
    # Debian 12's QEMU 7.2 loses the page offset in tag storage (QEMU issue
    # 1416): bookworm-backports' QEMU has the fix.  -audio none: it would
    # try the installed 7.2's audio modules and print that it cannot.
    "virt-mte": QemuParams("virt-mte", machine="virt,mte=on",
                           extra=("-nic", "none", "-audio", "none"),
                           package="qemu-system-arm/bookworm-backports"),
    # make bench: virt-mte with -icount (see virt-icount)
    "virt-mte-icount": QemuParams("virt-mte-icount", machine="virt,mte=on",
                                  extra=("-nic", "none", "-audio", "none"), icount="shift=0",
                                  package="qemu-system-arm/bookworm-backports"),
    # The same machine on the installed QEMU 7.2, for the hwtags
    # investigation (MACHINE=virt-mte-qemu7.2): what issue 1416 does.
    "virt-mte-qemu7.2": QemuParams("virt-mte-qemu7.2", machine="virt,mte=on"),
    # x86_64 (kasan-decode's x86 fixture): the PC's first UART
    "pc": QemuParams("pc", machine="pc", binary="qemu-system-x86_64", console="ttyS0"),
}


def machine_of_variant(variant: str) -> QemuParams:
    """The machine a variant's fragments ask for (`# kt-machine: NAME`)."""
    name = inherited_directive(variant, "machine", "virt")
    if name not in MACHINES:
        raise KtError("%s: unknown machine %r (known: %s; see %s)" % (
            variant, name, ", ".join(MACHINES), CONFIGS))
    return MACHINES[name]


def machine(bdir: str) -> QemuParams:
    return machine_of_variant(kernel_info(bdir)["variant"])


def machine_named(name: str) -> QemuParams:
    """MACHINES[name], or a one-line error listing the machines."""
    if name not in MACHINES:
        raise KtError("unknown machine %r (known: %s)" % (name, ", ".join(MACHINES)))
    return MACHINES[name]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_port(port: int, deadline: float) -> bool:
    """Until QEMU's gdb stub accepts connections (it listens before running)."""
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def full_cmdline(cmdline: str = "") -> str:
    """The kernel command line of a boot, blanks squeezed: its text is an
    input of a deterministic run (sw-tags' generator is seeded by the
    instruction count at boot, which parsing a longer line moves), so
    `make run SCENARIO=uaf` and `make boot CMDLINE='kunit.enable=0 kt_run=uaf'`
    must pass the same bytes."""
    return " ".join((BASE_CMDLINE + " " + cmdline).split())


def scenario_cmdline(names: str) -> str:
    """The init's command line that runs lab scenarios `a,b,c`: kt_run= for
    the lab modules' scenarios, kt_exec= for the guest programs' (PROGRAMS,
    run after the others: the init runs kt_run= first)."""
    progs = [n for n in re.split(r"[, ]", names) if n in PROGRAMS]
    if not progs:
        return ("kt_run=" + names) if names else ""
    rest = [n for n in re.split(r"[, ]", names) if n and n not in PROGRAMS]
    return " ".join((["kt_run=" + ",".join(rest)] if rest else []) +
                    ["kt_exec=" + ",".join(progs)])


def qemu_cmd(bdir: str, initrd: str, cmdline: str, gdb_port: Optional[int] = None,
             interactive: bool = False, params: Optional[QemuParams] = None,
             rr: Optional[Tuple[str, str]] = None) -> List[str]:
    """params: another machine than the variant's own (e.g. MACHINES["virt-icount"]);
    the seed is this run's (run_seed), none for a machine without icount;
    rr: record or replay (vm/record.py)."""
    p = params or machine(bdir)
    return p.argv(image(bdir), initrd, cmdline, gdb_port, interactive,
                  seed=run_seed() if p.icount else None, rr=rr)


class Boot:
    """The result of one boot: the serial log and how it ended (raw: the
    serial bytes as QEMU wrote them; cached: read from vm/runcache.py)."""

    def __init__(self, log_path: str, text: str, status: str, seconds: float,
                 raw: bytes = b"", cached: bool = False):
        self.log_path, self.text, self.status, self.seconds = \
            log_path, text, status, seconds
        self.raw, self.cached = raw, cached

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def tail(self, n: int = 40) -> str:
        return "\n".join(self.text.splitlines()[-n:])


def seed_of(cmd: List[str]) -> str:
    """The seed a QEMU argv runs with, or "none (not reproducible)"."""
    if "-seed" in cmd and "-icount" in cmd:
        return cmd[cmd.index("-seed") + 1]
    return "none (not reproducible)"


def status_of(text: str) -> str:
    """ok (the init's end marker), panic, or exit (ended without either)."""
    if END_MARK in text:
        return "ok"
    if PANIC_RE.search(text):
        return "panic"
    return "exit"


def start(bdir: str, cmdline: str, initrd: Optional[str] = None,
          gdb_port: Optional[int] = None, stdin_pipe: bool = False,
          params: Optional[QemuParams] = None,
          rr: Optional[Tuple[str, str]] = None) -> Tuple["subprocess.Popen[bytes]", List[str]]:
    """Start QEMU (halted if gdb_port) with its serial console on a pipe."""
    cmd = qemu_cmd(bdir, initrd or build_initramfs(bdir, optional=optional_modules(cmdline)),
                   full_cmdline(cmdline), gdb_port,
                   params=params, rr=rr)
    return spawn_console(cmd, stdin_pipe), cmd


def spawn_console(cmd: List[str], stdin_pipe: bool = False) -> "subprocess.Popen[bytes]":
    """QEMU with its serial console on a pipe (and its stdin on one, to type
    into a shell)."""
    return proc.spawn(cmd, stdin=subprocess.PIPE if stdin_pipe else subprocess.DEVNULL,
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def collect(p: "subprocess.Popen[bytes]", cmd: List[str], log_path: str, timeout: float,
            echo: bool = False, shell_input: Optional[str] = None) -> Boot:
    """Read QEMU's serial console into log_path until it exits or `timeout`;
    then reap it.  shell_input is typed once a busybox prompt appears."""
    t0 = time.time()
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    buf, status = bytearray(), None
    sel = selectors.DefaultSelector()
    assert p.stdout is not None
    sel.register(p.stdout, selectors.EVENT_READ)
    with open(log_path, "wb") as lf:
        lf.write(("# kt boot: %s\n" % " ".join(cmd)).encode())
        lf.write(("# kt seed: %s\n" % seed_of(cmd)).encode())
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
            if HALTED in buf[-(len(chunk) + len(HALTED)):]:
                break
            if shell_input and p.stdin and b"/ # " in buf:
                p.stdin.write(shell_input.encode())
                p.stdin.close()
                shell_input = None
    sel.close()
    proc.reap(p)
    text = buf.decode(errors="replace").replace("\r\n", "\n")
    return Boot(log_path, text, status or status_of(text), time.time() - t0, bytes(buf))


def replayed(cmd: List[str], log_path: str, raw: bytes, status: str, echo: bool) -> Boot:
    """A kept run (vm/runcache.py) as if it had run now: its log written,
    its console echoed."""
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    with open(log_path, "wb") as lf:
        lf.write(("# kt boot: %s\n# kt seed: %s\n# kt kept: the output of an earlier run "
                  "of the same inputs (KASAN_TAGS_RUNCACHE=1)\n"
                  % (" ".join(cmd), seed_of(cmd))).encode())
        lf.write(raw)
    if echo:
        sys.stdout.write(raw.decode(errors="replace"))
        sys.stdout.flush()
    text = raw.decode(errors="replace").replace("\r\n", "\n")
    return Boot(log_path, text, status, 0.0, raw, cached=True)


def cacheable(cmd: List[str]) -> bool:
    """A run worth keeping: deterministic (icount and a seed), no recording."""
    return seed_of(cmd).isdigit() and not any(",rr=" in a for a in cmd)


def boot(bdir: str, cmdline: str = "", timeout: float = 300, log_path: Optional[str] = None,
         echo: bool = False, initrd: Optional[str] = None, gdb_port: Optional[int] = None,
         on_start: Optional[Callable[["subprocess.Popen[bytes]"], None]] = None,
         shell_input: Optional[str] = None, params: Optional[QemuParams] = None,
         rr: Optional[Tuple[str, str]] = None, cache: Optional[bool] = None) -> Boot:
    """Boot a kernel non-interactively; return a Boot.

    status: ok (reached END_MARK, QEMU exited), panic, timeout, or exit
    (QEMU ended without the end marker).  cache: read and keep the run in
    vm/runcache.py (None: as KASAN_TAGS_RUNCACHE says; never for a run that
    is watched, typed into or recorded)."""
    log_path = log_path or kt_dir(bdir, "boot.log")
    initrd = initrd or build_initramfs(bdir, optional=optional_modules(cmdline))
    cmd = qemu_cmd(bdir, initrd, full_cmdline(cmdline), gdb_port, params=params, rr=rr)
    k = None
    if (runcache.enabled() if cache is None else cache) and cacheable(cmd) and \
            not (gdb_port or on_start or shell_input):
        k = runcache.key(cmd)
        kept = runcache.get(k)
        if kept:
            return replayed(cmd, log_path, kept[0], kept[1]["status"], echo)
    p = spawn_console(cmd, bool(shell_input))
    if on_start:
        on_start(p)
    b = collect(p, cmd, log_path, timeout, echo, shell_input)
    if k and b.status != "timeout":
        runcache.put(k, b.raw, {"status": b.status})
    return b


def qemu_version(params: Optional[QemuParams] = None) -> str:
    """The first line of `qemu-system-aarch64 --version` (of params' QEMU)."""
    exe = params.executable() if params else "qemu-system-aarch64"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    return (out.splitlines() or ["qemu-system-aarch64: no version"])[0]
