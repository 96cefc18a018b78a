# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Parse KASAN reports (6.1 format: generic, software and hardware tag-based).

Pure functions over text, usable without gdb.  The input may be any kernel
log a developer has: a serial console (with line noise, CRLF), dmesg in its
output forms (plain, -T, -x, --time-format=iso, --color), journalctl -k,
raw /dev/kmsg records; arm64 ("Call trace:") or x86 ("Call Trace:").  The
format follows mm/kasan/report.c (print_error_description, print_track,
describe_object_addr, print_memory_metadata) and report_sw_tags.c
(print_tags).

The parser streams: `Parser.feed(line)` returns the reports that line
finished, so a log of any size is read in constant memory.

    for r in parse_reports(text): print(r["title"])
"""

import re
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple
from kasan import modes

Report = Dict[str, Any]

# What the tool that read the log put before printk's own prefix.
OUTER = re.compile(
    r"^(?:"
    r"\d+,\d+,\d+,[^;]*;"                                      # /dev/kmsg record
    r"|[a-z0-9]+ *:[a-z]+ *: "                                 # dmesg -x
    r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[,.]\d+)?(?:[+-]\d\d:?\d\d|Z)?"
    r"(?: \S+ kernel:)? "                                      # dmesg iso / journalctl iso
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ kernel: "  # journalctl -k
    r"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] ?"  # dmesg -T
    r")")
# printk's prefix: log level, timestamp, caller id -- each followed by one
# space, which belongs to the prefix (the memory-state rows start with their
# own ' ' or '>' mark).
PREFIX = re.compile(r"^(?:<\d>)?(?:\[\s*\d+\.\d+\] ?)?(?:\[\s*(?P<caller>[TC]\d+)\] ?)?")
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
JUNK = re.compile(r"[^\t\x20-\x7e]")
KMSG_DICT = re.compile(r"^ [A-Z][A-Z0-9_]*=")
SEP = re.compile(r"^={40,}$")
BUG = re.compile(r"BUG: KASAN: (?P<type>[\w-]+(?: or [\w-]+)?)"
                 r"(?: in (?P<loc>\S+)(?: \[(?P<mod>[\w-]+)\])?)?")
NUM = r"\d{1,40}"
ACCESS = re.compile(r"^(?P<rw>Read|Write)(?: of size (?P<size>%s))? at addr "
                    r"(?P<addr>[0-9a-f]+) by task (?P<task>.+)/(?P<pid>%s)$" % (NUM, NUM))
FREE = re.compile(r"^Free of addr (?P<addr>[0-9a-f]+) by task (?P<task>.+)/(?P<pid>%s)$" % NUM)
TAGS = re.compile(r"^Pointer tag: \[(?P<ptr>[0-9a-f]{2})\], memory tag: \[(?P<mem>[0-9a-f]{2})\]$")
TRACK = re.compile(r"^(?P<what>Allocated|Freed) by task (?P<pid>%s):$" % NUM)
OBJECT = re.compile(r"^The buggy address belongs to the object at (?P<obj>[0-9a-f]+)$")
CACHE = re.compile(r"^which belongs to the cache (?P<cache>\S+) of size (?P<size>%s)$" % NUM)
LOCATED = re.compile(r"^The buggy address is located (?P<n>%s) bytes "
                     r"(?P<rel>inside|to the right|to the left) of$" % NUM)
REGION = re.compile(r"^(?P<size>%s)-byte region \[(?P<start>[0-9a-f]+), (?P<end>[0-9a-f]+)\)$"
                    % NUM)
ROW = re.compile(r"^(?P<mark>[ >])?(?P<addr>[0-9a-f]{16}): (?P<bytes>(?:[0-9a-f]{2}[ ]?)+)$")
# arm64 " foo+0x10/0x20 [mod]"; x86 " ? foo+0x10/0x20 [mod]" ("?": unreliable)
FRAME = re.compile(r"^\s*(?P<q>\? )?(?P<sym>[\w.$]+)\+(?P<off>0x[0-9a-f]+)/(?P<size>0x[0-9a-f]+)"
                   r"(?: \[(?P<mod>[\w-]+)\])?(?: .*)?$")
BOOT = re.compile(r"KernelAddressSanitizer initialized \((?P<m>[\w-]+)")
# Another oops printed inside a report: its own stack is not the report's.
NESTED_START = re.compile(r"^(?:-+\[ cut here \]-+|WARNING: CPU: |Internal error: |"
                          r"Unable to handle kernel |kernel BUG at |Oops: )")
NESTED_END = re.compile(r"^-+\[ end trace [0-9a-f]+ \]-+$")
KASAN_INTERNAL = re.compile(r"^(kasan_|__kasan|____kasan|__hwasan|kasan_report|"
                            r"dump_backtrace|show_stack|dump_stack|print_report|"
                            r"print_address_description|kasan_check|check_region|"
                            r"__asan|__check|do_bad_area|do_debug_exception|el1|"
                            r"__dump_stack|asm_exc|exc_|handle_bug|report_bug)")
ALLOCATOR = re.compile(r"^(save_stack_info|kmalloc_trace|__kmalloc\w*|kmem_cache_alloc\w*|"
                       r"kmem_cache_free\w*|kfree|__kmem_cache_free|slab_free\w*|krealloc|"
                       r"__do_krealloc|kmalloc_large(?:_node)?|kfree_sensitive|"
                       r"free_large_kmalloc|"
                       r"kvfree\w*|ksize|__ksize|__free_pages|free_pages|do_slab_free|"
                       r"__kasan\w*|____kasan\w*)$")
# The order of a report's sections: a line of an earlier one after a later
# one began is another report's line.
RANK = {"head": 0, "gap": 0, "call": 1, "alloc": 2, "free": 3, "aux": 3, "object": 4, "memory": 5}
# Frames that end a stack (the entry from user space, a kthread's start): a
# frame after one, in the same stack, is another stack's; so is a second
# kasan_save_stack, the first frame of an alloc or free stack.
LAST_FRAME = re.compile(r"^(?:el0t_(?:64|32)_(?:sync|irq|error)|ret_from_fork|"
                        r"entry_SYSCALL_64_after_hwframe|__primary_switched|"
                        r"secondary_startup_64(?:_no_verify)?)$")
STACKS = {"call": "call_trace", "alloc": "alloc_stack", "free": "free_stack"}
NESTED_FIRST = "-WIUkO"   # the first characters of NESTED_START's lines
# The frames that print a report: at the top of its call trace, never below
# the code that made the bad access.
REPORTING = re.compile(r"^(?:dump_backtrace|show_stack|dump_stack\w*|print_report|"
                       r"kasan_report\w*|print_address_description)$")
# Reports that have no memory state to print: complete without one.
NO_SHADOW = ("wild-memory-access", "user-memory-access", "null-ptr-deref")
# hw-tags in kasan.mode=async: the CPU only flagged that a check failed; 6.1
# prints this line instead of the access, tags and memory state
# (mm/kasan/report.c, kasan_report_async, built for CONFIG_KASAN_HW_TAGS only).
ASYNC_LINE = "Asynchronous fault: no details available"
MODES = {s: m.kernel for m in modes.ALL for s in (m.name, m.kernel)}
SW, HW = modes.SW_TAGS.kernel, modes.HW_TAGS.kernel  # as 6.1 prints them
LIMIT = 20  # digits of a u64: a size, pid or offset longer than this is not a kernel's

FIELDS = ("title", "bug_type", "access", "size", "addr", "pointer_tag", "memory_tag",
          "function", "location", "module", "task", "pid", "cache", "object_size",
          "object", "offset", "relation", "alloc_stack", "free_stack", "call_trace",
          "memory_state", "buggy_row", "mode", "truncated", "interleaved", "caller",
          "problems", "line")

# What each key of a report means (kasan-decode --help prints this).
KEYS = {
    "title": "KASAN: TYPE [Read|Write] in FUNCTION (the project's title)",
    "bug_type": "the type in the BUG line: slab-out-of-bounds, use-after-free, ...",
    "access": "read, write or free",
    "size": "bytes accessed (0 for a free)",
    "addr": "the bad address, as printed (tagged in tag-based modes)",
    "pointer_tag": "tag-based modes: the pointer's tag (hex), else null",
    "memory_tag": "tag-based modes: the memory's tag (hex), else null",
    "function": "the function that made the bad access (for a free: the caller of the "
                "free function)",
    "location": "the BUG line's symbol+offset/size",
    "module": "the module of the BUG line's symbol, or null",
    "task": "the task's name", "pid": "the task's pid",
    "cache": "the slab cache of the object, or null",
    "object_size": "the size of the object's region in bytes, or null",
    "object": "the object's address, or null",
    "offset": "the bad address from the region's start, in bytes (negative: left of it)",
    "relation": "inside, to the right or to the left",
    "alloc_stack": "frames of the allocation stack (symbol+off/size [module] [file:line])",
    "free_stack": "frames of the free stack", "call_trace": "frames of the report's call trace",
    "memory_state": "the memory-state rows: {addr, bytes, buggy}",
    "buggy_row": "the row marked '>', or null",
    "mode": "generic, sw-tags or hw-tags (as the boot line spells it): from the boot line "
            "before the report, else from the report itself",
    "truncated": "true if the report ends before its last section",
    "interleaved": "true if lines of another report were mixed in and could not be "
                   "separated (no printk caller ids)",
    "caller": "the printk caller id (T123, C1) of the report's lines, or null",
    "problems": "fields that could not be read, one message each",
    "line": "the line number of the BUG line in the input",
}


class ReportError(Exception):
    """A report field the caller asked for cannot be read."""


def clean_line(raw: str) -> Tuple[Optional[str], str]:
    """(printk caller id or None, the message) of one raw log line."""
    line = raw.rstrip()
    if not line.isascii() or not line.isprintable():
        line = JUNK.sub("", ANSI.sub("", line)).rstrip()
    if line[:1] != "[" or line[1:2] not in " 0123456789":   # not "[  12.345678]"
        line = OUTER.sub("", line, count=1)  # mutation: equivalent (OUTER is anchored: one match at most)
    m = PREFIX.match(line)
    return (m.group("caller") if m else None), line[m.end():] if m else line


def clean(line: str) -> str:
    return clean_line(line)[1]


def split_lines(text: str) -> List[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _new(line_no: int, caller: Optional[str], boot: Optional[str]) -> Report:
    r: Report = dict.fromkeys(FIELDS)
    r.update(alloc_stack=[], free_stack=[], call_trace=[], memory_state=[],
             truncated=False, interleaved=False, caller=caller, problems=[], line=line_no)
    r["_boot"], r["_seen"], r["offset_n"], r["_async"] = boot, set(), None, False
    # the section order reached; the stack ended; the call trace is past
    # the reporting code
    r["_rank"], r["_ended"], r["_past"] = 0, False, False
    return r


def _frame(text: str) -> Optional[str]:
    m = FRAME.match(text)
    if not m or m.group("q"):
        return None
    f = m.group("sym") + "+" + m.group("off") + "/" + m.group("size")
    return f + (" [%s]" % m.group("mod") if m.group("mod") else "")


def _num(r: Report, field: str, digits: Optional[str]) -> Optional[int]:
    if digits is None:
        return None
    if len(digits) > LIMIT or int(digits) >= 1 << 64:
        r["problems"].append("%s: a %d-digit value, larger than any u64" % (field, len(digits)))
        return None
    return int(digits)


SUFFIX = re.compile(r"\.(?:isra|constprop|part|cold|llvm)(?:\.\d+)*$")


def _name(frame: str) -> str:
    name = frame.partition("+")[0].partition(" ")[0]
    return SUFFIX.sub("", name) if "." in name else name


def caller_of(location: Optional[str], frames: List[str],
              skip: Optional[Callable[[str], bool]] = None) -> Optional[str]:
    """The first frame after the reporting function (`location`'s symbol)
    that is not KASAN, the allocator or `skip`: who made the bad free."""
    fn = _name(location) if location else None
    names = [_name(f) for f in frames]
    start = names.index(fn) + 1 if fn in names else 0
    for name in names[start:]:
        if not KASAN_INTERNAL.match(name) and not ALLOCATOR.match(name) and \
                not (skip and skip(name)):
            return name
    return None


def _finish(r: Report, mode_hint: Optional[str]) -> Report:
    boot = r.pop("_boot")
    is_async = r.pop("_async")
    for k in ("_seen", "_section", "_rank", "_ended", "_past"):
        r.pop(k, None)
    if is_async:
        r["mode"] = HW
    elif r["pointer_tag"] is not None:
        r["mode"] = boot if boot in (SW, HW) else \
            (mode_hint if mode_hint in (SW, HW) else SW)
    else:
        r["mode"] = boot or mode_hint or "generic"
    loc = r["location"] or ""
    r["function"] = _name(loc) if loc else None
    fn = r["function"]
    if fn is None or ALLOCATOR.match(fn) or REPORTING.match(fn) or fn.startswith("__"):
        # Frees (and kfree_sensitive's ksize) are reported inside the
        # allocator; name its caller, as syzkaller does.  A kasan_* name
        # on the BUG line is where the access was (6.1's KUnit cases in
        # mm/kasan/kasan_test.c: kasan_global_oob_right, kasan_bitops_tags,
        # and kmalloc_large_oob_right beside 6.1's kmalloc_large in
        # mm/slab_common.c): it stays.
        r["function"] = caller_of(r["location"], r["call_trace"]) or r["function"]
    acc = {"read": " Read", "write": " Write"}.get(r["access"], "")
    r["title"] = "KASAN: %s%s in %s" % (r["bug_type"], acc, r["function"] or "?")
    if r["object"] and r["offset_n"] is not None and r["relation"]:
        n = r["offset_n"]
        r["offset"] = {"inside": n, "to the right": (r["object_size"] or 0) + n,
                       "to the left": -n}[r["relation"]]
    del r["offset_n"]
    if r["call_trace"] and r["location"] and \
            r["location"] not in (f.partition(" ")[0] for f in r["call_trace"]):
        # The BUG line's location is a frame of its call trace, always: a
        # trace without it is another report's.
        r["interleaved"] = True
    if is_async:
        r["truncated"] = r["truncated"] or not r["call_trace"]
    elif r["addr"] is None or (r["access"] != "free" and not r["memory_state"]
                               and r["bug_type"] not in NO_SHADOW):
        r["truncated"] = True
    return r


def detect_mode(text: str) -> Optional[str]:
    """generic / sw-tags / hw-tags from the first boot line in `text`, or None."""
    m = BOOT.search(text)
    return MODES.get(m.group("m"), m.group("m")) if m else None


class _Stream:
    """The report being read from one printk caller (or from all, without ids)."""

    def __init__(self) -> None:
        self.r: Optional[Report] = None
        self.section: Optional[str] = None
        self.nested = False
        self.cut: Optional[Report] = None   # the report this one's BUG line cut short


class Parser:
    """Feed lines, get reports.  With printk caller ids the lines of reports
    printed at once by several CPUs or tasks are separated by id."""

    def __init__(self, mode_hint: Optional[str] = None) -> None:
        self.mode_hint = MODES.get(mode_hint or "", mode_hint)
        self.boot: Optional[str] = None
        self.streams: Dict[Optional[str], _Stream] = {}
        self.no = 0
        self.open = False     # is any report being read?

    def _close(self, s: _Stream, truncated: bool = False) -> List[Report]:
        """Finish the stream's report.  A report that another one's BUG line
        cut short is resumed when that one ends at its separator: the rest of
        its lines come after (a report printed inside another)."""
        r = s.r
        assert r is not None
        r["truncated"] = r["truncated"] or truncated
        out = []
        cut = s.cut
        s.r, s.section, s.nested, s.cut = None, None, False, None
        if cut is not None:
            if truncated or r["interleaved"]:
                cut["interleaved"] = cut["interleaved"] or r["interleaved"]
                out.append(_finish(cut, self.mode_hint))
            else:
                cut["interleaved"], cut["truncated"] = True, False
                s.r, s.section = cut, cut.pop("_section")
        out.append(_finish(r, self.mode_hint))
        return out

    def feed(self, raw: str) -> List[Report]:
        """The reports that this line finished (usually none)."""
        self.no += 1
        if "\x00" in raw:
            raw = raw.replace("\x00", "")     # UTF-16 text, NUL noise
        kasan = "KASAN" in raw
        if kasan or "KernelAddressSanitizer" in raw:
            m = BOOT.search(raw)
            if m:
                self.boot = MODES.get(m.group("m"), m.group("m"))
        elif not self.open:
            return []      # the fast path: outside a report, a line without KASAN
        caller, line = clean_line(raw)
        if line[:1] == " " and KMSG_DICT.match(line):
            return []
        body = line.strip()
        if not body and raw.strip() and not JUNK.sub("", ANSI.sub("", raw)).strip():
            return []      # a line of line noise only: not the report's blank line
        s = self.streams.get(caller)
        if s is None:
            if caller is not None and caller not in self.streams and \
                    None in self.streams and self.streams[None].r is not None:
                s = self.streams[None]   # ids appear mid-report: keep reading it
            else:
                s = self.streams.setdefault(caller, _Stream())
        out: List[Report] = []
        m = BUG.search(line) if kasan else None
        if m and body.startswith("BUG: KASAN:"):
            if s.r is not None:
                if s.cut is not None:
                    out.append(_finish(s.cut, self.mode_hint))
                s.r["truncated"], s.r["_section"] = True, s.section
                s.cut = s.r
            s.r = _new(self.no, caller, self.boot)
            s.r["bug_type"] = m.group("type")
            s.r["location"], s.r["module"] = m.group("loc"), m.group("mod")
            s.section, s.nested = "head", False
            self.open = True
            return out
        r = s.r
        if r is None:
            return out
        if s.nested:
            if NESTED_END.match(body):
                s.nested = False
            return out
        if s.section in STACKS and "+0x" in body:
            self._frame_line(r, s, body)
            return out
        if body[:1] in NESTED_FIRST and NESTED_START.match(body):
            s.nested = True
            return out
        if body[:1] == "=" and SEP.match(body):
            if s.section != "head" or r["addr"]:
                # Every report prints a call trace: one that ends before it
                # is cut short (or the separator opens another report).
                # So is one whose last section is a call trace that did not
                # reach its first frame (the entry from user space, a kthread).
                out += self._close(s, truncated=not r["call_trace"] or (
                    r["_rank"] == RANK["call"] and not r["_ended"]))
                self.open = any(x.r is not None for x in self.streams.values())
            return out
        self._field(r, s, line, body)
        return out

    @staticmethod
    def _enter(r: Report, s: _Stream, section: str) -> None:
        """Begin a section; one that comes before the current one in a
        report's order means lines of another report are mixed in."""
        if RANK[section] < r["_rank"]:
            r["interleaved"] = True
        r["_rank"], r["_ended"] = max(r["_rank"], RANK[section]), False
        s.section = section

    def _once(self, r: Report, key: str) -> None:
        """A section a report prints once: seen twice, lines were mixed in."""
        if key in r["_seen"]:
            r["interleaved"] = True
        r["_seen"].add(key)

    def _field(self, r: Report, s: _Stream, line: str, body: str) -> None:
        if not body:
            if s.section in ("call", "alloc", "free", "aux"):
                s.section = "gap"    # a blank line ends a stack
            return
        mm = ACCESS.match(body) or FREE.match(body)
        if mm:
            self._once(r, "access")
            if r["_rank"]:
                r["interleaved"] = True
            if r["addr"] is None:
                free = mm.re is FREE
                r.update(access="free" if free else mm.group("rw").lower(),
                         size=0 if free else _num(r, "size", mm.group("size") or "0"),
                         addr=mm.group("addr"), task=mm.group("task"),
                         pid=_num(r, "pid", mm.group("pid")))
            return
        if body == ASYNC_LINE:
            r["_async"] = True
            return
        mm = TAGS.match(body)
        if mm:
            self._once(r, "tags")
            if r["_rank"]:
                r["interleaved"] = True
            r["pointer_tag"], r["memory_tag"] = mm.group("ptr"), mm.group("mem")
            return
        if body in ("Call trace:", "Call Trace:"):
            self._once(r, "call")
            self._enter(r, s, "call")
            return
        if body in ("<TASK>", "</TASK>", "<IRQ>", "</IRQ>"):
            return
        mm = TRACK.match(body)
        if mm:
            self._enter(r, s, "alloc" if mm.group("what") == "Allocated" else "free")
            self._once(r, s.section or "")
            return
        if body.endswith("potentially related work creation:"):
            self._enter(r, s, "aux")
            return
        mm = OBJECT.match(body)
        if mm:
            self._once(r, "object")
            r["object"] = mm.group("obj")
            self._enter(r, s, "object")
            return
        mm = CACHE.match(body)
        if mm:
            r["cache"], r["object_size"] = mm.group("cache"), _num(r, "object_size",
                                                                   mm.group("size"))
            return
        mm = LOCATED.match(body)
        if mm:
            r["offset_n"], r["relation"] = _num(r, "offset", mm.group("n")), mm.group("rel")
            return
        mm = REGION.match(body)
        if mm:
            r["object_size"] = r["object_size"] or _num(r, "object_size", mm.group("size"))
            return
        if body == "Memory state around the buggy address:":
            self._once(r, "memory")
            self._enter(r, s, "memory")
            return
        if s.section == "memory":
            mm = ROW.match(line)
            if mm:
                row = {"addr": mm.group("addr"), "bytes": mm.group("bytes").split(),
                       "buggy": mm.group("mark") == ">"}
                r["memory_state"].append(row)
                if row["buggy"]:
                    r["buggy_row"] = row
            return
        if body == "The buggy address belongs to the variable:":
            self._enter(r, s, "object")     # a global: its symbol+off/size follows
            return
        if s.section in ("head", "gap", "memory") and _frame(body):
            r["interleaved"] = True         # a frame outside any stack
            return

    @staticmethod
    def _frame_line(r: Report, s: _Stream, body: str) -> None:
        """A line of a stack: its frame, and whether it is in order."""
        f = _frame(body)
        if not f:
            return
        stack = r[STACKS[s.section or "call"]]
        name = _name(f)
        call = s.section == "call"
        if r["_ended"] or (stack and name == "kasan_save_stack") or (
                call and r["_past"] and REPORTING.match(name)):
            r["interleaved"] = True   # a frame out of its stack's order
        if call and not r["_past"] and not KASAN_INTERNAL.match(name):
            r["_past"] = True         # below the reporting code now
        if not r["_ended"] and LAST_FRAME.match(name):
            r["_ended"] = True
        stack.append(f)

    def close(self) -> List[Report]:
        """The reports still open at the end of the input: truncated."""
        out: List[Report] = []
        for s in self.streams.values():
            if s.r is not None:
                out += self._close(s, truncated=True)
        return out


def iter_reports(lines: Iterable[str], mode_hint: Optional[str] = None) -> Iterator[Report]:
    """Reports as they finish, from an iterable of raw lines (streaming)."""
    p = Parser(mode_hint)
    for line in lines:
        yield from p.feed(line)
    yield from p.close()


def chunk_reports(path: str, start: int, end: int, line0: int, boot: Optional[str],
                  mode_hint: Optional[str] = None) -> List[Report]:
    """The reports whose BUG line is in bytes [start, end) of the file at
    `path` (start and end at line starts; line0 lines before start; `boot`
    the mode of the last boot line before it): read on past `end` until
    they are finished, so that chunks decoded apart give what one pass
    gives.  A report open at `start` belongs to the chunk before."""
    p = Parser(mode_hint)
    p.boot, p.no = boot, line0
    out: List[Report] = []
    pos, last = start, None
    with open(path, "rb") as f:
        f.seek(start)
        for raw in f:
            if pos >= end:
                if last is None:
                    last = p.no
                if not p.open:
                    break
            pos += len(raw)
            out += p.feed(raw.decode("utf-8", errors="replace"))
        else:
            out += p.close()
    last = p.no if last is None else last
    return [r for r in out if line0 < r["line"] <= last]


def parse_reports(text: str, mode_hint: Optional[str] = None) -> List[Report]:
    """Return a list of report dicts (see FIELDS), in log order.

    A report that ends early (cut log, another report starting inside it) is
    returned with truncated=True and the fields it had."""
    return sorted(iter_reports(split_lines(text), mode_hint), key=lambda r: r["line"])


def first_caller(frames: List[str]) -> Optional[str]:
    """The first frame outside KASAN and the allocator: who allocated/freed."""
    for f in frames:
        name = f.partition("+")[0]
        if not KASAN_INTERNAL.match(name) and not ALLOCATOR.match(name):
            return f
    return frames[-1] if frames else None


# syzkaller's convention for titles (pkg/report's Linux KASAN formats): the
# function is the first frame -- the BUG line's, then the call trace's -- that
# is not KASAN, the allocator, or a mem*/str* and other helper.
SYZ_SKIP = re.compile(r"kasan|__asan|__hwasan|__sanitizer|check_memory_region|dump_stack|"
                      r"print_address_description|^(?:__)?(?:mem(?:cpy|cmp|set|chr|move)|"
                      r"str(?:cmp|ncmp|cpy|lcpy|ncpy|scpy|len|nstr|nlen|chr|rchr))\b|"
                      r"copy_(?:to|from)_user|dump_backtrace|show_stack|print_report")
SYZ_FREE_SKIP = re.compile(r"kmem_|slab_|kfree|vunmap|vfree|free_large_kmalloc")


def syzkaller_title(r: Report) -> str:
    """The title syzbot would give this report."""
    if r["access"] == "free" or re.search(r"(?:double|invalid)-free", r["bug_type"] or ""):
        frames = ([r["location"]] if r["location"] else []) + r["call_trace"]
        fn = next((n for n in map(_name, frames)
                   if not SYZ_SKIP.search(n) and not SYZ_FREE_SKIP.search(n)), None)
        return "KASAN: invalid-free in %s" % (fn or "?")
    frames = ([r["location"]] if r["location"] else []) + r["call_trace"]
    fn = next((n for n in map(_name, frames) if not SYZ_SKIP.search(n)), None)
    acc = {"read": " Read", "write": " Write"}.get(r["access"], "")
    return "KASAN: %s%s in %s" % (r["bug_type"], acc, fn or "?")


def invalid_memory(r: Report) -> str:
    """What a memory tag of 0xfe says about the bad address, from what the
    report knows: 6.1 writes KASAN_TAG_INVALID for a freed slab object and
    slab memory no object holds (KASAN_SLAB_FREE, KASAN_SLAB_REDZONE), a free
    page, a kmalloc_large redzone and invalid vmalloc space (KASAN_PAGE_FREE,
    KASAN_PAGE_REDZONE, KASAN_VMALLOC_INVALID; mm/kasan/kasan.h), and it is
    sw-tags' initial shadow (KASAN_SHADOW_INIT, include/linux/kasan.h)."""
    if r["cache"]:
        return ("in a slab of cache %s: a freed object, or slab memory no object holds "
                "(a redzone, a slot never allocated)" % r["cache"])
    return ("not a slab object: a free page, a kmalloc_large redzone or invalid vmalloc "
            "space%s" % (", or shadow nothing has tagged since boot" if r["mode"] == SW else ""))


def summary(r: Report) -> str:
    """A short human explanation of one report (the decoder's default output)."""
    lines = [r["title"]]
    if r["access"] == "free":
        lines.append("  free of %s by %s/%s" % (r["addr"], r["task"], r["pid"]))
    elif r["access"] and r["mode"] == HW and not r["size"]:
        # 6.1's hw-tags report has no size: the CPU's tag check fault gives none
        lines.append("  %s at %s by %s/%s (hw-tags: the CPU's fault gives no size)" % (
            r["access"], r["addr"], r["task"], r["pid"]))
    elif r["access"]:
        lines.append("  %s of %d byte(s) at %s by %s/%s" % (
            r["access"], r["size"] or 0, r["addr"], r["task"], r["pid"]))
    if r["mode"] == HW and r["pointer_tag"] is None and not r["access"]:
        lines.append("  asynchronous (kasan.mode=async): the CPU only recorded that a tag "
                     "check failed -- no address, no tags; the stack shows where the kernel "
                     "noticed, not where the bad access was")
    elif r["mode"] in (SW, HW):
        where = "the shadow byte" if r["mode"] == SW else "the tag in tag storage"
        lines.append("  pointer tag %s vs memory tag %s: the top byte of the pointer "
                     "must equal %s of the granule" % (r["pointer_tag"], r["memory_tag"], where))
        if r["memory_tag"] == "fe":
            lines.append("  memory tag fe = KASAN_TAG_INVALID: %s" % invalid_memory(r))
        elif r["pointer_tag"] == r["memory_tag"]:
            lines.append("  the tags match: not a tag mismatch, but a %s the allocator "
                         "refused (e.g. a pointer into, not to the start of, an object)"
                         % ("free" if r["access"] == "free" else "access"))
        elif r["pointer_tag"] not in (None, "ff"):
            lines.append("  memory tag %s is another allocation's tag: the memory was "
                         "reused (or the pointer strayed into a neighbour)"
                         % r["memory_tag"])
    else:
        lines.append("  generic mode: no tags; a shadow byte describes 8 bytes: 00 all "
                     "accessible, 01-07 only the first that many, a poison value "
                     "(f1-ff, ca, cb) none, and says why (fc slab redzone, fb/fa freed "
                     "object, ...)")
    if r["cache"]:
        lines.append("  object %s in cache %s (%d bytes), access at offset %s (%s)" % (
            r["object"], r["cache"], r["object_size"] or 0, r["offset"], r["relation"]))
    if r["alloc_stack"]:
        lines.append("  allocated at %s" % first_caller(r["alloc_stack"]))
    if r["free_stack"]:
        lines.append("  freed at %s" % first_caller(r["free_stack"]))
    if r["buggy_row"]:
        lines.append("  %s row %s: %s" % (
            "memory tags" if r["mode"] == HW else "shadow", r["buggy_row"]["addr"],
            " ".join(r["buggy_row"]["bytes"])))
    for p in r["problems"]:
        lines.append("  (unreadable field: %s)" % p)
    if r["interleaved"]:
        lines.append("  (lines of another report are mixed in: fields may belong to either)")
    if r["truncated"]:
        lines.append("  (report is truncated: fields after the cut are missing)")
    return "\n".join(lines)
