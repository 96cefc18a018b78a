# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A parsed KASAN report told in a few lines, and the title syzbot gives it.

Pure functions over a report dict (report.py, FIELDS), usable without gdb:
`summary` is what kasan-report and kasan-decode print by default -- the
title, the access, what the two tags say (a memory tag of fe, equal tags,
another allocation's tag), the object, who allocated and freed it, the
buggy shadow row; `syzkaller_title` names the function as syzkaller's
pkg/report does, so a report can be looked up on syzbot.

    for r in parse_reports(text): print(summary(r))
"""

import re

from kasan.report_format import HW, SW, Report, _name, first_caller


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
