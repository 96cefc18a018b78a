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

This module is the one callers import: what a line looks like (the
patterns, `clean`, FIELDS and KEYS) lives in report_format.py and the
human summary and syzbot's title in report_summary.py, and both are
importable from here too (`report.summary`, `report.clean`).
"""

import re
from typing import Dict, Iterable, Iterator, List, Optional

from kasan.report_format import (
    ACCESS, ALLOCATOR, ANSI, ASYNC_LINE, BOOT, BUG, CACHE, FIELDS, FREE, HW, JUNK,
    KASAN_INTERNAL, KEYS, KMSG_DICT, LOCATED, MODES, NESTED_END, NESTED_START, NO_SHADOW,
    OBJECT, PREFIX, REGION, REPORTING, ROW, SEP, SW, TAGS, TRACK, Report, ReportError,
    _frame, _name, _num, caller_of, clean, clean_line, detect_mode, first_caller, split_lines)
from kasan.report_summary import invalid_memory, summary, syzkaller_title

# What callers use as report.NAME: the parser, and what they have always
# found here of the format and the summary.
__all__ = ["parse_reports", "iter_reports", "chunk_reports", "Parser", "Report",
           "ReportError", "FIELDS", "KEYS", "MODES", "SW", "HW", "ASYNC_LINE", "PREFIX", "SEP",
           "clean", "clean_line", "split_lines", "detect_mode", "caller_of", "first_caller",
           "summary", "syzkaller_title", "invalid_memory"]

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


def _new(line_no: int, caller: Optional[str], boot: Optional[str]) -> Report:
    r: Report = dict.fromkeys(FIELDS)
    r.update(alloc_stack=[], free_stack=[], call_trace=[], memory_state=[],
             truncated=False, interleaved=False, caller=caller, problems=[], line=line_no)
    r["_boot"], r["_seen"], r["offset_n"], r["_async"] = boot, set(), None, False
    # the section order reached; the stack ended; the call trace is past
    # the reporting code
    r["_rank"], r["_ended"], r["_past"] = 0, False, False
    return r


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
