"""Exercise 2.1: decode the ESR of a KASAN brk, as kasan_handler() does.

In the swtags-brk kernel every tag check is inlined, and a mismatch runs
`brk #imm`.  The CPU reports the exception in ESR_EL1: the exception class
in bits 31..26 (0x3c for a BRK64), the instruction length in bit 25, and
the brk immediate in bits 15..0.  KASAN's immediates are 0x900..0x9ff; the
low bits say what the access was (6.1: KASAN_BRK_IMM and KASAN_BRK_MASK in
arch/arm64/include/asm/brk-imm.h, KASAN_ESR_RECOVER, KASAN_ESR_WRITE and
KASAN_ESR_SIZE_MASK in arch/arm64/kernel/traps.c).

`make grade N=2` checks decode() on every KASAN immediate and on ESRs that
are not KASAN's, then on the ESR of a real tag mismatch in the kernel.
"""


def decode(esr):
    """A dict for a KASAN brk ESR: {"write": bool, "size": bytes (int),
    "recover": bool}; None for any other ESR (another exception class, or
    a brk immediate outside 0x900..0x9ff)."""
    # TODO 2.1: the exception class, then the immediate's fields
    # STUB: raise NotImplementedError("exercise 2.1: decode")
    if esr >> 32 or (esr >> 26) & 0x3F != 0x3C:
        return None
    imm = esr & 0xFFFF
    if imm & ~0xFF != 0x900:
        return None
    return {"write": bool(imm & 0x10), "size": 1 << (imm & 0xF),
            "recover": bool(imm & 0x20)}
    # END TODO
