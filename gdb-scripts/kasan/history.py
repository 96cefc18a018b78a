# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-history's arithmetic and text, without gdb (tested offline).

In a replay (vm/record.py) gdb can run the kernel backwards.  kasan-history
puts a watchpoint on the shadow byte of an address and reverse-continues:
each stop is a write to that memory tag.  At a stop the byte holds the
value that write stored (QEMU reports a reverse watchpoint after the
store), and the frames say who wrote it and who asked.  It stops at the
allocation that gave the pointer its tag, then runs forward again to the
instruction it started from (QEMU's `replay_break`).

A frame here is (function, file, line); file is relative to the kernel
tree where it is in the tree.
"""

import re
from typing import List, Optional, Sequence, Tuple

Frame = Tuple[str, str, int]

REPLAY = re.compile(r"Replaying execution '[^']*': instruction count = (\d+)")
NOT_A_REPLAY = ("not a replay: kasan-history runs the kernel backwards, which needs a "
                "recording -- `make record SCENARIO=uaf`, then `make replay` and, in "
                "another terminal, `make gdb`")
NO_SHADOW = ("hw-tags keeps memory tags in MTE tag storage, which gdb 13 cannot read or "
             "watch through QEMU's gdb stub: kasan-history needs a shadow byte (sw-tags, "
             "generic)")
# Where a tag is written from the C code's point of view: memset() and its
# kin do the store for kasan_poison(); the writer is the frame that called them.
LIB = re.compile(r"^(arch/arm64/lib/|lib/string)")
# 6.1's allocation and free paths (mm/kasan/common.c), and the allocators
ALLOC = ("__kasan_slab_alloc", "____kasan_kmalloc", "__kasan_kmalloc", "__kasan_krealloc",
         "__kasan_unpoison_pages", "__kasan_kmalloc_large", "__kasan_unpoison_range",
         "kasan_unpoison")
FREE = ("____kasan_slab_free", "__kasan_slab_free", "__kasan_poison_pages",
        "____kasan_kfree_large", "__kasan_poison_object_data")
# A new slab is poisoned whole (6.1 mm/kasan/common.c, __kasan_poison_slab()):
# before that write the granule was not yet this slab's.
NEW_SLAB = ("__kasan_poison_slab",)
MAX_WRITES = 8
CHAIN_MAX = 12


def replay_icount(monitor_text: str) -> Optional[int]:
    """The instruction count `monitor info replay` prints, or None (no replay)."""
    m = REPLAY.search(monitor_text)
    return int(m.group(1)) if m else None


def tree_path(filename: str) -> str:
    """A source path relative to the kernel tree (debug info names it
    ../linux-source-6.1/mm/... from the build dir)."""
    return re.sub(r"^.*?/linux-source-[0-9.]+/", "", filename or "")


def writer(frames: Sequence[Frame]) -> int:
    """Index of the frame that wrote: the first outside the string library."""
    for i, (_, path, _) in enumerate(frames):
        if not LIB.match(path):
            return i
    return 0


def in_module(frame: Frame) -> bool:
    """A frame of the lab module: its source is outside the kernel tree
    (an absolute path, where tree_path() leaves tree files relative)."""
    fn, path, _ = frame
    return fn.startswith("lab_") or path.startswith("/")


def chain(frames: Sequence[Frame]) -> List[str]:
    """The writer and its callers, up to the first frame of the lab module
    (who asked), at most CHAIN_MAX."""
    out = []
    for f in frames[writer(frames):]:
        out.append(f[0] or "??")
        if in_module(f) or len(out) == CHAIN_MAX:
            break
    return out


def kind(frames: Sequence[Frame]) -> str:
    """"new-slab", "free", "allocation" or "other": the path that wrote the tag."""
    names = [f[0] for f in frames]
    if any(n in NEW_SLAB for n in names):
        return "new-slab"
    if any(n in FREE for n in names):
        return "free"
    if any(n in ALLOC for n in names):
        return "allocation"
    return "other"


def stops_here(frames: Sequence[Frame], value: int, ptr_tag: Optional[int]) -> Optional[str]:
    """Why the walk back ends at this write, or None: the allocation that
    gave the pointer its tag (sw-tags: a write of the pointer's tag by an
    allocation; generic, ptr_tag None: any allocation), or the creation of
    the slab (earlier writes belong to the page's earlier lives)."""
    k = kind(frames)
    if k == "allocation" and (ptr_tag is None or value == ptr_tag):
        return "found"
    if k == "new-slab":
        return "the slab this granule belongs to was created here: earlier writes " \
            "belong to the memory's earlier lives"
    return None


def format_write(n: int, value: int, frames: Sequence[Frame], icount: Optional[int]) -> List[str]:
    """Two lines about one write: value, kind, where, and who asked."""
    fn, path, line = frames[writer(frames)] if frames else ("??", "", 0)
    where = "%s:%d" % (path, line) if path else "??"
    return ["write %d: %02x  %-10s by %s at %s  (instruction %s)"
            % (n, value, kind(frames), fn, where, icount if icount is not None else "?"),
            "         " + " <- ".join(chain(frames))]


def header(addr: int, shadow: int, mem: int, ptr_tag: Optional[int], icount: int) -> str:
    return ("kasan-history 0x%016x: memory tag %02x now (shadow byte 0x%016x)%s; "
            "going back from instruction %d" % (
                addr, mem, shadow, ", pointer tag %02x" % ptr_tag if ptr_tag is not None else "",
                icount))


def verdict(found: bool, n: int, ptr_tag: Optional[int], reason: str) -> str:
    if found:
        return "stopped: write %d is the allocation that gave the %s" % (
            n, "pointer its tag %02x" % ptr_tag if ptr_tag is not None else "memory its shadow")
    return "stopped after %d write(s): %s" % (n, reason)


def back_at(back: Optional[int], start: int) -> str:
    """The last line of kasan-history and kasan-why: the instruction the
    replay is at again, and how to get there when it is not where it was."""
    return "back at instruction %s%s" % (
        back, "" if back == start else " (not %d: `monitor replay_seek %d` returns there)"
        % (start, start))
