# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 1's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

import re

from labs.mistakes import alter_once

TAGMATH = "student/tagmath.py"
TAGSTOP = "student/tagstop.gdb"
OFFSET = 0xEFFFFFC000000000       # the swtags kernel's CONFIG_KASAN_SHADOW_OFFSET
MASK64 = (1 << 64) - 1


def stop_at_entry(m):
    # the breakpoint in __kasan_kmalloc, no finish: x0 is the cache there
    return "=> 0xffffffc00812d448 <__kasan_kmalloc>:\tstp\tx29, x30, [sp, #-48]!\nx0: 0x31ffff8000801200"


def untagged(text):
    ptr = re.search(r"^KT-CARRY obj 0x([0-9a-f]+)$", text, re.M).group(1)
    bare = "ff" + ptr[2:]
    text = text.replace("KT-CARRY obj 0x" + ptr, "KT-CARRY obj 0x" + bare)
    text = re.sub(r"^pointer tag: %s$" % ptr[:2], "pointer tag: ff", text, flags=re.M)
    text = re.sub(r"^pointer:     0x%s$" % ptr, "pointer:     0x" + bare, text, flags=re.M)
    return re.sub(r"^(pointer tag: )%s$" % ptr[:2], r"\1ff", text, flags=re.M)


def cannot_read(m):
    obj = int(m.group(2), 16)
    return "Cannot access memory at address 0x%x\n%s" % (((obj >> 4) + OFFSET) & MASK64,
                                                         m.group(1))


PLANTS = [
    {"mistake": "match-all-checked",
     "edits": [(TAGMATH, "    if tag == 0xFF:\n        return True\n", "")]},
    {"mistake": "last-byte-unchecked",
     "edits": [(TAGMATH, "    last = (addr + size - 1 - start) // 16\n", "    last = first\n")]},
    {"mistake": "one-past-the-end",
     "edits": [(TAGMATH, "addr + size - 1 - start", "addr + size - start")]},
    {"mistake": "zero-size-checked",
     "edits": [(TAGMATH, "    if size == 0:\n        return True\n", "")]},
    {"mistake": "tag-left-in-the-address",
     "edits": [(TAGMATH, "addr = ptr | (0xFF << 56)", "addr = ptr")]},
    {"mistake": "generic-granule",
     "edits": [(TAGMATH, "    first = (addr - start) // 16\n    last = (addr + size - 1 - start) // 16\n",
                "    first = (addr - start) // 8\n    last = (addr + size - 1 - start) // 8\n")]},
    {"mistake": "generic-scale",
     "edits": [(TAGMATH, "((shadow - offset) << 4)", "((shadow - offset) << 3)")]},
    {"mistake": "granule-scale-forgotten",
     "edits": [(TAGMATH, "((shadow - offset) << 4)", "(shadow - offset)")]},
    {"mistake": "shifted-the-wrong-way",
     "edits": [(TAGMATH, "((shadow - offset) << 4)", "((shadow - offset) >> 4)")]},
    {"mistake": "offset-added",
     "edits": [(TAGMATH, "((shadow - offset) << 4)", "((shadow + offset) << 4)")]},
    {"mistake": "untagged-as-zero",
     "edits": [(TAGMATH, "& ((1 << 64) - 1)", "& ((1 << 56) - 1)")]},
    {"mistake": "stopped-before-return",
     "edits": [(TAGSTOP, "finish\nset $obj = (unsigned long)$\n", "set $obj = (unsigned long)$x1\n")],
     "runs": {"ex-tagstop": {"gdb": alter_once(r"^=> .*\nx0: 0x[0-9a-f]+$", stop_at_entry)}}},
    {"mistake": "object-untagged",
     "edits": [(TAGSTOP, "set $obj = (unsigned long)$\n",
                "set $obj = (unsigned long)$ | 0xff00000000000000\n")],
     "runs": {"ex-tagstop": {"gdb": untagged}}},
    {"mistake": "shadow-of-the-tagged-address",
     "edits": [(TAGSTOP, "(($obj | 0xff00000000000000) >> 4)", "($obj >> 4)")],
     "runs": {"ex-tagstop": {"gdb": alter_once(
         r"^memory tag: \w\w\nshadow: .*\n(KT-CARRY obj 0x([0-9a-f]+))", cannot_read)}}},
    {"mistake": "eight-granules",
     "edits": [(TAGSTOP, ' %02x\\n", $shadow[0], $shadow[1]', '\\n", $shadow[0], $shadow[1]'),
               (TAGSTOP, ", $shadow[7], $shadow[8]", ", $shadow[7]")],
     "runs": {"ex-tagstop": {"gdb": alter_once(r"^(shadow:(?: \w\w){8}) \w\w$", lambda m: m.group(1))}}},
]
