# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every shadow-address formula a student reads is typed, here, into the
tool they type it into: gdb-multiarch with `set architecture aarch64`.

A formula that is right on paper can be wrong in gdb: `0xff << 56` is an
int shift there (a warning, and 0), so `(addr | 0xff << 56) >> 4` keeps the
tag.  The formulas are found in the pages, the hints, the TOML text and
the headers of the student's files; each, with `addr` and the offset put
in, must give what the kernel's map gives (gdb-scripts/kasan/tags.py).
"""
import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO
from kasan import tags
from kasan.modes import SW_TAGS
from vm.gdb import GDB

# ((addr | MASK) >> 4) + CONFIG_KASAN_SHADOW_OFFSET, in the forms the text
# writes it (an rst literal may break it over two ``...`` pieces)
FORMULA = re.compile(r"\(\(addr \| (?P<mask>[^()]+?)\) >> 4\)\s*(?:``\s*``)?\s*\+\s*"
                     r"(?:``\s*``)?CONFIG_KASAN_SHADOW_OFFSET")
OFFSET = 0xEFFFFFC000000000         # the swtags kernel's
ADDR = 0x05FFFF8000B9B200           # a tagged pointer (the issue's own)


def texts():
    """(path, text) of what a student reads: pages, hints and TOML text,
    and the student files' headers."""
    out = []
    for root, _, files in os.walk(REPO):
        rel = os.path.relpath(root, REPO)
        if rel.startswith(("build", ".git")):
            continue
        for f in files:
            if f.endswith((".rst", ".toml", ".gdb", ".md")):
                path = os.path.join(root, f)
                out.append((os.path.relpath(path, REPO), open(path, errors="replace").read()))
    return out


def formulas(text):
    return [m.group("mask") for m in FORMULA.finditer(text)]


def gdb_value(expr):
    p = subprocess.run([GDB, "-q", "-batch", "-nx", "-ex", "set architecture aarch64",
                        "-ex", "printf \"%%lx\\n\", %s" % expr], capture_output=True, text=True,
                       timeout=60)
    return p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr


def test_the_pattern_finds_the_formulas_and_the_planted_one():
    assert formulas("``((addr | 0xff00000000000000) >> 4) +`` ``CONFIG_KASAN_SHADOW_OFFSET``") \
        == ["0xff00000000000000"]
    assert formulas("# address: ((addr | 0xff << 56) >> 4) + CONFIG_KASAN_SHADOW_OFFSET") \
        == ["0xff << 56"]


@pytest.mark.skipif(not shutil.which(GDB), reason="make deps installs %s" % GDB)
def test_a_planted_int_shift_is_wrong_in_gdb():
    """The form the handout had: gdb keeps the tag (issue W9)."""
    got = gdb_value("((0x%x | 0xff << 56) >> 4) + 0x%x" % (ADDR, OFFSET))
    assert int(got, 16) != tags.mem_to_shadow(tags.untag(ADDR), tags.Params(SW_TAGS.name, OFFSET))


@pytest.mark.skipif(not shutil.which(GDB), reason="make deps installs %s" % GDB)
def test_every_formula_a_student_reads_is_right_in_gdb():
    want = tags.mem_to_shadow(tags.untag(ADDR), tags.Params(SW_TAGS.name, OFFSET))
    found = [(path, mask) for path, text in texts() for mask in formulas(text)]
    assert len(found) >= 2, found       # lab 7's hint and its file's header at least
    bad = []
    for path, mask in found:
        got = gdb_value("((0x%x | %s) >> 4) + 0x%x" % (ADDR, mask, OFFSET))
        if not re.fullmatch(r"[0-9a-f]+", got) or int(got, 16) != want:
            bad.append("%s: (addr | %s) gives %s in gdb, the kernel's map %x" % (
                path, mask, got, want))
    assert not bad, "\n".join(bad)
