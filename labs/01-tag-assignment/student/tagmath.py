"""Exercises 1.1 and 1.2: the arithmetic of software tag-based KASAN.

Pure functions on 64-bit integers, the way the kernel sees a pointer on
arm64 (6.1: include/linux/kasan.h, arch/arm64/include/asm/memory.h).
`make grade N=1` checks them on fixed and random values, then calls them
in gdb at a kmalloc() return of the live kernel and compares their answers
with the kernel's pointer and shadow memory at that moment.
"""

MASK64 = (1 << 64) - 1


def tag_of(ptr):
    """The tag of a kernel pointer: bits 63..56 (0x00..0xff)."""
    # TODO 1.1: return the top byte of the 64-bit value ptr
    # STUB: raise NotImplementedError("exercise 1.1: tag_of")
    return (ptr & MASK64) >> 56
    # END TODO


def with_tag(ptr, tag):
    """ptr with its top byte replaced by tag (arm64's __tag_set())."""
    # TODO 1.1: clear bits 63..56 of ptr, put tag there; the result fits in 64 bits
    # STUB: raise NotImplementedError("exercise 1.1: with_tag")
    low = ptr & ((1 << 56) - 1)
    return low | ((tag & 0xFF) << 56)
    # END TODO


def untag(ptr):
    """kasan_reset_tag(): the pointer with the native kernel top byte."""
    # TODO 1.1: which top byte does an untagged kernel pointer have?
    # STUB: raise NotImplementedError("exercise 1.1: untag")
    return with_tag(ptr, 0xFF)
    # END TODO


def mem_to_shadow(addr, offset):
    """The shadow address of addr in sw-tags mode: kasan_mem_to_shadow()
    of the untagged address, with KASAN_SHADOW_OFFSET = offset."""
    # TODO 1.2: one granule (16 bytes) per shadow byte; wrap at 64 bits
    # STUB: raise NotImplementedError("exercise 1.2: mem_to_shadow")
    return ((untag(addr) >> 4) + offset) & MASK64
    # END TODO
