# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What every kasan-* gdb command needs from gdb, in one place.

The kernel being debugged is the vmlinux gdb loaded: its build dir holds
the .config (the KASAN mode and shadow offset, tags.params_from_config)
and `source`, the tree (the brk constants).  An argument is a gdb
expression; memory is read through the stub; an expected failure is a
tags.KasanError that KasanCommand prints as one line, `kasan-x: why`,
instead of a traceback.  Like the tree's scripts/gdb/linux/utils.py, this
module registers no command: the command families (cmd_*.py) import it.
"""

import os

import gdb

from kasan import history, report, tags


def kernel_dir():
    prog = gdb.current_progspace().filename
    if not prog:
        raise tags.KasanError("no vmlinux loaded (start gdb with the kernel's vmlinux)")
    return os.path.dirname(os.path.realpath(prog))


def kernel_config():
    """The .config of the kernel being debugged, as {CONFIG_X: value}."""
    path = os.path.join(kernel_dir(), ".config")
    try:
        with open(path) as f:
            return tags.parse_config(f.read())
    except OSError:
        raise tags.KasanError("cannot read %s (the build dir of this vmlinux)" % path)


def kasan_params():
    """Mode and shadow offset of the kernel being debugged, from its .config."""
    return tags.params_from_config(kernel_config())


def esr_constants():
    """KASAN_BRK_* and KASAN_ESR_* as the kernel tree defines them."""
    return tags.esr_constants_of_tree(os.path.join(kernel_dir(), "source"))


def value_to_int(arg, what):
    if not arg.strip():
        raise tags.KasanError("usage: %s EXPR (a pointer or address)" % what)
    try:
        v = gdb.parse_and_eval(arg)
    except gdb.error as e:
        raise tags.KasanError(str(e))
    code = v.type.strip_typedefs().code
    if code not in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ARRAY):
        raise tags.KasanError("%s is not a pointer or an address (type %s)" % (arg, v.type))
    if code == gdb.TYPE_CODE_ARRAY:
        v = v.address
    return tags.to_u64(int(v.cast(gdb.lookup_type("unsigned long"))))


def read_bytes(addr, n):
    try:
        return bytes(gdb.selected_inferior().read_memory(addr, n))
    except gdb.MemoryError:
        raise tags.KasanError("cannot read %d byte(s) at 0x%x: not mapped" % (n, addr))


def check_kernel_address(addr):
    if not tags.is_kernel_address(addr):
        raise tags.KasanError("0x%016x is not a kernel address (bits 55..48 must be ones)"
                              % addr)


def allocation_tag(addr):
    """The MTE allocation tag of addr's granule as gdb's `memory-tag
    print-allocation-tag` reads it through the stub (qMemTags), or None
    when this gdb and stub cannot (then no tag is guessed)."""
    try:
        out = gdb.execute("memory-tag print-allocation-tag 0x%x" % tags.untag(addr),
                          to_string=True)
    except gdb.error:
        return None
    return tags.parse_allocation_tag(out)


def frame_list(frame=None, limit=40):
    """[(function, tree path, line)] from `frame` (the newest) outwards."""
    out, f = [], frame or gdb.newest_frame()
    while f is not None and len(out) < limit:
        sal = f.find_sal()
        out.append((f.name() or "??", history.tree_path(
            sal.symtab.filename if sal.symtab else ""), sal.line or 0))
        f = f.older()
    return out


def disassemble(pc):
    """The instruction at pc as gdb prints it ("ldr\tx0, [x19, #8]")."""
    arch = gdb.selected_frame().architecture()
    return arch.disassemble(pc)[0]["asm"]


class KasanCommand(gdb.Command):
    """Base: turn expected errors into one-line gdb errors, no traceback."""

    def invoke(self, arg, from_tty):
        try:
            self.run(arg)
        except (tags.KasanError, report.ReportError, gdb.error) as e:
            raise gdb.GdbError("%s: %s" % (self.name, e))
