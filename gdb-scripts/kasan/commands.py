# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""gdb commands for KASAN tags, shadow memory, the brk ESR and reports.

Loaded by gdb-scripts/kasan.py next to the kernel's own vmlinux-gdb.py
(lx-* commands).  One gdb.Command or gdb.Function per concept, in the style
of the tree's scripts/gdb/linux/*.py; the arithmetic lives in tags.py and
report.py, which need no gdb.
"""

import os

import gdb

from kasan import history, modes, report, tags


def _kernel_dir():
    prog = gdb.current_progspace().filename
    if not prog:
        raise tags.KasanError("no vmlinux loaded (start gdb with the kernel's vmlinux)")
    return os.path.dirname(os.path.realpath(prog))


def kasan_params():
    """Mode and shadow offset of the kernel being debugged, from its .config."""
    path = os.path.join(_kernel_dir(), ".config")
    try:
        with open(path) as f:
            cfg = tags.parse_config(f.read())
    except OSError:
        raise tags.KasanError("cannot read %s (the build dir of this vmlinux)" % path)
    return tags.params_from_config(cfg)


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

    @staticmethod
    def icount():
        try:
            out = gdb.execute("monitor info replay", to_string=True)
        except gdb.error:
            return None
        return history.replay_icount(out)

    @staticmethod
    def frames():
        out, f = [], gdb.newest_frame()
        while f is not None and len(out) < 40:
            sal = f.find_sal()
            out.append((f.name() or "??", history.tree_path(
                sal.symtab.filename if sal.symtab else ""), sal.line or 0))
            f = f.older()
        return out

    def run(self, arg):
        addr = value_to_int(arg, self.name)
        check_kernel_address(addr)
        p = kasan_params()
        if not p.has_shadow:
            raise tags.KasanError(history.NO_SHADOW)
        start = self.icount()
        if start is None:
            raise tags.KasanError(history.NOT_A_REPLAY)
        shadow = tags.mem_to_shadow(addr, p)
        ptr_tag = tags.tag_of(addr) if p.mode == modes.SW_TAGS.name else None
        gdb.write(history.header(addr, shadow, read_bytes(shadow, 1)[0], ptr_tag, start) + "\n")
        enabled = [b for b in gdb.breakpoints() if b.enabled]
        for b in enabled:
            b.enabled = False
        wp = gdb.Breakpoint("*(unsigned char *)0x%x" % shadow, gdb.BP_WATCHPOINT,
                            gdb.WP_WRITE, internal=True)
        n, found, reason, last = 0, False, "the limit of %d writes" % history.MAX_WRITES, start
        try:
            while n < history.MAX_WRITES:
                gdb.execute("reverse-continue", to_string=True)
                now = self.icount()
                if now is None or now >= last:
                    reason = "no earlier write in the recording"
                    break
                try:
                    value = read_bytes(shadow, 1)[0]
                except tags.KasanError:
                    reason = "the start of the recording (no shadow mapped yet)"
                    break
                last, n = now, n + 1
                fr = self.frames()
                gdb.write("\n".join(history.format_write(n, value, fr, now)) + "\n")
                why = history.stops_here(fr, value, ptr_tag)
                if why == "found":
                    found = True
                if why:
                    reason = why
                    break
        finally:
            wp.delete()
            gdb.write(history.verdict(found, n, ptr_tag, reason) + "\n")
            gdb.execute("monitor replay_break %d" % start, to_string=True)
            gdb.execute("continue", to_string=True)
            for b in enabled:
                b.enabled = True
        back = self.icount()
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
