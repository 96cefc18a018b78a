# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
""":src: and :v9: citations (Documentation/tools/ktcite.py): they resolve,
and a wrong one fails `sphinx-build -W` -- shown by building a page with one."""
import os
import re
import subprocess

import pytest

from conftest import REPO
from Documentation.tools import ktcite

V9 = os.path.join(REPO, "patches", "v9")


@pytest.fixture
def tree(tmp_path):
    t = tmp_path / "linux"
    (t / "mm" / "kasan").mkdir(parents=True)
    (t / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n")
    (t / "mm" / "kasan" / "sw_tags.c").write_text("// x\n\nu8 kasan_random_tag(void)\n{\n")
    return str(t)


def test_resolve_src(tree):
    assert ktcite.resolve_src(tree, "mm/kasan/sw_tags.c:u8 kasan_random_tag(void)") == (
        "mm/kasan/sw_tags.c", 3, "u8 kasan_random_tag(void)")
    assert ktcite.resolve_src(tree, "mm/kasan/sw_tags.c:u8   kasan_random_tag")[1] == 3
    for bad, why in (("mm/kasan/sw_tags.c:kasan_other_tag", "no line contains"),
                     ("mm/kasan/nope.c:x", "is not a file of the installed tree"),
                     ("../../etc/passwd:root", "is not a file"),
                     ("mm/kasan/sw_tags.c", "is not WHERE:TEXT")):
        with pytest.raises(ktcite.CiteError, match=why):
            ktcite.resolve_src(tree, bad)
    assert ktcite.tree_version(tree) == "6.1.192"


def test_a_recurring_statement_is_cited_after_its_anchor():
    """'ANCHOR >> TEXT': the TEXT of the function that does it, not the first."""
    lines = ["static int a(void)", "\tskip(regs);", "}", "static int kasan_handler(",
             "\tkasan_report();", "\tskip(regs);"]
    assert ktcite.find_line(lines, "skip(regs);") == 2
    assert ktcite.find_line(lines, "static int kasan_handler( >> skip(regs);") == 6
    assert ktcite.find_line(lines, "kasan_handler( >> kasan_handler(") == 4
    with pytest.raises(ktcite.CiteError, match="after line 3"):
        ktcite.find_line(lines, "kasan_handler( >> static int a")


def test_resolve_v9_only_in_seeds():
    num, line, text = ktcite.resolve_v9(V9, "16:#define KASAN_KMALLOC_FREE      KASAN_TAG_INVALID")
    assert num == 16 and text == "+#define KASAN_KMALLOC_FREE      KASAN_TAG_INVALID"
    with pytest.raises(ktcite.CiteError, match="patch 17 is not among the seeds"):
        ktcite.resolve_v9(V9, "17:brk")
    with pytest.raises(ktcite.CiteError, match="no line contains"):
        ktcite.resolve_v9(V9, "16:KASAN_KMALLOC_FREED")


def build(tmp_path, tree, body):
    src = tmp_path / "site"
    src.mkdir()
    (src / "conf.py").write_text(
        "extensions = ['Documentation.tools.ktcite']\nkt_linux_tree = %r\nkt_v9_dir = %r\n"
        % (tree, V9))
    (src / "index.rst").write_text("Test\n====\n\n" + body + "\n")
    env = dict(os.environ, PYTHONPATH=REPO + ":" + os.path.join(REPO, "gdb-scripts"))
    return subprocess.run(["/usr/bin/sphinx-build", "-W", "-q", "-b", "html", str(src),
                           str(tmp_path / "out")], capture_output=True, text=True, env=env,
                          timeout=120)


def test_good_citations_build(tmp_path, tree):
    p = build(tmp_path, tree, "See :src:`mm/kasan/sw_tags.c:kasan_random_tag` and "
                              ":v9:`16:assign_tag`.")
    assert p.returncode == 0, p.stderr
    page = open(tmp_path / "out" / "index.html").read()
    text = re.sub(r"<[^>]+>", "", page)
    assert "mm/kasan/sw_tags.c:3" in text and 'title="6.1: u8 kasan_random_tag(void)"' in page
    assert "v9 16/20, line" in text and "elixir.bootlin.com/linux/v6.1.192/" in page


def test_wrong_citation_fails_the_build(tmp_path, tree):
    p = build(tmp_path, tree, "See :src:`mm/kasan/sw_tags.c:kasan_imaginary_tag`.")
    assert p.returncode != 0
    assert "does not resolve: no line contains 'kasan_imaginary_tag'" in p.stderr
