# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-why's walk and its events, without gdb (tested offline).

kasan-why (cmd_history.py) moves a replay with gdb (gdbreplay.py); what it
decides from what it sees is here, as plain functions over instructions
as gdb prints them, traces (why.Step) and events (why.Event):

- where the walk starts: the access a report's ip names, or the access
  gdb is stopped at (`report_access`, `stopped_access`, `first_access`);
- the walk back from the access to the pointer's origin (`origin_chain`):
  why.origin names the step that put the value in the register, and each
  kind of step gives one event -- a copy or an addition (`offset_event`),
  an allocator's return (the end), a value computed in registers (a
  break), an argument from the caller, a load and the store it read;
  gdb's moves (trace a function, find the last store) come in as `moves`;
- the memory's life, from kasan-history's writes (`life_events`) or, in
  hw-tags, from the stack ring (`lab_index`, `ring_event`);
- the text kasan-why prints (`report_lines`).
"""

from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple

from kasan import history, modes, tags, why

Event = why.Event
Step = why.Step
Insn = Dict[str, Any]
Frames = Sequence[history.Frame]
Disasm = Callable[[int], str]

# the life of the memory: what each kind of tag write is on the timeline
LIFE_KINDS = {"allocation": "tag", "free": "free", "new-slab": "slab", "other": "tagwrite"}
# 6.1's kmalloc poisons the part of its slot past the size asked for
# (mm/kasan/common.c, ____kasan_kmalloc): another tag than the pointer's,
# written by the same allocation -- its redzone, not a reallocation
KMALLOC_REDZONE = "____kasan_kmalloc"


# -- where the walk starts -----------------------------------------------------

def report_access(mode: str, ip: int, disasm: Disasm) -> Tuple[int, str]:
    """(pc, register) of the access a report's ip names.  sw-tags and
    generic report from their check, called just before ip: the register
    is the one the check tests (an outlined sw-tags check names it, the
    others take the address in x0).  hw-tags reports the faulting access
    itself (regs->pc): the register is its base."""
    call = disasm(ip - 4)
    if mode != modes.HW_TAGS.name and why.parse(call)["kind"] == "call":
        return ip - 4, why.check_register(call) or "x0"
    insn = why.parse(disasm(ip))
    if not insn["mem"]:
        raise tags.KasanError("the report's ip 0x%x is neither a call nor an access" % ip)
    return ip, insn["mem"]["base"]


def stopped_access(asm: str) -> Insn:
    """The load or store gdb is stopped at, parsed; not one: KasanError."""
    insn = why.parse(asm)
    if insn["kind"] not in ("load", "store"):
        raise tags.KasanError(why.NOT_AT_REPORT)
    return insn


def first_access(disasm: Disasm, ip: int, n: int = 6) -> Optional[Insn]:
    """The access a check guards: the first load or store from ip on that
    is not the frame's own (generic: the call saved x29, x30 first)."""
    return next((d for d in (why.parse(disasm(ip + 4 * i)) for i in range(n))
                 if d["kind"] in ("load", "store") and
                 d["mem"]["base"] not in ("sp", "x29")), None)


def access_event(icount: int, fn: str, where: str, asm: str, value: int, reg: str,
                 ptr_tag: Optional[int], mem_tag: Optional[int]) -> Event:
    """The bad access: its instruction, the address in its register, the tags."""
    return {"kind": "access", "icount": icount, "fn": fn, "where": where,
            "text": "%s  address 0x%016x (checked in %s)%s%s" % (
                asm, value, reg,
                ", pointer tag %02x" % ptr_tag if ptr_tag is not None else "",
                ", memory tag %02x" % mem_tag if mem_tag is not None else "")}


def added_offset(acc: Optional[Insn], reg: str) -> int:
    """What the access adds to its base register (hw-tags: the register
    holds the base, the access its offset from it)."""
    return acc["mem"]["offset"] if acc is not None and acc["mem"]["base"] == reg else 0


def added_offset_event(icount: int, fn: str, where: str, delta: int, reg: str) -> Event:
    return {"kind": "offset", "icount": icount, "fn": fn, "where": where,
            "delta": delta, "text": "the access adds %+#x to %s" % (delta, reg)}


# -- the walk back to the pointer's origin -------------------------------------

class Moves(Protocol):
    """What the walk asks gdb to do (gdbreplay.py is one)."""

    def trace(self, pc: int, icount: int) -> Tuple[List[Step], Dict[str, Any]]: ...

    def where_of(self, step: Step) -> Tuple[str, str]: ...

    def last_store(self, maddr: int, before: Optional[int]) -> Optional[Event]: ...


def offset_event(o: Dict[str, Any], st: Step, reg: str, fn: str, where: str) -> Event:
    """A copy or an addition that changed the pointer on its way."""
    return {"kind": "offset", "icount": st.get("icount"), "fn": fn, "where": where,
            "delta": o["delta"],
            "text": "%s = %s %+#x  (%s)" % (reg, o["src"], o["delta"], st["asm"])}


def call_end(o: Dict[str, Any], st: Step, value: int, fn: str,
             where: str) -> Tuple[Event, Optional[str]]:
    """The value is a call's return value: an allocator's (the origin), or
    another function's (the chain stops there: a note says so)."""
    name = o["target"] or "??"
    ev: Event = {"kind": "alloc" if why.is_allocator(name) else "return",
                 "icount": st.get("icount"), "fn": fn, "where": where, "call": name,
                 "text": "%s returned 0x%016x in x0" % (name, value)}
    if ev["kind"] == "alloc":
        return ev, None
    return ev, ("the chain stops at the return value of %s "
                "(run kasan-why inside it to go further)" % name)


def break_end(o: Dict[str, Any], st: Step, reg: str, fn: str, where: str) -> Tuple[Event, str]:
    """The value was computed in registers: the chain breaks there."""
    return ({"kind": "break", "icount": st.get("icount"), "fn": fn, "where": where,
             "text": "%s: %s (%s)" % (reg, o.get("why", "computed in registers"), st["asm"])},
            "the chain breaks at %s: %s" % (st["asm"], o.get("why")))


def arg_event(entry: Dict[str, Any], reg: str, value: int, where: str) -> Event:
    """The value came in a register from the caller."""
    return {"kind": "arg", "icount": entry["icount"], "fn": entry["fn"], "where": where,
            "text": "0x%016x came in %s from %s at %s" % (
                value, reg, entry["caller"][0], why.short(entry["caller"][1]))}


def load_event(st: Step, reg: str, value: int, maddr: int, fn: str, where: str) -> Event:
    """The value was loaded from memory: the walk looks for the store next."""
    return {"kind": "load", "icount": st.get("icount"), "fn": fn, "pc": st["pc"],
            "where": where, "addr": maddr,
            "text": "%s  loaded 0x%016x into %s from 0x%016x" % (st["asm"], value, reg, maddr)}


def store_breaks(store: Event, value: int) -> Optional[str]:
    """Why the walk cannot follow the value back through this store, or None."""
    if store.get("copy"):
        return "the chain breaks: %s copied the value (a copy routine)" % store["fn"]
    if store.get("src") is None:
        return "the chain breaks at the store %s (which register?)" % store["asm"]
    if store.get("value") != value:
        return "the store wrote 0x%x, not the pointer" % (store.get("value") or 0)
    return None


def origin_chain(reg: str, value: int, pc: int, icount: int, events: List[Event],
                 notes: List[str], moves: Moves) -> None:
    """Follow `value` in `reg` at (pc, icount) back, adding events: up to
    why.MAX_HOPS loads, stores, calls and entries; copies and additions
    are followed for free.  A KasanError from a move leaves the events so
    far in `events`."""
    steps, entry = moves.trace(pc, icount)
    end = len(steps) - 1
    hops = 0
    while hops < why.MAX_HOPS:
        o = why.origin(steps, reg, end)
        st = steps[o["step"]]
        if st.get("icount") is None:
            st["icount"] = why.icount_at(steps, o["step"])
        fn, where = moves.where_of(st)
        if o["how"] in ("copy", "arith"):
            if o["delta"]:
                events.append(offset_event(o, st, reg, fn, where))
            reg, end = o["src"], o["step"]
            value = st["regs"].get(reg, value)
            continue
        hops += 1
        if o["how"] in ("call", "other"):
            ev, note = (call_end(o, st, value, fn, where) if o["how"] == "call"
                        else break_end(o, st, reg, fn, where))
            events.append(ev)
            if note:
                notes.append(note)
            return
        if o["how"] == "entry":
            if entry["caller"] is None or entry["caller_pc"] is None:
                notes.append("the chain breaks at the entry of %s (no caller)" % entry["fn"])
                return
            events.append(arg_event(entry, reg, value, where))
            steps, entry = moves.trace(entry["caller_pc"], entry["icount"] - 1)
            end = len(steps) - 1
            continue
        # a load: the memory it read, and the store that wrote the value there
        events.append(load_event(st, reg, value, o["addr"], fn, where))
        store = moves.last_store(o["addr"], st.get("icount"))
        if store is None:
            notes.append("no store to 0x%016x before its load in the recording" % o["addr"])
            return
        events.append(store)
        note = store_breaks(store, value)
        if note:
            notes.append(note)
            return
        reg = store["src"]
        steps, entry = moves.trace(store["pc"], store["icount"] - 1)
        end = len(steps) - 1
    notes.append("stopped after %d hops (the bound)" % why.MAX_HOPS)


def store_event(icount: int, fn: str, where: str, pc: int, asm: str, insn: Insn,
                regs: Dict[str, int], maddr: int, value: int, frames: Frames) -> Event:
    """The store a reverse watchpoint stopped after: which register it
    wrote (`src`, None when it is not a store gdb can read), whether a copy
    routine did it (the chain breaks), the lab module's line behind it."""
    src = None
    if insn["kind"] == "store":
        a = why.address(insn["mem"], regs)
        src = why.source_of(insn, maddr, a) if a is not None else None
    copy = history.LIB.match(frames[0][1] if frames else "") is not None
    lab = why.lab_frame(frames)
    return {"kind": "store", "icount": icount, "fn": fn, "where": where, "pc": pc,
            "asm": asm, "src": src, "value": value, "copy": copy,
            "mwhere": "%s:%d" % (lab[1], lab[2]) if lab and not why.module_where(where)
            else None,
            "text": "%s  wrote 0x%016x to 0x%016x" % (asm, value, maddr)}


# -- the memory's life ----------------------------------------------------------

def life_events(writes: Sequence[Tuple[int, int, Frames, Optional[int]]], mode: str,
                ptr_tag: Optional[int], found: bool, reason: str) -> Tuple[List[Event], str]:
    """kasan-history's writes to the granule's tag (gdbreplay.tag_writes)
    as events, and a note on how the walk back ended.  An allocation that
    wrote another tag than the pointer's is a reallocation, or kmalloc's
    redzone past the size it was asked for."""
    events = []
    for _n, value, frames, icount in writes:
        k = history.kind(frames)
        kind = LIFE_KINDS[k]
        if k == "allocation" and ptr_tag is not None and value != ptr_tag:
            kind = "redzone" if any(f[0] == KMALLOC_REDZONE for f in frames) else "realloc"
        lab = why.lab_frame(frames)
        wfn, wpath, wline = frames[history.writer(frames)]
        chain = history.chain(frames)
        events.append({"kind": kind, "icount": icount, "fn": lab[0] if lab else wfn,
                       "where": "%s:%d" % (lab[1], lab[2]) if lab else
                       "%s:%d" % (wpath, wline),
                       "call": chain[-2] if len(chain) > 1 else wfn,
                       "text": "%s %02x  (%s)" % (
                           "memory tag" if mode == modes.SW_TAGS.name else "shadow",
                           value, " <- ".join(chain))})
    return events, "memory: %s" % (
        "the allocation that gave the granule the pointer's tag was found" if found
        else "the walk back stopped: " + reason)


def lab_index(names: Sequence[str]) -> Optional[int]:
    """The first frame of a symbolized stack in the lab module, or None."""
    return next((j for j, n in enumerate(names) if n.endswith("[kasan_lab]") or
                 n.startswith("lab_")), None)


def ring_event(kind: str, names: Sequence[str], i: int, where: str, ptr_tag: int) -> Event:
    """hw-tags: an allocation or free the stack ring kept, without an
    instruction count, at the lab module's frame i of its stack."""
    return {"kind": kind, "icount": None, "ring": True,
            "fn": names[i].split("+")[0], "where": where,
            "call": names[i - 1].split("+")[0] if i else None,
            "text": "from the stack ring (tag %02x; no instruction count): %s"
            % (ptr_tag, " <- ".join(n.split("+")[0] for n in names[3:i + 1]))}


# -- the text --------------------------------------------------------------------

def report_lines(addr: int, start: int, events: Sequence[Event], notes: Sequence[str],
                 verdict: str, back: Optional[int]) -> List[str]:
    """What kasan-why prints: the events oldest first, the notes, the verdict."""
    out = [why.header(addr, start)]
    out += [why.format_event(e) for e in why.timeline(events)]
    out += ["note: " + n for n in notes]
    out.append("verdict: " + verdict)
    out.append(history.back_at(back, start))
    return out
