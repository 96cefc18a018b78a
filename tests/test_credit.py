# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The rule of which patch did what (Documentation/tools/credit.py) on the
project's own data, and on planted errors it must refuse."""
import copy
import os
import tomllib

from Documentation.tools import credit

V9 = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "patches", "v9")


def data():
    seeds = {}
    for ln in open(os.path.join(V9, "series")):
        p = ln.split()
        if not ln.startswith("#") and len(p) > 1 and p[1] != "-":
            seeds[int(p[0])] = open(os.path.join(V9, p[1])).read()
    with open(os.path.join(V9, "lineage.toml"), "rb") as f:
        lineage = tomllib.load(f)
    with open(os.path.join(V9, "missing.toml"), "rb") as f:
        missing = tomllib.load(f)
    return seeds, lineage, missing


def test_the_project_data_keeps_the_rule():
    assert credit.problems(*data()) == []


def test_a_seed_defined_function_credited_to_another_patch_is_refused():
    seeds, lineage, missing = data()
    bad = copy.deepcopy(lineage)
    row = next(r for r in bad["hwtags"] if r["what"].startswith("assign_tag"))
    row["patch"], row["cover"] = 9, "- Preassign tags"
    del row["v9"]
    assert any("credits assign_tag to patch 09, but seed patch 16 defines it" in p
               for p in credit.problems(seeds, bad, missing))


def test_a_6_1_excerpt_of_a_seed_defined_hook_is_refused():
    seeds, lineage, missing = data()
    bad = copy.deepcopy(missing)
    bad["09"]["descendants"].append({"file": "mm/kasan/common.c", "start":
                                     "void * __must_check __kasan_init_slab_obj("})
    assert any("credits __kasan_init_slab_obj to patch 09" in p
               for p in credit.problems(seeds, lineage, bad))


def test_a_claim_needs_its_citation():
    seeds, lineage, missing = data()
    bad = copy.deepcopy(lineage)
    del bad["hwtags"][0]["cover"]
    del next(r for r in bad["hwtags"] if r["patch"] == 18)["v9"]
    probs = credit.problems(seeds, bad, missing)
    assert any("patch 08, not a seed: it needs cover" in p for p in probs)
    assert any("seed patch 18: it needs v9" in p for p in probs)


def test_definitions():
    assert credit.defines("static inline u8 assign_tag(struct kmem_cache *c,") == {"assign_tag"}
    assert credit.defines("#define set_tag(addr, tag)  x") == {"set_tag"}
    assert credit.defines("\treturn foo(bar);") == set()
    assert credit.defines("\tobject = kasan_init_slab_obj(s, object);") == set()
    assert credit.named("set_tag/get_tag: the tag") == {"set_tag", "get_tag"}
    assert credit.named("the tag-based report, built") == set()


def test_a_cover_item_that_adds_a_seed_defined_macro_is_refused():
    seeds, lineage, missing = data()
    bad = copy.deepcopy(missing)
    bad["07"]["cover"].append("- Defined KASAN_SET_TAG and KASAN_RESET_TAG macros")
    assert any("credits KASAN_SET_TAG to patch 07, but seed patch 18 defines it" in p
               for p in credit.problems(seeds, lineage, bad))
