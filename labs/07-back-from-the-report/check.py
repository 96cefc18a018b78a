# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 7 grader: kasan-history on replays of uaf, uaf-realloc and oob-right,
and the two exercises (reverse execution to the free; the tag's write)."""
import os
import re

from labs import exercises, whyread
from labs.lab import backtrace
from labs.whyread import BACK, why_json, why_verdict

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE_C = os.path.join(os.path.dirname(HERE), "module", "kasan_lab.c")
WRITE = re.compile(r"^write (\d+): ([0-9a-f]{2})\s+([\w-]+)\s+by (\S+) at (\S+)\s+"
                   r"\(instruction (\d+)\)$")
START = re.compile(r"going back from instruction (\d+)")
ICOUNT = re.compile(r"instruction count = (\d+)")


def writes(lines):
    """kasan-history's writes: [{n, value, kind, fn, where, icount, chain}]."""
    out = []
    for i, ln in enumerate(lines):
        m = WRITE.match(ln.strip())
        if m:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            out.append({"n": int(m.group(1)), "value": m.group(2), "kind": m.group(3),
                        "fn": m.group(4), "where": m.group(5), "icount": int(m.group(6)),
                        "chain": [c.strip() for c in nxt.split("<-")]})
    return out


def history(run):
    """(writes, start icount, back icount, the verdict line) of a run."""
    lines = run.sections().get("history", [])
    text = "\n".join(lines)
    start, back = START.search(text), [BACK.match(ln) for ln in lines]
    back = next((m for m in back if m), None)
    verdict = next((ln for ln in lines if ln.startswith("stopped")), "")
    return (writes(lines), start and int(start.group(1)), back and int(back.group(1)),
            verdict)


def the_report(run):
    reps = run.reports()
    return reps[0] if len(reps) == 1 else None


def common(run, ws, start, back):
    """What every history must show: the first write going back stored the
    memory tag the report printed, and the command came back to the report."""
    r = the_report(run)
    return [
        ("one report on the serial log", r is not None, "%d reports" % len(
            run.reports())),
        ("write 1 stored the memory tag the report printed (%s)" % (r and r["memory_tag"]),
         bool(ws) and r is not None and ws[0]["value"] == r["memory_tag"],
         "writes %s" % [w["value"] for w in ws]),
        ("kasan-history returned to the instruction it started from",
         start is not None and back == start, "started %s, back at %s" % (start, back)),
        ("every write going back is earlier than the one before",
         all(a["icount"] > b["icount"] for a, b in zip(ws, ws[1:])) and
         all(w["icount"] < (start or 0) for w in ws), str([w["icount"] for w in ws])),
    ]


def asked_by(w, fn, via):
    """The write's chain ends in the lab module's fn, through `via`."""
    return w["chain"][-1:] == [fn] and via in w["chain"]


def check_uaf(run):
    ws, start, back, verdict = history(run)
    r = the_report(run)
    res = common(run, ws, start, back)
    res.append(("write 1: the free (fe), asked for by kfree in lab_uaf",
                bool(ws) and ws[0]["kind"] == "free" and ws[0]["value"] == "fe"
                and asked_by(ws[0], "lab_uaf", "kfree"), str(ws[:1])))
    res.append(("the last write: the allocation that gave the pointer its tag, asked for "
                "by lab_uaf", bool(ws) and r is not None and ws[-1]["kind"] == "allocation"
                and ws[-1]["value"] == r["pointer_tag"] and ws[-1]["chain"][-1:] == ["lab_uaf"]
                and verdict.startswith("stopped: write"), "%s; %s" % (ws[-1:], verdict)))
    return res


def check_realloc(run):
    ws, start, back, verdict = history(run)
    r = the_report(run)
    kinds = [(w["kind"], w["value"]) for w in ws]
    res = common(run, ws, start, back)
    ok = r is not None and len(ws) == 3 and \
        kinds == [("allocation", r["memory_tag"]), ("free", "fe"),
                  ("allocation", r["pointer_tag"])] and \
        all(w["chain"][-1:] == ["lab_uaf_realloc"] for w in ws)
    res.append(("going back: the reallocation (the new tag), the free (fe), the first "
                "allocation (the pointer's tag), all asked for by lab_uaf_realloc", ok,
                str(kinds)))
    return res


def check_redzone(run):
    ws, start, back, verdict = history(run)
    res = common(run, ws, start, back)
    res.append(("write 1 was made by an allocation, a free or the creation of the slab",
                bool(ws) and ws[0]["kind"] in ("allocation", "free", "new-slab"), str(ws[:1])))
    res.append(("the walk back ended with a reason",
                verdict.startswith("stopped"), verdict or "no verdict line"))
    return res


def source_line(fn, starts):
    """The first line of kasan_lab.c in function `fn` whose text starts with
    `starts` (after indentation), read from the source; None if none."""
    lines = open(MODULE_C).read().splitlines()
    start = next(i for i, ln in enumerate(lines) if re.match(
        r"static (noinline )?\w+ %s\(" % fn, ln))
    for i in range(start, len(lines)):
        if lines[i].strip().startswith(starts):
            return i + 1
        if lines[i] == "}":
            break
    return None


def check_object(run):
    """kasan-object at the report: the report's object and cache, and its
    allocation and free stacks read back from the stack ring and depot."""
    return whyread.object_checks(run, the_report(run))


# What the verdict names, as "word at kasan_lab.c:LINE", and where each
# line is in the source: (function, the text its line starts with).
SAID = re.compile(r"(allocation|kfree|reallocation|used|stored|loaded) at kasan_lab\.c:(\d+)")


def why_checks(run, kind, want):
    """kasan-why's timeline and verdict against the report and the source:
    want maps a verdict word to (function, line text) of kasan_lab.c."""
    r = the_report(run)
    verdict, start, back, data = why_verdict(run)
    ev = data.get("events", [])
    lines = {k: source_line(fn, text) for k, (fn, text) in want.items()}
    said = dict(SAID.findall(verdict))
    acc = next((e for e in ev if e.get("kind") == "access"), {})
    return check_object(run) + [
        ("one report on the serial log", r is not None, "%d reports" % len(run.reports())),
        ("the verdict: %s" % kind, verdict.startswith(kind + ":"),
         verdict or "no verdict line"),
        ("the verdict names the module's lines (%s)" % ", ".join(
            "%s %s" % kv for kv in lines.items()),
         all(lines.values()) and all(str(lines[k]) == said.get(k) for k in lines),
         str(said)),
        ("the access's pointer and memory tags are the report's",
         r is not None and acc.get("text", "").endswith(
             "pointer tag %s, memory tag %s" % (r["pointer_tag"], r["memory_tag"])),
         acc.get("text", "no access event")),
        ("the events are oldest first", bool(ev) and [e["icount"] for e in ev] == sorted(
            e["icount"] for e in ev) and all(e["icount"] < (start or 0) for e in ev),
         str([e.get("icount") for e in ev])),
        ("kasan-why returned to the instruction it started from (text and json)",
         start is not None and back == start and data.get("back") == start,
         "started %s, back at %s" % (start, back)),
    ]


def check_why(run):
    fn = "lab_uaf_realloc"
    return why_checks(run, "use after free, the slot reused", {
        "allocation": (fn, "p = kmalloc("), "kfree": (fn, "kfree(p)"),
        "reallocation": (fn, "q = kmalloc("),
        "used": (fn, 'pr_info("%s value=%d\\n", scn, READ_ONCE(p[0]))')})


FIELD = {"allocation": ("lab_uaf_field", "p = kmalloc("), "kfree": ("lab_uaf_field", "kfree(p)"),
         "stored": ("lab_holder_set", "WRITE_ONCE(h->buf, p)"),
         "loaded": ("lab_holder_peek", "char *p = READ_ONCE(h->buf)"),
         "used": ("lab_holder_peek", "return READ_ONCE(p[0])")}


def check_field(run):
    return why_checks(run, "use after free", FIELD)


def kfree_line(fn="lab_uaf"):
    """The line of kasan_lab.c where `fn` calls kfree(), read from the source."""
    lines = open(MODULE_C).read().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("static void %s(" % fn))
    for i in range(start, len(lines)):
        if lines[i].strip().startswith("kfree("):
            return i + 1
        if lines[i] == "}":
            break
    return None


def code_lines(name):
    """The student's gdb file NAME without its comment lines, read in the
    sandbox (labs/exercises.py); "" when it cannot be read."""
    try:
        text = exercises.student_text(__file__, name)
    except ValueError:
        return ""
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))


def ex_freed(run, _runs):
    sec = run.sections()
    frames = backtrace(sec.get("student", []))
    state = backtrace(sec.get("state", []))     # the grader's bt where your file left the replay
    mine = next((where for fn, where in frames if fn == "lab_uaf"), None)
    there = next((where for fn, where in state if fn == "lab_uaf"), None)
    line = kfree_line()
    src = code_lines("freed.gdb")
    used = re.search(r"^\s*(reverse-\w+|rc|rs|rn|rsi|rni)\b", src, re.M)
    return [
        ("your file runs the replay backwards (reverse-continue, reverse-step, ...)",
         bool(used), "no reverse command in student/freed.gdb"),
        ("the replay is stopped in kfree, called from lab_uaf (the grader's bt there)",
         bool(state) and state[0][0] == "kfree" and there is not None,
         "frames %s" % ([fn for fn, _ in state[:6]] or "(none: the replay was not stopped)")),
        ("its lab_uaf frame is the kfree line of kasan_lab.c (%s)" % line,
         there is not None and there.endswith("kasan_lab.c:%s" % line), "there: %s" % there),
        ("your backtrace shows that frame", mine is not None and mine == there,
         "you showed %s" % mine),
    ]


def ex_tagwrite(run, runs):
    sec = run.sections()
    student, state = sec.get("student", []), sec.get("state", [])
    mine = next((int(x.group(1)) for x in map(ICOUNT.search, student) if x), None)
    there = next((int(x.group(1)) for x in map(ICOUNT.search, state) if x), None)
    ref = runs.get("uaf")
    want = history(ref)[0][:1] if ref is not None else []
    src = code_lines("tagwrite.gdb")
    return [
        # gdb takes any unambiguous start of a command's name: kasan-h is it
        ("your file finds it without kasan-history", bool(src.strip()) and
         not re.search(r"\bkasan-h", src), "student/tagwrite.gdb uses kasan-history"
         if src.strip() else "student/tagwrite.gdb has no command"),
        ("the replay is stopped at the instruction that wrote the tag (kasan-history's "
         "write 1: instruction %s)" % (want[0]["icount"] if want else "?"),
         bool(want) and there == want[0]["icount"],
         "the replay is at instruction %s" % there),
        ("you printed that count (monitor info replay)", mine is not None and mine == there,
         "you printed %s" % mine),
        ("and printed the instruction (x/i $pc)",
         any(re.search(r"=> 0x[0-9a-f]+ <", ln) for ln in student), "no x/i line"),
    ]


def ex_field(run, runs):
    """7.3: the student's $load and $store are the load and the store
    kasan-why found on the same recording (the field step's run)."""
    sec = run.sections()
    state = sec.get("state", [])
    got = dict(re.findall(r"^(load|store): 0x([0-9a-f]+)$", "\n".join(state), re.M))
    ins = [ln for ln in state if re.match(r"^\s*0x[0-9a-f]+ <", ln)]
    ref = runs.get("field")
    ev = why_json(ref).get("events", []) if ref is not None else []
    want = {k: next(("%016x" % e["pc"] for e in ev if e.get("kind") == k and "pc" in e), None)
            for k in ("load", "store")}
    src = code_lines("field.gdb")
    used = re.search(r"^\s*(reverse-\w+|rc|rs|rn|rsi|rni)\b", src, re.M)
    return [
        ("your file runs the replay backwards (reverse-continue, reverse-step, ...)",
         bool(used), "no reverse command in student/field.gdb"),
        ("$load is kasan-why's load of the stale pointer (%s)" % want["load"],
         want["load"] is not None and got.get("load") == want["load"],
         "your $load: %s" % got.get("load")),
        ("$store is kasan-why's store of it into the struct field (%s)" % want["store"],
         want["store"] is not None and got.get("store") == want["store"],
         "your $store: %s" % got.get("store")),
        ("the grader's gdb shows a load and a store there (x/i)",
         len(ins) == 2 and re.search(r":\s+ldr", ins[0]) is not None and
         re.search(r":\s+st", ins[1]) is not None, "; ".join(ins) or "no x/i lines"),
    ]


# -- Known mistakes (mistakes.toml): what the work shows when a student
# makes one.  Each detector reads what the student's gdb file left in the
# replay (its own section, and the grader's `state` section taken where it
# stopped) and compares it with the facts of the runs: the report on the
# serial log, kasan-history's and kasan-why's answers on the same
# recording.  None holds a right value of its own.

def state_frames(run):
    """The function names of the grader's bt where the file left the replay."""
    return [fn for fn, _ in backtrace(run.sections().get("state", []))]


def mistake_freed_stepped_out_to_the_caller(run, runs):
    names = state_frames(run)
    return bool(names) and names[0].startswith("lab_") and "kfree" not in names


def mistake_freed_at_the_tag_write(run, runs):
    names = state_frames(run)
    return "memset" in names[0] and "kfree" in names[1:]


def mistake_freed_in_the_kasan_free_hook(run, runs):
    names = state_frames(run)
    return "kasan" in names[0] and "memset" not in names[0] and "kfree" in names[1:]


def tagwrite_counts(run, runs):
    """(the count the student printed, the count where the replay is, the
    state's x/i line, kasan-history's writes in step 1's run)."""
    sec = run.sections()
    student, state = sec.get("student", []), sec.get("state", [])
    mine = next((int(x.group(1)) for x in map(ICOUNT.search, student) if x), None)
    there = next((int(x.group(1)) for x in map(ICOUNT.search, state) if x), None)
    xi = next((ln for ln in state if re.match(r"=> 0x[0-9a-f]+", ln)), "")
    return mine, there, xi, history(runs["uaf"])[0]


def mistake_tagwrite_shadow_of_the_tagged_pointer(run, runs):
    # the watchpoint never fired: back at the start of the recording
    _, there, _, _ = tagwrite_counts(run, runs)
    student = run.sections().get("student", [])
    return there == 0 and any(re.search(r"[Ww]atchpoint \d+: ", ln) for ln in student)


def mistake_tagwrite_the_allocation_write(run, runs):
    _, there, _, ws = tagwrite_counts(run, runs)
    return any(w["kind"] == "allocation" and w["icount"] == there for w in ws[1:])


def mistake_tagwrite_count_read_at_the_report(run, runs):
    mine, there, _, _ = tagwrite_counts(run, runs)
    return None not in (mine, there) and mine > there


def mistake_tagwrite_stepped_back_onto_the_store(run, runs):
    _, there, xi, ws = tagwrite_counts(run, runs)
    return there == ws[0]["icount"] - 1 and re.search(r":\s+st", xi) is not None


XI = re.compile(r"^\s*0x([0-9a-f]+) <([\w.]+)\+(\d+)>:\s+(.*)$")


def field_state(run, runs):
    """({"load", "store": value}, {address: (function, offset, asm)} of the
    grader's x/i lines, {"load", "store": kasan-why's pc}, kasan-why's json)
    of an exercise 7.3 run: what the student's $load and $store are, and
    what kasan-why found on the same recording."""
    sec = run.sections()
    state = sec.get("state", [])
    got = {k: int(v, 16) for k, v in re.findall(r"^(load|store): 0x([0-9a-f]+)$",
                                                "\n".join(state), re.M)}
    # where the grader's gdb could not print them (its kasan-modsyms fails
    # at the start of the recording): the values carried from the student's
    carried = re.findall(r"^KT-CARRY (load|store) 0x([0-9a-f]+)$",
                         "\n".join(sec.get("student", [])), re.M)
    got = got or {k: int(v, 16) for k, v in carried}
    ins = {int(m.group(1), 16): (m.group(2), int(m.group(3)), m.group(4))
           for m in map(XI.match, state) if m}
    data = why_json(runs["field"])
    want = {k: next((e["pc"] for e in data.get("events", []) if e.get("kind") == k
                     and "pc" in e), None) for k in ("load", "store")}
    return got, ins, want, data


def mistake_field_store_is_the_stop_pc(run, runs):
    got, _, want, _ = field_state(run, runs)
    return want["store"] is not None and got["store"] == want["store"] + 4


def report_place(run):
    """(function, offset) of the bad access, as the report names it."""
    fn, off = the_report(run)["location"].split("/")[0].split("+")
    return fn, int(off, 16)


def mistake_field_load_is_the_bad_read(run, runs):
    got, ins, _, _ = field_state(run, runs)
    return ins[got["load"]][:2] == report_place(run)


def mistake_field_last_load_before_the_read(run, runs):
    got, ins, want, data = field_state(run, runs)
    fn, off, asm = ins[got["load"]]
    dest = re.match(r"ldr\w*\s+[xw](\d+),", asm)
    base = re.fullmatch(r"[xw](\d+)", data["reg"])
    return (fn, off) != report_place(run) and fn == report_place(run)[0] and \
        dest is not None and base is not None and dest.group(1) != base.group(1)


def mistake_field_gdb_watchpoint_drops_the_tag(run, runs):
    got, _, want, _ = field_state(run, runs)
    student = run.sections().get("student", [])
    return want["store"] is not None and got["store"] != want["store"] and \
        any(re.match(r"(Hardware )?(read |acc )?[Ww]atchpoint \d+: ", ln) for ln in student)
