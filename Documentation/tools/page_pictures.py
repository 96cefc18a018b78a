# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The pictures the lab pages include (build/gen/pictures/NAME.rst), each
drawn (Documentation/tools/pictures.py) from a captured run of its lab.

A lab declares its pictures in its steps.toml; nothing here names a lab:

    [[picture]]
    name = "pointer"       the page includes /build/gen/pictures/pointer.rst
    kind = "pointer"       one of KINDS below (labs/lab.py PICTURE_KINDS)
    step = "slab"          the step whose run it is drawn from (kind-specific keys:
                           steps, items, links)

A picture whose run is not captured yet says which command captures it."""

import lzma
import os
import re
import tomllib

from Documentation.tools import pictures
from Documentation.tools.sitelib import indent, read, tree, tree_version, write
from kasan import report as kreport
from labs import exercises
from labs import grade as labgrade
from labs import lab as labdata
from labs import scenarios as labscn
from kasan import modes


def figure(svg, caption):
    """An inline SVG (so the DOM holds its values) with a caption."""
    return (".. raw:: html\n\n   <figure class=\"kt-figure\">%s<figcaption>%s</figcaption>"
            "</figure>\n\n" % (svg.strip(), pictures.esc(caption)))


def not_captured(lab, what):
    return (".. note::\n\n   The picture of %s is drawn from a captured run, which this "
            "machine does not have yet: ``make grade N=%d`` captures it.\n\n"
            % (what, lab.number))


def transcript(lab, step):
    """The kept transcript (labs/LAB/transcripts/), else this machine's."""
    return read(labgrade.stored_path(lab.folder, step)) or \
        read(labgrade.transcript_path(lab.folder, step))


def serial_log(lab, step, control=False):
    """This machine's serial log of a step, else its stored run (runs/)."""
    live = read(labgrade.output_path(lab.folder, step, "control" if control else "serial"))
    if live:
        return live
    path = os.path.join(lab.path("runs"), step + (".control.xz" if control else ".serial.xz"))
    try:
        return lzma.open(path, "rt", errors="replace").read()
    except (OSError, lzma.LZMAError):
        return None


def scenario_report(log, scn):
    reps = exercises.reports_of(log, scn) if log else []
    return reps[0] if reps else None


def draw_pointer(lab, pic):
    t = transcript(lab, pic["step"])
    m = t and re.search(r"Value returned is \$\d+ = \(void \*\) 0x([0-9a-f]{16})", t)
    if not m:
        return not_captured(lab, "the tagged pointer")
    ptr = int(m.group(1), 16)
    return figure(pictures.pointer(ptr), "The pointer kmalloc(123) returned in lab %d's "
                  "captured run (step %s): tag 0x%02x." % (lab.number, pic["step"], ptr >> 56))


def draw_shadow(lab, pic):
    """The kasan-tag section of a gdb step: pointer, shadow address, memory
    tag, as the project's command read them from the kernel."""
    sec = labdata.gdb_sections(transcript(lab, pic["step"]) or "").get("kasan-tag", [])
    kv = dict((k.strip(), v.strip()) for k, _, v in (ln.partition(":") for ln in sec) if _)
    try:
        ptr, shadow = int(kv["pointer"], 16), int(kv["shadow"], 16)
        memtag = kv["memory tag"].split()[0]
    except (KeyError, ValueError, IndexError):
        return not_captured(lab, "an address's way to its shadow byte")
    return figure(pictures.shadow_map(ptr, shadow, memtag), "From the pointer of lab %d's "
                  "captured run (step %s) to its memory tag: the arithmetic of "
                  "kasan_mem_to_shadow(), with the values kasan-tag printed." % (
                      lab.number, pic["step"]))


def missed_strip(lab, log, step, scn, what):
    """No report: draw the shadow the lab module printed before the access."""
    ev = labscn.events(labscn.segments(log).get(scn, []), scn)
    last = {e: kv for e, kv in ev}  # the last line of each event
    sh, ptr, acc, begin = (last.get(k) for k in ("shadow", "ptr", "access", "begin"))
    if not (sh and ptr and acc):
        return ("In this run, ``%s`` on the kernel of step ``%s`` printed no report and no "
                "shadow line to draw.\n\n" % (scn, step))
    return figure(pictures.scenario_strip(
        "%s: not reported" % what, (begin or {}).get("mode", modes.SW_TAGS.name), sh["shadow"],
        int(ptr["addr"], 16), int(sh["granule"]), int(acc["addr"], 16), acc["tag"],
        acc["memtag"]),
        "%s: not reported by this kernel; the shadow is the lab module's line before the "
        "access (make grade N=%d, step %s)." % (what, lab.number, step))


def draw_tag_maps(lab, pic):
    """items: [[step, scenario, what]] -> one memory-state picture each."""
    out = []
    for step, scn, what in pic["items"]:
        log = serial_log(lab, step)
        if log is None:
            out.append(not_captured(lab, what))
            continue
        r = scenario_report(log, scn)
        if r is None or not r["memory_state"]:
            out.append(missed_strip(lab, log, step, scn, what))
            continue
        out.append(figure(pictures.tag_map(r), "%s (%s, captured by make grade N=%d, step %s)."
                          % (what, r["title"], lab.number, step)))
    return "".join(out)


def source_link(where):
    """file:line of a gdb frame -> the line in the 6.1 tree, as :src: links it."""
    from Documentation.tools import ktcite
    m = re.match(r"([\w./-]+\.[chS]):(\d+)$", where)
    if not m or not os.path.exists(os.path.join(tree(), m.group(1))):
        return None
    return ktcite.ELIXIR % (tree_version(tree()), m.group(1), int(m.group(2)))


def draw_brk(lab, pic):
    """steps: [the swtags-brk gdb step, the outlined gdb step]."""
    brk, outl = (transcript(lab, s) for s in pic["steps"])
    if not brk or not outl:
        return not_captured(lab, "the brk path")
    frames = labdata.backtrace(labdata.gdb_sections(brk).get("backtrace", []))
    ins = re.search(r"<(\w+\+\d+)>:\s+(brk\s+#0x[0-9a-f]+)", brk)
    after = re.search(r"pc after=(0x[0-9a-f]+)", brk)
    pc = re.search(r"^pc=(0x[0-9a-f]+)", brk, re.M)
    note = ("then pc = %s, after kasan_handler %s (%+d)" % (
        pc.group(1), after.group(1), int(after.group(1), 16) - int(pc.group(1), 16))
        if pc and after else "")
    if ins:
        frames.append(("%s: %s" % (ins.group(1), ins.group(2)), "the inline check's brk"))
    out = [figure(pictures.chain("swtags-brk: a tag mismatch executes brk", frames,
                                 note, source_link),
                  "The backtrace at kasan_handler in lab %d's captured run, from the brk "
                  "instruction up." % lab.number)]
    caller = re.search(r"^(\w+) \+ (\d+) in section", outl, re.M)
    oframes = labdata.backtrace(labdata.gdb_sections(outl).get("backtrace", []))
    if caller:
        oframes.append(("%s+%s" % (caller.group(1), caller.group(2)),
                        "ret_ip: where the outlined check returns to"))
    out.append(figure(pictures.chain("swtags (default): the outlined check calls", oframes,
                                     link=source_link),
                      "The backtrace at kasan_tag_mismatch in lab %d's captured run."
                      % lab.number))
    return "".join(out)


def lab_link(lab, target):
    """links value "N" or "N#anchor" (lab N's page) or "#anchor" (this page)
    -> (label, href) as the anatomy picture links its parts."""
    num, _, anchor = target.partition("#")
    n = int(num) if num else lab.number
    if n == lab.number:
        return "lab %d" % n, "#" + anchor
    folder = next(lb.folder for lb in labdata.load_all() if lb.number == n)
    return "lab %d" % n, "../%s/index.html%s" % (folder, "#" + anchor if anchor else "")


def draw_anatomy(lab, pic):
    t = transcript(lab, pic["step"])
    if not t:
        return not_captured(lab, "a report's anatomy")
    lines = [kreport.clean(ln) for ln in labdata.split_transcript(t)[1]]
    start = next((i for i, ln in enumerate(lines) if "BUG: KASAN:" in ln), None)
    if start is None:
        return "The captured serial log holds no KASAN report to dissect.\n\n"
    links = {part: lab_link(lab, target) for part, target in pic["links"].items()}
    return figure(pictures.anatomy(lines[start:], links=links), "The uaf report of lab %d's "
                  "captured run (step %s's lines), each part marked with the kasan-decode "
                  "JSON field it fills." % (lab.number, pic["step"]))


def draw_outcomes(lab, pic):
    """Each experiment's measured outcome (the lab's check.py: outcome());
    the teacher edition adds the predictions of the solution tree."""
    try:
        with open(lab.path("student", "predictions.toml"), "rb") as f:
            pred = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        pred = {}
    rows = []
    for step in lab.steps:
        log = serial_log(lab, step["name"])
        got = (lab.module.outcome(log, serial_log(lab, step["name"], control=True))
               if log is not None else None)
        rows.append((step["name"], pred.get(step["name"]) or None, got))
    if not any(got for _, _, got in rows):
        return not_captured(lab, "the experiments' outcomes")
    ids = "%s-%s" % (lab.exercises[0]["id"], lab.exercises[-1]["id"]) if lab.exercises else ""
    measured = figure(pictures.outcomes([(n, None, g) for n, _, g in rows], predictions=False),
                      "Each experiment's outcome, measured from its captured boot, as "
                      "exercises %s classify it." % ids)
    both = figure(pictures.outcomes(rows), "Each experiment's prediction "
                  "(student/predictions.toml) and the outcome measured from its captured "
                  "boot, as exercise %d.k grades it." % lab.number)
    return (".. only:: not teacher\n\n%s\n.. only:: teacher\n\n%s" % (
        indent(measured.splitlines()), indent(both.splitlines())))


def draw_timeline(lab, pic):
    """The granule of a bad address, its tag over time, from kasan-history's
    output in the captured run (the lab's check.py: writes())."""
    lines = labdata.gdb_sections(transcript(lab, pic["step"]) or "").get("history", [])
    ws = lab.module.writes(lines)
    start = re.search(r"going back from instruction (\d+)", "\n".join(lines))
    ptr = re.search(r"pointer tag ([0-9a-f]{2})", "\n".join(lines))
    if not (ws and start and ptr):
        return not_captured(lab, "a granule's tag over time")
    return figure(pictures.tag_timeline(ws, int(start.group(1)), ptr.group(1)),
                  "The granule uaf-realloc reads through its stale pointer, drawn from "
                  "kasan-history's output in this lab's captured run (step %s): each box a "
                  "write of its memory tag, oldest first, then the bad access." % pic["step"])


KINDS = {"pointer": draw_pointer, "shadow": draw_shadow, "tag_maps": draw_tag_maps, "brk": draw_brk,
         "anatomy": draw_anatomy, "outcomes": draw_outcomes, "timeline": draw_timeline}
assert set(KINDS) == set(labdata.PICTURE_KINDS)  # one list of kinds, checked here


def pictures_pages():
    """Every lab's declared pictures, drawn into build/gen/pictures/."""
    for lab in labdata.load_all():
        for pic in lab.spec.get("picture", []):
            write("pictures/%s.rst" % pic["name"], KINDS[pic["kind"]](lab, pic))
