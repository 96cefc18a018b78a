# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-why's walk and events (kasan/whyevents.py), without gdb: the
access a report names, the walk back to the pointer's origin on traces a
fake replay hands out (as gdbreplay.py's trace, where_of and last_store
would), the memory's life, and the text."""
import copy
import os
import re

import pytest

from kasan import modes, tags, why, whyevents

MOD = "/b/module/kasan_lab.c"
P = 0xc4ffff8000b65500
NO_CALLER = {"icount": 5, "fn": "lab_uaf", "caller": None, "caller_pc": None}


def regs(**kw):
    r = {"x%d" % i: 0 for i in range(31)}
    r.update(kw)
    return r


def step(asm, pc, icount=None, **kw):
    s = {"pc": pc, "asm": asm, "regs": regs(**kw)}
    if icount is not None:
        s.update(icount=icount, fn="lab_uaf", where="%s:%d" % (MOD, pc))
    return s


class FakeReplay:
    """The moves of gdbreplay.py, from traces and stores given in order."""

    def __init__(self, traces, stores=()):
        self.traces, self.stores, self.asked = list(traces), list(stores), []

    def trace(self, pc, icount):
        self.asked.append(("trace", pc, icount))
        if not self.traces:
            raise tags.KasanError("lost the way from the entry of f to 0x%x" % pc)
        return copy.deepcopy(self.traces.pop(0))

    def where_of(self, st):
        return st.get("fn", "f"), st.get("where", "mm/f.c:%d" % st["pc"])

    def last_store(self, maddr, before):
        self.asked.append(("store", maddr, before))
        return self.stores.pop(0)


def walk(traces, stores=(), reg="x21"):
    moves = FakeReplay(traces, stores)
    events, notes = [], []
    whyevents.origin_chain(reg, P, 3, 20, events, notes, moves)
    return events, notes, moves.asked


def test_only_the_command_side_imports_gdb():
    """gdb exists only inside gdb: the commands (cmd_*.py) and what moves
    or reads the kernel with it (gdb*.py) import it, nothing else does."""
    here = os.path.dirname(why.__file__)
    for name in sorted(os.listdir(here)):
        if name.endswith(".py") and not name.startswith(("cmd_", "gdb")):
            src = open(os.path.join(here, name)).read()
            assert not re.search(r"^\s*(import gdb|from gdb)\b", src, re.M), name


def test_where_the_walk_starts():
    code = {0x100 - 4: "bl\t0x2 <__hwasan_check_x21_67043360>", 0x100: "ldrb\tw0, [x21]",
            0x200 - 4: "bl\t0x3 <__asan_load1_noabort>", 0x300: "str\tx1, [x20, #16]",
            0x300 - 4: "bl\t0x4 <kfree>", 0x400 - 4: "mov\tx0, x1", 0x400: "mov\tx0, x2"}
    sw, hw = modes.SW_TAGS.name, modes.HW_TAGS.name
    assert whyevents.report_access(sw, 0x100, code.get) == (0xfc, "x21")
    assert whyevents.report_access("generic", 0x200, code.get) == (0x1fc, "x0")
    # hw-tags: the report's ip is the faulting access, even after a call
    assert whyevents.report_access(hw, 0x300, code.get) == (0x300, "x20")
    with pytest.raises(tags.KasanError, match="neither a call nor an access"):
        whyevents.report_access(hw, 0x400, code.get)
    assert whyevents.stopped_access("ldr\tx0, [x19, #8]")["mem"]["base"] == "x19"
    with pytest.raises(tags.KasanError, match="not at a KASAN report"):
        whyevents.stopped_access("mov\tx0, x1")


def test_the_access_a_check_guards():
    code = ["stp\tx29, x30, [sp, #-16]!", "ldr\tx1, [x29, #8]", "mov\tx0, x1",
            "strb\tw2, [x21, #0x80]", "ldr\tx3, [x22]", "nop"]
    asked = []

    def disasm(pc):
        asked.append(pc)
        return code[(pc - 0x1000) // 4]
    acc = whyevents.first_access(disasm, 0x1000)
    assert acc["asm"] == "strb\tw2, [x21, #0x80]" and asked == [0x1000, 0x1004, 0x1008, 0x100c]
    assert whyevents.first_access(lambda pc: "nop", 0) is None
    assert whyevents.added_offset(acc, "x21") == 0x80
    assert whyevents.added_offset(acc, "x22") == 0 and whyevents.added_offset(None, "x21") == 0
    ev = whyevents.access_event(20, "lab_oob", MOD + ":5", acc["asm"], P, "x21", 0xc4, 0xfe)
    assert ev["text"] == ("strb\tw2, [x21, #0x80]  address 0xc4ffff8000b65500 (checked in "
                          "x21), pointer tag c4, memory tag fe")
    assert whyevents.access_event(1, "f", "w", "a", 0, "x0", None, None)["text"].endswith("x0)")
    ev = whyevents.added_offset_event(20, "f", "w", 0x80, "x21")
    assert ev["delta"] == 0x80 and ev["text"] == "the access adds +0x80 to x21"


def test_walk_from_a_copy_to_the_allocator():
    tr = ([step("bl\t0x1 <kmalloc_trace>", 1, 10), step("add\tx21, x0, #0x80", 2, x0=P),
           step("ldrb\tw0, [x21]", 3, 20, x21=P + 0x80)], NO_CALLER)
    events, notes, _ = walk([tr])
    assert [e["kind"] for e in events] == ["offset", "alloc"] and notes == []
    assert events[0]["delta"] == 0x80 and events[0]["icount"] == 19   # counted back
    assert events[1]["text"] == "kmalloc_trace returned 0xc4ffff8000b65500 in x0"


def test_walk_stops_or_breaks_with_a_note():
    tr = ([step("bl\t0x1 <get_thing>", 1, 10), step("mov\tx21, x0", 2, 11),
           step("ldrb\tw0, [x21]", 3, 20)], NO_CALLER)
    events, notes, _ = walk([tr])
    assert [e["kind"] for e in events] == ["return"]
    assert notes == ["the chain stops at the return value of get_thing "
                     "(run kasan-why inside it to go further)"]
    tr = ([step("eor\tx21, x9, x10", 1), step("ldrb\tw0, [x21]", 3, 20)], NO_CALLER)
    events, notes, _ = walk([tr])
    assert events[0]["kind"] == "break"
    assert notes == ["the chain breaks at eor\tx21, x9, x10: computed in registers"]
    events, notes, _ = walk([tr], reg="x19")
    assert events == [] and notes == ["the chain breaks at the entry of lab_uaf (no caller)"]


def test_walk_into_the_caller_and_the_bound():
    entry = dict(NO_CALLER, caller=("lab_write", MOD + ":795"), caller_pc=99)
    callee = ([step("ldrb\tw0, [x19]", 3, 20)], entry)
    caller = ([step("bl\t0x1 <kmalloc>", 1, 2), step("mov\tx19, x0", 2, 3),
               step("bl\t0x9 <lab_uaf>", 99, 4)], NO_CALLER)
    events, notes, asked = walk([callee, caller], reg="x19")
    assert [e["kind"] for e in events] == ["arg", "alloc"] and notes == []
    assert events[0]["text"] == "0xc4ffff8000b65500 came in x19 from lab_write at kasan_lab.c:795"
    assert asked == [("trace", 3, 20), ("trace", 99, 4)]
    loop = ([step("bl\t0x9 <lab_uaf>", 99, 4)], entry)
    events, notes, _ = walk([callee] + [loop] * 8, reg="x19")
    assert len(events) == why.MAX_HOPS and notes == ["stopped after 6 hops (the bound)"]


def store(**kw):
    return dict({"kind": "store", "icount": 8, "fn": "lab_store", "where": MOD + ":40",
                 "pc": 50, "asm": "str\tx0, [x1]", "src": "x0", "value": P, "copy": False,
                 "mwhere": None, "text": "t"}, **kw)


def test_walk_through_a_load_to_its_store():
    load = ([step("ldr\tx21, [x19, #8]", 1, 10, x19=0x1000), step("ldrb\tw0, [x21]", 3, 20)],
            NO_CALLER)
    before = ([step("bl\t0x1 <kzalloc>", 4, 6), step("str\tx0, [x1]", 50, 8)], NO_CALLER)
    events, notes, asked = walk([load, before], [store()])
    assert [e["kind"] for e in events] == ["load", "store", "alloc"] and notes == []
    assert events[0]["addr"] == 0x1008 and ("store", 0x1008, 10) in asked
    assert ("trace", 50, 7) in asked
    for got, note in ((None, "no store to 0x0000000000001008 before its load in the recording"),
                      (store(copy=True), "the chain breaks: lab_store copied the value "
                       "(a copy routine)"),
                      (store(src=None), "the chain breaks at the store str\tx0, [x1] "
                       "(which register?)"),
                      (store(value=None), "the store wrote 0x0, not the pointer")):
        events, notes, _ = walk([load], [got])
        assert notes == [note] and len(events) == (1 if got is None else 2)


def test_a_move_that_fails_keeps_the_events_so_far():
    load = ([step("ldr\tx21, [x19, #8]", 1, 10, x19=0x1000), step("ldrb\tw0, [x21]", 3, 20)],
            NO_CALLER)
    moves = FakeReplay([load], [store()])
    events, notes = [], []
    with pytest.raises(tags.KasanError, match="lost the way"):
        whyevents.origin_chain("x21", P, 3, 20, events, notes, moves)
    assert [e["kind"] for e in events] == ["load", "store"]


def test_the_store_a_watchpoint_stopped_after():
    insn = why.parse("stp\tx1, x0, [x20]")
    frames = [("lab_store", MOD, 40), ("lab_write", MOD, 795)]
    ev = whyevents.store_event(8, "lab_store", "mm/x.c:3", 50, insn["asm"], insn,
                               regs(x20=0x2000), 0x2008, P, frames)
    assert ev["src"] == "x0" and not ev["copy"] and ev["mwhere"] == MOD + ":40"
    assert ev["text"] == "stp\tx1, x0, [x20]  wrote 0xc4ffff8000b65500 to 0x0000000000002008"
    copied = [("__pi_memcpy", "arch/arm64/lib/memcpy.S", 9)] + frames
    ev = whyevents.store_event(8, "f", MOD + ":41", 50, "bl\t0x1 <f>", why.parse("bl\t0x1 <f>"),
                               {}, 0x2008, P, copied)
    assert ev["src"] is None and ev["copy"] and ev["mwhere"] is None


FREE = [("__pi_memset", "arch/arm64/lib/memset.S", 58), ("kasan_poison", "mm/kasan/shadow.c", 98),
        ("____kasan_slab_free", "mm/kasan/common.c", 230), ("kfree", "mm/slab_common.c", 1007),
        ("lab_uaf", MOD, 412)]
ALLOC = [("__pi_memset", "arch/arm64/lib/memset.S", 58), ("kasan_poison", "mm/kasan/shadow.c", 98),
         ("__kasan_slab_alloc", "mm/kasan/common.c", 325), ("kmalloc_trace", "mm/slab_common.c", 1060),
         ("lab_uaf", MOD, 407)]


def test_the_memory_life():
    writes = [(1, 0xfe, FREE, 300), (2, 0x37, ALLOC, 200), (3, 0xc4, ALLOC, 100)]
    events, note = whyevents.life_events(writes, modes.SW_TAGS.name, 0xc4, True, "found")
    assert [e["kind"] for e in events] == ["free", "realloc", "tag"]
    assert events[0]["where"] == MOD + ":412" and events[0]["call"] == "kfree"
    assert events[0]["text"] == "memory tag fe  (kasan_poison <- ____kasan_slab_free <- kfree " \
        "<- lab_uaf)"
    assert note == "memory: the allocation that gave the granule the pointer's tag was found"
    events, note = whyevents.life_events(writes[:1], "generic", None, False, "the limit")
    assert events[0]["text"].startswith("shadow fe") and note.endswith("stopped: the limit")
    # kmalloc's own redzone past the size asked for (lab 9's qdisc_alloc):
    # fe written by the allocation that gave the object the pointer's tag
    redzone = [("kasan_poison", "mm/kasan/shadow.c", 98), ("____kasan_kmalloc", "mm/kasan/common.c", 351),
               ("__kasan_kmalloc", "mm/kasan/common.c", 384), ("qdisc_alloc", "net/sched/sch_generic.c", 973)]
    writes = [(1, 0xfe, redzone, 200), (2, 0xa6, ALLOC, 100)]
    events, _ = whyevents.life_events(writes, modes.SW_TAGS.name, 0xa6, True, "found")
    assert [e["kind"] for e in events] == ["redzone", "tag"]


def test_the_stack_ring_events():
    names = ["kasan_save_stack+0x1c", "save_stack_info+0x30", "__kasan_slab_alloc+0x5c",
             "kmalloc_trace+0x48", "lab_uaf+0x3c [kasan_lab]", "lab_write+0x80 [kasan_lab]"]
    assert whyevents.lab_index(names) == 4 and whyevents.lab_index(names[:4]) is None
    ev = whyevents.ring_event("tag", names, 4, MOD + ":407", 0xf6)
    assert (ev["fn"], ev["call"], ev["icount"], ev["ring"]) == ("lab_uaf", "kmalloc_trace",
                                                                None, True)
    assert ev["text"] == ("from the stack ring (tag f6; no instruction count): kmalloc_trace "
                          "<- lab_uaf")


def test_what_kasan_why_prints():
    events = [{"kind": "access", "icount": 300, "fn": "lab_uaf", "where": MOD + ":425",
               "text": "a"},
              {"kind": "alloc", "icount": 100, "fn": "lab_uaf", "where": MOD + ":415",
               "text": "b"}]
    out = whyevents.report_lines(P, 400, events, ["n"], "use after free: x", 400)
    assert out[0] == why.header(P, 400)
    assert [line.split()[1] for line in out[1:3]] == ["alloc", "access"]
    assert out[3:] == ["note: n", "verdict: use after free: x", "back at instruction 400"]
