# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-why's reasoning and text, without gdb (tested offline).

kasan-why stands at a KASAN report in a replay and explains it: the bad
access, where the pointer came from, what happened to the memory, and a
one-line verdict.  gdb does the moving (gdbreplay.py: reverse-continue to a
breakpoint, forward `nexti` through a function, reverse watchpoints on the
memory a pointer was loaded from); this module reads what it saw:

- an arm64 instruction as gdb disassembles it (`parse`): what it writes,
  what it reads, the memory operand of a load or a store;
- a trace of one function's execution, oldest first, each step the
  instruction and the registers before it (`origin`): which step put a
  value into a register -- a load, a copy, a call's return value, or the
  function's entry (the caller passed it);
- the events, found in any order, as one timeline and a verdict.

The walk itself, from these answers to the events, is whyevents.py's.

Forward stepping in a replay is cheap (QEMU executes), reverse stepping
is not (each step replays from the recording's snapshot), so the tracer
goes back once, to the function's entry, and steps forward.
"""

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

MAX_HOPS = 6          # loads, stores and calls followed back from the access
MAX_STEPS = 20000     # instructions traced in one function (nexti steps over calls)

NOT_A_REPLAY = ("not a replay: kasan-why runs the kernel backwards, which needs a "
                "recording -- `make record SCENARIO=uaf`, then `make replay` and, in "
                "another terminal, `make gdb`")
NOT_AT_REPORT = ("not at a KASAN report: stop in kasan_report (break kasan_report, "
                 "continue) or at the faulting access, then run kasan-why")
HW_TAGS = ("hw-tags: the memory tags live in MTE tag storage, which gdb cannot watch "
           "through QEMU's stub: the allocation and free shown are the stack ring's "
           "(mm/kasan/tags.c), without instruction counts")

# Allocators whose return value is a new object's pointer (6.1 names).
ALLOCATORS = ("kmalloc", "__kmalloc", "kmalloc_trace", "kmalloc_node_trace", "__kmalloc_node",
              "kmem_cache_alloc", "kmem_cache_alloc_node", "kmem_cache_alloc_lru",
              "kmalloc_large", "kmalloc_large_node", "krealloc", "__krealloc", "kzalloc",
              "kcalloc", "kmalloc_array", "kmemdup", "kstrdup", "vmalloc", "vzalloc",
              "page_address", "__get_free_pages", "get_zeroed_page")
# 6.1's report entry points: where kasan-why may be stopped
REPORT_FUNCS = ("kasan_report",)
# Functions between the access and kasan_report (KASAN's own checks)
CHECK = re.compile(r"__hwasan_check_(x\d+)_\d+")

REG = re.compile(r"^[xw](\d+)$")
LOADS = re.compile(r"^(ldr|ldur|ldp|ldnp|ldxr|ldar|ldaxr|ldapr|ldtr|ldrb|ldrh|ldrsb|ldrsh|"
                   r"ldrsw|ldurb|ldurh|ldursb|ldursh|ldursw|ldpsw|ldaprb|ldarb|ldarh)$")
STORES = re.compile(r"^(str|stur|stp|stnp|stxr|stlr|stlxr|sttr|strb|strh|sturb|sturh|"
                    r"stlrb|stlrh)$")
# instructions whose first operand is read, not written
NO_DEST = ("cbz", "cbnz", "tbz", "tbnz", "cmp", "cmn", "tst", "ccmp", "ccmn", "b", "br",
           "ret", "prfm", "msr", "blr", "fcmp")
COPIES = ("mov", "orr")   # `mov xd, xn` (gdb may print orr xd, xzr, xn)
ARITH = ("add", "sub")


def reg(name: str) -> Optional[str]:
    """x0..x30 for an x or w register name (w is the low half), else None."""
    m = REG.match(name.strip())
    return "x%d" % int(m.group(1)) if m and int(m.group(1)) <= 30 else None


def _operands(text: str) -> List[str]:
    """Split operands at top-level commas (a memory operand [..] stays whole)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _imm(s: str) -> Optional[int]:
    m = re.match(r"^#?(-?0x[0-9a-fA-F]+|-?\d+)$", s.strip())
    return int(m.group(1), 0) if m else None


def parse(asm: str) -> Dict[str, Any]:
    """One instruction as gdb prints it ("ldr\tx0, [x19, #8]"): op, kind
    ("load", "store", "call", "copy", "arith", "other"), the registers it
    writes (dests), its memory operand (mem: base, offset, index, pre/post,
    size of each register) and, for a call, its target's name."""
    asm = asm.split("//")[0].strip()
    op, rest = (asm.split(None, 1) + [""])[:2]
    op = op.lower()
    rest = rest.strip()
    # drop a trailing <symbol> of a branch target
    target = None
    m = re.search(r"<([^>+]+)(\+\d+)?>\s*$", rest)
    if m:
        target = m.group(1)
        rest = rest[:m.start()].strip()
    ops = _operands(rest)
    d: Dict[str, Any] = {"op": op, "asm": asm, "ops": ops, "dests": [], "kind": "other",
                         "mem": None, "target": target}
    if op in ("bl", "blr"):
        d["kind"] = "call"
        # the AAPCS64 caller-saved registers, x0 the return value
        d["dests"] = ["x%d" % i for i in range(19)] + ["x30"]
        if target and CHECK.match(target):
            # sw-tags' outlined checks preserve every register but these
            d["dests"] = ["x16", "x17", "x30"]
        if op == "blr" and ops:
            d["target_reg"] = reg(ops[0])
        return d
    memop = next((o for o in ops if o.startswith("[")), None)
    if memop is not None:
        i = ops.index(memop)
        inner = memop[memop.index("[") + 1:memop.index("]")]
        parts = [p.strip() for p in inner.split(",")]
        mem: Dict[str, Any] = {"base": reg(parts[0]) or parts[0], "offset": 0,
                               "index": None, "writeback": memop.endswith("!")}
        if len(parts) > 1:
            off = _imm(parts[1])
            if off is not None:
                mem["offset"] = off
            else:
                mem["index"] = reg(parts[1])
                sh = re.search(r"lsl #(\d+)", inner)
                mem["shift"] = int(sh.group(1)) if sh else 0
        if len(ops) > i + 1 and _imm(ops[i + 1]) is not None:   # post-index: [xn], #imm
            mem["post"] = _imm(ops[i + 1])
        regs = ops[:i]
        mem["regs"] = [reg(r) for r in regs]
        mem["wide"] = [r.strip().startswith("x") for r in regs]
        d["mem"] = mem
        if LOADS.match(op):
            d["kind"] = "load"
            # ldxr-style exclusives have no status register; st*xr do
            d["dests"] = [r for r in mem["regs"] if r]
        elif STORES.match(op):
            d["kind"] = "store"
            if op in ("stxr", "stlxr"):
                d["dests"] = [reg(regs[0])] if reg(regs[0]) else []
                mem["regs"] = mem["regs"][1:]
                mem["wide"] = mem["wide"][1:]
        if mem["writeback"] or "post" in mem:
            if reg(str(mem["base"])):
                d["dests"] = d["dests"] + [mem["base"]]
        return d
    if ops and reg(ops[0]) and op not in NO_DEST and not op.startswith("b."):
        d["dests"] = [reg(ops[0])]
    if op in COPIES and len(ops) == 2 and reg(ops[1]):
        d["kind"], d["src"] = "copy", reg(ops[1])
    elif op == "orr" and len(ops) == 3 and ops[1] in ("xzr", "wzr") and reg(ops[2]):
        d["kind"], d["src"] = "copy", reg(ops[2])
    elif op in ARITH and len(ops) in (3, 4) and reg(ops[1]) and _imm(ops[2]) is not None \
            and (len(ops) == 3 or re.match(r"^lsl #\d+$", ops[3])):
        # add xd, xn, #imm[, lsl #12]
        shift = int(ops[3].split("#")[1]) if len(ops) == 4 else 0
        d["kind"], d["src"] = "arith", reg(ops[1])
        d["delta"] = (_imm(ops[2]) << shift) * (1 if op == "add" else -1)
    return d


def check_register(asm: str) -> Optional[str]:
    """The register an outlined sw-tags check tests: `bl ... <__hwasan_check_x21_...>`."""
    m = CHECK.search(asm)
    return m.group(1) if m else None


def address(mem: Dict[str, Any], regs: Dict[str, int]) -> Optional[int]:
    """The address a load or store reads or writes, from the registers before it."""
    base = regs.get(str(mem["base"])) if mem["base"] != "sp" else regs.get("sp")
    if base is None:
        return None
    if "post" in mem:
        return base & (2**64 - 1)
    a = base + mem.get("offset", 0)
    if mem.get("index"):
        idx = regs.get(mem["index"])
        if idx is None:
            return None
        a += idx << mem.get("shift", 0)
    return a & (2**64 - 1)


def slot(mem: Dict[str, Any], register: str) -> Optional[int]:
    """Offset from the operand's address of `register` in a (pair) load/store."""
    off = 0
    for r, wide in zip(mem["regs"], mem["wide"]):
        if r == register:
            return off
        off += 8 if wide else 4
    return None


def source_of(insn: Dict[str, Any], address_: int, mem_addr: int) -> Optional[str]:
    """The register a store wrote to `address_` (a stp writes two)."""
    mem = insn.get("mem")
    if not mem:
        return None
    off = 0
    for r, wide in zip(mem["regs"], mem["wide"]):
        if mem_addr + off == address_ and wide:
            return r
        off += 8 if wide else 4
    return None


Step = Dict[str, Any]   # {pc, asm, regs (before), fn, where, icount}


def origin(trace: Sequence[Step], register: str, end: Optional[int] = None) -> Dict[str, Any]:
    """Which step of `trace` put the value `register` holds at step `end`
    (default: the last step) there.  Returns {how, step (index), ...}:
      how "load": step loads it (addr: the memory it was loaded from);
      "copy" / "arith": step copies it from (or adds delta to) another
      register, src; "call": step is a call, whose return value it is;
      "entry": no step wrote it: it was in the register when the function
      started (the caller passed it, or kept it in a callee-saved register);
      "other": computed in registers by step's instruction."""
    end = len(trace) - 1 if end is None else end
    for i in range(end - 1, -1, -1):
        insn = parse(trace[i]["asm"])
        if register not in insn["dests"]:
            continue
        if insn["kind"] == "call":
            if register != "x0":
                # a caller-saved register across a call: the trace is no
                # help; say where the chain breaks
                return {"how": "other", "step": i, "why": "clobbered by the call"}
            return {"how": "call", "step": i, "target": insn["target"]}
        if insn["kind"] == "load" and register in (insn["mem"]["regs"] or []):
            a = address(insn["mem"], trace[i]["regs"])
            s = slot(insn["mem"], register)
            if a is not None and s is not None and insn["mem"]["wide"][
                    insn["mem"]["regs"].index(register)]:
                return {"how": "load", "step": i, "addr": a + s}
            return {"how": "other", "step": i, "why": "a narrow or unknown load"}
        if insn["kind"] in ("copy", "arith"):
            return {"how": insn["kind"], "step": i, "src": insn["src"],
                    "delta": insn.get("delta", 0)}
        return {"how": "other", "step": i, "why": "computed in registers"}
    return {"how": "entry", "step": 0}


def icount_at(trace: Sequence[Step], i: int) -> Optional[int]:
    """The instruction count of step i: its own, or counted back from the
    next step that has one -- every step between is one instruction (the
    tracer records the count of every call, which nexti steps over)."""
    for k in range(i, len(trace)):
        if trace[k].get("icount") is not None:
            return trace[k]["icount"] - (k - i)
    return None


def is_allocator(name: Optional[str]) -> bool:
    return bool(name) and (name in ALLOCATORS or name.split(".")[0] in ALLOCATORS)


def module_where(where: str) -> bool:
    """A location in the lab module (or any code outside the kernel tree)."""
    return where.startswith("/") or where.startswith("kasan_")


def short(where: str) -> str:
    """kasan_lab.c:425 for the module's absolute path, the tree path otherwise."""
    path, _, line = where.rpartition(":")
    if path.startswith("/"):
        path = path.rsplit("/", 1)[-1]
    return "%s:%s" % (path, line) if path else where


Event = Dict[str, Any]   # {kind, icount, fn, where, text}


def timeline(events: Sequence[Event]) -> List[Event]:
    """The events oldest first (an event without an instruction count last)."""
    return sorted(events, key=lambda e: (e.get("icount") is None, e.get("icount") or 0))


def format_event(e: Event) -> str:
    return "%12s  %-10s %s at %s  %s" % (
        e.get("icount") if e.get("icount") is not None else "?", e["kind"],
        e.get("fn") or "??", short(e.get("where") or "??"), e.get("text", ""))


def verdict(events: Sequence[Event], ptr_tag: Optional[int], mem_tag: Optional[int]) -> str:
    """One line: the kind of bug and the lines of the module that made it."""
    by = {}
    for e in timeline(events):
        by.setdefault(e["kind"], []).append(e)
    access = (by.get("access") or [None])[-1]
    alloc = (by.get("alloc") or [None])[0]
    frees = [f for f in by.get("free", []) if not access or
             (f.get("icount") or 0) < (access.get("icount") or 0)]
    loads, stores = by.get("load", []), by.get("store", [])
    realloc = [a for a in by.get("realloc", [])]
    delta = sum(e.get("delta", 0) for e in by.get("offset", []))

    def at(e: Optional[Event]) -> str:
        return short(e["mwhere"] if e and e.get("mwhere") else (e or {}).get("where") or "??")

    # a free from the stack ring (hw-tags) has no count: it is the free of
    # the allocation with the pointer's tag, so after it
    freed_after = [f for f in frees if alloc is None or f.get("icount") is None or
                   (f.get("icount") or 0) > (alloc.get("icount") or 0)]
    # The granule's life is the object's only if the allocation that gave
    # it the pointer's tag is the one the pointer came from (same line);
    # otherwise the pointer strayed into memory another allocation tagged
    # alike (a past life of a neighbour, say): its frees are not ours.
    tagged = [t for t in by.get("tag", []) if not t.get("ring")]
    other = None
    if alloc is not None and tagged and not any(at(t) == at(alloc) for t in tagged):
        other, freed_after, realloc = tagged[-1], [], []
    if freed_after and realloc:
        kind = "use after free, the slot reused"
    elif freed_after:
        kind = "use after free"
    elif delta:
        kind = "out of bounds"
    elif ptr_tag is not None and mem_tag is not None and ptr_tag != mem_tag:
        kind = "tag mismatch"
    else:
        kind = "bad access"
    parts = [kind + ":"]
    if alloc:
        parts.append("the pointer returned by the allocation at %s%s" % (
            at(alloc), " %+#x" % delta if delta else ""))
    else:
        parts.append("the pointer (its origin not found)%s" % (
            " %+#x" % delta if delta else ""))
    if stores:
        parts.append("stored at %s" % at(stores[0]) +
                     (", loaded at %s" % at(loads[-1]) if loads else "") + ",")
    if access:
        parts.append("was used at %s" % at(access))
    if freed_after:
        parts.append("after %s at %s" % (freed_after[-1].get("call") or "the free",
                                         at(freed_after[-1])))
    if realloc and freed_after:
        parts.append("and the reallocation at %s" % at(realloc[-1]))
    if other is not None:
        parts.append("(the granule it hit got the pointer's tag from another allocation, "
                     "at %s)" % at(other))
    return " ".join(p for p in parts if p)


def header(addr: int, icount: int) -> str:
    return "kasan-why 0x%016x: from instruction %d, back to the causes" % (addr, icount)


def lab_frame(frames: Sequence[Tuple[str, str, int]]) -> Optional[Tuple[str, str, int]]:
    """The newest frame in the module (fn, file, line), or None."""
    return next((f for f in frames if module_where(f[1]) or f[0].startswith("lab_")), None)
