# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Pure helpers for KASAN tags, shadow memory and the KASAN brk ESR.

No gdb needed: every function takes numbers (or text) and returns numbers
or strings, so they are tested offline (gdb-scripts/tests/test_tags.py).

arm64 software tag-based KASAN in one paragraph: with Top Byte Ignore
(TCR_EL1.TBI1) the MMU ignores bits 63..56 of a kernel address, so the
allocator stores a random tag there and writes the same tag into the
shadow byte of every 16-byte granule of the object (shadow address =
(untagged address >> 4) + KASAN_SHADOW_OFFSET).  An access passes when the
pointer tag equals the memory tag, or when the pointer tag is 0xff
(KASAN_TAG_KERNEL, "match all").  As a memory tag, 0xfe (KASAN_TAG_INVALID)
marks memory no allocation owns: in 6.1 (mm/kasan/kasan.h) freed slab
objects and slab redzones, free pages, kmalloc_large redzones and invalid
vmalloc space, and it is also the initial shadow (KASAN_SHADOW_INIT, in
include/linux/kasan.h), so shadow nothing has tagged reads 0xfe.  A memory
tag of 0xff is memory unpoisoned through an untagged (0xff) pointer.

Hardware tag-based KASAN (6.1's third mode, CONFIG_KASAN_HW_TAGS, arm64
MTE) keeps the same pointer tags (0xf0..0xfd, 0xfe, 0xff) but has no
shadow: the memory tag of a granule lives in MTE tag storage and the CPU
checks it (6.1 mm/kasan/hw_tags.c, arch/arm64/include/asm/mte-kasan.h).
"""

import os
import re
from typing import Dict, List, Optional, Sequence
from kasan import modes

MASK64 = (1 << 64) - 1
TAG_SHIFT = 56
TAG_KERNEL = 0xFF
TAG_INVALID = 0xFE

# Generic KASAN shadow values (mm/kasan/kasan.h, CONFIG_KASAN_GENERIC)
GENERIC_POISON = {
    0xFF: "freed page", 0xFE: "kmalloc_large redzone", 0xFC: "slab redzone",
    0xFB: "freed slab object", 0xFA: "freed object (free track)",
    0xF9: "global redzone", 0xF8: "vmalloc invalid", 0xF1: "stack left",
    0xF2: "stack mid", 0xF3: "stack right", 0xF4: "stack partial",
    0xCA: "alloca left", 0xCB: "alloca right",
}

ESR_EC_SHIFT = 26
ESR_EC_BRK64 = 0x3C
BRK_COMMENT_MASK = 0xFFFF   # ISS[15:0] of a BRK64 exception: the immediate


class KasanError(Exception):
    """A bad argument or state; printed as one line by the gdb commands."""


NO_SHADOW = ("hw-tags has no shadow memory: memory tags live in MTE tag storage, "
             "checked by the CPU (kasan-tag PTR shows what gdb can see)")


class Params:
    """What a kernel's KASAN looks like: mode, shadow offset, scale."""

    def __init__(self, mode: str, offset: int, shift: Optional[int] = None):
        if mode not in [m.name for m in modes.ALL]:
            raise KasanError("not a KASAN kernel (mode %r)" % mode)
        self.mode, self.offset = mode, offset & MASK64
        self.shift = shift if shift is not None else (3 if mode == "generic" else 4)

    @property
    def tagged(self) -> bool:
        """Pointers carry tags (sw-tags and hw-tags)."""
        return self.mode != "generic"

    @property
    def has_shadow(self) -> bool:
        return self.mode != modes.HW_TAGS.name

    @property
    def granule(self) -> int:
        return 1 << self.shift


def to_u64(v: int) -> int:
    return int(v) & MASK64


def tag_of(addr: int) -> int:
    return (to_u64(addr) >> TAG_SHIFT) & 0xFF


def set_tag(addr: int, tag: int) -> int:
    return (to_u64(addr) & ~(0xFF << TAG_SHIFT) & MASK64) | ((tag & 0xFF) << TAG_SHIFT)


def untag(addr: int) -> int:
    """kasan_reset_tag(): a kernel address with the native 0xff top byte.

    Kernel addresses are "sign-extended" (bits 63..48 all ones); a tag
    replaces bits 63..56, so resetting means writing 0xff back there."""
    return set_tag(addr, TAG_KERNEL)


def is_kernel_address(addr: int) -> bool:
    """Bits 55..48 are all ones for a (tagged or not) kernel address."""
    return (to_u64(addr) >> 48) & 0xFF == 0xFF


def mem_to_shadow(addr: int, p: Params) -> int:
    """kasan_mem_to_shadow() of include/linux/kasan.h, on the untagged address."""
    if not p.has_shadow:
        raise KasanError(NO_SHADOW)
    a = untag(addr) if p.mode == modes.SW_TAGS.name else to_u64(addr)
    return ((a >> p.shift) + p.offset) & MASK64


def access_passes(ptr_tag: int, mem_tag: int) -> bool:
    """The sw-tags check (kasan_check_range / __hwasan_check_*)."""
    return ptr_tag == TAG_KERNEL or ptr_tag == mem_tag


# A memory tag (shadow byte) of 0xfe or 0xff, as 6.1 writes it: 0xfe is
# every KASAN_*_FREE/REDZONE/INVALID value of the tag-based modes
# (mm/kasan/kasan.h) and the initial shadow of sw-tags (KASAN_SHADOW_INIT,
# include/linux/kasan.h); 0xff is what kasan_unpoison() writes for an
# untagged pointer (the shadow gets the pointer's tag).
FE_MEMORY = ("0xfe KASAN_TAG_INVALID: no allocation owns it (a freed object, a redzone, "
             "a free page, invalid vmalloc; sw-tags: also shadow never tagged)")
FF_MEMORY = ("0xff KASAN_TAG_KERNEL: unpoisoned through an untagged pointer "
             "(only a 0xff pointer passes)")


def describe_tag(t: int, memory: bool = True) -> str:
    """A memory tag (shadow byte) or, with memory=False, a pointer tag.

    Match-all is a property of the pointer tag: 6.1's kasan_check_range()
    returns early for a 0xff pointer and only then compares the shadow, so
    memory tagged 0xff passes only 0xff pointers."""
    if t == TAG_KERNEL:
        return (FF_MEMORY if memory else "0xff KASAN_TAG_KERNEL: match-all, never checked")
    if t == TAG_INVALID:
        return (FE_MEMORY if memory else
                "0xfe KASAN_TAG_INVALID: the allocator never gives a pointer this tag")
    return "0x%02x" % t


def parse_allocation_tag(out: str) -> Optional[int]:
    """The tag in gdb's `memory-tag print-allocation-tag` output
    ("$1 = 0xb"), as a KASAN tag (0xf0 | the 4-bit tag); None if absent."""
    m = re.search(r"=\s*(0x[0-9a-fA-F]+|\d+)\s*$", out.strip())
    if not m:
        return None
    return 0xF0 | (int(m.group(1), 0) & 0xF)


def hw_tag_lines(addr: int, mem: Optional[int]) -> List[str]:
    """kasan-tag's answer in hw-tags mode: the pointer side, and the
    memory tag only if it was really read (mem is None otherwise)."""
    pt = tag_of(addr)
    out = ["pointer:     0x%016x" % to_u64(addr), "mode:        hw_tags",
           "pointer tag: %02x  %s" % (pt, describe_tag(pt, memory=False)),
           "untagged:    0x%016x" % untag(addr),
           "granule:     0x%016x (16 bytes)" % (untag(addr) & ~15 & MASK64),
           "shadow:      none (hw-tags: the memory tag is in MTE tag storage)"]
    if pt != TAG_KERNEL and not 0xF0 <= pt <= 0xFE:
        out.append("note:        hw-tags pointers carry 0xf0..0xfe or 0xff; "
                   "%02x is not one of them" % pt)
    if mem is None:
        out.append("memory tag:  not readable here (gdb's memory-tag cannot reach tag "
                   "storage through this QEMU stub); the lab module prints it (LDG)")
        return out
    ok = access_passes(pt, mem)
    out += ["memory tag:  %02x  %s" % (mem, describe_tag(mem)),
            "access:      %s" % ("passes (pointer tag 0xff matches all)" if pt == TAG_KERNEL
                                 else "passes (tags equal)" if ok else
                                 "FAILS: the CPU raises a tag check fault %02x != %02x -> "
                                 "KASAN report" % (pt, mem))]
    return out


def describe_generic(v: int, offset_in_granule: int = 0) -> str:
    """What one generic shadow byte says about its 8-byte granule (6.1,
    mm/kasan/kasan.h): 0x00 all 8 bytes accessible, 0x01..0x07 only the
    first that many, a poison value (0xf1..0xff, 0xca, 0xcb) none."""
    if v == 0:
        return "all 8 bytes accessible"
    if 1 <= v <= 7:
        return "first %d bytes accessible%s" % (
            v, "" if offset_in_granule < v else " (this byte is not)")
    return "poisoned: %s (0x%02x)" % (GENERIC_POISON.get(v, "unknown"), v)


def shadow_rows(addr: int, shadow_bytes: Sequence[int], start: int, p: Params,
                per_row: int = 16) -> List[str]:
    """Format shadow like the report's "Memory state around the buggy address".

    start: memory address (untagged) of the granule shadow_bytes[0]
    describes; the row that contains addr is marked '>' and followed by a
    caret under its byte.  Returns a list of lines."""
    lines: List[str] = []
    target = untag(addr) if p.mode == modes.SW_TAGS.name else to_u64(addr)
    span = per_row * p.granule
    for i in range(0, len(shadow_bytes), per_row):
        row = shadow_bytes[i:i + per_row]
        row_addr = start + i * p.granule
        hit = row_addr <= target < row_addr + span
        lines.append("%s%016x: %s" % (">" if hit else " ", row_addr,
                                      " ".join("%02x" % b for b in row)))
        if hit:
            col = (target - row_addr) // p.granule
            lines.append(" " * (1 + 16 + 2 + 3 * col) + "^")
    return lines


def row_start(addr: int, p: Params, per_row: int = 16, rows_before: int = 2) -> int:
    """First granule shown: the row boundary rows_before rows above addr."""
    span = per_row * p.granule
    a = untag(addr) if p.mode == modes.SW_TAGS.name else to_u64(addr)
    return ((a // span) - rows_before) * span


def parse_config(text: str) -> Dict[str, str]:
    """{CONFIG_X: value} of a kernel .config."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"(CONFIG_\w+)=(.*)", line)
        if m:
            out[m.group(1)] = m.group(2).strip('"')
    return out


def params_from_config(cfg: Dict[str, str]) -> Params:
    on = [m for m in modes.ALL if cfg.get(m.config) == "y"]
    if on == [modes.HW_TAGS]:
        return Params(modes.HW_TAGS.name, 0)
    if on:
        mode = on[0].name
    else:
        raise KasanError("not a KASAN kernel: CONFIG_KASAN_SW_TAGS, CONFIG_KASAN_HW_TAGS "
                         "and CONFIG_KASAN_GENERIC are all off")
    try:
        off = int(cfg["CONFIG_KASAN_SHADOW_OFFSET"], 16)
    except (KeyError, ValueError):
        raise KasanError("no CONFIG_KASAN_SHADOW_OFFSET in the kernel config")
    return Params(mode, off)


def parse_defines(text: str, names: Sequence[str]) -> Dict[str, int]:
    """Numeric #defines from a header, e.g. KASAN_BRK_IMM from brk-imm.h."""
    out = {}
    for name in names:
        m = re.search(r"^#define\s+%s\s+(0x[0-9a-fA-F]+|\d+)\b" % name, text, re.M)
        if m:
            out[name] = int(m.group(1), 0)
    return out


# The values 6.1 defines (brk-imm.h, traps.c): used only to check that what
# was read from the tree is sane, and in offline tests.
ESR_CONSTANTS_6_1 = {"KASAN_BRK_IMM": 0x900, "KASAN_BRK_MASK": 0x0FF,
                     "KASAN_ESR_RECOVER": 0x20, "KASAN_ESR_WRITE": 0x10,
                     "KASAN_ESR_SIZE_MASK": 0x0F}


# Where the kernel tree defines them.
ESR_SOURCES = (("arch/arm64/include/asm/brk-imm.h", ("KASAN_BRK_IMM", "KASAN_BRK_MASK")),
               ("arch/arm64/kernel/traps.c", ("KASAN_ESR_RECOVER", "KASAN_ESR_WRITE",
                                              "KASAN_ESR_SIZE_MASK")))


def esr_constants_of_tree(src: str) -> Dict[str, int]:
    """KASAN_BRK_* and KASAN_ESR_* as the kernel tree at src defines them;
    KasanError naming what is missing."""
    consts: Dict[str, int] = {}
    for rel, names in ESR_SOURCES:
        try:
            with open(os.path.join(src, rel)) as f:
                consts.update(parse_defines(f.read(), names))
        except OSError:
            pass
    missing = set(ESR_CONSTANTS_6_1) - set(consts)
    if missing:
        raise KasanError("cannot find %s in the kernel source (%s)"
                         % (", ".join(sorted(missing)), src))
    return consts


def decode_esr(esr: int, c: Dict[str, int]) -> Dict[str, int]:
    """Decode the ESR_EL1 of a brk; c holds the KASAN_* constants.

    Returns a dict: ec, il, imm, is_brk, is_kasan, recover, write, size."""
    esr = to_u64(esr)
    if esr >> 32:
        raise KasanError("ESR 0x%x does not fit in 32 bits" % esr)
    ec = (esr >> ESR_EC_SHIFT) & 0x3F
    imm = esr & BRK_COMMENT_MASK
    d = {"esr": esr, "ec": ec, "il": (esr >> 25) & 1, "imm": imm,
         "is_brk": ec == ESR_EC_BRK64}
    d["is_kasan"] = d["is_brk"] and (imm & ~c["KASAN_BRK_MASK"]) == c["KASAN_BRK_IMM"]
    d["recover"] = bool(imm & c["KASAN_ESR_RECOVER"])
    d["write"] = bool(imm & c["KASAN_ESR_WRITE"])
    d["size"] = 1 << (imm & c["KASAN_ESR_SIZE_MASK"])
    return d


def format_esr(d: Dict[str, int], c: Dict[str, int]) -> List[str]:
    lines = ["ESR 0x%08x: EC 0x%02x (%s), IL %d, immediate 0x%03x" % (
        d["esr"], d["ec"], "BRK64, a brk instruction" if d["is_brk"] else "not a brk",
        d["il"], d["imm"])]
    if not d["is_kasan"]:
        lines.append("not a KASAN brk (KASAN uses brk #0x%x..#0x%x)" % (
            c["KASAN_BRK_IMM"], c["KASAN_BRK_IMM"] | c["KASAN_BRK_MASK"]))
        return lines
    lines.append("KASAN brk: 0x%03x = KASAN_BRK_IMM 0x%03x | %s%s size log2 %d" % (
        d["imm"], c["KASAN_BRK_IMM"],
        "RECOVER 0x%02x | " % c["KASAN_ESR_RECOVER"] if d["recover"] else "",
        "WRITE 0x%02x |" % c["KASAN_ESR_WRITE"] if d["write"] else "(read)",
        d["imm"] & c["KASAN_ESR_SIZE_MASK"]))
    lines.append("%s of %d byte(s); %s" % (
        "write" if d["write"] else "read", d["size"],
        "recoverable: kasan_handler reports, then pc += 4 and the kernel goes on"
        if d["recover"] else "not recoverable: kasan_handler reports and calls die()"))
    return lines
