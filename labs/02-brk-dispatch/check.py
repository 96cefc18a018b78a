# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 2 grader: the brk dispatch chain and the outlined path."""
import re

import vm
from kasan import tags
from labs.exercises import StudentCode, answers, clip, compare, hex_or_none, kv_lines
from labs.lab import backtrace
from kasan.modes import SW_TAGS

SW = SW_TAGS.variant  # count-checks.sh names its kernels by variant


def check_count(run):
    m = dict((name, (int(c), int(b))) for name, c, b in re.findall(
        r"^(\S+): (\d+) calls to __hwasan_check_\*, (\d+) brk", run.host, re.M))
    d, k = m.get(SW), m.get(SW + "-brk")
    if not d or not k:
        tail = run.host[-300:]  # mutation: equivalent (message length)
        return [("counted checks in both modules", False, tail)]
    size = dict((name, int(mib)) for name, mib in re.findall(
        r"^(\S+): .*; Image (\d+) MiB", run.host, re.M))
    return [("default kernel: outlined calls, no brk", d[0] > 0 and d[1] == 0, str(d)),
            ("swtags-brk: inline brk, no calls", k[0] == 0 and k[1] > 0, str(k)),
            ("inlining every check makes the Image larger",
             size.get(SW + "-brk", 0) > size.get(SW, 1 << 30) > 0, str(size))]


def _report(run):
    reps = run.reports()
    return reps[0] if len(reps) == 1 else None


def check_brk(run):
    s = run.sections()
    frames = [fn for fn, _ in backtrace(s.get("backtrace", []))]
    chain = ["kasan_handler", "call_break_hook", "brk_handler", "do_debug_exception"]
    res = [("backtrace: do_debug_exception -> brk_handler -> call_break_hook -> kasan_handler",
            frames[:4] == chain, "frames %s" % frames)]
    esr = "\n".join(s.get("esr", []))
    m = re.search(r"immediate 0x([0-9a-f]+)", esr)
    regs = "\n".join(s.get("regs", []))
    ins = re.search(r"<lab_uaf\+(\d+)>:\s+brk\s+#0x([0-9a-f]+)", regs)
    res.append(("kasan-esr immediate == the brk at regs->pc",
                bool(m and ins) and int(m.group(1), 16) == int(ins.group(2), 16),
                "esr %s, insn %s" % (m and m.group(1), ins and ins.group(0))))  # mutation: equivalent (message)
    res.append(("decoded: KASAN, read of 1 byte, recoverable",
                "read of 1 byte(s); recoverable" in esr, esr[-120:]))  # mutation: equivalent (message length)
    r = _report(run)
    x0 = re.search(r"x0=0x([0-9a-f]{16})", regs)
    res.append(("x0 holds the report's address",
                bool(r and x0) and x0.group(1) == r["addr"],
                "x0 %s, report %s" % (x0 and x0.group(1), r and r["addr"])))
    if r and ins:
        where = int(ins.group(1))  # mutation: equivalent (label only; group(2) also parses)
        res.append(("report location == the brk (lab_uaf+0x%x)" % where,
                    r["location"].startswith("lab_uaf+0x%x/" % int(ins.group(1))),
                    r["location"]))
    pc = re.search(r"pc=0x([0-9a-f]+)", regs)
    after = re.search(r"pc after=0x([0-9a-f]+)", "\n".join(s.get("after", [])))
    res.append(("recoverable: kasan_handler moved pc past the brk (+4)",
                bool(pc and after) and int(after.group(1), 16) == int(pc.group(1), 16) + 4,
                "pc %s -> %s" % (pc and pc.group(1), after and after.group(1))))
    return res


def check_outline(run):
    s = run.sections()
    bt = "\n".join(s.get("backtrace", []))
    caller = " ".join(s.get("caller", []))
    r = _report(run)
    m = re.search(r"addr=0x([0-9a-f]{16})", bt)
    return [("outlined path: __hwasan_tag_mismatch -> kasan_tag_mismatch, no brk",
             "kasan_tag_mismatch" in bt and "__hwasan_tag_mismatch" in bt
             and "kasan_handler" not in bt, clip(bt, 200)),  # mutation: equivalent (message length)
            ("the check was called from lab_uaf", "lab_uaf" in caller, caller),
            ("x0 of kasan_tag_mismatch is the report's address",
             bool(r and m) and m.group(1) == r["addr"], "%s vs %s" % (
                 m and m.group(1), r and r["addr"]))]


# -- Exercises ---------------------------------------------------------------

def tree_constants(run):
    """KASAN_BRK_* and KASAN_ESR_* as the graded kernel's tree defines them."""
    return tags.esr_constants_of_tree(vm.source_tree(run.bdir))


def esr_table(c):
    """{(write, size, recover): ESR} of every KASAN immediate, found by
    decoding each of them with the project's decoder and this tree's
    constants (the grader inverts the decoder; it holds no encoder).  Bits
    7..6 of the immediate mean nothing to kasan_handler; the compiler
    leaves them 0, so the smallest immediate of each access is its ESR."""
    out = {}
    for imm in range(0x900, 0xA00):
        esr = (0x3C << 26) | (1 << 25) | imm
        d = tags.decode_esr(esr, c)
        if d["is_kasan"]:
            out.setdefault((d["write"], d["size"], d["recover"]), esr)
    return out


def esr_cases(table):
    """Every access the table holds, and sizes no immediate can describe."""
    cases = sorted(table)
    cases += [(w, s, r) for s in (0, 3, 24, 1 << 16) for w in (False, True)
              for r in (False, True)]
    return cases, [table.get(k) for k in cases]


# What the leak test (classroom/implscan.py) calls every function of a handout with
PROBES = {"kasan_esr": [(w, s, r) for w in (False, True) for r in (False, True)
                        for s in (1, 2, 4, 8, 16, 3, 0)]}


def ex_esr(run, _runs):
    m = StudentCode(__file__, "esr.py")
    table = esr_table(tree_constants(run))
    cases, wants = esr_cases(table)
    res = [compare("kasan_esr of %d accesses: the ESR whose immediate this tree's "
                   "kasan_handler decodes to them, or None" % len(cases),
                   m, "kasan_esr", wants, cases)]
    # Live: the ESR of this run's tag mismatch, and the report it led to.
    esr = re.search(r"^ESR 0x([0-9a-f]{8})", "\n".join(run.sections().get("esr", [])), re.M)
    r = _report(run)
    if not esr or not r:
        return res + [("the brk run shows an ESR and a report", False,
                       "esr %s, %s" % (esr and esr.group(1), "report" if r else "no report"))]
    case = (r["access"] == "write", r["size"], True)
    res.append(compare("live: kasan_esr(%s, %d, True) for the report's %s of %d byte(s) is "
                       "the ESR kasan_handler got (0x%s)" % (
                           case[0], case[1], r["access"], r["size"], esr.group(1)),
                       m, "kasan_esr", [int(esr.group(1), 16)], [case]))
    return res


def ex_handler(run, _runs):
    s = run.sections()
    stud = kv_lines(s.get("student", []))
    kern = "\n".join(s.get("kernel", []))
    r = _report(run)
    if "ESR 0x" not in kern or not r:
        return [("your file stopped in kasan_handler", False,
                 "the project's kasan-esr esr said: %s" % (clip(kern, 200) or
                                                           "(nothing: gdb stopped in your file)"))]
    pc = re.search(r"^\s*0x([0-9a-f]+) <[^>]+>:\s+brk\s", kern, re.M)
    frame = " ".join(s.get("stop", []))
    return [("the VM is stopped in kasan_handler (the grader's frame 0 there)",
             bool(re.search(r"#0\s+(0x[0-9a-f]+ in )?kasan_handler ", frame)), clip(frame, 120)),
            ("addr: the report's address", (stud.get("addr") or "").lower() == "0x" + r["addr"],
             "you: %s, report: 0x%s" % (stud.get("addr"), r["addr"])),
            ("access: the report's (%s)" % r["access"], stud.get("access") == r["access"],
             "you: %s" % stud.get("access")),
            ("size: the report's (%s)" % r["size"], stud.get("size") == str(r["size"]),
             "you: %s" % stud.get("size")),
            ("pc: the brk instruction", pc is not None and hex_or_none(stud.get("pc")) ==
             int(pc.group(1), 16), "you: %s, x/i regs->pc: %s" % (
                 stud.get("pc"), pc and pc.group(0).strip()))]


# -- Known mistakes (mistakes.toml): what the work shows when a student
# makes one.  Each detector asks the student's kasan_esr about a few
# accesses, compared with the ESRs the tree's own decoder gives (esr_table),
# or reads what their gdb file left in the run; never a stored answer.

EC_SHIFT, EC_BITS, IMM_BITS = 26, 0x3F, 0xFFFF   # ESR_EL1's layout (esr.py's docstring)


def student_esr(run, cases):
    """(the student's kasan_esr on cases, the tree's {access: ESR}, the
    tree's constants)."""
    c = tree_constants(run)
    return answers(StudentCode(__file__, "esr.py"), "kasan_esr", cases), esr_table(c), c


def mistake_ec_in_the_wrong_bits(run, runs):
    # the immediate right, something above it, but no exception class in bits 31..26
    cases = [(False, 1, True), (True, 8, False)]
    got, table, _ = student_esr(run, cases)
    return all(g is not None and g & IMM_BITS == table[k] & IMM_BITS and g >> 16 != 0
               and (g >> EC_SHIFT) & EC_BITS != (table[k] >> EC_SHIFT) & EC_BITS
               for g, k in zip(got, cases))


def mistake_esr_is_the_immediate(run, runs):
    cases = [(False, 1, True), (True, 8, False)]
    got, table, _ = student_esr(run, cases)
    return got == [table[k] & IMM_BITS for k in cases]


def mistake_size_in_bytes(run, runs):
    # recoverable reads of 2, 4 and 8 bytes: the size field holds the bytes
    cases = [(False, s, True) for s in (2, 4, 8)]
    got, table, c = student_esr(run, cases)
    return got == [(table[k] & ~c["KASAN_ESR_SIZE_MASK"]) | k[1] for k in cases]


def mistake_size_zero_encoded(run, runs):
    # 0 is no power of two the field can hold, yet an ESR (or a crash)
    # comes back for it; a size of 3 is refused as it should be
    got = StudentCode(__file__, "esr.py").call("kasan_esr", [(False, 0, False), (False, 3, False)])
    return got[0] != ("value", None) and got[1] == ("value", None)


def mistake_sizes_capped_at_16(run, runs):
    # what the compiler's own sized checks stop at (16 bytes) taken for
    # what the immediate can describe (1 << 15)
    cases = [(False, 16, False), (False, 32, False), (False, 1 << 15, False)]
    got, table, _ = student_esr(run, cases)
    return got[0] == table[cases[0]] and got[1:] == [None, None]


def mistake_write_recover_swapped(run, runs):
    # each access encoded as the one with its write and recover flags exchanged
    cases = [(True, 1, False), (False, 1, True), (True, 8, False)]
    got, table, _ = student_esr(run, cases)
    return got == [table[(r, s, w)] for w, s, r in cases]


def handler_state(run):
    """(the student's lines as a dict, the report (or None), the grader's
    frame 0 line) of an exercise 2.2 run."""
    s = run.sections()
    return kv_lines(s.get("student", [])), _report(run), " ".join(s.get("stop", []))


def mistake_stopped_at_the_brk(run, runs):
    # frame 0 is in the lab module's own code (where the brk is), and
    # kasan_handler's esr did not exist there
    frame = " ".join(run.sections().get("stop", []))
    kernel = "\n".join(run.sections().get("kernel", []))
    return bool(re.search(r"#0\s+(0x[0-9a-f]+ in )?lab_\w+ \(.*\) at \S*kasan_lab\.c:\d+",
                          frame)) and "ESR 0x" not in kernel


def mistake_address_from_handler_x0(run, runs):
    stud, r, frame = handler_state(run)
    regs = re.search(r"#0\s+(0x[0-9a-f]+ in )?kasan_handler \(regs=(0x[0-9a-f]+)", frame)
    return hex_or_none(stud.get("addr")) == int(regs.group(2), 16) != int(r["addr"], 16)


def mistake_size_field_printed(run, runs):
    stud, r, _ = handler_state(run)
    n = int(stud.get("size"))
    return n != r["size"] and 1 << n == r["size"]


def mistake_pc_of_the_handler(run, runs):
    # the student's pc is the address gdb stopped at in kasan_handler (its
    # breakpoint there), as gdb printed it in the student's own session
    stud, _, _ = handler_state(run)
    lines = "\n".join(run.sections().get("student", []))
    hit = re.search(r"^(?:Temporary b|B)reakpoint (\d+), (?:0x([0-9a-f]+) in )?kasan_handler \(",
                    lines, re.M)
    where = re.search(r"^(?:Temporary b|B)reakpoint %s at 0x([0-9a-f]+):" % hit.group(1),
                      lines, re.M)
    stop = int(hit.group(2) or where.group(1), 16)
    return hex_or_none(stud.get("pc")) == stop
