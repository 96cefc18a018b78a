# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 9 grader: CVE-2023-31436 in 6.1's net/sched/sch_qfq.c, run by the
guest program qfq-lmax (vm/init/qfq_lmax.c) on the 6.1 tree with its fix
(swtags-qfq) and without it (exp-qfq-revert, exp-qfq-revert-generic):
what each run's program lines and KASAN reports say, what kasan-decode and
kasan-why make of them, and exercise 9.1 (labs/forensics.py, as lab 3's)."""
import os
import re

import vm
from kasan import modes, report, tags
from labs import forensics, scenarios, whyread
from labs.exercises import clip, func, reports_of
from labs.forensics import above_first_caller, above_location

SCN = "qfq-lmax"
SOURCE = "net/sched/sch_qfq.c"   # the 6.1 file of the bug, its fix and its report
WANT = scenarios.load_program_expected()[SCN]   # vm/init/expected.toml
CLASS = re.compile(r'^(?:\[[ 0-9.]+\] )?%s: class .*ret=(-?\d+) msg="([^"]*)"' % SCN, re.M)
TAGS_GRANULE, GENERIC_GRANULE = 16, 8   # bytes one shadow byte describes, per mode


def program(run):
    """{event: {key: value}} of the program's own lines in this run."""
    said = {}
    for e, kv in scenarios.program_events(scenarios.segments(run.serial).get(SCN, []), SCN):
        said.setdefault(e, {}).update(kv)
    run.note([ln for ln in run.serial.splitlines()
              if re.search(r"%s: (predict|class|recv|end) " % SCN, ln)])
    return said


def row(variant):
    return WANT["variants"][variant]


def expected_reports(reps, variant):
    """(ok, why): the reports' kinds and function are expected.toml's row."""
    want = row(variant)
    got = [(k, r["function"]) for k, r in zip(scenarios.kinds(reps), reps)]
    ok = scenarios.kinds(reps) == want["reports"] and \
        all(r["function"] in want["functions"] for r in reps)
    return ok, "got %s" % got


def shadow_at(r, addr, granule):
    """The shadow byte (hex) the report's memory state shows for ADDR (untagged)."""
    for x in r["memory_state"]:
        base = int(x["addr"], 16)
        i = (addr - base) // granule
        if 0 <= i < len(x["bytes"]):
            return x["bytes"][i]
    return None


def bad_address(r):
    return tags.untag(int(r["addr"], 16)) if r.get("addr") else None


def past_the_request(r, granule):
    """(ok, why): the bad address's granule is the first past the object's
    accessible part -- the one before it carries the pointer's tag (tags)
    or 00 (generic), its own the redzone's value."""
    a = bad_address(r)
    if a is None:
        return False, "no address"
    before, at = shadow_at(r, a - granule, granule), shadow_at(r, a, granule)
    want_before = r["pointer_tag"] or "00"
    return (before == want_before and at not in (None, want_before),
            "granule before: %s, the bad one: %s" % (before, at))


def check_fixed(run):
    """The 6.1 tree's fix in place: the class is refused, no report."""
    said = program(run)
    reps = run.reports(SCN)
    cls = run.search(CLASS.pattern)
    pred = said.get("predict", {})
    return [
        ("the program ran to its end", "end" in said, "events %s" % sorted(said)),
        ("the predicted group index is past q->groups[] (index > QFQ_MAX_INDEX)",
         pred.get("oob") == "1" and int(pred.get("index", 0)) > int(pred.get("max_index", 99)),
         str(pred)),
        ("the class without TCA_QFQ_LMAX is refused: -EINVAL, 'MTU size out of bounds for qfq'",
         cls is not None and cls.group(1) == str(row("swtags-qfq")["results"]["class"]["ret"])
         and "MTU size out of bounds for qfq" in cls.group(2),
         cls.group(0) if cls else "no class line"),
        ("no KASAN report", "end" in said and not reps, "%d reports" % len(reps)),
        ("the datagram was dropped: no class took it",
         said.get("recv", {}).get("delivered") == "0", str(said.get("recv"))),
    ]


def check_report(run):
    """The fix reverted: two reads past the Qdisc's requested size."""
    said = program(run)
    reps = run.reports(SCN)
    cls = run.search(CLASS.pattern)
    ok, why = expected_reports(reps, "exp-qfq-revert")
    res = [("the class is accepted (ret=0), its lmax taken from lo's MTU",
            cls is not None and cls.group(1) == "0", cls.group(0) if cls else "no class line"),
           ("two reports, slab-out-of-bounds reads in qfq_activate_agg", ok, why)]
    if len(reps) != 2:
        return res
    a, b = reps
    fields = row("exp-qfq-revert")["fields"]
    res += [
        ("the reports' size, cache, offset, memory tag and task are vm/init/expected.toml's",
         all(str(r.get(k)) == str(v) for r, f in zip(reps, fields) for k, v in f.items()),
         "; ".join("size %s cache %s offset %s tag %s task %s" % (
             r["size"], r["cache"], r["offset"], r["memory_tag"], r["task"]) for r in reps)),
        ("the first read is the first granule past the part the pointer's tag covers",
         *past_the_request(a, TAGS_GRANULE)),
        ("the second read is 4 bytes after the first",
         None not in (bad_address(a), bad_address(b)) and bad_address(b) - bad_address(a) == 4,
         "%s, %s" % (a["addr"], b["addr"])),
        ("the object was allocated by qdisc_alloc, from tc_modify_qdisc",
         func(report.first_caller(a["alloc_stack"])) == "qdisc_alloc" and
         "tc_modify_qdisc" in forensics.names(a["alloc_stack"]),
         clip(" ".join(forensics.names(a["alloc_stack"])), 200)),
        ("no free stack: the object is live", not a["free_stack"] and not b["free_stack"],
         clip(str(a["free_stack"]), 120)),
        ("the read is on the send path: qfq_enqueue, __dev_queue_xmit, udp_sendmsg",
         all(f in forensics.names(a["call_trace"])
             for f in ("qfq_enqueue", "__dev_queue_xmit", "udp_sendmsg")),
         clip(" ".join(forensics.names(a["call_trace"])), 300)),
        ("the datagram is still delivered", said.get("recv", {}).get("delivered") == "1",
         str(said.get("recv"))),
    ]
    return res


def check_decode(run):  # mutation: skip (runs kasan-decode on a vmlinux: graded live)
    summaries = [b for b in run.host.split("\n\n") if b.startswith("KASAN:")]
    res = [("kasan-decode explains two reports", len(summaries) == 2, "%d" % len(summaries)),
           ("both: slab-out-of-bounds Read in qfq_activate_agg",
            bool(summaries) and all(b.splitlines()[0] == "KASAN: slab-out-of-bounds Read in "
                                    "qfq_activate_agg" for b in summaries),
            "; ".join(b.splitlines()[0] for b in summaries)),
           ("both: allocated at qdisc_alloc, a line of net/sched/sch_generic.c",
            bool(summaries) and all(re.search(r"^  allocated at qdisc_alloc\+\S+ "
                                              r"net/sched/sch_generic\.c:\d+$", b, re.M)
                                    for b in summaries), clip(run.host, 200))]
    # --json with --vmlinux: the frames get file:line
    objs = forensics.decoded(run, "report")
    top = [next((f for f in o["call_trace"] if " %s:" % SOURCE in f), "") for o in objs]
    res.append(("--vmlinux places each read at a line of %s" % SOURCE,
                len(top) == 2 and all(top), "; ".join(top) or "no frame"))
    # the innermost of those lines, in the tree the kernel was built from
    try:
        with open(os.path.join(vm.source_tree(run.bdir), SOURCE)) as f:
            text = f.read()
    except OSError as e:
        text = ""
        top.append("no source tree: %s" % e)
    inner = [function_at(text, int(m.group(1))) if m else None
             for m in (re.search(r" %s:(\d+)" % SOURCE, f) for f in top)]
    res.append(("each read's innermost line is in qfq_update_start, inlined into the frame",
                len(inner) == 2 and all(fn == "qfq_update_start" for fn in inner) and
                all(f.startswith("qfq_activate_agg+") for f in top), "%s" % inner))
    return res


def check_generic(run):
    """The same source and patch, generic KASAN: the same two reads."""
    reps = run.reports(SCN)
    ok, why = expected_reports(reps, "exp-qfq-revert-generic")
    offsets = [f["offset"] for f in row("exp-qfq-revert")["fields"]]
    res = [("generic: two slab-out-of-bounds reads in qfq_activate_agg", ok, why),
           ("generic reports carry no tags",
            bool(reps) and all(r["pointer_tag"] is None for r in reps), "%d reports" % len(reps)),
           ("the same offsets as the sw-tags kernel's (%s)" % ", ".join(map(str, offsets)),
            [r["offset"] for r in reps] == offsets, str([r["offset"] for r in reps]))]
    if reps:
        ok, why = past_the_request(reps[0], GENERIC_GRANULE)
        at = shadow_at(reps[0], bad_address(reps[0]) or 0, GENERIC_GRANULE)
        res.append(("the shadow byte of the first read is the kmalloc redzone's, fc, the one "
                    "before it 00", ok and at == "fc", why))
    return res


# -- kasan-why on the recording (why.gdb)

def check_why(run):
    """kasan-object and kasan-why at the first report: what they print on
    code they were not written for, bound as printed."""
    reps = run.reports(SCN)
    r = reps[0] if reps else None
    verdict, start, back, data = whyread.why_verdict(run)
    ev = data.get("events", [])
    first = {}
    for e in ev:
        first.setdefault(e.get("kind"), e)
    kinds = ("access", "load", "store", "break", "tag", "redzone")
    acc, load, store, brk, tag, red = (first.get(k, {}) for k in kinds)
    after = sum(e.get("delta", 0) for e in ev if e.get("kind") == "offset" and
                e.get("icount", 0) > store.get("icount", 1 << 62))
    notes = [ln for ln in run.sections().get("why", []) if ln.startswith("note: ")]
    obj = run.sections().get("object", [])
    return [("two reports on the serial log", len(reps) == 2, "%d reports" % len(reps))] + \
        whyread.object_checks(run, r, ("alloc",)) + [
        ("kasan-object finds no free of the object in the stack ring",
         any(ln.startswith("Freed: no entry") for ln in obj), "; ".join(obj[-1:])),
        ("the access's pointer and memory tags are the report's",
         r is not None and acc.get("text", "").endswith(
             "pointer tag %s, memory tag %s" % (r["pointer_tag"], r["memory_tag"])),
         acc.get("text", "no access event")),
        ("the access and the load of the pointer are in qfq_activate_agg, in %s" % SOURCE,
         acc.get("fn") == load.get("fn") == "qfq_activate_agg" and
         acc.get("where", "").startswith(SOURCE + ":"),
         "%s, %s" % (acc.get("where"), load.get("where"))),
        ("the store of the pointer the load read is in qfq_update_agg, at the loaded address",
         store.get("fn") == "qfq_update_agg" and store.get("value") is not None and
         store.get("value") == data.get("pointer", 0) - after and
         load.get("addr") is not None and ("to 0x%016x" % load["addr"]) in store.get("text", ""),
         store.get("text", "no store event")),
        ("the stored pointer plus the offsets after it is the report's address",
         r is not None and store.get("value") is not None and
         "%016x" % (store["value"] + after) == r["addr"], "stored %s %+d, report %s" % (
             store.get("value"), after, r and r["addr"])),
        ("the chain breaks at the computation, on the store's line, and a note says so",
         brk.get("where") is not None and brk.get("where") == store.get("where") and
         brk.get("fn") == store.get("fn") and
         any(n.startswith("note: the chain breaks at ") for n in notes),
         "%s; %s" % (brk.get("text", "no break event"), notes)),
        ("the verdict: out of bounds, the pointer's origin not found",
         verdict.startswith("out of bounds: the pointer (its origin not found)"),
         verdict or "no verdict line"),
        ("the memory's life: qdisc_alloc's allocation gave the granule the pointer's tag",
         r is not None and tag.get("text", "").startswith("memory tag %s " % r["pointer_tag"])
         and "qdisc_alloc" in tag.get("text", ""), tag.get("text", "no tag event")),
        ("then the same allocation's kmalloc redzone: fe, by ____kasan_kmalloc, after the tag",
         r is not None and red.get("text", "").startswith("memory tag %s " % r["memory_tag"]) and
         "____kasan_kmalloc" in red.get("text", "") and "qdisc_alloc" in red.get("text", "") and
         red.get("icount", 0) > tag.get("icount", 1 << 62), red.get("text", "no redzone event")),
        ("kasan-why returned to the instruction it started from (text and json)",
         start is not None and back == start and data.get("back") == start,
         "started %s, back at %s" % (start, back)),
    ]


# -- Exercise 9.1: report forensics on the first report (labs/forensics.py)

def ex_forensics(run, _runs, ex):
    """The student's answer file against kasan-decode's reading of the
    run's first report; cause and fix against answers.toml."""
    return forensics.graded(__file__, os.path.basename(ex["files"][0]), SCN, "qfq-lmax: %s",
                            reports_of(run.serial, SCN))


# -- Known mistakes (mistakes.toml): what the work shows when a student
# makes one.  Each detector reads the student's answer file and compares
# it with what the first report of this run says (and, for an inlined
# function, with the 6.1 source); it never reads a stored answer.

def work(run):
    return forensics.work(__file__, "real-bug.toml", reports_of(run.serial, SCN))


def accessible_bytes(r, granule=TAGS_GRANULE):
    """The bytes of the object before the first granule of the memory state
    that, at or before the bad address, no longer carries the pointer's
    tag: the size the code asked for, rounded up to a granule."""
    a, start = bad_address(r), int(r["object"], 16)
    while a - granule >= start and shadow_at(r, a - granule, granule) not in (
            None, r["pointer_tag"]):
        a -= granule
    return a - a % granule - start


def mistake_reporting_frame(run, runs):
    ans, r = work(run)
    return ans["function"] in above_location(r)


def mistake_allocator_as_alloc_fn(run, runs):
    ans, r = work(run)
    return ans["alloc_fn"] in above_first_caller(r["alloc_stack"])


def mistake_request_as_region(run, runs):
    ans, r = work(run)
    return ans["object_size"] == accessible_bytes(r) != r["object_size"]


def spans(text):
    """{function: (first, last)} of the function definitions of a C file
    TEXT, 1-based lines: from a "{" alone on its line to the next "}"
    alone, named by the first call-like word of the declaration above it."""
    lines, out = text.splitlines(), {}
    for i, ln in enumerate(lines):
        if ln != "{":
            continue
        j = i
        while j > 0 and lines[j - 1].strip() and not lines[j - 1].rstrip().endswith(("}", "*/")):
            j -= 1
        m = re.search(r"(\w+)\(", " ".join(lines[j:i]))
        end = next((k for k in range(i, len(lines)) if lines[k] == "}"), len(lines) - 1)
        if m:
            out[m.group(1)] = (i + 1, end + 1)
    return out


def function_at(text, line):
    """The function of C file TEXT whose body holds LINE, or None."""
    return next((f for f, (a, b) in spans(text).items() if a <= line <= b), None)


def callees(text, fn, depth=3):
    """The functions of a C file TEXT that FN calls, and those they call,
    DEPTH deep: what the compiler may have inlined into it."""
    lines = text.splitlines()
    body = {f: "\n".join(lines[a - 1:b]) for f, (a, b) in spans(text).items()}
    out, todo = set(), [fn]
    for _ in range(depth):
        todo = [c for f in todo for c in re.findall(r"\b(\w+)\(", body.get(f, ""))
                if c in body and c not in out and c != fn]
        out |= set(todo)
    return out


def mistake_inlined_callee(run, runs):
    ans, r = work(run)
    with open(os.path.join(vm.pristine_tree()[0], SOURCE)) as f:
        text = f.read()
    return ans["function"] != r["function"] and \
        ans["function"] not in forensics.names(r["call_trace"]) and \
        ans["function"] in callees(text, r["function"])


# -- Exercise 9.2: the student's fix (student/fix.patch), built as
# student_qfq.ko and run on both kernels of the reverted tree: the
# reproducer after a class at lo's usual MTU, then the held-back trigger,
# whose script is in the grader-only answers.toml (a student's copy runs
# the reproducer only).

FIX_RUNS = [(modes.SW_TAGS.kernel, "ex-fix"), (modes.GENERIC.kernel, "ex-fix-generic"),
            ("held back, " + modes.SW_TAGS.kernel, "ex-fix-heldback"),
            ("held back, " + modes.GENERIC.kernel, "ex-fix-heldback-generic")]


def fix_said(run):
    """[(event, {key: value})] of the program's lines, in order."""
    lines = scenarios.segments(run.serial).get(SCN, [])
    run.note([ln for ln in lines if re.search(r"%s: (module|class|recv) " % SCN, ln)])
    return scenarios.program_events(lines, SCN)


def why_not_built(run):
    """Why student_qfq.ko is not in the run: the patch's rejection, or the
    program's own error line."""
    note = os.path.join(vm.module_dir(run.bdir), "student_qfq.reject")
    if os.path.exists(note):
        return open(note).read().strip()
    m = re.search(r"^KT-ERROR %s: .*$" % SCN, run.serial, re.M)
    return m.group(0) if m else "no module line (see the serial log)"


def fix_checks(label, run):
    """One run of the student's module: built and loaded, the qdisc still
    works at lo's usual MTU, no KASAN report in the whole boot (not only
    between the program's markers: the module is the student's kernel
    code), the program at its end."""
    said = fix_said(run)
    ev = dict(said)
    first_class = next((kv for e, kv in said if e == "class"), {})
    first_recv = next((kv for e, kv in said if e == "recv"), {})
    reps = run.reports()
    return [
        ("%s: your sch_qfq.c built and loaded as student_qfq.ko" % label,
         ev.get("module", {}).get("ret") == "0", why_not_built(run)
         if ev.get("module", {}).get("ret") != "0" else ""),
        ("%s: a class at lo's usual MTU still takes and passes a packet" % label,
         first_class.get("ret") == "0" and first_recv.get("delivered") == "1",
         "class %s ret=%s, its datagram delivered=%s" % (
             first_class.get("classid"), first_class.get("ret"), first_recv.get("delivered"))),
        ("%s: no KASAN report, the program at its end" % label,
         "end" in ev and not reps and run.status == "ok",
         "%d reports: %s" % (len(reps), "; ".join(
             r["bug_type"] + " in " + r["function"] for r in reps)) if reps
         else "%s, events %s" % (run.status, sorted(ev))),
    ]


def ex_fix(run, runs):
    """The fix, live: the reproducer and the held-back trigger on the
    sw-tags and the generic kernel of the reverted tree."""
    res = []
    for label, step in FIX_RUNS:
        if "held back" in label and not forensics.has_answers(__file__):
            res.append(("%s: the trigger you do not see" % label, None, forensics.NOT_HERE))
            continue
        res += fix_checks(label, run if step == "ex-fix" else runs[step])
    return res


def reports_in(runs, step):
    return bool(runs[step].reports()) if step in runs or runs.can_run(step) else False


def mistake_guards_one_path(run, runs):
    """The reproducer runs clean on both kernels, the held-back trigger
    does not: the fix guards the way the reproducer takes, not every way
    an lmax from the MTU reaches a group."""
    if not forensics.has_answers(__file__) or run.reports() or runs["ex-fix-generic"].reports():
        return False
    return reports_in(runs, "ex-fix-heldback") or reports_in(runs, "ex-fix-heldback-generic")


def classes(run):
    """{minor: the class step's answer} of the run's class lines, the last
    of each class."""
    return {kv.get("classid", "").split(":")[-1]: kv.get("ret") for e, kv in fix_said(run)
            if e == "class"}


def loaded(run):
    return dict(fix_said(run)).get("module", {}).get("ret") == "0"


def changed():
    """Does the student's fix.patch change anything (a hunk)?"""
    with open(os.path.join(vm.REPO, vm.initramfs.STUDENT_QFQ["fix"]), errors="replace") as f:
        return re.search(r"^@@ ", f.read(), re.M) is not None


def mistake_check_misses_the_mtu(run, runs):
    """The student's module, changed, still takes the reproducer's class
    at MTU 600000 and still reads past q->groups[]."""
    return changed() and loaded(run) and classes(run).get("1") == "0" and \
        classes(run).get("2") == "0" and bool(run.reports())


def mistake_refuses_every_class(run, runs):
    """The student's module refuses the class at lo's usual MTU."""
    return loaded(run) and classes(run).get("1") not in (None, "0")
