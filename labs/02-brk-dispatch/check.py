"""Lab 2 grader: the brk dispatch chain and the outlined path."""
import re

from kasan import report


def check_count(run):
    m = dict((name, (int(c), int(b))) for name, c, b in re.findall(
        r"^(\S+): (\d+) calls to __hwasan_check_\*, (\d+) brk", run.host, re.M))
    d, k = m.get("swtags"), m.get("swtags-brk")
    if not d or not k:
        tail = run.host[-300:]  # mutation: equivalent (message length)
        return [("counted checks in both modules", False, tail)]
    return [("default kernel: outlined calls, no brk", d[0] > 0 and d[1] == 0, str(d)),
            ("swtags-brk: inline brk, no calls", k[0] == 0 and k[1] > 0, str(k))]


def _report(run):
    reps = report.parse_reports(run.serial)
    return reps[0] if len(reps) == 1 else None


def check_brk(run):
    s = run.sections()
    bt = "\n".join(s.get("backtrace", []))
    frames = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) \(", bt, re.M)
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
             and "kasan_handler" not in bt, bt[:200]),  # mutation: equivalent (message length)
            ("the check was called from lab_uaf", "lab_uaf" in caller, caller),
            ("x0 of kasan_tag_mismatch is the report's address",
             bool(r and m) and m.group(1) == r["addr"], "%s vs %s" % (
                 m and m.group(1), r and r["addr"]))]
