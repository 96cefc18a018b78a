# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The lines of a KASAN report (6.1 format), one pattern each, without gdb.

What each line of mm/kasan/report.c (print_error_description,
print_track, describe_object_addr, print_memory_metadata) and of
report_sw_tags.c (print_tags) looks like once the tool that read the log
and printk have put their prefixes in front of it, and how a raw line is
cleaned back to the kernel's message (`clean_line`).  The parser
(report.py) reads a log with these; the summary (report_summary.py)
names who allocated and freed with `first_caller`.

    clean("[   12.345678][ T42] BUG: KASAN: use-after-free in f")
    -> "BUG: KASAN: use-after-free in f"
"""

import re
from typing import Any, Callable, Dict, List, Optional, Tuple
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


def detect_mode(text: str) -> Optional[str]:
    """generic / sw-tags / hw-tags from the first boot line in `text`, or None."""
    m = BOOT.search(text)
    return MODES.get(m.group("m"), m.group("m")) if m else None


def first_caller(frames: List[str]) -> Optional[str]:
    """The first frame outside KASAN and the allocator: who allocated/freed."""
    for f in frames:
        name = f.partition("+")[0]
        if not KASAN_INTERNAL.match(name) and not ALLOCATOR.match(name):
            return f
    return frames[-1] if frames else None
