# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The site's pictures, drawn from captured runs: one pure function per
picture, from parsed data to an SVG string (no gdb, no kernel needed).

    pointer(ptr)                      the 64 bits of a tagged pointer
    tag_map(report)                   memory tags around a KASAN report's address
    chain(title, frames)              a chain of frames (lab 2's brk path)
    anatomy(lines, report)            a captured report with its parts marked
    outcomes(rows)                    lab 5: predicted and measured outcome
    lineage_bars(rows, classes)       per seed patch, its added lines by fate in 6.1
    tag_timeline(writes, ...)         lab 7: one granule's memory tag over time

Every picture carries its values as text (readable without colour) and an
aria-label that says what it shows; page_pictures.py feeds them captured data only.
"""

import html
import re
import zlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple
from kasan import modes

FONT = 'font-family="DejaVu Sans Mono, monospace" font-size="12"'


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def svg(width: int, height: int, body: List[str], label: str) -> str:
    """An inline SVG with its description as <title> and aria-label."""
    return ('<svg xmlns="http://www.w3.org/2000/svg" class="kt-picture" width="%d" height="%d" '
            'viewBox="0 0 %d %d" role="img" aria-label="%s" %s><title>%s</title>%s</svg>\n'
            % (width, height, width, height, esc(label), FONT, esc(label), "".join(body)))


def rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "#333",
         extra: str = "") -> str:
    return '<rect x="%g" y="%g" width="%g" height="%g" fill="%s" stroke="%s"%s/>' % (
        x, y, w, h, fill, stroke, extra)


def text(x: float, y: float, s: object, anchor: str = "start", extra: str = "") -> str:
    return '<text x="%g" y="%g" text-anchor="%s"%s>%s</text>' % (x, y, anchor, extra, esc(s))


# ---------------------------------------------------------------- pointer

def pointer(ptr: int) -> str:
    """The 8 bytes of a kernel pointer: the tag byte, the kernel-half byte,
    the address bytes; and the untagged pointer below."""
    ptr &= (1 << 64) - 1
    tag = ptr >> 56
    cells = [(ptr >> (8 * (7 - i))) & 0xFF for i in range(8)]
    body, x0, w = [], 10, 64
    fills = ["#ffcc80", "#cfd8dc"] + ["#e3f2fd"] * 6
    for i, b in enumerate(cells):
        body.append(rect(x0 + i * w, 30, w, 34, fills[i]))
        body.append(text(x0 + i * w + w / 2, 52, "%02x" % b, "middle", ' font-size="16"'))
        body.append(text(x0 + i * w + w / 2, 24, "%d..%d" % (63 - 8 * i, 56 - 8 * i), "middle"))
    body.append(text(x0, 84, "bits 63..56: tag 0x%02x, ignored by the MMU (TBI)" % tag))
    body.append(text(x0 + w, 100, "bits 55..48: ff = kernel half"))
    body.append(text(x0 + 2 * w, 116, "bits 47..0: the address"))
    body.append(text(x0, 140, "untagged (kasan_reset_tag): 0x%016x" % (ptr | (0xFF << 56))))
    return svg(540, 150, body, "pointer 0x%016x: tag 0x%02x in bits 63..56, untagged "
               "0x%016x" % (ptr, tag, ptr | (0xFF << 56)))


# ---------------------------------------------------------------- address to shadow

def shadow_map(ptr: int, shadow: int, memtag: str, shift: int = 4) -> str:
    """From a tagged pointer to its memory tag, in the sw-tags arithmetic:
    untag (top byte ff), shift right by 4 (16-byte granules), add the shadow
    offset -- here derived from the two addresses the kernel showed -- and
    read the byte there."""
    m64 = (1 << 64) - 1
    ptr &= m64
    untagged = ptr | (0xFF << 56)
    shifted = untagged >> shift
    offset = (shadow - shifted) & m64
    rows = [("pointer", ptr, "tag 0x%02x in bits 63..56" % (ptr >> 56)),
            ("untagged", untagged, "top byte set to ff (kasan_reset_tag)"),
            (">> %d" % shift, shifted, "one shadow byte per %d-byte granule" % (1 << shift)),
            ("+ offset", offset, "CONFIG_KASAN_SHADOW_OFFSET (shadow minus the line above)"),
            ("= shadow", shadow, "the address of the granule's memory tag")]
    body = []
    for i, (label, value, note) in enumerate(rows):
        y = 24 + 26 * i
        fill = "#ffcc80" if i == 0 else "#e8f5e9" if i == len(rows) - 1 else "#e3f2fd"
        body.append(text(10, y + 16, label))
        body.append(rect(90, y, 170, 22, fill))
        body.append(text(175, y + 16, "0x%016x" % value, "middle"))
        body.append(text(270, y + 16, note))
    y = 24 + 26 * len(rows) + 8
    body.append(rect(90, y, 170, 24, "#ffe0b2"))
    body.append(text(175, y + 17, "memory tag %s" % memtag, "middle", ' font-weight="bold"'))
    body.append(text(270, y + 17, "the byte there; the access passes when it equals the "
                     "pointer's tag (%02x)" % (ptr >> 56)))
    return svg(720, y + 36, body, "pointer 0x%016x -> untagged 0x%016x -> >> %d -> + offset "
               "0x%016x -> shadow 0x%016x holding memory tag %s" % (
                   ptr, untagged, shift, offset, shadow, memtag))


# ---------------------------------------------------------------- tag maps

def tag_colour(value: str, mode: str) -> str:
    """A fill per shadow value: sw-tags tags get a hue of their own, 0xfe is
    grey (freed/redzone), 0xff white; generic: 00 green, 01..07 light
    green (partly accessible), redzones and freed red."""
    v = int(value, 16)
    if mode == "generic":
        return "#a5d6a7" if v == 0 else "#e8f5e9" if v < 8 else "#ef9a9a"
    if v == 0xFE:
        return "#bdbdbd"
    if v == 0xFF:
        return "#ffffff"
    return "hsl(%d, 70%%, 75%%)" % (zlib.crc32(bytes([v])) % 360)


def tag_map(r: Dict[str, Any], rows_around: int = 1) -> str:
    """The memory-state rows of a report around its buggy row, one cell per
    shadow byte, the pointer's tag above and an arrow at the bad access."""
    mode = r.get("mode") or modes.SW_TAGS.name
    gran = 8 if mode == "generic" else 16
    state = r.get("memory_state") or []
    bi = next((i for i, row in enumerate(state) if row.get("buggy")), None)
    if bi is None:
        raise ValueError("the report has no buggy memory-state row")
    rows = state[max(0, bi - rows_around):bi + rows_around + 1]
    addr = int(r["addr"], 16) | (0xFF << 56) if mode != "generic" else int(r["addr"], 16)
    w, h, left, top = 34, 26, 150, 48
    hit = None
    body = [text(10, 16, "%s: %s of %s byte(s) at 0x%s" % (
        r.get("title", "KASAN report"), r.get("access") or "access", r.get("size") or "-",
        r["addr"]))]
    if mode != "generic":
        body.append(text(10, 34, "pointer tag %s, memory tag %s (one cell = 16 bytes)" % (
            r.get("pointer_tag"), r.get("memory_tag"))))
    else:
        body.append(text(10, 34, "generic: one cell = 8 bytes; 00 accessible, 01..07 "
                         "partly, fa..ff redzone or freed"))
    for j, row in enumerate(rows):
        base = int(row["addr"], 16)
        y = top + j * (h + 6)
        body.append(text(4, y + 17, "%s%016x" % (">" if row.get("buggy") else " ", base)))
        for i, b in enumerate(row["bytes"]):
            x = left + i * w
            body.append(rect(x, y, w - 2, h, tag_colour(b, mode)))
            body.append(text(x + (w - 2) / 2, y + 17, b, "middle"))
            if base + i * gran <= addr < base + (i + 1) * gran:
                hit = (x, y)
    height = top + len(rows) * (h + 6) + 34
    if hit:
        # The accessed granule: a thick red frame, and a label under the strip.
        x, y = hit
        body.append(rect(x - 1, y - 1, w, h + 2, "none", "#c62828", ' stroke-width="3"'))
        body.append('<path d="M%g %g l-6 10 h12 z" fill="#c62828"/>' % (
            x + (w - 2) / 2, height - 30))
        body.append(text(x + (w - 2) / 2, height - 6, "bad access (framed)", "middle",
                         ' fill="#c62828"'))
    shown = "; ".join("%s: %s" % (row["addr"], " ".join(row["bytes"])) for row in rows)
    return svg(left + 16 * w + 70, height, body, "%s; shadow rows %s; the bad access at 0x%s"
               % (r.get("title", "report"), shown, r["addr"]))


def scenario_strip(title: str, mode: str, shadow: str, base: int, granule: int,
                   access: int, ptr_tag: str, memtag: str) -> str:
    """An object's shadow as the lab module printed it before the access
    ("6e*8,fe*1": run-length), with the accessed granule framed: for a bug
    that KASAN did not report, so there is no "Memory state" to draw."""
    cells = [v for part in shadow.split(",") if "*" in part
             for v in [part.split("*")[0]] * int(part.split("*")[1])]
    w, h, left, y = 34, 26, 150, 48
    body = [text(10, 16, title),
            text(10, 34, "pointer tag %s, memory tag %s at the access; no report (one cell = %d "
                 "bytes)" % (ptr_tag, memtag, granule))]
    body.append(text(4, y + 17, " %016x" % base))
    hit = (access - base) // granule if base <= access else -1
    for i, b in enumerate(cells):
        x = left + i * w
        body.append(rect(x, y, w - 2, h, tag_colour(b, mode)))
        body.append(text(x + (w - 2) / 2, y + 17, b, "middle"))
        if i == hit:
            body.append(rect(x - 1, y - 1, w, h + 2, "none", "#c62828", ' stroke-width="3"'))
            body.append(text(x + (w - 2) / 2, y + h + 20, "access (not reported)", "middle",
                             ' fill="#c62828"'))
    return svg(left + max(len(cells), 14) * w + 60, y + h + 30, body, "%s: shadow %s from "
               "0x%016x, access at 0x%016x, pointer tag %s, memory tag %s, not reported" % (
                   title, " ".join(cells), base, access, ptr_tag, memtag))


# ---------------------------------------------------------------- chains

def chain(title: str, frames: Sequence[Tuple[str, str]], note: str = "",
          link: Optional[Callable[[str], Optional[str]]] = None) -> str:
    """Frames [(function, where)] from the innermost up, drawn bottom-up as
    the exception travels: the last frame first.  link(where) gives the URL
    of a frame's source line, if any."""
    w, h, gap = 420, 34, 18
    body = [text(10, 18, title, extra=' font-weight="bold"')]
    order = list(reversed(frames))
    for i, (fn, where) in enumerate(order):
        y = 30 + i * (h + gap)
        url = link(where) if link else None
        node = [rect(10, y, w, h, "#e3f2fd" if i < len(order) - 1 else "#ffcc80"),
                text(20, y + 15, fn), text(20, y + 29, where,
                                           extra=' font-size="10" fill="#37474f"')]
        body += ['<a href="%s">' % esc(url)] + node + ["</a>"] if url else node
        if i < len(order) - 1:
            body.append('<path d="M%g %g v%g" stroke="#333" marker-end="url(#kt-arrow)"/>' % (
                10 + w / 2, y + h, gap - 2))
    y = 30 + len(order) * (h + gap)
    if note:
        body.append(text(10, y, note))
    body.insert(0, '<defs><marker id="kt-arrow" markerWidth="8" markerHeight="8" refX="4" '
                   'refY="8" orient="auto"><path d="M0 0 L8 0 L4 8 z" fill="#333"/></marker></defs>')
    return svg(w + 20, y + 14, body, "%s: %s%s" % (
        title, " -> ".join(fn for fn, _ in order), "; " + note if note else ""))


# ---------------------------------------------------------------- report anatomy

# Report part: (line test, label, the decoder's JSON field, colour)
PARTS = [
    (lambda ln: "BUG: KASAN:" in ln, "title", "bug_type, function", "#ef9a9a"),
    (lambda ln: ln.lstrip().startswith(("Read of", "Write of", "Free of")), "access",
     "access, size, addr, task", "#ffcc80"),
    (lambda ln: ln.lstrip().startswith("Pointer tag:"), "tags", "pointer_tag, memory_tag",
     "#fff59d"),
    (lambda ln: ln.lstrip().startswith(("Allocated by", "Freed by")), "stacks",
     "alloc_stack, free_stack", "#c5e1a5"),
    (lambda ln: any(k in ln for k in ("belongs to the object", "belongs to the cache",
                                      "is located", "-byte region")),
     "object", "object, cache, object_size, offset", "#b3e5fc"),
    (lambda ln: "Memory state" in ln or ln.strip() == "^"
     or re.match(r"^[ >]?[0-9a-f]{16}: ", ln) is not None,
     "memory state", "memory_state, buggy_row", "#d1c4e9"),
]


def anatomy(lines: Sequence[str], max_lines: int = 48,
            links: Optional[Dict[str, Tuple[str, str]]] = None) -> str:
    """A captured report, one text line per report line, each part marked
    with a coloured band and its name and decoder field on the right;
    links: {part: (label, url)} of the page that explains the part."""
    shown = list(lines[:max_lines])
    lh, left = 15, 10
    body: List[str] = []
    seen: Dict[str, int] = {}
    for i, ln in enumerate(shown):
        y = 20 + i * lh
        part = next((p for p in PARTS if p[0](ln)), None)
        if part:
            body.append(rect(left - 4, y - 11, 560, lh, part[3], "none"))
            if part[1] not in seen:
                seen[part[1]] = i
                label, url = (links or {}).get(part[1], ("", ""))
                note = text(580, y, "%s  (JSON: %s)%s" % (
                    part[1], part[2], "  " + label if label else ""), extra=' font-size="11"')
                body += ['<a href="%s">' % esc(url), note, "</a>"] if url else [note]
        body.append(text(left, y, ln[:78], extra=' xml:space="preserve"'))
    height = 30 + len(shown) * lh
    return svg(1080, height, body, "a captured KASAN report, parts marked: " + ", ".join(
        "%s at line %d" % (k, v + 1) for k, v in seen.items()))


# ---------------------------------------------------------------- lab 5 outcomes

def outcomes(rows: Sequence[Tuple[str, Optional[str], Optional[str]]],
             predictions: bool = True) -> str:
    """[(experiment, predicted or None, measured or None)] as a table; with
    predictions=False only the measured column (the student edition)."""
    mx = 360 if predictions else 200
    body = [text(10, 18, "experiment", extra=' font-weight="bold"'),
            text(mx, 18, "measured (this run)", extra=' font-weight="bold"')]
    if predictions:
        body.append(text(200, 18, "predicted", extra=' font-weight="bold"'))
    for i, (name, pred, got) in enumerate(rows):
        y = 40 + i * 24
        ok = pred is not None and pred == got
        fill = ("#e8f5e9" if ok else "#ffebee") if predictions else "#eceff1"
        body.append(rect(4, y - 15, 560, 22, fill, "none"))
        body.append(text(10, y, name))
        mark = ("  = prediction" if ok else "  differs") if predictions else ""
        if predictions:
            body.append(text(200, y, pred or "(none)"))
        body.append(text(mx, y, (got or "(not run)") + mark))
    label = "; ".join("%s%s, measured %s" % (n, " predicted %s" % (p or "none") if predictions
                                             else "", g or "not run") for n, p, g in rows)
    return svg(570, 50 + len(rows) * 24, body, "lab 5 outcomes: " + label)


# ---------------------------------------------------------------- lineage

def lineage_bars(rows: Sequence[Tuple[int, Dict[str, int]]],
                 classes: Sequence[str]) -> str:
    """A stacked bar per patch: its counted added lines by class, with the
    counts written on the bar and in a <title> (readable without colour)."""
    colours = {"same file": "#2e7d32", "moved": "#1565c0", "renamed": "#f9a825",
               "gone": "#9e9e9e"}
    width, bar, gap, left = 640, 18, 8, 70
    out = []
    y = 30
    for i, cls in enumerate(classes):
        x = left + 150 * i
        out.append('<rect x="%d" y="6" width="12" height="12" fill="%s"/>'
                   '<text x="%d" y="16">%s</text>' % (x, colours[cls], x + 16, cls))
    for num, counts in rows:
        total = sum(counts.values()) or 1
        x = left
        out.append('<text x="4" y="%d">patch %02d</text>' % (y + 13, num))
        for cls in classes:
            w = round((width - left - 10) * counts[cls] / total)
            if w:
                out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s">'
                           '<title>patch %02d: %d %s</title></rect>' % (
                               x, y, w, bar, colours[cls], num, counts[cls], cls))
                if w > 22:
                    out.append('<text x="%d" y="%d" fill="#fff">%d</text>' % (
                        x + 3, y + 13, counts[cls]))
            x += w
        y += bar + gap
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'font-family="sans-serif" font-size="11" role="img">%s</svg>\n'
            % (width, y, "".join(out)))


# ---------------------------------------------------------------- lab 7

def tag_timeline(writes: Sequence[Dict[str, Any]], start: int, ptr_tag: str,
                 mode: str = modes.SW_TAGS.name) -> str:
    """One granule's memory tag over time, oldest write first (kasan-history
    lists them newest first), then the bad access: each write a box with
    the value, what wrote it (allocation, free, new slab) and the lab
    module's function that asked; time runs left to right, in order, not to
    scale (the instruction count is under each box)."""
    events = list(reversed(list(writes)))
    w, gap, x0 = 150, 14, 10
    body = []
    for i, e in enumerate(events):
        x = x0 + i * (w + gap)
        body.append(rect(x, 30, w, 40, tag_colour(e["value"], mode)))
        body.append(text(x + w / 2, 56, "tag %s" % e["value"], "middle", ' font-size="15"'))
        body.append(text(x + w / 2, 22, e["kind"], "middle"))
        body.append(text(x + w / 2, 88, (e["chain"] or ["?"])[-1], "middle"))
        body.append(text(x + w / 2, 104, "insn %d" % e["icount"], "middle",
                         ' font-size="10"'))
    x = x0 + len(events) * (w + gap)
    body.append(rect(x, 30, w, 40, "#fff3e0", "#e65100"))
    body.append(text(x + w / 2, 56, "pointer %s" % ptr_tag, "middle", ' font-size="15"'))
    body.append(text(x + w / 2, 22, "bad access", "middle"))
    body.append(text(x + w / 2, 88, "kasan_report", "middle"))
    body.append(text(x + w / 2, 104, "insn %d" % start, "middle", ' font-size="10"'))
    label = "memory tag of one granule over time: %s; then a bad access with pointer tag %s" % (
        ", ".join("%s %s" % (e["kind"], e["value"]) for e in events), ptr_tag)
    return svg(x + w + 10, 116, body, label)
