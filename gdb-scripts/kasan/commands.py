# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb commands for KASAN tags, shadow memory, the brk ESR and reports.

Loaded by gdb-scripts/kasan.py next to the kernel's own vmlinux-gdb.py
(lx-* commands).  One gdb.Command or gdb.Function per concept, in the style
of the tree's scripts/gdb/linux/*.py; the arithmetic lives in tags.py and
report.py, which need no gdb.
"""

import contextlib
import os
import re

import gdb

from kasan import history, modes, objinfo, report, tags, why


def _kernel_dir():
    prog = gdb.current_progspace().filename
    if not prog:
        raise tags.KasanError("no vmlinux loaded (start gdb with the kernel's vmlinux)")
    return os.path.dirname(os.path.realpath(prog))


def kernel_config():
    """The .config of the kernel being debugged, as {CONFIG_X: value}."""
    path = os.path.join(_kernel_dir(), ".config")
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
    return tags.esr_constants_of_tree(os.path.join(_kernel_dir(), "source"))


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


def replay_icount():
    """The replay's instruction count (`monitor info replay`), or None outside a replay."""
    try:
        out = gdb.execute("monitor info replay", to_string=True)
    except gdb.error:
        return None
    return history.replay_icount(out)


def frame_list(frame=None, limit=40):
    """[(function, tree path, line)] from `frame` (the newest) outwards."""
    out, f = [], frame or gdb.newest_frame()
    while f is not None and len(out) < limit:
        sal = f.find_sal()
        out.append((f.name() or "??", history.tree_path(
            sal.symtab.filename if sal.symtab else ""), sal.line or 0))
        f = f.older()
    return out


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


class KasanCommand(gdb.Command):
    """Base: turn expected errors into one-line gdb errors, no traceback."""

    def invoke(self, arg, from_tty):
        try:
            self.run(arg)
        except (tags.KasanError, report.ReportError, gdb.error) as e:
            raise gdb.GdbError("%s: %s" % (self.name, e))


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


class KasanEsr(KasanCommand):
    """Decode the ESR of a KASAN brk: kasan-esr [ESR]

With inline instrumentation (and hwasan-inline-all-checks=1) clang emits
`brk #0x9xx` after a failed tag check.  The immediate encodes the access:
0x900 KASAN_BRK_IMM | 0x20 recoverable | 0x10 write | log2(size) in the low
4 bits.  The constants are read from the kernel tree (brk-imm.h, traps.c).
Without an argument, the `esr` variable of the current frame is used (as
in kasan_handler(regs, esr))."""

    name = "kasan-esr"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def run(self, arg):
        c = esr_constants()
        if arg.strip():
            esr = value_to_int(arg, self.name)
        else:
            try:
                esr = tags.to_u64(int(gdb.parse_and_eval("esr")))
            except gdb.error:
                raise tags.KasanError("no `esr` in this frame; give ESR or break in "
                                      "kasan_handler")
        d = tags.decode_esr(esr, c)
        gdb.write("\n".join(tags.format_esr(d, c)) + "\n")


class KasanReport(KasanCommand):
    """Decode the last KASAN report in the kernel log: kasan-report [all]

Reads the log buffer with the kernel's own lx-dmesg and decodes the last
report (or every report with `all`): bug type, access, address, pointer
and memory tag, object, cache and offset, who allocated and freed it."""

    name = "kasan-report"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_DATA)

    def run(self, arg):
        try:
            text = gdb.execute("lx-dmesg", to_string=True)
        except gdb.error as e:
            raise tags.KasanError("lx-dmesg failed (is vmlinux-gdb.py loaded?): %s" % e)
        reps = report.parse_reports(text)
        if not reps:
            raise tags.KasanError("no KASAN report in the kernel log")
        for r in reps if arg.strip() == "all" else reps[-1:]:
            gdb.write(report.summary(r) + "\n")


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


class KasanModSyms(KasanCommand):
    """Load symbols of loaded modules, placing every section: kasan-modsyms [DIR]

Like the kernel's lx-symbols, but gives add-symbol-file the address of the
module's .text section itself.  6.1's lx-symbols passes the start of the
module's core memory as the .text address, which is wrong whenever another
text section comes first -- and KASAN sw-tags modules whose checks are
outlined (the default, hwasan-inline-all-checks=0) start with .text.hot,
where clang puts the __hwasan_check_* routines, so
every breakpoint in the module would be off by the size of .text.hot.
Run it when the module is loaded (e.g. stopped in do_init_module).  DIR
defaults to the directory where kasan-tags builds its lab module for
this vmlinux (vm.module_dir of its build dir)."""

    name = "kasan-modsyms"

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_FILES, gdb.COMPLETE_FILENAME)

    def run(self, arg):
        from linux import modules  # the kernel's scripts/gdb/linux package
        import vm
        argv = gdb.string_to_argv(arg) or [vm.module_dir(_kernel_dir())]
        if len(argv) != 1 or not os.path.isdir(argv[0]):
            raise tags.KasanError("usage: kasan-modsyms [DIR] (where the .ko files are; "
                                  "%s is not a directory)" % argv[0])
        done = 0
        for mod in modules.module_list():
            name = mod["name"].string()
            ko = os.path.join(argv[0], name.replace("-", "_") + ".ko")
            if not os.path.exists(ko):
                continue
            attrs = mod["sect_attrs"].dereference()
            sects = {attrs["attrs"][i]["battr"]["attr"]["name"].string():
                     int(attrs["attrs"][i]["address"]) for i in range(int(attrs["nsections"]))}
            if ".text" not in sects:
                raise tags.KasanError("module %s has no .text section address" % name)
            args = " ".join("-s %s 0x%x" % (n, a) for n, a in sorted(sects.items())
                            if n != ".text" and a)
            gdb.execute("add-symbol-file %s 0x%x %s" % (ko, sects[".text"], args),
                        to_string=True)
            gdb.write("loaded %s: .text at 0x%x (.text.hot at %s)\n" % (
                ko, sects[".text"], "0x%x" % sects[".text.hot"] if ".text.hot" in sects
                else "-"))
            done += 1
        if not done:
            raise tags.KasanError("no loaded module has a .ko in %s" % argv[0])


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
        back = replay_icount()
        gdb.write("back at instruction %s%s\n" % (
            back, "" if back == start else " (not %d: `monitor replay_seek %d` returns there)"
            % (start, start)))


KasanTag()
KasanShadow()
KasanHistory()
KasanModSyms()
KasanEsr()
KasanReport()
KasanTagFunc()
KasanUntagFunc()


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


def disassemble(pc):
    arch = gdb.selected_frame().architecture()
    return arch.disassemble(pc)[0]["asm"]


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
pointer's tag, the free, a reallocation.  It prints the events oldest
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

    # -- where we are --------------------------------------------------------
    @staticmethod
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

    @staticmethod
    def regs(frame=None):
        f = frame or gdb.selected_frame()
        return {r: tags.to_u64(int(f.read_register(r))) for r in REGS}

    def rewind_to(self, pc, before=None, fault=False):
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

    def trace(self, target_pc, target_icount):
        """Go back to the entry of the function that runs target_pc at
        target_icount and step forward (nexti) to it: the steps, and what
        was known at the entry (caller, icount)."""
        start = function_start(target_pc)
        if start is None:
            raise tags.KasanError("no function around 0x%x (no debug info)" % target_pc)
        at = self.rewind_to(start, before=target_icount + 1)
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
            step = {"pc": pc, "asm": asm, "regs": self.regs(f)}
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

    def where_of(self, step):
        if "where" in step:
            return step["fn"], step["where"]
        sal = gdb.find_pc_line(step["pc"])
        path = history.tree_path(sal.symtab.filename if sal.symtab else "")
        return (gdb.block_for_pc(step["pc"]).function or "??").__str__(), \
            "%s:%d" % (path, sal.line) if path else "??"

    # -- the walk ------------------------------------------------------------
    def origin_chain(self, reg, value, pc, icount, events, notes):
        """Follow `value` in `reg` at (pc, icount) back, adding events."""
        steps, entry = self.trace(pc, icount)
        end = len(steps) - 1
        hops = 0
        while hops < why.MAX_HOPS:
            o = why.origin(steps, reg, end)
            st = steps[o["step"]]
            if st.get("icount") is None:
                st["icount"] = why.icount_at(steps, o["step"])
            fn, where = self.where_of(st)
            if o["how"] in ("copy", "arith"):
                if o["delta"]:
                    events.append({"kind": "offset", "icount": st.get("icount"), "fn": fn,
                                   "where": where, "delta": o["delta"],
                                   "text": "%s = %s %+#x  (%s)" % (reg, o["src"], o["delta"],
                                                                   st["asm"])})
                reg, end = o["src"], o["step"]
                value = st["regs"].get(reg, value)
                continue
            hops += 1
            if o["how"] == "call":
                name = o["target"] or "??"
                ev = {"kind": "alloc" if why.is_allocator(name) else "return",
                      "icount": st.get("icount"), "fn": fn, "where": where, "call": name,
                      "text": "%s returned 0x%016x in x0" % (name, value)}
                events.append(ev)
                if ev["kind"] != "alloc":
                    notes.append("the chain stops at the return value of %s "
                                 "(run kasan-why inside it to go further)" % name)
                return
            if o["how"] == "other":
                events.append({"kind": "break", "icount": st.get("icount"), "fn": fn,
                               "where": where, "text": "%s: %s (%s)" % (
                                   reg, o.get("why", "computed in registers"), st["asm"])})
                notes.append("the chain breaks at %s: %s" % (st["asm"], o.get("why")))
                return
            if o["how"] == "entry":
                if entry["caller"] is None or entry["caller_pc"] is None:
                    notes.append("the chain breaks at the entry of %s (no caller)" % entry["fn"])
                    return
                events.append({"kind": "arg", "icount": entry["icount"], "fn": entry["fn"],
                               "where": where, "text": "0x%016x came in %s from %s at %s" % (
                                   value, reg, entry["caller"][0], why.short(entry["caller"][1]))})
                steps, entry = self.trace(entry["caller_pc"], entry["icount"] - 1)
                end = len(steps) - 1
                continue
            # a load: the memory it read, and the store that wrote the value there
            maddr = o["addr"]
            events.append({"kind": "load", "icount": st.get("icount"), "fn": fn, "pc": st["pc"],
                           "where": where, "addr": maddr,
                           "text": "%s  loaded 0x%016x into %s from 0x%016x" % (
                               st["asm"], value, reg, maddr)})
            store = self.last_store(maddr, st.get("icount"))
            if store is None:
                notes.append("no store to 0x%016x before its load in the recording" % maddr)
                return
            events.append(store)
            if store.get("copy"):
                notes.append("the chain breaks: %s copied the value (a copy routine)"
                             % store["fn"])
                return
            if store.get("src") is None:
                notes.append("the chain breaks at the store %s (which register?)"
                             % store["asm"])
                return
            if store.get("value") != value:
                notes.append("the store wrote 0x%x, not the pointer" % (store.get("value") or 0))
                return
            reg = store["src"]
            steps, entry = self.trace(store["pc"], store["icount"] - 1)
            end = len(steps) - 1
        notes.append("stopped after %d hops (the bound)" % why.MAX_HOPS)

    def last_store(self, maddr, before):
        """The last write to the 8 bytes at maddr before instruction `before`."""
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
        src = None
        if insn["kind"] == "store":
            a = why.address(insn["mem"], self.regs(f))
            src = why.source_of(insn, maddr, a) if a is not None else None
        copy = history.LIB.match(frames[0][1] if frames else "") is not None
        lab = why.lab_frame(frames)
        return {"kind": "store", "icount": now, "fn": fn, "where": where, "pc": cand,
                "asm": asm, "src": src, "value": value, "copy": copy,
                "mwhere": "%s:%d" % (lab[1], lab[2]) if lab and not why.module_where(where)
                else None,
                "text": "%s  wrote 0x%016x to 0x%016x" % (asm, value, maddr)}

    def memory_life(self, addr, p, ptr_tag, events, notes):
        writes, found, reason = tag_writes(addr, p)
        kinds = {"allocation": "tag", "free": "free", "new-slab": "slab", "other": "tagwrite"}
        for n, value, frames, icount in writes:
            k = history.kind(frames)
            kind = kinds[k]
            if k == "allocation" and ptr_tag is not None and value != ptr_tag:
                kind = "realloc"
            lab = why.lab_frame(frames)
            wfn, wpath, wline = frames[history.writer(frames)]
            chain = history.chain(frames)
            events.append({"kind": kind, "icount": icount, "fn": lab[0] if lab else wfn,
                           "where": "%s:%d" % (lab[1], lab[2]) if lab else
                           "%s:%d" % (wpath, wline),
                           "call": chain[-2] if len(chain) > 1 else wfn,
                           "text": "%s %02x  (%s)" % (
                               "memory tag" if p.mode == modes.SW_TAGS.name else "shadow",
                               value, " <- ".join(chain))})
        notes.append("memory: %s" % (
            "the allocation that gave the granule the pointer's tag was found" if found
            else "the walk back stopped: " + reason))

    @staticmethod
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
            i = next((j for j, n in enumerate(names) if n.endswith("[kasan_lab]") or
                      n.startswith("lab_")), None)
            if i is None:
                continue
            sal = gdb.find_pc_line(pcs[i] - 4)
            where = "%s:%d" % (history.tree_path(sal.symtab.filename), sal.line) \
                if sal.symtab is not None else "??"
            events.append({"kind": kind, "icount": None, "ring": True,
                           "fn": names[i].split("+")[0], "where": where,
                           "call": names[i - 1].split("+")[0] if i else None,
                           "text": "from the stack ring (tag %02x; no instruction count): %s"
                           % (ptr_tag, " <- ".join(n.split("+")[0] for n in names[3:i + 1]))})

    def run(self, arg):
        argv = gdb.string_to_argv(arg)
        if [a for a in argv if a != "--json"]:
            raise tags.KasanError("usage: kasan-why [--json]")
        start = replay_icount()
        if start is None:
            raise tags.KasanError(why.NOT_A_REPLAY)
        p = kasan_params()
        site = self.report_site()
        if site is not None:
            addr, ip, _size = site
            call = disassemble(ip - 4)
            # hw-tags reports the faulting access itself (regs->pc); the
            # other modes the return address of their check's call
            if p.mode != modes.HW_TAGS.name and why.parse(call)["kind"] == "call":
                back_to, reg = ip - 4, why.check_register(call) or "x0"
            else:       # hw-tags: ip is the faulting instruction itself
                insn = why.parse(disassemble(ip))
                if not insn["mem"]:
                    raise tags.KasanError("the report's ip 0x%x is neither a call nor an "
                                          "access" % ip)
                back_to, reg = ip, insn["mem"]["base"]
        else:
            ip = int(gdb.selected_frame().pc())
            insn = why.parse(disassemble(ip))
            if insn["kind"] not in ("load", "store"):
                raise tags.KasanError(why.NOT_AT_REPORT)
            back_to, reg = ip, insn["mem"]["base"]
            addr = why.address(insn["mem"], self.regs()) or 0
        events, notes = [], []
        result = {"addr": addr, "start": start, "mode": p.mode}
        with paused_breakpoints(start, quiet_stops=True):
            fault = back_to == ip and site is not None
            at = start if back_to == int(gdb.selected_frame().pc()) and site is None \
                else self.rewind_to(back_to, fault=fault)
            if at is None:
                raise tags.KasanError("could not go back to the access at 0x%x" % back_to)
            f = gdb.selected_frame()
            value = tags.to_u64(int(f.read_register(reg)))
            fn, where = outer_location(f)
            if fault and int(f.pc()) != back_to:
                fn, where = pc_location(back_to)
            # the access: the first load or store from the check on that is
            # not the frame's own (generic: the call saved x29, x30 first)
            acc = next((d for d in (why.parse(disassemble(ip + 4 * i)) for i in range(6))
                        if d["kind"] in ("load", "store") and
                        d["mem"]["base"] not in ("sp", "x29")), None)
            ptr_tag = tags.tag_of(value) if p.tagged else None
            mem_tag = None
            if p.mode == modes.SW_TAGS.name:
                mem_tag = read_bytes(tags.mem_to_shadow(addr, p), 1)[0]
            events.append({"kind": "access", "icount": at, "fn": fn, "where": where,
                           "text": "%s  address 0x%016x (checked in %s)%s%s" % (
                               acc["asm"] if acc else disassemble(back_to), value, reg,
                               ", pointer tag %02x" % ptr_tag if ptr_tag is not None else "",
                               ", memory tag %02x" % mem_tag if mem_tag is not None else "")})
            result.update(reg=reg, pointer=value, pointer_tag=ptr_tag, memory_tag=mem_tag)
            moff = acc["mem"]["offset"] if acc is not None and acc["mem"]["base"] == reg else 0
            if fault and moff:
                # hw-tags: the register holds the base, the access adds the offset
                events.append({"kind": "offset", "icount": at, "fn": fn, "where": where,
                               "delta": moff, "text": "the access adds %+#x to %s" % (
                                   moff, reg)})
            try:
                self.origin_chain(reg, value, back_to, at, events, notes)
            except tags.KasanError as e:
                notes.append("the chain breaks: %s" % e)
            if p.has_shadow:
                seek(start)
                self.memory_life(addr, p, ptr_tag, events, notes)
            else:
                notes.append(why.HW_TAGS)
                if p.tagged and ptr_tag is not None:
                    seek(start)     # the ring as the report saw it
                    self.ring_life(addr, ptr_tag, events, notes)
        back = replay_icount()
        line = why.verdict(events, ptr_tag, mem_tag)
        result.update(events=why.timeline(events), notes=notes, verdict=line, back=back)
        if "--json" in argv:
            import json
            gdb.write(json.dumps(result, indent=1, default=str) + "\n")
            return
        out = [why.header(addr, start)]
        out += [why.format_event(e) for e in why.timeline(events)]
        out += ["note: " + n for n in notes]
        out.append("verdict: " + line)
        out.append("back at instruction %s%s" % (
            back, "" if back == start else " (not %d: `monitor replay_seek %d` returns there)"
            % (start, start)))
        gdb.write("\n".join(out) + "\n")


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


KasanWhy()
KasanObject()
