# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The command line of the pipeline (`python3 -m vm`, run by the Makefile).

    python3 -m vm doctor                     what is missing, one line each
    python3 -m vm kernel [-V VARIANT]        build (or reuse) a kernel, print its dir
    python3 -m vm boot   [-V VARIANT] [--cmdline ...] [--run a,b] [--gdb] [--shell]
    python3 -m vm gdb    [-V VARIANT] [--batch FILE]   attach to `boot --gdb`
"""

import argparse
import json
import os
import subprocess
import sys
from typing import List, Optional

from vm import dist, proc, record
from vm.base import KtError
from vm.cache import cache_root, missing_tools, tarball
from vm.gdb import HaltedVM, gdb_cmd, halted_vm, port_file, write_port_file
from vm.initramfs import (LAB_DEBUGFS, OPTIONAL, PROGRAMS, build_initramfs, check_scenarios,
                          optional_modules, program_variants)
from vm.kbuild import build_dir, build_kernel, kt_dir
from vm.qemu import END_MARK, boot, full_cmdline, machine_named, qemu_cmd, scenario_cmdline
from vm.variant import DEFAULT_VARIANT, lab_module_of


def _variant_arg(variant: str) -> str:
    return "" if variant == DEFAULT_VARIANT else " VARIANT=" + variant


def cmd_doctor(a: argparse.Namespace) -> None:
    miss: List[object] = list(missing_tools())
    for t, pkg in missing_tools():
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


def cmd_kernel(a: argparse.Namespace) -> None:
    print(build_kernel(a.variant))


def cmd_dist(a: argparse.Namespace) -> None:
    dist.main_dist(a.file, [v for v in a.variants.split(",") if v])


def cmd_import(a: argparse.Namespace) -> None:
    dist.main_import(a.file)


def cmd_builddir(a: argparse.Namespace) -> None:
    print(build_dir(a.variant))


SHELL_HINT = ("run a scenario: echo 1 > %sNAME; list them: cat %sscenarios; "
              "the report: dmesg" % (LAB_DEBUGFS, LAB_DEBUGFS))


def serve_halted(variant: str, vm: HaltedVM, note: str) -> int:
    """A halted QEMU on this terminal for `make gdb` in another, until it is
    quit: its port is in the port file for as long as it runs."""
    write_port_file(variant, vm)
    print("kt: QEMU halted, gdb stub on 127.0.0.1:%d; in another terminal: make gdb%s%s   "
          "(quit QEMU: Ctrl-A X)" % (vm.port, _variant_arg(variant), note), flush=True)
    try:
        return vm.wait()
    finally:
        try:
            os.unlink(port_file(variant))
        except OSError:
            pass


def scripted_shell(bdir: str, cmdline: str, script: str, a: argparse.Namespace) -> int:
    """`make shell` with CMD= or piped stdin: type the lines at the first
    prompt, then `exit` (the init powers off), like virtme-ng --exec."""
    lines = script.rstrip("\n")
    b = boot(bdir, "kt_shell=1 " + cmdline, timeout=a.timeout,
             log_path=a.log or kt_dir(bdir, "shell.log"), echo=True,
             initrd=build_initramfs(bdir, "shell", shell=True, optional=optional_modules(cmdline)),
             shell_input=(lines + "\n" if lines else "") + "exit\n")
    print("\nkt: shell %s in %.1f s; serial log: %s" % (b.status, b.seconds, b.log_path),
          file=sys.stderr)
    # The lines' own `poweroff -f` ends QEMU before the init's end marker.
    if not (b.ok or b.status == "exit" and "/ # " in b.text):
        raise KtError("the shell did not run the lines to their end (%s); last lines "
                      "above" % b.status)
    return 0


def cmd_boot(a: argparse.Namespace) -> int:
    """`make boot`, `make run`, `make shell`, `make qemu-gdb`: the arguments
    checked once, then one function per way of running the kernel."""
    if a.machine:
        machine_named(a.machine)
        if a.gdb or a.shell:
            raise KtError("MACHINE= is for make boot and make run only")
    if a.run:
        if not lab_module_of(a.variant):
            raise KtError("variant %s has no lab module (vm/configs/%s.config); scenarios "
                          "run on the others" % (a.variant, a.variant))
        check_scenarios(a.run, a.variant)
    bdir = build_kernel(a.variant)
    cmdline = " ".join(x for x in (a.cmdline, scenario_cmdline(a.run)) if x)
    if a.gdb:
        return boot_halted(bdir, cmdline, a)
    if a.shell:
        return boot_shell(bdir, cmdline, a)
    return boot_to_end(bdir, cmdline, a)


def boot_halted(bdir: str, cmdline: str, a: argparse.Namespace) -> int:
    """make qemu-gdb (and make shell GDB=1): halted at the first instruction."""
    full = ("kt_shell=1 " if a.shell else "") + cmdline
    with halted_vm(bdir, full, terminal=True,
                   initrd=build_initramfs(bdir, shell=a.shell, optional=optional_modules(full))) as vm:
        return serve_halted(a.variant, vm, "")


def boot_shell(bdir: str, cmdline: str, a: argparse.Namespace) -> int:
    """make shell: a BusyBox shell on this terminal, or CMD='...' typed into it."""
    script = a.cmd if a.cmd is not None else \
        (None if sys.stdin.isatty() else sys.stdin.read())
    if script is not None:
        return scripted_shell(bdir, cmdline, script, a)
    print("kt: starting a shell in the %s kernel; leave with `poweroff -f` "
          "or Ctrl-A X\nkt: %s" % (a.variant, SHELL_HINT), flush=True)
    # typed by hand (not reproducible anyway): the students' scenarios too,
    # and the guest programs this kernel can run (/qfq-lmax)
    progs = tuple(p for p in PROGRAMS if a.variant in program_variants(p))
    return proc.interactive(qemu_cmd(bdir, build_initramfs(bdir, "shell", shell=True,
                                                           optional=tuple(OPTIONAL) + progs),
                                     full_cmdline("kt_shell=1 " + cmdline), interactive=True))


def boot_to_end(bdir: str, cmdline: str, a: argparse.Namespace) -> int:
    """make boot, make run: the kernel runs its init to the end marker."""
    log_path = a.log or kt_dir(bdir, "boot.log")
    b = boot(bdir, cmdline, timeout=a.timeout, log_path=log_path, echo=not a.quiet,
             params=machine_named(a.machine) if a.machine else None,
             initrd=build_initramfs(bdir, "shell", shell=True, optional=optional_modules(cmdline))
             if a.busybox else None)
    print("kt: boot %s in %.1f s; serial log: %s" % (b.status, b.seconds, b.log_path),
          file=sys.stderr)
    if not b.ok:
        if a.quiet:
            print(b.tail(), file=sys.stderr)
        if b.status == "timeout":
            raise KtError("the guest did not finish in %d s (hung?): QEMU killed; its last "
                          "lines are above, the whole serial log in %s" % (a.timeout, b.log_path))
        raise KtError("boot did not reach %s (%s)" % (END_MARK, b.status))
    errors = [ln.strip() for ln in b.text.splitlines() if ln.startswith("KT-ERROR")]
    if errors:
        raise KtError(errors[0][len("KT-ERROR "):] +
                      ("; and %d more KT-ERROR lines" % (len(errors) - 1)
                       if len(errors) > 1 else ""))
    return 0


def cmd_record(a: argparse.Namespace) -> int:
    """make record: one run kept as QEMU's record/replay log."""
    if a.run:
        check_scenarios(a.run, a.variant)
    cmdline = " ".join(x for x in (a.cmdline, scenario_cmdline(a.run)) if x)
    rdir, b = record.record(a.variant, cmdline, a.timeout, echo=not a.quiet)
    print("kt: recorded in %.1f s: %s\nkt: replay it halted for gdb with `make replay%s` "
          "(the same SCENARIO=, CMDLINE=, SEED=)"
          % (b.seconds, record.describe(rdir), _variant_arg(a.variant)), file=sys.stderr)
    return 0


def cmd_replay(a: argparse.Namespace) -> int:
    """make replay: the recording of this run, halted under a gdb stub."""
    cmdline = " ".join(x for x in (a.cmdline, scenario_cmdline(a.run)) if x)
    extra = " ".join(a.cmdline.replace("kunit.enable=0", "").split())
    how = " ".join(x for x in (_variant_arg(a.variant).strip(),
                               "SCENARIO=" + a.run if a.run else "",
                               "CMDLINE='%s'" % extra if extra else "",
                               "SEED=" + os.environ["SEED"] if os.environ.get("SEED") else "")
                   if x)
    rdir, bdir, initrd = record.find(a.variant, cmdline, how)
    with halted_vm(bdir, cmdline, terminal=True, initrd=initrd, rr=("replay", rdir)) as vm:
        print("kt: replaying %s" % record.describe(rdir), flush=True)
        return serve_halted(a.variant, vm, " (reverse-continue, reverse-stepi and kasan-history "
                                           "work there)")


def cmd_gdb(a: argparse.Namespace) -> int:
    try:
        with open(port_file(a.variant)) as f:
            info = json.load(f)
        os.kill(info["pid"], 0)
    except (OSError, ValueError, KeyError):
        raise KtError("no halted QEMU for variant %s; start `make qemu-gdb%s` in "
                      "another terminal first" % (a.variant, _variant_arg(a.variant)))
    extra: List[str] = []
    for f in a.x or ():
        extra += ["-x", f]
    return proc.interactive(gdb_cmd(info["bdir"], info["port"],
                                    [a.batch] if a.batch else (), extra))


def main(argv: Optional[List[str]] = None) -> int:
    proc.install_signal_handlers()
    ap = argparse.ArgumentParser(prog="python3 -m vm", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def add(name: str, fn: object, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_)
        p.add_argument("-V", "--variant", default=os.environ.get("VARIANT") or
                       DEFAULT_VARIANT)
        p.set_defaults(fn=fn)
        return p
    add("doctor", cmd_doctor, "say what is missing")
    add("kernel", cmd_kernel, "build or reuse a kernel, print its build dir")
    add("builddir", cmd_builddir, "print the build dir (no build)")
    p = add("dist", cmd_dist, "write an archive of the built kernels (for `import`)")
    p.add_argument("file")
    p.add_argument("--variants", default="", help="a,b,c (default: all built here)")
    p = add("import", cmd_import, "install an archive written by `dist` into the cache")
    p.add_argument("file")
    p = add("boot", cmd_boot, "boot in QEMU")
    p.add_argument("--cmdline", default="")
    p.add_argument("--run", default="", help="lab scenarios to run, a,b,c")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--machine", default="", help="another machine than the variant's "
                   "(vm/qemu.py MACHINES), e.g. virt-mte-qemu7.2")
    p.add_argument("--log")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--gdb", action="store_true", help="halt with a gdb stub")
    p.add_argument("--shell", action="store_true", help="interactive busybox shell")
    p.add_argument("--busybox", action="store_true",
                   help="boot with busybox and vm/init/*.sh in the initramfs (kt_sh=NAME)")
    p.add_argument("--cmd", help="with --shell: run these shell lines and power off "
                   "(piped stdin does the same)")
    for name, fn, what in (("record", cmd_record, "record a run (QEMU record/replay)"),
                           ("replay", cmd_replay, "replay a recording, halted for gdb")):
        p = add(name, fn, what)
        p.add_argument("--cmdline", default="")
        p.add_argument("--run", default="", help="lab scenarios to run, a,b,c")
        p.add_argument("--timeout", type=int, default=300)
        p.add_argument("--quiet", action="store_true")
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
