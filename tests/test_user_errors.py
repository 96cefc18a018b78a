# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What a new user mistypes gets one line and exit 2 before anything is
built or booted; the children of a signalled runner are found and killed.

Each test knows the input on which the answer is BAD: a known scenario
passes the check, an unknown one does not."""
import os
import signal
import subprocess
import sys
import time

import pytest

from labs import grade
from vm import cli, initramfs, proc, qemu, variant
from vm.base import KtError
from vm.qemu import MACHINES

from conftest import REPO


@pytest.fixture(autouse=True)
def no_handlers(monkeypatch):
    """The entry points install signal handlers; not in pytest's process."""
    monkeypatch.setattr(proc, "install_signal_handlers", lambda: None)
    monkeypatch.setattr(grade.vm, "install_signal_handlers", lambda: None)


def test_every_module_table_is_read():
    names = initramfs.scenario_names()
    for n in ("uaf", "double-free", "student-tags-only"):
        assert n in names
    # a handout leaves the mystery module's source out (it ships the .ko)
    mystery = os.path.join(REPO, "labs", "module", "kasan_mystery.c")
    assert ("mystery-a" in names) == os.path.exists(mystery)
    assert initramfs.table_scenarios('struct lab_scenario t[] = {\n\t{ "a", f, "x" },\n};') \
        == ["a"]


@pytest.mark.parametrize("names", ["uaf", "list", "uaf,double-free", "list,uaf"])
def test_known_scenarios_pass(names):
    initramfs.check_scenarios(names)


def test_a_program_scenario_is_run_by_the_init_and_only_then_in_the_initramfs():
    """qfq-lmax is a guest program (vm/initramfs.py: PROGRAMS), not a module's
    function: kt_exec= runs it, and only its runs put it in the initramfs
    (every other run's initramfs stays what it was)."""
    assert "qfq-lmax" in initramfs.scenario_names()
    initramfs.check_scenarios("qfq-lmax")
    assert qemu.scenario_cmdline("uaf,double-free") == "kt_run=uaf,double-free"
    assert qemu.scenario_cmdline("qfq-lmax") == "kt_exec=qfq-lmax"
    assert qemu.scenario_cmdline("uaf,qfq-lmax") == "kt_run=uaf kt_exec=qfq-lmax"
    assert initramfs.optional_modules("kunit.enable=0 kt_exec=qfq-lmax") == ("qfq-lmax",)
    assert initramfs.optional_modules("kt_run=uaf kt_exec=tcpbench") == ()
    assert initramfs.program_source("qfq-lmax") == "qfq_lmax"
    assert os.path.exists(os.path.join(REPO, "vm", "init", "qfq_lmax.c"))


def test_a_program_scenario_needs_a_kernel_that_can_run_it():
    initramfs.check_scenarios("qfq-lmax", "exp-qfq-revert")
    initramfs.check_scenarios("uaf", "swtags")
    with pytest.raises(initramfs.KtError, match=r"scenario qfq-lmax needs a kernel with "
                       r"CONFIG_NET_SCH_QFQ=y, which variant swtags has not; VARIANT= one of: "
                       r"exp-qfq-revert, exp-qfq-revert-generic, swtags-qfq"):
        initramfs.check_scenarios("uaf,qfq-lmax", "swtags")


@pytest.mark.parametrize("names,bad", [("bogus", "bogus"), ("uaf,nope", "nope"),
                                       ("uaf nope", "nope"), ("UAF", "UAF")])
def test_unknown_scenario_named(names, bad):
    with pytest.raises(initramfs.KtError, match="unknown scenario %r" % bad):
        initramfs.check_scenarios(names)


def test_shipped_module_strings_count(tmp_path, monkeypatch):
    """A handout has kasan_mystery.ko, not its source."""
    d = tmp_path / "labs" / "module"
    (d / "shipped" / "swtags-x").mkdir(parents=True)
    (d / "a.c").write_text('struct lab_scenario t[] = {\n\t{ "one", f, "x" },\n};')
    (d / "shipped" / "swtags-x" / "kasan_mystery.ko").write_bytes(b"\x7fELF\0mystery-a\0x")
    monkeypatch.setattr(initramfs, "REPO", str(tmp_path))
    initramfs.check_scenarios("one,mystery-a")
    with pytest.raises(initramfs.KtError, match="'mystery'"):
        initramfs.check_scenarios("mystery")


def test_bogus_scenario_refused_before_the_build(capsys, monkeypatch):
    monkeypatch.setattr(cli, "build_kernel", lambda v: pytest.fail("built a kernel"))
    assert cli.main(["boot", "--run", "bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kasan-tags: error: unknown scenario 'bogus'") and \
        err.count("\n") == 1


def test_unknown_machine_and_machine_with_gdb(capsys, monkeypatch):
    """MACHINE= names a machine of vm/qemu.py, for make boot/run only."""
    monkeypatch.setattr(cli, "build_kernel", lambda v: pytest.fail("built a kernel"))
    assert cli.main(["boot", "--machine", "virt-mtee"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kasan-tags: error: unknown machine 'virt-mtee' (known: virt,") \
        and err.count("\n") == 1
    assert cli.main(["boot", "--gdb", "--machine", "virt-mte-qemu7.2"]) == 2
    assert "MACHINE= is for make boot and make run only" in capsys.readouterr().err


def test_a_qemu_package_spec_is_package_slash_suite():
    from vm import qemupkg
    assert qemupkg.split_spec("qemu-system-arm/bookworm-backports") == [
        "qemu-system-arm", "bookworm-backports"]
    for bad in ("qemu-system-arm", "a/b/c", "/bookworm", ""):
        with pytest.raises(KtError, match="expected PACKAGE/SUITE"):
            qemupkg.split_spec(bad)


def test_an_unreachable_mirror_is_one_line(tmp_path, monkeypatch):
    """hwtags' QEMU comes from bookworm-backports on first use: offline,
    apt-get fails and that is one line, with nothing half-unpacked left."""
    from vm import qemupkg
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "apt-get").write_text("#!/bin/sh\necho 'E: Failed to fetch "
                                  "http://deb.debian.org/debian' >&2\nexit 100\n")
    (fake / "apt-get").chmod(0o755)
    monkeypatch.setenv("PATH", "%s:%s" % (fake, os.environ["PATH"]))
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(KtError, match=r"cannot fetch qemu-system-arm from Debian's "
                       r"bookworm-backports \(offline\?\): `apt-get update`: E: Failed"):
        MACHINES["virt-mte"].executable()
    assert not os.path.exists(os.path.join(qemupkg.top_dir(
        MACHINES["virt-mte"].package), qemupkg.STAMP))


@pytest.mark.parametrize("v", ["x86-generic"])
def test_scenarios_on_a_variant_without_the_module(v, capsys, monkeypatch):
    """x86 by its arch (arm64 variants may say `# kt-lab-module: none`)."""
    monkeypatch.setattr(cli, "build_kernel", lambda v: pytest.fail("built a kernel"))
    assert cli.main(["boot", "-V", v, "--run", "uaf"]) == 2
    assert "kasan-tags: error: variant %s has no lab module" % v in capsys.readouterr().err


def test_the_module_is_built_for_every_other_arm64_variant():
    assert variant.lab_module_of("swtags") and variant.lab_module_of("generic")
    # hw-tags: the module reads tag storage instead of shadow; what includes it too
    assert variant.lab_module_of("hwtags") and variant.lab_module_of("exp-hwtags-tag-dump")


@pytest.mark.parametrize("n,msg", [("4", "has no gdb step"), ("10", "no lab 10"),
                                   ("x", "no lab x")])
def test_make_lab_without_a_gdb_step(n, msg, capsys, monkeypatch):
    monkeypatch.setattr(grade.vm, "build_kernel", lambda v: pytest.fail("built a kernel"))
    assert grade.main(["--interactive", "-n", n]) == 2
    out = capsys.readouterr().out
    assert msg in out and out.count("\n") == 1 and "Traceback" not in out


def test_a_lab_with_a_gdb_step_gets_to_the_build(monkeypatch):
    """The BAD case of the test above: lab 1 has gdb steps."""
    def stop(v):
        raise grade.vm.KtError("reached the build of %s" % v)
    monkeypatch.setattr(grade.vm, "build_kernel", stop)
    assert grade.main(["--interactive", "-n", "1"]) == 2


def test_foreground_child_is_killed():
    """A foreground() child shares our process group: it is signalled
    by PID, not by killpg (which would miss it)."""
    p = proc.foreground(["sleep", "60"])
    proc.kill_children()
    assert p.returncode == -signal.SIGKILL
    q = proc.spawn(["sleep", "60"])
    proc.kill_children()
    assert q.returncode == -signal.SIGKILL


def test_the_parents_death_is_a_sigterm():
    """make's recipe shell killed under us: we clean up, not orphaned."""
    code = ("import os, subprocess, sys\n"
            "r = subprocess.Popen([sys.executable, '-c', 'from vm import proc\\n"
            "proc.install_signal_handlers()\\nprint(1, flush=True)\\n"
            "proc.interactive([\\'sleep\\', \\'60\\'])'], stdout=subprocess.PIPE)\n"
            "r.stdout.readline()\nprint(r.pid, flush=True)\nos._exit(0)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=REPO, env=dict(os.environ, PYTHONPATH=REPO), timeout=30)
    runner = int(p.stdout.split()[0])
    assert proc.wait_for(lambda: proc.gone(runner), 10), "runner orphaned"


def test_sigterm_while_waiting_on_a_foreground_child():
    """The runner waits in interactive(); SIGTERM kills the child and the
    runner exits at once, without waiting on its own lock."""
    code = ("from vm import proc\nproc.install_signal_handlers()\n"
            "print('ready', flush=True)\nproc.interactive(['sleep', '60'])\n")
    r = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         start_new_session=True, cwd=REPO,
                         env=dict(os.environ, PYTHONPATH=REPO))
    assert r.stdout.readline() == b"ready\n"
    assert proc.wait_for(lambda: proc.descendants(r.pid), 10)
    time.sleep(0.3)
    kids = proc.descendants(r.pid)
    t0 = time.time()
    r.send_signal(signal.SIGTERM)
    assert r.wait(10) == 128 + signal.SIGTERM
    assert time.time() - t0 < 3
    assert proc.wait_for(lambda: all(proc.gone(k) for k in kids), 5), kids


def test_a_signal_while_a_child_starts_waits_until_it_is_recorded(monkeypatch):
    """SIGTERM inside Popen() (the parent died as the child was forked):
    the child is recorded first, then killed, then we exit 143."""
    killed = []
    monkeypatch.setattr(proc, "kill_children",
                        lambda wait=True: killed.append(list(proc._children)))

    class Forking:
        pid = 4242

        def __init__(self, *_a, **_k):
            proc._on_signal(signal.SIGTERM, None)

    monkeypatch.setattr(proc.subprocess, "Popen", Forking)
    for start in (proc.foreground, proc.spawn):
        with pytest.raises(SystemExit) as e:
            start(["true"])
        child = proc._children.pop()
        assert e.value.code == 128 + signal.SIGTERM
        assert isinstance(child, Forking) and killed.pop() == [child]
    assert not proc._pending and not proc._starting[0]
