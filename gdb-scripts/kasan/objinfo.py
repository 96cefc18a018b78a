# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-object's arithmetic, without gdb (tested offline).

Where an address lives in the slab allocator and what KASAN remembers
about its object, as 6.1 keeps it:

- the struct page of an address of the linear map: arm64's
  virt_to_page() without CONFIG_DEBUG_VIRTUAL (arch/arm64/include/asm/
  memory.h): VMEMMAP_START + (untagged - PAGE_OFFSET) / PAGE_SIZE pages;
  a slab's struct slab overlays its head page (mm/slab.h);
- the object: slab base + index * cache->size (SLUB, no left redzone);
- the tag modes' stack ring (mm/kasan/tags.c, save_stack_info()): the
  last allocations and frees, {ptr (tagged), size, pid, stack, is_free},
  searched from the newest as kasan_complete_mode_report_info()
  (mm/kasan/report_tags.c) does for a report: entries of this object with
  the pointer's tag, the first free and the first allocation;
- a stack depot handle (lib/stackdepot.c, union handle_parts): slab index,
  offset in 16-byte units, a valid bit; stack_slabs[index] + offset is a
  struct stack_record whose entries are the return addresses.
"""

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from kasan import tags

STACK_ALLOC_ALIGN = 4          # lib/stackdepot.c: records are 16-byte aligned
# lib/stackdepot.c in 6.1: 32-bit handles, 1 valid bit, 5 extra bits,
# offset bits STACK_ALLOC_ORDER (2) + PAGE_SHIFT - STACK_ALLOC_ALIGN
DEPOT_STACK_BITS = 32
DEPOT_EXTRA_BITS = 5
STACK_ALLOC_ORDER = 2


class Layout:
    """The linear map and vmemmap of an arm64 kernel (VA_BITS, PAGE_SHIFT)."""

    def __init__(self, va_bits: int, page_shift: int, page_struct: int):
        self.va_bits, self.page_shift, self.page_struct = va_bits, page_shift, page_struct
        self.page_offset = (-(1 << va_bits)) & tags.MASK64
        # VMEMMAP_SHIFT = PAGE_SHIFT - STRUCT_PAGE_MAX_SHIFT (order_base_2 of the size)
        shift = page_shift - max(0, (page_struct - 1).bit_length())
        self.vmemmap_start = (-(1 << (va_bits - shift))) & tags.MASK64

    def page_of(self, addr: int) -> int:
        a = tags.untag(addr)
        if a < self.page_offset:
            raise tags.KasanError("0x%016x is not in the linear map (below PAGE_OFFSET "
                                  "0x%016x)" % (addr, self.page_offset))
        return self.vmemmap_start + ((a - self.page_offset) >> self.page_shift) * \
            self.page_struct

    def page_address(self, page: int) -> int:
        return self.page_offset + (((page - self.vmemmap_start) // self.page_struct)
                                   << self.page_shift)


def layout_from_config(cfg: Dict[str, str], page_struct: int) -> Layout:
    try:
        va = int(cfg["CONFIG_ARM64_VA_BITS"])
    except (KeyError, ValueError):
        raise tags.KasanError("no CONFIG_ARM64_VA_BITS in the kernel config (arm64 only)")
    shift = int(cfg.get("CONFIG_ARM64_PAGE_SHIFT", "12"))
    return Layout(va, shift, page_struct)


def slot(addr: int, base: int, size: int) -> Tuple[int, int, int]:
    """(index, object start, offset in it) of addr in a slab at base."""
    a = tags.untag(addr)
    idx = (a - base) // size
    return idx, base + idx * size, a - base - idx * size


def state(mode: str, mem: Optional[int]) -> str:
    """Allocated or free, from the memory tag (or generic shadow byte) of
    the object's first granule."""
    if mem is None:
        return "unknown (hw-tags: the memory tag is in MTE tag storage)"
    if mode == "generic":
        if mem <= 7:
            return "allocated"
        return "free (shadow %02x: %s)" % (mem, tags.GENERIC_POISON.get(mem, "poisoned"))
    if mem == tags.TAG_INVALID:
        return "free (memory tag fe)"
    return "allocated (memory tag %02x)" % mem


Entry = Dict[str, Any]   # {index, ptr, size, pid, stack, is_free}


def ring_entries(raw: bytes, n: int, esize: int, off: Dict[str, int]) -> List[Entry]:
    """The stack ring's n entries from its memory (field offsets in off)."""
    out = []
    for i in range(n):
        b = raw[i * esize:(i + 1) * esize]

        def u(name: str, width: int) -> int:
            return int.from_bytes(b[off[name]:off[name] + width], "little")
        out.append({"index": i, "ptr": u("ptr", 8), "size": u("size", 8), "pid": u("pid", 4),
                    "stack": u("stack", 4), "is_free": bool(u("is_free", 1))})
    return out


def of_object(entries: Sequence[Entry], pos: int, obj: int) -> List[Entry]:
    """The entries of the object at obj (untagged), newest first."""
    n = len(entries)
    out = []
    for k in range(1, n + 1):
        e = entries[(pos - k) % n]
        if e["ptr"] and tags.untag(e["ptr"]) == tags.untag(obj):
            out.append(dict(e, age=k))
    return out


def report_tracks(entries: Sequence[Entry], pos: int, obj: int,
                  tag: int) -> Dict[str, Optional[Entry]]:
    """The alloc and free entries a 6.1 report of an access with pointer tag
    `tag` to the object at obj would print (report_tags.c)."""
    found: Dict[str, Optional[Entry]] = {"alloc": None, "free": None}
    for e in of_object(entries, pos, obj):
        if tags.tag_of(e["ptr"]) != tag:
            continue
        k = "free" if e["is_free"] else "alloc"
        if found[k] is not None:
            break           # a second free (or allocation): 6.1 gives up
        found[k] = e
        if found["alloc"] and found["free"]:
            break
    return found


def handle_parts(handle: int, page_shift: int = 12) -> Tuple[int, int, bool]:
    """(slab index, byte offset, valid) of a stack depot handle."""
    off_bits = STACK_ALLOC_ORDER + page_shift - STACK_ALLOC_ALIGN
    idx_bits = DEPOT_STACK_BITS - 1 - off_bits - DEPOT_EXTRA_BITS
    idx = handle & ((1 << idx_bits) - 1)
    off = (handle >> idx_bits) & ((1 << off_bits) - 1)
    valid = bool((handle >> (idx_bits + off_bits)) & 1)
    return idx, off << STACK_ALLOC_ALIGN, valid


def frame_text(name: Optional[str], off: int, size: Optional[int],
               module: Optional[str]) -> str:
    """A frame as a report prints it (%pS): name+0xoff/0xsize [module]."""
    if not name:
        return "0x%x" % off
    return "%s+0x%x%s%s" % (name, off, "/0x%x" % size if size else "",
                            " [%s]" % module if module else "")


def same_stack(mine: Sequence[str], printed: Sequence[str]) -> bool:
    """The same frames, function and offset (gdb does not know the sizes);
    an empty stack is never the same as another."""
    def key(f: str) -> str:
        return f.split("/")[0].split(" ")[0]
    return bool(mine) and [key(f) for f in mine] == [key(f) for f in printed]


def printed_stacks(lines: Sequence[str]) -> Dict[str, List[str]]:
    """kasan-object's stacks, from its output: {"alloc": [...], "free": [...]}."""
    out: Dict[str, List[str]] = {}
    cur: Optional[List[str]] = None
    for ln in lines:
        m = re.match(r"^(Allocated|Freed) by task \d+:$", ln)
        if m:
            cur = out.setdefault("alloc" if m.group(1) == "Allocated" else "free", [])
        elif cur is not None and ln.startswith(" ") and ln.strip():
            cur.append(ln.strip())
        else:
            cur = None
    return out
