# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 3 grader: each report's fields == what gdb saw == the decoder's output."""
import os
import re

from kasan import report
from labs import forensics, scenarios
from labs.exercises import clip, func, reports_of
from labs.forensics import GRANULE, TAG_INVALID, above_first_caller, above_location, tagged_bytes


def gdb_hits(run):
    """Per `KT-GDB hit`: the kasan-tag fields and the kasan-shadow rows.
    Two hits in a row that saw the same address and the same rows are one
    stop reported twice (gdb can stop again at a breakpoint it resumes
    from: lab 1's slab.gdb); a second report at the same
    tagged address would still be one hit short of the reports."""
    hits = []
    for h in _gdb_blocks(run):
        if not hits or h != hits[-1]:
            hits.append(h)
    return hits


def _gdb_blocks(run):
    hits, cur = [], None
    for line in run.gdb.splitlines():
        if line.startswith("KT-GDB hit"):
            cur = {"rows": []}
            hits.append(cur)
        elif cur is not None:
            m = re.match(r"(pointer tag|memory tag|pointer):\s+(\S+)", line)
            if m:
                cur[m.group(1)] = m.group(2)
            elif re.match(r"[ >][0-9a-f]{16}: ", line):
                cur["rows"].append(line)
    return hits


def check_reports(run):
    reps = run.reports()
    hits = gdb_hits(run)
    titles = [r["title"] for r in reps]
    want = ["KASAN: invalid-access Write in lab_oob_right", "KASAN: use-after-free Read in lab_uaf",
            "KASAN: use-after-free Read in lab_uaf_realloc", "KASAN: invalid-free in lab_invalid_free",
            "KASAN: invalid-access Read in lab_page_tag"]
    res = [("five reports, one per scenario", titles == want, "got %s" % titles),
           ("gdb stopped before each report", bool(reps) and len(hits) == len(reps),
            "%d stops, %d reports" % (len(hits), len(reps)))]
    for r, h in zip(reps, hits):
        name = r["title"].split(" in ")[-1]  # mutation: equivalent (label only)
        res.append(("%s: Pointer tag/memory tag == kasan-tag" % name,
                    (h.get("pointer tag"), h.get("memory tag")) == (r["pointer_tag"], r["memory_tag"]),
                    "gdb %s/%s, report %s/%s" % (h.get("pointer tag"), h.get("memory tag"),
                                                 r["pointer_tag"], r["memory_tag"])))
        rows = ["%s%s: %s" % (">" if x["buggy"] else " ", x["addr"], " ".join(x["bytes"]))
                for x in r["memory_state"]]
        res.append(("%s: memory state rows == kasan-shadow" % name, rows == h["rows"],
                    "report %d rows, gdb %d rows" % (len(rows), len(h["rows"]))))
        res.append(("%s: address in the report == x0 at the stop" % name,
                    r["addr"] is not None and h.get("pointer") == "0x%s" % r["addr"],
                    "%s vs %s" % (h.get("pointer"), r["addr"])))
    return res


def check_decode(run):  # mutation: skip (runs kasan-decode on a vmlinux: graded live)
    summaries = [b for b in run.host.split("\n\n") if b.startswith("KASAN:")]
    res = [("kasan-decode explains five reports", len(summaries) == 5, "%d" % len(summaries))]
    uaf = [b for b in summaries if "lab_uaf_realloc" in b.splitlines()[0]]
    res.append(("uaf-realloc: memory tag is another allocation's, not fe",
                bool(uaf) and "another allocation's tag" in uaf[0], clip(uaf[0], 200) if uaf else ""))
    # --json with --vmlinux: frames inside the kernel get file:line.
    objs = forensics.decoded(run, "reports")
    lines = [f for o in objs for f in o["alloc_stack"] if " mm/kasan/common.c:" in f]
    res.append(("--vmlinux symbolizes allocation frames to mm/kasan/common.c:line",
                len(lines) >= 4, "%d symbolized frames" % len(lines)))
    return res


def check_generic(run):
    reps = run.reports()
    got = [(r["bug_type"], r["function"]) for r in reps]
    want = [("slab-out-of-bounds", "lab_oob_right"), ("use-after-free", "lab_uaf"),
            ("invalid-free", "lab_invalid_free"), ("use-after-free", "lab_page_tag")]
    return [("generic: the same bugs but uaf-realloc is not reported", got == want, "got %s" % got),
            ("generic reports carry no tags",
             bool(reps) and all(r["pointer_tag"] is None for r in reps), "%d reports" % len(reps))]


def check_decode_generic(run):
    return [("kasan-decode reads generic reports", run.host.count("generic mode: no tags") == 4,
             clip(run.host, 200))]  # mutation: equivalent (message length)


def check_history(run):
    """The same write past an object, named from the stack ring: after
    `forget` no record matches (invalid-access); after the slot's past life
    with the pointer's tag, that life's free record names it."""
    right, hist = (reports_of(run.serial, s) for s in ("oob-right", "oob-history"))
    said = {"oob-right": scenarios.kinds(right), "oob-history": scenarios.kinds(hist)}
    ev = scenarios.events(scenarios.segments(run.serial).get("oob-history", []), "oob-history")
    ptrs = {kv.get("name"): kv.get("tag") for e, kv in ev if e == "ptr"}
    found = [kv.get("found") for e, kv in ev if e == "result"]
    res = [("oob-right, after forget: one invalid-access write",
            said["oob-right"] == ["invalid-access write"], "got %s" % said["oob-right"]),
           ("oob-history: the neighbour's slot lived again with another tag (found=1)",
            found == ["1"] and None not in (ptrs.get("a"), ptrs.get("neighbour")) and
            ptrs["a"] != ptrs["neighbour"], "found=%s, tags %s" % (found, ptrs)),
           ("oob-history: the write past the object is named a use-after-free",
            said["oob-history"] == ["use-after-free write"], "got %s" % said["oob-history"])]
    if len(hist) == 1:
        r = hist[0]
        res += [("oob-history: pointer tag is a's, memory tag the live neighbour's",
                 (r["pointer_tag"], r["memory_tag"]) == (ptrs.get("a"), ptrs.get("neighbour")),
                 "report %s/%s, module %s" % (r["pointer_tag"], r["memory_tag"], ptrs)),
                ("oob-history: the free stack is the past life's kfree in the module",
                 func(report.first_caller(r["free_stack"])) in ("retake_slot", "lab_oob_history"),
                 "freed at %s" % report.first_caller(r["free_stack"]))]
    return res


# -- Exercises ---------------------------------------------------------------
# The student's answers against kasan-decode's reading of this run, and
# cause and fix against answers.toml: labs/forensics.py, shared with lab 9.

def ex_mystery(run, _runs, ex):
    """The student's answer file against kasan-decode's reading of this run."""
    name = os.path.basename(ex["files"][0])
    scn = name.rsplit(".", 1)[0]
    reps = reports_of(run.serial, scn)
    if len(reps) != 1:
        return [("%s printed one report" % scn, False,
                 "%d reports (is kasan_mystery.ko loaded? see the serial log)" % len(reps))]
    return forensics.graded(__file__, name, scn, scn + ": %s", reps)


def judged(scn, ans):
    """cause and fix of one mystery, against the lab's answers (answers.toml,
    in the teacher's tree only)."""
    return forensics.judged(__file__, scn, scn + ": %s", ans)


# -- Known mistakes (mistakes.toml): what the work shows when a student
# makes one.  Each detector reads the student's answer file (the loader
# ex_mystery uses) and compares it with what the report of this run says;
# it never reads a stored answer.

def mystery_work(run, scn):
    """(the student's answers, the one report) of scenario scn in this run."""
    reps = reports_of(run.serial, scn)
    if len(reps) != 1:
        raise ValueError("%d reports of %s" % (len(reps), scn))
    return forensics.work(__file__, scn + ".toml", reps)


# 3.1 (mystery-a)

def mistake_mystery_a_fe_read_as_freed(run, runs):
    # a free named where the report has no free stack, over memory tagged fe
    ans, r = mystery_work(run, "mystery-a")
    return "free" in ans["bug"] and ans["bug"] != r["bug_type"] and not r["free_stack"] \
        and r["memory_tag"] == TAG_INVALID


def mistake_mystery_a_request_as_region(run, runs):
    # the granules with the pointer's tag, counted as the region
    ans, r = mystery_work(run, "mystery-a")
    n = tagged_bytes(r)
    return ans["object_size"] == n != r["object_size"]


def mistake_mystery_a_offset_from_the_end(run, runs):
    # the offset counted from the end of the tagged granules
    ans, r = mystery_work(run, "mystery-a")
    n = tagged_bytes(r)
    return n > 0 and ans["offset"] == r["offset"] - n != r["offset"]


def mistake_mystery_a_reporting_frame(run, runs):
    ans, r = mystery_work(run, "mystery-a")
    return ans["function"] in above_location(r)


# 3.2 (mystery-b)

def mistake_mystery_b_free_path_as_free_fn(run, runs):
    ans, r = mystery_work(run, "mystery-b")
    return ans["free_fn"] in above_first_caller(r["free_stack"])


def mistake_mystery_b_access_size_as_object_size(run, runs):
    ans, r = mystery_work(run, "mystery-b")
    return ans["object_size"] == r["size"] != r["object_size"]


def mistake_mystery_b_offset_in_granules(run, runs):
    ans, r = mystery_work(run, "mystery-b")
    return ans["offset"] == r["offset"] // GRANULE != r["offset"]


def mistake_mystery_b_freeing_function_as_culprit(run, runs):
    ans, r = mystery_work(run, "mystery-b")
    return ans["function"] == func(report.first_caller(r["free_stack"])) != r["function"]


# 3.3 (mystery-c)

def mistake_mystery_c_allocator_as_alloc_fn(run, runs):
    ans, r = mystery_work(run, "mystery-c")
    return ans["alloc_fn"] in above_first_caller(r["alloc_stack"])


def mistake_mystery_c_free_sized_as_object(run, runs):
    ans, r = mystery_work(run, "mystery-c")
    return r["access"] == "free" and ans["size"] == r["object_size"] != r["size"]


def mistake_mystery_c_kmalloc_cache_assumed(run, runs):
    ans, r = mystery_work(run, "mystery-c")
    return ans["cache"].startswith("kmalloc-") and not r["cache"].startswith("kmalloc-")


def mistake_mystery_c_type_from_the_trace(run, runs):
    # the bug type read off a reporting function's name (kasan_report_*)
    ans, r = mystery_work(run, "mystery-c")
    said = [n[len("kasan_report_"):].replace("_", "-") for n in above_location(r)
            if n.startswith("kasan_report_")]
    return ans["bug"] in said and ans["bug"] != r["bug_type"]
