# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every shadow-address formula a student reads is typed, here, into the
tool they type it into: gdb-multiarch with `set architecture aarch64`.

A formula that is right on paper can be wrong in gdb: `0xff << 56` is an
int shift there (a warning, and 0), so `(addr | 0xff << 56) >> 4` keeps the
tag.  The formulas are found in the pages, the hints, the TOML text and
the headers of the student's files; each, with `addr` and the offset put
in, must give what the kernel's map gives (gdb-scripts/kasan/tags.py).

Then every other expression or gdb command a reader is told to type, found
by tests/typed.py wherever it stands (a page's literals and prompts, a
hint, a handout file's comments and lines) and read by tests/typed_eval.py:
each that needs no kernel is typed into the tool of where it stands and
compared with its value on paper, the value the text states and the
kernel's map; each that needs one says why (a register, memory, a symbol),
and its constant parts are typed in all the same.  Each kind of error is
planted below and must be found.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO
from kasan import tags
from kasan.modes import SW_TAGS
from tests import typed, typed_eval
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


# -- every expression a reader is told to type (tests/typed.py, typed_eval.py) --

@pytest.fixture(scope="module")
def planned():
    return typed_eval.plan(typed.typed_texts())


@pytest.mark.skipif(os.path.exists(os.path.join(REPO, "labs", "HANDOUT")),
                    reason="a student tree has no solutions and no teacher answers")
def test_the_finder_sees_what_the_pages_hints_and_handout_give_to_type(planned):
    checks, live, wrong = planned
    seen = {(c.typed.where, c.typed.text) for c in checks}
    assert ("labs/07-back-from-the-report/student/tagwrite.gdb",
            "((addr | 0xff00000000000000) >> 4) + CONFIG_KASAN_SHADOW_OFFSET") in seen
    assert ("Documentation/glossary.rst", "(address >> 4) + CONFIG_KASAN_SHADOW_OFFSET") in seen
    assert any(c.typed.text == "0x900 | 0x20 | 0x10 | 3" and c.refs == [
        ("the value the text states", 0x933)] for c in checks)
    assert len(checks) >= 8, checks
    why = {t.text: r for t, r in live}
    assert "convenience variable" in why[
        "set $shadow = (unsigned char *)((($obj | 0xff00000000000000) >> 4) + 0xefffffc000000000)"]
    assert "register" in why["pc + 4"] and "memory" in why["x/i regs->pc"]
    assert wrong == []


@pytest.mark.skipif(not shutil.which(GDB), reason="make deps installs %s" % GDB)
def test_every_expression_a_reader_types_is_right_in_its_tool(planned, tmp_path):
    checks, _, _ = planned
    bad = typed_eval.findings(checks, ("gdb", "python"), str(tmp_path))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("text", ["kmalloc-128", "tests/check.py", "--cold-ci", "make -j",
                                  "~260% overhead", "+128", "KASAN_TAG_KERNEL", "0xff",
                                  "x0-x7", "f3*4@800", "not ok", "i/n"])
def test_what_is_not_an_expression(text):
    assert typed_eval.parse(text) is None


@pytest.mark.parametrize("text, why", [
    ("x/i $pc", "memory"), ("source labs/07-back-from-the-report/history.gdb", "file"),
    ("kasan-esr 0xf2000930", "gdb-scripts"), ("monitor info replay", "QEMU"),
    ("reverse-continue", "runs"), ("bt", "stopped")])
def test_a_gdb_command_that_acts_on_a_target_needs_a_kernel(text, why):
    exprs, reason = typed_eval.expressions(typed.Typed("p", text, ("gdb",), text, None))
    assert exprs == [] and why in reason


def test_a_word_that_is_also_a_command_is_not_taken_for_one():
    for text in ("start", "run", "list", "record", "x + 1", "start + 16"):
        assert typed_eval.expressions(typed.Typed("p", text, ("gdb",), text, None))[1] is None


def planted_lab(tmp_path, hint, header=""):
    """A checkout with one lab: a gdb exercise, its hint and its file."""
    lab = tmp_path / "labs" / "09-planted"
    (lab / "student").mkdir(parents=True)
    (lab / "steps.toml").write_text('[[exercise]]\nid = "9.1"\n'
                                    'files = ["09-planted/student/x.gdb"]\n')
    (lab / "mistakes.toml").write_text('[[mistake]]\nexercise = "9.1"\nid = "m"\n'
                                       'hints = [%s]\n' % json.dumps(hint))
    (lab / "student" / "x.gdb").write_text(header + "continue\n")
    (tmp_path / "Documentation").mkdir()
    (tmp_path / "index.rst").write_text("Index\n=====\n")
    return str(tmp_path)


@pytest.mark.skipif(not shutil.which(GDB), reason="make deps installs %s" % GDB)
def test_a_planted_hint_with_an_int_shift_fails(tmp_path):
    """Issue W9's hint, planted: found in the TOML, typed into gdb (the
    exercise's file is a gdb file), where it keeps the tag."""
    repo = planted_lab(tmp_path, "The shadow byte of addr is at ((addr | 0xff << 56) >> 4) + "
                       "CONFIG_KASAN_SHADOW_OFFSET, from the kernel's .config.")
    checks, _, wrong = typed_eval.plan(typed.typed_texts(repo))
    assert wrong == [] and [c.tools for c in checks] == [("gdb",)]
    bad = typed_eval.findings(checks, ("gdb", "python"), str(tmp_path))
    assert len(bad) == 1 and "labs/09-planted/mistakes.toml" in bad[0] and \
        "left shift count" in bad[0], bad


@pytest.mark.skipif(not shutil.which(GDB), reason="make deps installs %s" % GDB)
def test_a_planted_shift_inside_a_live_command_fails(tmp_path):
    """A handout header's command needs a kernel ($x0), but its constant
    part is typed in all the same."""
    repo = planted_lab(tmp_path, "No formula here.", "# then type:\n"
                       "# set $s = (unsigned char *)((($x0 | 0xff << 56) >> 4) + 0xefffffc000000000)\n")
    checks, live, _ = typed_eval.plan(typed.typed_texts(repo))
    assert any("register" in why for _, why in live)
    bad = typed_eval.findings(checks, ("gdb",), str(tmp_path))
    assert len(bad) == 1 and "`0xff << 56` typed into gdb gives" in bad[0], bad


def test_a_planted_wrong_value_on_a_page_fails(tmp_path):
    page = "Q\n=\n\nAn 8-byte write: ``0x900 | 0x20 | 0x10 | 3`` = ``0x934``.\n"
    items = typed.from_text("labs/09-planted/index.rst", page, ("gdb", "python"),
                            typed.LITERAL_RST)
    checks, _, _ = typed_eval.plan(items)
    bad = typed_eval.findings(checks, (), str(tmp_path))
    assert bad == ["labs/09-planted/index.rst: `0x900 | 0x20 | 0x10 | 3` is 0x933 on paper, "
                   "the value the text states is 0x934"]


def test_a_planted_shadow_formula_that_keeps_the_tag_fails(tmp_path):
    """Right for an untagged address, wrong for the report's tagged one:
    the glossary's form passes only because it says the tag is reset first."""
    said = "the shadow of addr: ``(addr >> 4) + CONFIG_KASAN_SHADOW_OFFSET``"
    checks, _, _ = typed_eval.plan(typed.from_text("p", said, ("gdb",), typed.LITERAL_RST))
    assert "the kernel's map" in typed_eval.findings(checks, (), str(tmp_path))[0]
    checks, _, _ = typed_eval.plan(typed.from_text(
        "p", said + ", with the pointer's tag set to 0xff first", ("gdb",), typed.LITERAL_RST))
    assert typed_eval.findings(checks, (), str(tmp_path)) == []


def test_a_planted_division_in_a_python_handout_fails(tmp_path):
    """`/` is C's integer division in gdb, a float in Python."""
    items = typed.from_text("labs/09-planted/student/x.py", "the granule: `0x100 / 16`",
                            ("python",), typed.LITERAL_MD)
    checks, _, _ = typed_eval.plan(items)
    bad = typed_eval.findings(checks, ("python",), str(tmp_path))
    assert len(bad) == 1 and "not an integer: 16.0" in bad[0]


def test_gdb_syntax_where_python_is_typed_fails():
    items = [typed.Typed("labs/09-planted/student/x.py", "$x0 >> 56", ("python",), "", None)]
    assert "written for gdb" in typed_eval.plan(items)[2][0]


def test_an_option_no_input_gives_fails():
    items = [typed.Typed("p", "(addr >> 4) + CONFIG_KASAN_SHADOW_SCALE", ("gdb",), "", None)]
    assert "INPUTS does not know" in typed_eval.plan(items)[2][0]
