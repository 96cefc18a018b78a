# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-tags pipeline: Debian's linux-source tarball -> tagged kernel -> QEMU.

Only this package knows kbuild, QEMU, gdb invocations and the cache layout.
Everything else asks it, through the names below and nothing else:

    bdir = vm.build_kernel(VARIANT)             build (or reuse), the build dir
    b = vm.boot(bdir, "kt_run=uaf", 300, log)   one boot: b.ok, b.status, b.text
    b, gdb_out = vm.boot_gdb(bdir, "x.gdb", cmdline, 300, log)
    rdir, b = vm.record_run(VARIANT, cmdline)   a recording; vm.find_recording() finds it
    with vm.halted_vm(bdir, cmdline, serial=log) as h: ... h.gdb_argv() ...
    vm.module_dir(bdir), vm.vmlinux(bdir)       files inside a build dir

Modules: base (errors, hashing, locks), cache (tarball, trees), variant
(vm/configs as data), kbuild (keys, builds), initramfs (guest side), proc
(process supervision), qemu (machines as data, boots), gdb (halted VMs,
batch sessions), record (record and replay), cli (`python3 -m vm`), ktap and metrics (serial-log
parsers).  Importing the package installs no signal handler: entry points
call vm.install_signal_handlers().
"""

from vm.base import REPO, KtError
from vm.cache import cache_root, preflight, pristine_tree
from vm.gdb import boot_gdb, gdb_cmd, halted_vm
from vm.initramfs import build_initramfs, build_module
from vm.kbuild import (build_dir, build_kernel, build_key, kernel_info, kernel_release,
                       image, module_dir, source_tree, vmlinux)
from vm.proc import descendants, gone, install_signal_handlers, interactive, spawn, wait_for
from vm.qemu import (BASE_CMDLINE, DEFAULT_SEED, END_MARK, START_MARK, MACHINES, Boot, QemuParams,
                     boot, free_port, machine_of_variant, qemu_version, run_seed, scenario_cmdline)
from vm.record import find as find_recording, record as record_run
from vm.variant import DEFAULT_VARIANT, resolve_variant, variants

__all__ = [
    "REPO", "KtError", "cache_root", "preflight", "pristine_tree", "boot_gdb", "gdb_cmd",
    "halted_vm", "build_initramfs", "build_module", "build_dir", "build_kernel",
    "build_key", "image", "kernel_info", "kernel_release", "module_dir", "source_tree", "vmlinux",
    "descendants", "gone", "install_signal_handlers", "interactive", "spawn", "wait_for",
    "BASE_CMDLINE", "DEFAULT_SEED", "END_MARK", "START_MARK", "MACHINES", "Boot", "QemuParams",
    "boot", "free_port",
    "machine_of_variant", "qemu_version", "run_seed", "find_recording", "record_run",
    "scenario_cmdline", "DEFAULT_VARIANT", "resolve_variant",
    "variants",
]
