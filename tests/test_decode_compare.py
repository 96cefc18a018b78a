# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""bench.decode.compare, the check that kasan-decode and the tree's
scripts/decode_stacktrace.sh give the same file:line: it can say BAD."""
import json

from bench.decode import compare

INPUT = ["[    1.0] Call trace:", "[    1.1]  f+0x10/0x40", "[    1.2]  g+0x8/0x20 [mod]",
         "[    1.3]  h+0x4/0x10"]
SCRIPT = ["[    1.0] Call trace:", "[    1.1] f (a/b.c:10 a/c.h:3)", "[    1.2] g (m.c:4) mod",
          "[    1.3] h (x.c:?)"]


def ours(chain_f):
    return json.dumps({"call_trace": ["f+0x10/0x40 " + chain_f, "g+0x8/0x20 [mod] m.c:5",
                                      "h+0x4/0x10 x.c:7"], "alloc_stack": [],
                       "free_stack": []})


def test_same_chain_is_good():
    assert compare(INPUT, "\n".join(SCRIPT), ours("a/b.c:10 a/c.h:3")) == (1, [])


def test_another_line_is_bad():
    n, bad = compare(INPUT, "\n".join(SCRIPT), ours("a/b.c:9 a/c.h:3"))
    assert n == 1 and bad == [
        "f+0x10/0x40: decode_stacktrace.sh a/b.c:10 a/c.h:3, kasan-decode a/b.c:9 a/c.h:3"]


def test_module_and_unresolved_frames_are_not_compared():
    # g is a module frame (decode_stacktrace.sh reads a .ko's sections
    # ambiguously), h is one it could not resolve ("?")
    assert compare(INPUT, "\n".join(SCRIPT), ours("a/b.c:10 a/c.h:3"))[0] == 1
