# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Exercises 1.1 and 1.2: the software tag check and the shadow map, in Python.

Pure functions on 64-bit integers, the way the 6.1 kernel sees a pointer
on arm64 (include/linux/kasan.h, mm/kasan/kasan.h, mm/kasan/sw_tags.c).
`make grade N=1` calls them in a sandbox -- Python's standard library and
this file, nothing of the project -- with many inputs, then with the
pointer and shadow of a live kernel's kmalloc(128), and compares their
answers with the kernel's.
"""


def access_ok(ptr, size, start, tags):
    """Does software tag-based KASAN let an access of `size` bytes through
    the tagged pointer `ptr` pass?  True or False.

    tags: the memory tags of consecutive 16-byte granules, tags[0] being
    the tag of the untagged, granule-aligned address `start` (tags[1] of
    start + 16, ...); every granule the access touches is in the list."""
    # TODO 1.1: the rules of 6.1's kasan_check_range() (mm/kasan/sw_tags.c):
    # an access of 0 bytes passes; a pointer tagged 0xff passes; otherwise
    # every granule from the first byte to the last byte must hold the
    # pointer's tag.
    # STUB: raise NotImplementedError("exercise 1.1: access_ok")
    if size == 0:
        return True
    tag = (ptr >> 56) & 0xFF  # kt-public: the glossary's pointer tag
    if tag == 0xFF:
        return True
    addr = ptr | (0xFF << 56)  # kt-public: the glossary's untag
    first = (addr - start) // 16
    last = (addr + size - 1 - start) // 16
    return all(t == tag for t in tags[first:last + 1])
    # END TODO


def shadow_to_mem(shadow, offset):
    """The first byte of the granule whose memory tag the shadow byte at
    address `shadow` holds: an untagged kernel address (6.1's
    kasan_shadow_to_mem()), KASAN_SHADOW_OFFSET being `offset`."""
    # TODO 1.2: undo the shadow map; the result is a 64-bit value
    # STUB: raise NotImplementedError("exercise 1.2: shadow_to_mem")
    return ((shadow - offset) << 4) & ((1 << 64) - 1)
    # END TODO
