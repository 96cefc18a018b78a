# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The gdb remote serial protocol's framing, as QEMU's gdb stub reads it.

A packet on the wire is `$body#cs`, cs the sum of the body's bytes modulo
256 in two hex digits.  Outside packets, `+` and `-` acknowledge one (until
both sides agree on QStartNoAckMode) and the byte 0x03 interrupts.

The body is not the payload: `}` escapes the byte after it (XOR 0x20:
`}]` is `}`, `}\\x03` is `#`) and `*` repeats the byte before it (the next
byte minus 29 more times).  QEMU decodes both in every packet, not only in
binary ones, so `}p...` is a `P` packet to it.  A filter therefore judges
the decoded payload and sends that on re-encoded (frame()): what QEMU then
decodes is exactly what was judged.
"""

from typing import List, Tuple

# The bytes a payload escapes: the framing ones, and `*` (run length)
SPECIAL = b"#$}*"


def checksum(body: bytes) -> bytes:
    """The two hex digits after `#`."""
    return b"%02x" % (sum(body) & 0xFF)


def decode(body: bytes) -> bytes:
    """The payload of a packet's body, as QEMU's gdb_read_byte() builds it;
    an escape or a run length without its byte, or a bad count, is dropped."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == ord("}") and i + 1 < len(body):
            out.append(body[i + 1] ^ 0x20)
            i += 2
        elif c == ord("*") and i + 1 < len(body):
            n = body[i + 1]
            if out and 32 <= n <= 126 and n not in b"#$":
                out += out[-1:] * (n - 29)
            i += 2
        elif c in b"}*":
            i += 1
        else:
            out.append(c)
            i += 1
    return bytes(out)


def encode(payload: bytes) -> bytes:
    """The body that decodes to payload: SPECIAL bytes escaped, nothing
    run-length encoded."""
    out = bytearray()
    for c in payload:
        if c in SPECIAL:
            out += bytes((ord("}"), c ^ 0x20))
        else:
            out.append(c)
    return bytes(out)


def frame(payload: bytes) -> bytes:
    """payload as a packet on the wire."""
    body = encode(payload)
    return b"$" + body + b"#" + checksum(body)


def split(buf: bytes) -> Tuple[List[bytes], bytes]:
    """(items, rest) of bytes read from a socket: each item a whole packet
    `$body#cs` or one byte outside packets; rest an incomplete packet.  A
    packet ends at its first `#`: a `#` in a payload is always escaped."""
    items = []
    while buf:
        if buf[:1] != b"$":
            items.append(buf[:1])
            buf = buf[1:]
            continue
        end = buf.find(b"#")
        if end < 0 or len(buf) < end + 3:
            break
        items.append(buf[:end + 3])
        buf = buf[end + 3:]
    return items, buf


def payload(packet: bytes) -> bytes:
    """The decoded payload of a whole packet from split()."""
    return decode(packet[1:-3])
