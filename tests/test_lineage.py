# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Documentation/tools/lineage.py: the four classes, exclusions, the picture."""
import xml.dom.minidom

from Documentation.tools import lineage, pictures

REN = [("kasan_poison_shadow", "kasan_poison"), ("random_tag", "kasan_random_tag")]


def test_trivial_lines_are_excluded_with_a_reason():
    assert lineage.trivial("") == "blank"
    assert lineage.trivial("\t/* a comment */") == "comment"
    assert lineage.trivial(" * continued") == "comment"
    assert lineage.trivial("#endif") == "keyword" and lineage.trivial("return 0;") == "keyword"
    assert lineage.trivial("}") == "punctuation" and lineage.trivial("} ;") == "punctuation"
    assert lineage.trivial("\ttag = random_tag();") is None


def test_renames_are_whole_identifiers():
    assert lineage.apply_renames("x = random_tag();", REN) == "x = kasan_random_tag();"
    assert lineage.apply_renames("kasan_random_tag()", REN) == "kasan_random_tag()"
    assert lineage.apply_renames("kasan_poison_shadow(a);", REN) == "kasan_poison(a);"


def test_classes_in_order():
    same = {"a = b;": ("mm/x.c", 3)}
    anywhere = {"c = d;": ("mm/y.c", 9), "x = kasan_random_tag();": ("mm/z.c", 5),
                "a = b;": ("mm/other.c", 1)}
    assert lineage.classify("\ta =  b;", same, anywhere, REN) == ("same file", ("mm/x.c", 3))
    assert lineage.classify("c = d;", same, anywhere, REN) == ("moved", ("mm/y.c", 9))
    assert lineage.classify("x = random_tag();", same, anywhere, REN) == (
        "renamed", ("mm/z.c", 5))
    assert lineage.classify("e = f;", same, anywhere, REN) == ("gone", None)


def test_whole_tree_search(tmp_path):
    (tmp_path / "mm").mkdir()
    (tmp_path / "mm" / "a.c").write_text("int x;\n\tfoo_bar(1,  2);\n")
    (tmp_path / "mm" / "b.txt").write_text("foo_bar(1, 2);\n")     # not a searched kind
    found = lineage.grep_tree(str(tmp_path), {"foo_bar(1, 2);", "absent_line(3);"})
    assert found == {"foo_bar(1, 2);": ("mm/a.c", 2)}
    files = [("mm/a.c", ["mm/a.c"], ["\tfoo_bar(1, 2);", "}", "gone_now();"])]
    r = lineage.patch_lineage(files, str(tmp_path), REN)
    assert r["counts"] == {"same file": 1, "moved": 0, "renamed": 0, "gone": 1}
    assert r["excluded"] == 1


def test_a_kept_search_is_read_back_and_a_garbled_one_searched_again(tmp_path):
    tree, keep = tmp_path / "tree", tmp_path / "keep"
    (tree / "mm").mkdir(parents=True)
    keep.mkdir()
    (tree / "mm" / "a.c").write_text("\tfoo_bar(1, 2);\n")
    want = {"foo_bar(1, 2);", "absent_line(3);"}
    first = lineage.grep_tree_kept(str(tree), want, str(keep))
    assert first == {"foo_bar(1, 2);": ("mm/a.c", 1)}
    [kept] = list(keep.iterdir())
    (tree / "mm" / "a.c").write_text("nothing here\n")   # the kept answer is read
    assert lineage.grep_tree_kept(str(tree), want, str(keep)) == first
    kept.write_text("{garbled")                             # searched again
    assert lineage.grep_tree_kept(str(tree), want, str(keep)) == {}
    other = lineage.grep_tree_kept(str(tree), {"nothing here"}, str(keep))
    assert other == {"nothing here": ("mm/a.c", 1)} and len(list(keep.iterdir())) == 2


def test_bars_svg_parses_and_states_the_counts():
    counts = {"same file": 24, "moved": 0, "renamed": 7, "gone": 41}
    svg = pictures.lineage_bars([(16, counts)], lineage.CLASSES)
    doc = xml.dom.minidom.parseString(svg)
    titles = [t.firstChild.data for t in doc.getElementsByTagName("title")]
    assert titles == ["patch 16: 24 same file", "patch 16: 7 renamed", "patch 16: 41 gone"]
    assert "patch 16" in svg and ">24<" in svg and ">41<" in svg
