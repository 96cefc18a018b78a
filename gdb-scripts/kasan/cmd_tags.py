# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb commands for a pointer's tag and the shadow memory around it.

kasan-tag EXPR, kasan-shadow ADDR [LEN], and the convenience functions
$kasan_tag(PTR) and $kasan_untag(PTR).  The arithmetic -- the tag in the
top byte, kasan_mem_to_shadow, a report's shadow rows -- lives in tags.py,
which needs no gdb; this module reads the memory and prints.  Loaded by
gdb-scripts/kasan.py, as the tree's vmlinux-gdb.py loads scripts/gdb/linux/.
"""

import gdb

from kasan import modes, tags
from kasan.gdbutils import (KasanCommand, allocation_tag, check_kernel_address, kasan_params,
                            read_bytes, value_to_int)


class KasanTag(KasanCommand):
    """Show a pointer's tag next to its memory's tag: kasan-tag EXPR

In software tag-based mode the top byte of a kernel pointer is its tag and
the shadow byte of each 16-byte granule is the memory tag.  An access is
allowed when the two are equal or the pointer tag is 0xff (match-all).
This prints the pointer tag, the untagged address (kasan_reset_tag), the
shadow address (kasan_mem_to_shadow), the memory tag there, and the
verdict the compiler's check would reach.  In a generic-KASAN kernel it
decodes the 8-byte granule's shadow value instead.  In hardware tag-based
mode (MTE) there is no shadow: the memory tag sits in tag storage, which
it reads only where gdb's `memory-tag` can reach it through QEMU's stub,
and otherwise says so (the lab module prints it, read with LDG)."""

    name = "kasan-tag"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def run(self, arg):
        addr = value_to_int(arg, self.name)
        check_kernel_address(addr)
        p = kasan_params()
        if not p.has_shadow:
            gdb.write("\n".join(tags.hw_tag_lines(addr, allocation_tag(addr))) + "\n")
            return
        shadow = tags.mem_to_shadow(addr, p)
        mem = read_bytes(shadow, 1)[0]
        out = ["pointer:     0x%016x" % addr, "mode:        %s" % p.mode]
        if p.mode == modes.SW_TAGS.name:
            pt = tags.tag_of(addr)
            ok = tags.access_passes(pt, mem)
            out += ["pointer tag: %02x" % pt,
                    "untagged:    0x%016x" % tags.untag(addr),
                    "granule:     0x%016x (16 bytes)" % (tags.untag(addr) & ~15 & tags.MASK64),
                    "shadow:      0x%016x" % shadow,
                    "memory tag:  %02x  %s" % (mem, tags.describe_tag(mem)),
                    "access:      %s" % ("passes (pointer tag 0xff matches all)" if pt == 0xFF
                                         else "passes (tags equal)" if ok else
                                         "FAILS: tag mismatch %02x != %02x -> KASAN report"
                                         % (pt, mem))]
        else:
            off = addr & 7
            ok = mem == 0 or (mem < 8 and off < mem)
            out += ["granule:     0x%016x (8 bytes), offset %d" % (addr & ~7 & tags.MASK64, off),
                    "shadow:      0x%016x" % shadow,
                    "shadow byte: %02x  %s" % (mem, tags.describe_generic(mem, off)),
                    "access:      %s" % ("passes" if ok else "FAILS -> KASAN report")]
        gdb.write("\n".join(out) + "\n")


class KasanShadow(KasanCommand):
    """Dump shadow memory like a KASAN report: kasan-shadow ADDR [LEN]

Prints one row per 16 granules (256 bytes of memory in tag-based mode, 128
in generic mode), from two rows before ADDR to LEN bytes after it
(default: one row), marking the row of ADDR with '>' and a caret, exactly
like "Memory state around the buggy address".  In tag-based mode each byte
is a memory tag: fe = KASAN_TAG_INVALID, memory no allocation owns (a freed
object, a redzone, a free page, invalid vmalloc space, or shadow nothing
has tagged: 6.1's initial shadow, KASAN_SHADOW_INIT, is 0xfe); ff = memory
unpoisoned through an untagged pointer, which only a 0xff (match-all)
pointer may access.  In generic mode each byte describes 8 bytes: 00 = all
8 accessible, 01-07 = only the first that many, f1-ff/ca/cb = poisoned
(the value says why).  Hardware tag-based mode has no shadow memory (its
tags are in MTE tag storage): there it says so."""

    name = "kasan-shadow"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def run(self, arg):
        argv = gdb.string_to_argv(arg)
        if not argv or len(argv) > 2:
            raise tags.KasanError("usage: kasan-shadow ADDR [LEN]")
        addr = value_to_int(argv[0], self.name)
        check_kernel_address(addr)
        length = value_to_int(argv[1], self.name) if len(argv) == 2 else 1
        if length > 1 << 20:
            raise tags.KasanError("LEN %d is more than 1 MiB of memory" % length)
        p = kasan_params()
        if not p.has_shadow:
            raise tags.KasanError(tags.NO_SHADOW)
        start = tags.row_start(addr, p)
        span = 16 * p.granule
        base = tags.untag(addr) if p.mode == modes.SW_TAGS.name else addr
        end = ((base + max(length, 1) + 2 * span + span - 1) // span) * span
        n = (end - start) // p.granule
        data = read_bytes(tags.mem_to_shadow(start, p), n)
        gdb.write("\n".join(tags.shadow_rows(addr, list(data), start, p)) + "\n")
        if p.mode == modes.SW_TAGS.name:
            gdb.write("(each byte: the tag of 16 bytes; fe = no allocation owns it: "
                      "freed, redzone, free page, or never tagged; ff = unpoisoned "
                      "through an untagged pointer: only a 0xff pointer passes)\n")
        else:
            gdb.write("(each byte: 8 bytes; 00 = all 8 accessible, 01-07 = the first "
                      "that many, f1-ff/ca/cb = poisoned, the value says why)\n")


class KasanTagFunc(gdb.Function):
    """$kasan_tag(PTR): the tag in the top byte of a kernel pointer."""

    def __init__(self):
        super().__init__("kasan_tag")

    def invoke(self, ptr):
        return gdb.Value(tags.tag_of(int(ptr)))


class KasanUntagFunc(gdb.Function):
    """$kasan_untag(PTR): PTR with the native 0xff top byte (kasan_reset_tag)."""

    def __init__(self):
        super().__init__("kasan_untag")

    def invoke(self, ptr):
        return gdb.Value(tags.untag(int(ptr))).cast(ptr.type)


KasanTag()
KasanShadow()
KasanTagFunc()
KasanUntagFunc()
