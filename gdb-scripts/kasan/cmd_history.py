# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb commands that run a replay backwards: kasan-history and kasan-why.

Both need a recording (make record, make replay, make gdb).  kasan-history
walks back through the writes to an address's memory tag; kasan-why goes
from a KASAN report to its causes -- the access, the pointer's way back
to its allocation, the memory's life -- in one timeline.  The moving is
gdbreplay.py's; what is decided from what gdb saw is history.py's, why.py's
and whyevents.py's, tested without gdb.  This module reads the state a
command starts from and prints.
"""

import json

import gdb

from kasan import gdbreplay, history, modes, objinfo, tags, why, whyevents
from kasan.gdbobjects import depot_pcs, locate_object, stack_ring, symbolize
from kasan.gdbreplay import (frame_regs, outer_location, paused_breakpoints, pc_location,
                             replay_icount, rewind_to, seek, tag_writes)
from kasan.gdbutils import (KasanCommand, check_kernel_address, disassemble, kasan_params,
                            read_bytes, value_to_int)


class KasanHistory(KasanCommand):
    """Go back through every write to an address's memory tag: kasan-history ADDR

Only in a replay (make record, then make replay and make gdb): gdb can run
the recorded kernel backwards.  This puts a watchpoint on ADDR's shadow
byte -- its memory tag in sw-tags, its shadow value in generic KASAN --
and reverse-continues.  Each stop is a write to that byte: it prints the
value written, the function and source line that wrote it (the caller of
__memset, usually 6.1's kasan_poison() in mm/kasan/shadow.c), and the chain
of callers that asked for it, up to the lab module's function, e.g.
    kasan_poison <- ____kasan_slab_free <- ... <- kfree <- lab_uaf
It stops at the allocation that gave the pointer its tag (sw-tags: the
write of ADDR's own tag by an allocation path), at the creation of the
slab the granule belongs to, after a few writes, or at the start of the
recording; then it runs forward to the instruction it started from, so
you are where you were.  gdb announces each stop as a SIGTRAP: QEMU
reports a reverse watchpoint without naming it.  Your breakpoints are disabled
while it runs, and enabled again after.  A KASAN report shows what KASAN
saved (the allocation and free stacks); this shows the moments the tag
changed.  hw-tags keeps its tags in MTE tag storage, which gdb cannot
watch through QEMU: there it says so."""

    name = "kasan-history"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def run(self, arg):
        addr = value_to_int(arg, self.name)
        check_kernel_address(addr)
        p = kasan_params()
        if not p.has_shadow:
            raise tags.KasanError(history.NO_SHADOW)
        start = replay_icount()
        if start is None:
            raise tags.KasanError(history.NOT_A_REPLAY)
        shadow = tags.mem_to_shadow(addr, p)
        ptr_tag = tags.tag_of(addr) if p.mode == modes.SW_TAGS.name else None
        gdb.write(history.header(addr, shadow, read_bytes(shadow, 1)[0], ptr_tag, start) + "\n")
        with paused_breakpoints(start):
            writes, found, reason = tag_writes(addr, p, echo=True)
            gdb.write(history.verdict(found, len(writes), ptr_tag, reason) + "\n")
        gdb.write(history.back_at(replay_icount(), start) + "\n")


# -- kasan-why: where it starts, the access, the memory's life ---------------

def report_site():
    """(addr, ip, size) of the kasan_report frame, or None."""
    f = gdb.newest_frame()
    while f is not None:
        if f.name() in why.REPORT_FUNCS:
            try:
                return (tags.to_u64(int(f.read_var("addr"))),
                        tags.to_u64(int(f.read_var("ip"))), int(f.read_var("size")))
            except (gdb.error, ValueError):
                return None
        f = f.older()
    return None


def starting_point(site, mode):
    """(addr, ip, pc to go back to, register of the address): from the
    report's ip when stopped in kasan_report, else the access gdb is at."""
    if site is not None:
        addr, ip, _size = site
        return (addr, ip) + whyevents.report_access(mode, ip, disassemble)
    ip = int(gdb.selected_frame().pc())
    insn = whyevents.stopped_access(disassemble(ip))
    return why.address(insn["mem"], frame_regs()) or 0, ip, ip, insn["mem"]["base"]


def the_access(p, result, ip, back_to, reg, in_report, events):
    """Back to the bad access itself, unless gdb is stopped at it: its
    event (and, hw-tags, the offset the access adds to its register); the
    pointer and both tags into `result`; the instruction count there."""
    fault = back_to == ip and in_report
    at = result["start"] if back_to == int(gdb.selected_frame().pc()) and not in_report \
        else rewind_to(back_to, fault=fault)
    if at is None:
        raise tags.KasanError("could not go back to the access at 0x%x" % back_to)
    f = gdb.selected_frame()
    value = tags.to_u64(int(f.read_register(reg)))
    fn, where = outer_location(f)
    if fault and int(f.pc()) != back_to:
        fn, where = pc_location(back_to)
    acc = whyevents.first_access(disassemble, ip)
    ptr_tag = tags.tag_of(value) if p.tagged else None
    mem_tag = None
    if p.mode == modes.SW_TAGS.name:
        mem_tag = read_bytes(tags.mem_to_shadow(result["addr"], p), 1)[0]
    events.append(whyevents.access_event(at, fn, where, acc["asm"] if acc else
                                         disassemble(back_to), value, reg, ptr_tag, mem_tag))
    result.update(reg=reg, pointer=value, pointer_tag=ptr_tag, memory_tag=mem_tag)
    moff = whyevents.added_offset(acc, reg)
    if fault and moff:
        events.append(whyevents.added_offset_event(at, fn, where, moff, reg))
    return at


def the_causes(p, result, back_to, at, events, notes):
    """From the access back: the pointer's origin, then the memory's life
    (its tag writes, or in hw-tags the stack ring's allocation and free)."""
    try:
        whyevents.origin_chain(result["reg"], result["pointer"], back_to, at, events, notes,
                               gdbreplay)
    except tags.KasanError as e:
        notes.append("the chain breaks: %s" % e)
    if p.has_shadow:
        seek(result["start"])
        memory_life(result["addr"], p, result["pointer_tag"], events, notes)
    else:
        notes.append(why.HW_TAGS)
        if p.tagged and result["pointer_tag"] is not None:
            seek(result["start"])     # the ring as the report saw it
            ring_life(result["addr"], result["pointer_tag"], events, notes)


def memory_life(addr, p, ptr_tag, events, notes):
    """The writes to the granule's tag, as kasan-history walks them."""
    writes, found, reason = tag_writes(addr, p)
    life, note = whyevents.life_events(writes, p.mode, ptr_tag, found, reason)
    events.extend(life)
    notes.append(note)


def ring_life(addr, ptr_tag, events, notes):
    """hw-tags: the allocation and free the stack ring keeps for the
    object with the pointer's tag (a report's), as events without an
    instruction count, placed at the lab module's line of each stack."""
    try:
        o = locate_object(addr)
        entries, pos, _ = stack_ring()
    except (tags.KasanError, gdb.error) as e:
        notes.append("no stack ring records: %s" % e)
        return
    tr = objinfo.report_tracks(entries, pos, o["start"], ptr_tag)
    for k, kind in (("alloc", "tag"), ("free", "free")):
        e = tr[k]
        if e is None:
            continue
        pcs = depot_pcs(e["stack"], o["layout"].page_shift)
        names = [symbolize(pc) for pc in pcs]
        i = whyevents.lab_index(names)
        if i is None:
            continue
        sal = gdb.find_pc_line(pcs[i] - 4)
        where = "%s:%d" % (history.tree_path(sal.symtab.filename), sal.line) \
            if sal.symtab is not None else "??"
        events.append(whyevents.ring_event(kind, names, i, where, ptr_tag))


class KasanWhy(KasanCommand):
    """From a KASAN report to its causes, in one timeline: kasan-why [--json]

Only in a replay (make record, make replay, make gdb), stopped in
kasan_report (break kasan_report, continue) or at the faulting access.
It goes back to the bad access itself (the instruction, the register
that held the address, the pointer's and the memory's tags), then follows
the pointer back, one hop at a time: the instruction that put the value
in that register -- a load, whose memory it watches backwards to the
store that wrote the value there, a copy or an addition from another
register, the return value of an allocator (the end), or an argument
from the caller -- up to 6 hops (why.MAX_HOPS).  Where the chain breaks (a value
computed in registers, a copy by memcpy), it says so.  Then the memory's
life, as kasan-history walks it: the allocation that gave the granule the
pointer's tag, the free, a reallocation, kmalloc's redzone past the size
it was asked for.  It prints the events oldest
first, each with its instruction count, function and line, and a verdict
in one line; --json prints the same as JSON.  It ends at the instruction
where it started.  Forward stepping is how it traces a function (QEMU
replays forward quickly, backward slowly): it goes back once to the
function's entry and steps forward with nexti.  hw-tags: the origin of
the pointer the same way, but no memory tag history (MTE tag storage
cannot be watched through QEMU's stub): the allocation and the free are
the stack ring's, without instruction counts."""

    name = "kasan-why"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA)

    def run(self, arg):
        argv = gdb.string_to_argv(arg)
        if [a for a in argv if a != "--json"]:
            raise tags.KasanError("usage: kasan-why [--json]")
        start = replay_icount()
        if start is None:
            raise tags.KasanError(why.NOT_A_REPLAY)
        p = kasan_params()
        site = report_site()
        addr, ip, back_to, reg = starting_point(site, p.mode)
        events, notes = [], []
        result = {"addr": addr, "start": start, "mode": p.mode}
        with paused_breakpoints(start, quiet_stops=True):
            at = the_access(p, result, ip, back_to, reg, site is not None, events)
            the_causes(p, result, back_to, at, events, notes)
        back = replay_icount()
        line = why.verdict(events, result["pointer_tag"], result["memory_tag"])
        result.update(events=why.timeline(events), notes=notes, verdict=line, back=back)
        if "--json" in argv:
            gdb.write(json.dumps(result, indent=1, default=str) + "\n")
            return
        gdb.write("\n".join(whyevents.report_lines(addr, start, events, notes, line, back))
                  + "\n")


KasanHistory()
KasanWhy()
