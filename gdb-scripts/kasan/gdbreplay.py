# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Moving through a replay with gdb: kasan-history's and kasan-why's legs.

In a replay (make record, make replay, make gdb) QEMU's stub runs the
recorded kernel backwards as well as forwards, and numbers its
instructions (`monitor info replay`).  This module does the moving:

- run forward to an instruction count (`seek`), with the user's
  breakpoints out of the way (`paused_breakpoints`);
- back through the writes to an address's shadow byte, with a watchpoint
  on it (`tag_writes`, kasan-history's walk);
- back to a pc (`rewind_to`), back to a function's entry and forward
  with nexti to a pc (`trace`), back to the last store to 8 bytes of
  memory through a watchpoint on the tagged address (`last_store`,
  RawWatch);
- where a frame or a pc is in the source (`outer_location`,
  `pc_location`, `where_of`).

What it sees is read by history.py, why.py and whyevents.py, which need
no gdb.  The module's `trace`, `where_of` and `last_store` are the moves
whyevents.origin_chain asks for.
"""

import contextlib

import gdb

from kasan import history, modes, tags, why, whyevents
from kasan.gdbutils import disassemble, frame_list, read_bytes


def replay_icount():
    """The replay's instruction count (`monitor info replay`), or None outside a replay."""
    try:
        out = gdb.execute("monitor info replay", to_string=True)
    except gdb.error:
        return None
    return history.replay_icount(out)


@contextlib.contextmanager
def paused_breakpoints(start, quiet_stops=False):
    """The user's breakpoints disabled while a command runs the replay
    back and forth; then forward to instruction `start` and enabled again."""
    enabled = [b for b in gdb.breakpoints() if b.enabled]
    for b in enabled:
        b.enabled = False
    quiet = gdb.parameter("suppress-cli-notifications") if quiet_stops else None
    if quiet_stops:
        # kasan-why stops hundreds of times (nexti): not one line each
        gdb.execute("set suppress-cli-notifications on", to_string=True)
    try:
        yield
    finally:
        seek(start)
        for b in enabled:
            b.enabled = True
        if quiet_stops:
            gdb.execute("set suppress-cli-notifications %s" % ("on" if quiet else "off"),
                        to_string=True)


def seek(icount):
    """Run the replay forward to instruction `icount` (QEMU's replay_break)."""
    now = replay_icount()
    if now == icount:
        return
    gdb.execute("monitor replay_break %d" % icount, to_string=True)
    gdb.execute("continue", to_string=True)


def tag_writes(addr, p, echo=False, max_writes=history.MAX_WRITES):
    """Back through the writes to addr's shadow byte from here (kasan-history):
    ([(n, value, frames, icount)], found the allocation, why it stopped).
    Leaves the replay at the last write found."""
    shadow = tags.mem_to_shadow(addr, p)
    ptr_tag = tags.tag_of(addr) if p.mode == modes.SW_TAGS.name else None
    wp = gdb.Breakpoint("*(unsigned char *)0x%x" % shadow, gdb.BP_WATCHPOINT,
                        gdb.WP_WRITE, internal=True)
    out, found, reason = [], False, "the limit of %d writes" % max_writes
    last = replay_icount()
    try:
        while len(out) < max_writes:
            gdb.execute("reverse-continue", to_string=True)
            now = replay_icount()
            if now is None or last is None or now >= last:
                reason = "no earlier write in the recording"
                break
            try:
                value = read_bytes(shadow, 1)[0]
            except tags.KasanError:
                reason = "the start of the recording (no shadow mapped yet)"
                break
            last = now
            fr = frame_list()
            out.append((len(out) + 1, value, fr, now))
            if echo:
                gdb.write("\n".join(history.format_write(len(out), value, fr, now)) + "\n")
            why = history.stops_here(fr, value, ptr_tag)
            if why == "found":
                found = True
            if why:
                reason = why
                break
    finally:
        wp.delete()
    return out, found, reason


def outer_location(frame):
    """(function, file:line) of the real (not inlined) function at frame:
    for code inlined into it, the line of the call that was inlined."""
    f = frame
    while f is not None and f.type() == gdb.INLINE_FRAME and f.older() is not None:
        f = f.older()
    sal = f.find_sal()
    path = history.tree_path(sal.symtab.filename if sal.symtab else "")
    return f.name() or "??", "%s:%d" % (path, sal.line or 0) if path else "??"


def pc_location(pc):
    """(function, file:line) of pc from the debug info alone (no frame)."""
    sal = gdb.find_pc_line(pc)
    path = history.tree_path(sal.symtab.filename if sal.symtab else "")
    try:
        blk = gdb.block_for_pc(pc)
    except RuntimeError:
        blk = None
    name = None
    while blk is not None:
        if blk.function is not None:
            name = blk.function.name
        blk = blk.superblock
    return name or "??", "%s:%d" % (path, sal.line) if path else "??"


def function_start(pc):
    """The start of the function around pc (its outermost block), or None."""
    try:
        blk = gdb.block_for_pc(pc)
    except RuntimeError:
        blk = None
    start = None
    while blk is not None:
        if blk.function is not None:
            start = blk.start
        blk = blk.superblock
    return start


REGS = ["x%d" % i for i in range(31)] + ["sp"]


class RawWatch:
    """A write watchpoint on the address as the program uses it, tag
    included.  QEMU compares a watchpoint with the virtual address of the
    access, top byte and all; gdb drops an aarch64 address's top byte
    before it asks the stub (its significant address bits), so a store
    through a tagged pointer never hits a gdb watchpoint.  This one is a
    Z2 packet sent as is; its stops are SIGTRAPs gdb does not name."""

    def __init__(self, addr, length):
        self.spec = "%x,%x" % (addr, length)
        self.gdb_wp = None
        out = gdb.execute("maint packet Z2,%s" % self.spec, to_string=True)
        if "OK" not in out:
            self.spec = None
            self.gdb_wp = gdb.Breakpoint("*(unsigned long *)0x%x" % addr,
                                         gdb.BP_WATCHPOINT, gdb.WP_WRITE, internal=True)

    def delete(self):
        if self.spec:
            gdb.execute("maint packet z2,%s" % self.spec, to_string=True)
        if self.gdb_wp is not None:
            self.gdb_wp.delete()


def frame_regs(frame=None):
    """{x0..x30, sp: value} of `frame` (default: the selected one)."""
    f = frame or gdb.selected_frame()
    return {r: tags.to_u64(int(f.read_register(r))) for r in REGS}


def rewind_to(pc, before=None, fault=False):
    """reverse-continue to a stop at pc (at an instruction count below
    `before` if given); the icount there, or None.  fault: pc is an
    access that faulted (hw-tags), and QEMU may report the stop after
    the exception was taken, at the vector: the general registers are
    still the access's, so any earlier stop will do."""
    bp = gdb.Breakpoint("*0x%x" % pc, internal=True)
    stuck = 0
    try:
        for _ in range(50):
            last = replay_icount()
            gdb.execute("reverse-continue", to_string=True)
            now = replay_icount()
            if now is None or last is None:
                return None
            if now >= last:
                # QEMU (hw-tags) sometimes reports a stop where it is: again
                stuck += 1
                if stuck == 3:
                    return None
                continue
            if (fault or int(gdb.selected_frame().pc()) == pc) and \
                    (before is None or now < before):
                return now
        return None
    finally:
        bp.delete()


def trace(target_pc, target_icount):
    """Go back to the entry of the function that runs target_pc at
    target_icount and step forward (nexti) to it: the steps, and what
    was known at the entry (caller, icount)."""
    start = function_start(target_pc)
    if start is None:
        raise tags.KasanError("no function around 0x%x (no debug info)" % target_pc)
    at = rewind_to(start, before=target_icount + 1)
    if at is None:
        raise tags.KasanError("could not go back to the entry of the function at 0x%x"
                              % target_pc)
    caller = gdb.selected_frame().older()
    entry = {"icount": at, "fn": outer_location(gdb.selected_frame())[0],
             "caller": outer_location(caller) if caller else None,
             "caller_pc": int(caller.pc()) - 4 if caller else None}
    steps, now = [], at
    for _ in range(why.MAX_STEPS):
        f = gdb.selected_frame()
        pc = int(f.pc())
        asm = disassemble(pc)
        kind = why.parse(asm)["kind"]
        step = {"pc": pc, "asm": asm, "regs": frame_regs(f)}
        if kind != "other" or pc == target_pc:
            now = replay_icount()
            step["icount"] = now
            step["fn"], step["where"] = outer_location(f)
        steps.append(step)
        if pc == target_pc and now is not None and now >= target_icount - 1:
            return steps, entry
        if now is not None and now > target_icount:
            break
        gdb.execute("nexti", to_string=True)
        if int(gdb.selected_frame().pc()) == pc and kind != "call":
            break
    raise tags.KasanError("lost the way from the entry of %s to 0x%x" % (
        entry["fn"], target_pc))


def where_of(step):
    """(function, file:line) of a traced step: its own, or its pc's (the
    innermost block that is a function's: a lexical block, as the body of
    an `if` that declares a variable, has none of its own)."""
    if "where" in step:
        return step["fn"], step["where"]
    sal = gdb.find_pc_line(step["pc"])
    path = history.tree_path(sal.symtab.filename if sal.symtab else "")
    blk = gdb.block_for_pc(step["pc"])
    while blk is not None and blk.function is None:
        blk = blk.superblock
    return (blk.function if blk is not None else "??").__str__(), \
        "%s:%d" % (path, sal.line) if path else "??"


def last_store(maddr, before):
    """The last write to the 8 bytes at maddr before instruction `before`,
    as a store event (whyevents.store_event), or None."""
    wp = RawWatch(maddr, 8)
    try:
        for _ in range(20):
            last = replay_icount()
            gdb.execute("reverse-continue", to_string=True)
            now = replay_icount()
            if now is None or last is None or now >= last:
                return None
            if before is None or now <= before:
                break
        else:
            return None
    finally:
        wp.delete()
    f = gdb.selected_frame()
    frames = frame_list(f)
    pc = int(f.pc())
    if not tags.is_kernel_address(pc):
        return None     # the start of the recording: no store found
    for cand in (pc - 4, pc):
        try:
            asm = disassemble(cand)
        except gdb.error:
            return None
        insn = why.parse(asm)
        if insn["kind"] == "store":
            break
    fn, where = outer_location(f)
    # the stop is after the store: its own line is that of its pc
    sal = gdb.find_pc_line(cand)
    if sal.symtab is not None and sal.line:
        where = "%s:%d" % (history.tree_path(sal.symtab.filename), sal.line)
    value = int.from_bytes(read_bytes(tags.untag(maddr), 8), "little")
    regs = frame_regs(f) if insn["kind"] == "store" else {}
    return whyevents.store_event(now, fn, where, cand, asm, insn, regs, maddr, value, frames)
