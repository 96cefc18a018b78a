"""Parse KASAN reports (6.1 format, generic and software tag-based).

Pure functions over text, usable without gdb: a serial log or dmesg, with or
without printk timestamps, CRLF, other printk lines interleaved.  The format
follows mm/kasan/report.c (print_error_description, print_track,
describe_object_addr, print_memory_metadata) and report_sw_tags.c
(print_tags).

    for r in parse_reports(text): print(r["title"])
"""

import re
from typing import Any, Dict, List, Optional

Report = Dict[str, Any]

# printk prefixes: log level, timestamp, caller id -- each followed by one
# space, which belongs to the prefix (the memory-state rows start with their
# own ' ' or '>' mark).
PREFIX = re.compile(r"^(?:<\d>)?(?:\[\s*\d+\.\d+\] ?)?(?:\[\s*[TC]\d+\] ?)?")
SEP = re.compile(r"^={40,}$")
BUG = re.compile(r"BUG: KASAN: (?P<type>[\w-]+)(?: in (?P<loc>\S+)(?: \[(?P<mod>[\w-]+)\])?)?")
ACCESS = re.compile(r"^(?P<rw>Read|Write)(?: of size (?P<size>\d+))? at addr "
                    r"(?P<addr>[0-9a-f]+) by task (?P<task>.+)/(?P<pid>\d+)$")
FREE = re.compile(r"^Free of addr (?P<addr>[0-9a-f]+) by task (?P<task>.+)/(?P<pid>\d+)$")
TAGS = re.compile(r"^Pointer tag: \[(?P<ptr>[0-9a-f]{2})\], memory tag: \[(?P<mem>[0-9a-f]{2})\]$")
TRACK = re.compile(r"^(?P<what>Allocated|Freed) by task (?P<pid>\d+):$")
OBJECT = re.compile(r"^The buggy address belongs to the object at (?P<obj>[0-9a-f]+)$")
CACHE = re.compile(r"^which belongs to the cache (?P<cache>\S+) of size (?P<size>\d+)$")
LOCATED = re.compile(r"^The buggy address is located (?P<n>\d+) bytes "
                     r"(?P<rel>inside|to the right|to the left) of$")
REGION = re.compile(r"^(?P<size>\d+)-byte region \[(?P<start>[0-9a-f]+), (?P<end>[0-9a-f]+)\)$")
ROW = re.compile(r"^(?P<mark>[ >])(?P<addr>[0-9a-f]{16}): (?P<bytes>(?:[0-9a-f]{2}[ ]?)+)$")
FRAME = re.compile(r"^\s*(?P<sym>[\w.$]+)\+(?P<off>0x[0-9a-f]+)/(?P<size>0x[0-9a-f]+)"
                   r"(?: \[(?P<mod>[\w-]+)\])?$")
KASAN_INTERNAL = re.compile(r"^(kasan_|__kasan|____kasan|__hwasan|kasan_report|"
                            r"dump_backtrace|show_stack|dump_stack|print_report|"
                            r"print_address_description|kasan_check|check_region|"
                            r"__asan|__check|do_bad_area|do_debug_exception|el1)")

FIELDS = ("title", "bug_type", "access", "size", "addr", "pointer_tag", "memory_tag",
          "function", "location", "module", "task", "pid", "cache", "object_size",
          "object", "offset", "relation", "alloc_stack", "free_stack", "call_trace",
          "memory_state", "buggy_row", "mode", "truncated", "line")


class ReportError(Exception):
    """Input that is not a log at all (e.g. binary garbage)."""


def clean(line: str) -> str:
    line = line.rstrip("\r\n").rstrip()
    return PREFIX.sub("", line, count=1)  # mutation: equivalent (PREFIX is anchored at ^)


def split_lines(text: str) -> List[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _new(line_no: int) -> Report:
    r: Report = dict.fromkeys(FIELDS)
    r.update(alloc_stack=[], free_stack=[], call_trace=[], memory_state=[],
             truncated=False, line=line_no)
    return r


def _frame(text: str) -> Optional[str]:
    m = FRAME.match(text)
    if not m:
        return None
    f = m.group("sym") + "+" + m.group("off") + "/" + m.group("size")
    return f + (" [%s]" % m.group("mod") if m.group("mod") else "")


def _finish(r: Report, mode_hint: Optional[str]) -> Report:
    if r["pointer_tag"] is not None:
        r["mode"] = "sw_tags"
    else:
        r["mode"] = mode_hint or "generic"
    loc = r["location"] or ""
    r["function"] = loc.partition("+")[0] if loc else None
    if r["function"] in (None, "kfree", "kmem_cache_free", "__kmem_cache_free",
                         "slab_free", "kfree_sensitive") or \
            (r["function"] or "").startswith("__"):  # mutation: equivalent (None was caught by the first test)
        # Frees are reported at the allocator; name the caller, as syzkaller does.
        for f in r["call_trace"]:
            name = f.partition("+")[0]
            if not KASAN_INTERNAL.match(name) and name not in (
                    "kfree", "kmem_cache_free", "__kmem_cache_free", "slab_free",
                    "kfree_sensitive", "__kasan_slab_free", "slab_free_freelist_hook",
                    "slab_free_hook", "do_slab_free", "____kasan_slab_free"):
                r["function"] = name
                break
    acc = {"read": " Read", "write": " Write"}.get(r["access"], "")
    r["title"] = "KASAN: %s%s in %s" % (r["bug_type"], acc, r["function"] or "?")
    if r["object"] and r["offset_n"] is not None:
        n = r["offset_n"]
        r["offset"] = {"inside": n, "to the right": (r["object_size"] or 0) + n,
                       "to the left": -n}[r["relation"]]
    del r["offset_n"]
    if r["addr"] is None or (r["access"] not in ("free",) and not r["memory_state"]):
        r["truncated"] = True
    return r


def detect_mode(text: str) -> Optional[str]:
    """sw_tags / generic from the boot line, or None."""
    m = re.search(r"KernelAddressSanitizer initialized \((?P<m>[\w-]+)", text)
    if not m:
        return None
    return {"sw-tags": "sw_tags", "generic": "generic", "hw-tags": "hw_tags"}.get(
        m.group("m"), m.group("m"))


def parse_reports(text: str, mode_hint: Optional[str] = None) -> List[Report]:
    """Return a list of report dicts (see FIELDS), in log order.

    A report that ends early (cut log, another report starting inside it) is
    returned with truncated=True and the fields it had."""
    head = text[:4096]  # mutation: equivalent (any sample size near 4096 decides alike)
    printable = sum(c.isprintable() or c in "\r\n\t" for c in head)
    if "\x00" in head or (head and printable < 0.8 * len(head)):
        raise ReportError("input does not look like a kernel log (binary data)")
    mode_hint = mode_hint or detect_mode(text)
    out: List[Report] = []
    r: Optional[Report] = None
    section: Optional[str] = None
    for no, raw in enumerate(split_lines(text), 1):
        line = clean(raw)
        body = line.strip()
        m = BUG.search(line)
        if m and line.lstrip().startswith("BUG: KASAN:"):
            if r is not None:
                r["truncated"] = True
                out.append(_finish(r, mode_hint))
            r = _new(no)
            r["offset_n"] = None
            r["bug_type"] = m.group("type")
            r["location"] = m.group("loc")
            r["module"] = m.group("mod")
            section = "head"
            continue
        if r is None:
            continue
        if SEP.match(body):
            if section != "head" or r["addr"]:
                out.append(_finish(r, mode_hint))
                r, section = None, None
            continue
        mm = ACCESS.match(body)
        if mm and r["addr"] is None:
            r.update(access=mm.group("rw").lower(), size=int(mm.group("size") or 0),
                     addr=mm.group("addr"), task=mm.group("task"), pid=int(mm.group("pid")))
            continue
        mm = FREE.match(body)
        if mm and r["addr"] is None:
            r.update(access="free", addr=mm.group("addr"), task=mm.group("task"),
                     pid=int(mm.group("pid")))
            continue
        mm = TAGS.match(body)
        if mm:
            r["pointer_tag"], r["memory_tag"] = mm.group("ptr"), mm.group("mem")
            continue
        if body == "Call trace:":
            section = "call"
            continue
        mm = TRACK.match(body)
        if mm:
            section = "alloc" if mm.group("what") == "Allocated" else "free"
            continue
        if body.endswith("potentially related work creation:"):
            section = "aux"
            continue
        mm = OBJECT.match(body)
        if mm:
            r["object"], section = mm.group("obj"), "object"
            continue
        mm = CACHE.match(body)
        if mm:
            r["cache"], r["object_size"] = mm.group("cache"), int(mm.group("size"))
            continue
        mm = LOCATED.match(body)
        if mm:
            r["offset_n"], r["relation"] = int(mm.group("n")), mm.group("rel")
            continue
        mm = REGION.match(body)
        if mm:
            r["object_size"] = r["object_size"] or int(mm.group("size"))
            continue
        if body == "Memory state around the buggy address:":
            section = "memory"
            continue
        if section == "memory":
            mm = ROW.match(line)
            if mm:
                row = {"addr": mm.group("addr"), "bytes": mm.group("bytes").split(),
                       "buggy": mm.group("mark") == ">"}
                r["memory_state"].append(row)
                if row["buggy"]:
                    r["buggy_row"] = row
            continue
        f = _frame(body)
        if f and section in ("call", "alloc", "free"):
            {"call": r["call_trace"], "alloc": r["alloc_stack"],
             "free": r["free_stack"]}[section].append(f)
    if r is not None:
        r["truncated"] = True
        out.append(_finish(r, mode_hint))
    return out


ALLOCATOR = re.compile(r"^(save_stack_info|kmalloc_trace|__kmalloc\w*|kmem_cache_alloc\w*|"
                       r"kmem_cache_free|kfree|__kmem_cache_free|slab_free\w*|krealloc|"
                       r"__do_krealloc|kmalloc_large\w*|kfree_sensitive|"
                       r"__kasan\w*|____kasan\w*)$")


def first_caller(frames: List[str]) -> Optional[str]:
    """The first frame outside KASAN and the allocator: who allocated/freed."""
    for f in frames:
        name = f.partition("+")[0]
        if not KASAN_INTERNAL.match(name) and not ALLOCATOR.match(name):
            return f
    return frames[-1] if frames else None


def summary(r: Report) -> str:
    """A short human explanation of one report (the decoder's default output)."""
    lines = [r["title"]]
    if r["access"] == "free":
        lines.append("  free of %s by %s/%s" % (r["addr"], r["task"], r["pid"]))
    elif r["access"]:
        lines.append("  %s of %d byte(s) at %s by %s/%s" % (
            r["access"], r["size"] or 0, r["addr"], r["task"], r["pid"]))
    if r["mode"] == "sw_tags":
        lines.append("  pointer tag %s vs memory tag %s: the top byte of the pointer "
                     "must equal the shadow byte of the granule" %
                     (r["pointer_tag"], r["memory_tag"]))
        if r["memory_tag"] == "fe":
            lines.append("  memory tag fe = KASAN_TAG_INVALID: freed object or redzone")
        elif r["pointer_tag"] == r["memory_tag"]:
            lines.append("  the tags match: not a tag mismatch, but a %s the allocator "
                         "refused (e.g. a pointer into, not to the start of, an object)"
                         % ("free" if r["access"] == "free" else "access"))
        elif r["pointer_tag"] not in (None, "ff"):
            lines.append("  memory tag %s is another allocation's tag: the memory was "
                         "reused (or the pointer strayed into a neighbour)"
                         % r["memory_tag"])
    else:
        lines.append("  generic mode: no tags; the shadow byte says how many of the 8 "
                     "bytes of the granule are accessible (negative = poisoned)")
    if r["cache"]:
        lines.append("  object %s in cache %s (%d bytes), access at offset %s (%s)" % (
            r["object"], r["cache"], r["object_size"] or 0, r["offset"], r["relation"]))
    if r["alloc_stack"]:
        lines.append("  allocated at %s" % first_caller(r["alloc_stack"]))
    if r["free_stack"]:
        lines.append("  freed at %s" % first_caller(r["free_stack"]))
    if r["buggy_row"]:
        lines.append("  shadow row " + r["buggy_row"]["addr"] + ": " +
                     " ".join(r["buggy_row"]["bytes"]))
    if r["truncated"]:
        lines.append("  (report is truncated: fields after the cut are missing)")
    return "\n".join(lines)
