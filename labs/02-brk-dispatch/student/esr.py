# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Exercise 2.1: the ESR of a KASAN brk, as the CPU reports it to kasan_handler().

In the swtags-brk kernel every tag check is inlined, and a mismatch runs
`brk #imm`.  The CPU reports the exception in ESR_EL1: the exception class
in bits 31..26 (0x3c for a BRK64), the instruction length in bit 25 (1:
a 32-bit instruction), and the brk immediate in bits 15..0.  KASAN's
immediates are 0x900..0x9ff; their low bits say what the access was (6.1:
KASAN_BRK_IMM and KASAN_BRK_MASK in arch/arm64/include/asm/brk-imm.h,
KASAN_ESR_RECOVER, KASAN_ESR_WRITE, KASAN_ESR_SIZE_MASK and
KASAN_ESR_SIZE() in arch/arm64/kernel/traps.c).

`make grade N=2` calls kasan_esr() in a sandbox (Python's standard library
and this file only) for every access KASAN's immediate can describe and
for sizes it cannot, then for the access of a real tag mismatch, whose
ESR the kernel printed.
"""


def kasan_esr(write, size, recover):
    """The ESR_EL1 value (an int) of the KASAN brk that a check of this
    access runs: write and recover are bools, size is in bytes.  None when
    the immediate cannot describe the size (not a power of two from 1 to
    1 << 15)."""
    # TODO 2.1: the exception class, the length bit, then the immediate
    # STUB: raise NotImplementedError("exercise 2.1: kasan_esr")
    if size < 1 or size > 1 << 15 or size & (size - 1):
        return None
    imm = 0x900 | (0x20 if recover else 0) | (0x10 if write else 0) | (size.bit_length() - 1)
    return (0x3C << 26) | (1 << 25) | imm
    # END TODO
