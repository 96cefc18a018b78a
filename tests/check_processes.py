# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: no process outlives its job -- a timed-out boot, a kernel
that hangs for real, and every interactive job killed by a signal leave no
QEMU or gdb behind."""

import os
import re
import signal
import subprocess
import time

import vm
from tests.checklib import (OUT, PY, REPO, record)


def check_cleanup():
    """No orphan QEMU when the runner or gdb is killed; a hang ends at its timeout."""
    import threading
    bdir = vm.build_kernel("swtags")
    # 1. the runner killed with SIGKILL: its QEMU dies with it (PDEATHSIG)
    t0 = time.time()
    log = os.path.join(OUT, "cleanup-kill.log")
    # The log appears when QEMU starts (vm/qemu.py collect()); one left by an
    # earlier run would let the kill come while the runner's kbuild runs.
    if os.path.exists(log):
        os.unlink(log)
    runner = subprocess.Popen([PY, "-m", "vm", "boot", "--quiet",
                               "--timeout", "120", "--log", log], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Once the log exists the runner's only child is its VM.
    found = vm.wait_for(lambda: os.path.exists(log) and vm.descendants(runner.pid), 60)
    time.sleep(0.5)
    kids = vm.descendants(runner.pid)
    runner.kill()
    runner.wait()
    ok = bool(found and kids) and vm.wait_for(lambda: all(vm.gone(q) for q in kids), 5)
    record("cleanup: killing the runner kills its QEMU", ok, "children %s" % kids,
           time.time() - t0)
    # 2. a VM that never runs (halted for a gdb that never comes) hits its timeout
    t0 = time.time()
    b = vm.boot(bdir, "", 5, os.path.join(OUT, "cleanup-hang.log"), gdb_port=vm.free_port())
    record("cleanup: a hung boot is killed at its timeout", b.status == "timeout"
           and time.time() - t0 < 30, b.status, time.time() - t0)
    check_real_hang()
    # 3. gdb killed mid-session: the halted VM is stopped at once
    t0 = time.time()
    gfile = os.path.join(OUT, "cleanup-gdb-sleeps.gdb")
    with open(gfile, "w") as f:
        f.write("break start_kernel\ncontinue\nshell sleep 300\n")
    res, gdbs = {}, []
    th = threading.Thread(target=lambda: res.update(r=vm.boot_gdb(
        bdir, gfile, "", 200, os.path.join(OUT, "cleanup-gdb.log"), on_gdb=gdbs.append)))
    th.start()
    vm.wait_for(lambda: gdbs, 60)
    time.sleep(1)
    for g in gdbs:
        os.kill(g, signal.SIGKILL)
    th.join(60)
    ok = bool(gdbs) and not th.is_alive() and time.time() - t0 < 60
    record("cleanup: killing gdb stops its VM", ok, "gdb %s" % gdbs, time.time() - t0)


# A kernel that never reaches init: 6.1's kernel_init panics with "Requested
# init /kt-none failed" (init/main.c), and panic=0 (after the runner's
# panic=-1: the last value wins) makes panic() spin forever instead of
# rebooting (kernel/panic.c: its `for (i = 0; ; i += PANIC_TIMER_STEP)` loop).
HANG_CMDLINE = "panic=0 rdinit=/kt-none init=/kt-none"


def check_real_hang():
    """`make boot` of a guest that really hangs: killed by PID at TIMEOUT,
    its serial tail shown, one error line, no process left."""
    t0 = time.time()
    log = os.path.join(OUT, "cleanup-real-hang.out")
    with open(log, "w") as f:
        m = subprocess.Popen(["make", "-s", "-C", REPO, "boot", "TIMEOUT=15",
                              "CMDLINE=kunit.enable=0 " + HANG_CMDLINE], stdout=f,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        seen = set()
        while m.poll() is None and time.time() - t0 < 90:
            seen.update(q for q in vm.descendants(m.pid) if comm(q).startswith("qemu-system"))
            time.sleep(0.5)
        if m.poll() is None:
            os.killpg(m.pid, signal.SIGKILL)
        err = m.communicate()[1]
    out = open(log).read()
    last = ([ln for ln in err.splitlines() if ln.startswith("kasan-tags:")] or [""])[-1]
    ok = (m.returncode == 2 and "Requested init /kt-none failed" in out and seen
          and all(vm.gone(q) for q in seen)
          and re.match(r"kasan-tags: error: the guest did not finish in 15 s \(hung\?\)", last))
    record("cleanup: a kernel that never reaches init is killed at TIMEOUT, tail shown",
           bool(ok), "exit %s, qemu %s: %s" % (m.returncode, sorted(seen), last),
           time.time() - t0, () if ok else out.splitlines()[-10:])


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


# (target, make arguments): the interactive jobs, each with its VM running.
# `make shell` gets a CMD that keeps the guest busy; `make lab` gdb on a pipe.
SIGNAL_JOBS = (("shell", ["shell", "CMD=sleep 300"]), ("qemu-gdb", ["qemu-gdb"]),
               ("lab", ["lab", "N=1"]))


def check_signals():
    """SIGTERM to make (as `timeout` sends it) and SIGINT to its process
    group (Ctrl-C at a terminal): make exits and no process of it is left.
    gdb keeps its prompt on Ctrl-C, as gdb does: `make lab` then ends when
    its input ends (the user's `quit`)."""
    # As at a terminal, make must start with SIGINT at its default, also when
    # this check runs with it ignored (`make check &` in a non-interactive
    # shell): an ignored signal stays ignored across fork and exec.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for name, args in SIGNAL_JOBS:
        for sig in (signal.SIGTERM, signal.SIGINT):
            t0 = time.time()
            label = "signals: %s to make %s leaves no process" % (sig.name, name)
            log = open(os.path.join(OUT, "signal-%s-%s.log" % (name, sig.name)), "wb")
            m = subprocess.Popen(["make", "-s", "-C", REPO] + args, stdin=subprocess.PIPE,
                                 stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            qemu = vm.wait_for(lambda: any(comm(q).startswith("qemu-system")
                                           for q in vm.descendants(m.pid)), 120)
            time.sleep(2)
            kids = vm.descendants(m.pid)
            if sig == signal.SIGTERM:
                m.send_signal(sig)
            else:
                os.killpg(m.pid, sig)
                time.sleep(1)
                m.stdin.close()
            try:
                rc = m.wait(30)
            except subprocess.TimeoutExpired:
                rc = None
            vm.wait_for(lambda: all(vm.gone(k) for k in kids), 15)
            left = [k for k in kids if not vm.gone(k)]
            ok = qemu and rc is not None and not left
            record(label, ok, "" if ok else "qemu %s, make exit %s, left %s" % (
                qemu, rc, ["%d %s" % (k, comm(k)) for k in left]), time.time() - t0)
            for k in left + ([m.pid] if rc is None else []):
                try:
                    os.kill(k, signal.SIGKILL)
                except OSError:
                    pass
            if m.stdin and not m.stdin.closed:
                m.stdin.close()
            m.wait()
            log.close()
