# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A slab object and what KASAN kept of it, read from the kernel with gdb.

From an address to its struct page and slab (6.1 mm/slab.h) and cache
(`locate_object`); the tag modes' stack ring (mm/kasan/tags.c,
`stack_ring`); a stack depot handle's return addresses (lib/stackdepot.c,
`depot_pcs`), printed as a report prints them (`symbolize`).  The
arithmetic -- the page of an address, the slot, a handle's parts, which
ring entries a report prints -- is objinfo.py's, tested without gdb.
kasan-object prints these; kasan-why reads the stack ring in hw-tags.
"""

import os
import re

import gdb

from kasan import objinfo, tags
from kasan.gdbutils import kernel_config, read_bytes


def symbolize(pc):
    """A return address as a report prints it, without the function's size
    (gdb does not know an ELF symbol's): name+0xoff [module]."""
    try:
        out = gdb.execute("info symbol 0x%x" % pc, to_string=True).strip()
    except gdb.error:
        return "0x%x" % pc
    m = re.match(r"^(\S+)(?: \+ (\d+))? in section \S+(?: of (\S+))?", out)
    if not m:
        return "0x%x" % pc
    name, off, objfile = m.group(1), int(m.group(2) or 0), m.group(3)
    module = os.path.basename(objfile)[:-3] if objfile and objfile.endswith(".ko") else None
    return objinfo.frame_text(name, off, None, module)


def depot_stack(handle, page_shift):
    """The return addresses of a stack depot handle, symbolized."""
    return [symbolize(pc) for pc in depot_pcs(handle, page_shift)]


def depot_pcs(handle, page_shift):
    """The return addresses of a stack depot handle (lib/stackdepot.c)."""
    if not handle:
        return []
    idx, off, valid = objinfo.handle_parts(handle, page_shift)
    if not valid:
        return []
    slab = int(gdb.parse_and_eval("stack_slabs[%d]" % idx).cast(gdb.lookup_type("unsigned long")))
    if not slab:
        return []
    rec = gdb.Value(slab + off).cast(gdb.lookup_type("struct stack_record").pointer())
    n = int(rec["size"])
    base = slab + off + gdb.lookup_type("struct stack_record").sizeof
    raw = read_bytes(base, 8 * min(n, 64))
    return [int.from_bytes(raw[8 * i:8 * i + 8], "little") for i in range(min(n, 64))]


def locate_object(addr):
    """The slab object addr is in: {cache, start, size, object_size, index,
    base, offset, mem (its first granule's memory tag or shadow, None in
    hw-tags), params, layout}; KasanError where it is not in a slab."""
    cfg = kernel_config()
    p = tags.params_from_config(cfg)
    page_t = gdb.lookup_type("struct page")
    lay = objinfo.layout_from_config(cfg, page_t.sizeof)
    page = lay.page_of(addr)
    pv = gdb.Value(page).cast(page_t.pointer()).dereference()
    try:
        head = int(pv["compound_head"])
    except gdb.error:
        raise tags.KasanError("cannot read the struct page of 0x%016x" % addr)
    if head & 1:
        page = head - 1
        pv = gdb.Value(page).cast(page_t.pointer()).dereference()
    flags = int(pv["flags"])
    pg_slab = int(gdb.parse_and_eval("PG_slab"))
    if not flags & (1 << pg_slab):
        raise tags.KasanError("0x%016x is not in a slab (its page's flags 0x%x lack "
                              "PG_slab)" % (addr, flags))
    slab = gdb.Value(page).cast(gdb.lookup_type("struct slab").pointer()).dereference()
    cache = slab["slab_cache"].dereference()
    size = int(cache["size"])
    base = lay.page_address(page)
    idx, start, off = objinfo.slot(addr, base, size)
    mem = read_bytes(tags.mem_to_shadow(start, p), 1)[0] if p.has_shadow else None
    return {"cache": cache["name"].string(), "cache_value": cache, "start": start,
            "size": size, "object_size": int(cache["object_size"]), "index": idx,
            "base": base, "offset": off, "mem": mem, "params": p, "layout": lay}


def stack_ring():
    """(entries, pos, size) of the tag modes' stack ring (mm/kasan/tags.c)."""
    ring = gdb.parse_and_eval("stack_ring")
    n, pos = int(ring["size"]), int(ring["pos"]["counter"])
    et = gdb.lookup_type("struct kasan_stack_ring_entry")
    offs = {f.name: f.bitpos // 8 for f in et.fields()}
    raw = read_bytes(int(ring["entries"]), n * et.sizeof)
    return objinfo.ring_entries(raw, n, et.sizeof, offs), pos, n
