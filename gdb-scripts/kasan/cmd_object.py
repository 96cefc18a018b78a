# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb command for the slab object an address is in: kasan-object ADDR.

It prints the object and the allocation and free stacks KASAN kept for
it, as a report would print them; the reading of the kernel's structures
is gdbobjects.py's, the arithmetic objinfo.py's.
"""

import gdb

from kasan import objinfo, tags
from kasan.gdbobjects import depot_stack, locate_object, stack_ring
from kasan.gdbutils import KasanCommand, check_kernel_address, value_to_int


class KasanObject(KasanCommand):
    """The slab object an address is in, and KASAN's stacks for it: kasan-object ADDR

Live or in a replay.  From ADDR's struct page (arm64's virt_to_page) to
its slab (struct slab, 6.1 mm/slab.h) and cache: the cache's name, the
object's start, its size and the slot's, ADDR's offset in it, and whether
it is allocated or free (the memory tag, or generic shadow, of its first
granule).  Then what KASAN kept of its allocation and free:
  tag-based modes: the stack ring (mm/kasan/tags.c), every entry of this
  object, newest first, with its tag, and the two a report of an access
  with ADDR's pointer tag prints (kasan_complete_mode_report_info());
  generic: the object's alloc and free metadata (mm/kasan/generic.c).
Each stack is read through the stack depot (lib/stackdepot.c) and printed
as a report prints it, so the two can be compared line by line."""

    name = "kasan-object"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def run(self, arg):
        addr = value_to_int(arg, self.name)
        check_kernel_address(addr)
        o = locate_object(addr)
        p, lay = o["params"], o["layout"]
        out = ["kasan-object 0x%016x: cache %s, object 0x%016x (object size %d, slot %d, "
               "index %d in the slab at 0x%016x), offset %d%s; %s" % (
                   addr, o["cache"], o["start"], o["object_size"], o["size"], o["index"],
                   o["base"], o["offset"],
                   " (past the object)" if o["offset"] >= o["object_size"] else "",
                   objinfo.state(p.mode, o["mem"]))]
        if p.tagged:
            out += self.ring(addr, o["start"], lay)
        else:
            out += self.generic(o["start"], o["cache_value"], o["mem"], lay)
        gdb.write("\n".join(out) + "\n")

    def ring(self, addr, start, lay):
        entries, pos, n = stack_ring()
        mine = objinfo.of_object(entries, pos, start)
        out = ["stack ring (mm/kasan/tags.c, %d entries): %d of this object, newest first:"
               % (n, len(mine))]
        for e in mine[:8]:
            out.append("  %-5s tag %02x  pid %d  (record -%d)" % (
                "free" if e["is_free"] else "alloc", tags.tag_of(e["ptr"]), e["pid"], e["age"]))
        tag = tags.tag_of(addr)
        tr = objinfo.report_tracks(entries, pos, start, tag)
        out.append("what a report of pointer tag %02x prints (report_tags.c):" % tag)
        for k, title in (("alloc", "Allocated"), ("free", "Freed")):
            e = tr[k]
            if e is None:
                out.append("%s: no entry with tag %02x" % (title, tag))
                continue
            out.append("%s by task %d:" % (title, e["pid"]))
            out += [" " + f for f in depot_stack(e["stack"], lay.page_shift)]
        return out

    def generic(self, start, cache, mem, lay):
        info = cache["kasan_info"]
        out = []
        ao = int(info["alloc_meta_offset"])
        if ao:
            meta = gdb.Value(start + ao).cast(
                gdb.lookup_type("struct kasan_alloc_meta").pointer()).dereference()
            t = meta["alloc_track"]
            out.append("Allocated by task %d:" % int(t["pid"]))
            out += [" " + f for f in depot_stack(int(t["stack"]), lay.page_shift)]
        fo = int(info["free_meta_offset"])
        if mem == 0xFA:     # KASAN_SLAB_FREETRACK: the free meta is valid
            meta = gdb.Value(start + fo).cast(
                gdb.lookup_type("struct kasan_free_meta").pointer()).dereference()
            t = meta["free_track"]
            out.append("Freed by task %d:" % int(t["pid"]))
            out += [" " + f for f in depot_stack(int(t["stack"]), lay.page_shift)]
        return out


KasanObject()
