# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-history's pure parts (kasan/history.py), on frames as a replay of
the uaf scenario gave them (lab 7: back from the report)."""
from kasan import history

FREE = [("__pi_memset", "arch/arm64/lib/memset.S", 58),
        ("kasan_poison", "mm/kasan/shadow.c", 98),
        ("____kasan_slab_free", "mm/kasan/common.c", 230),
        ("__kasan_slab_free", "mm/kasan/common.c", 245),
        ("kfree", "mm/slab_common.c", 1007),
        ("lab_uaf", "/b/module/kasan_lab.c", 412),
        ("lab_write", "/b/module/kasan_lab.c", 795)]
ALLOC = [("__pi_memset", "arch/arm64/lib/memset.S", 58),
         ("kasan_poison", "mm/kasan/shadow.c", 98),
         ("kasan_unpoison", "mm/kasan/shadow.c", 138),
         ("__kasan_slab_alloc", "mm/kasan/common.c", 325),
         ("kmalloc_trace", "mm/slab_common.c", 1060),
         ("lab_uaf", "/b/module/kasan_lab.c", 407)]
SLAB = [("__pi_memset", "arch/arm64/lib/memset.S", 125),
        ("kasan_poison", "mm/kasan/shadow.c", 98),
        ("__kasan_poison_slab", "mm/kasan/common.c", 110),
        ("allocate_slab", "mm/slub.c", 1990)]


def test_replay_icount():
    assert history.replay_icount(
        "Replaying execution 'rec.bin': instruction count = 283353550\n") == 283353550
    assert history.replay_icount("Record/replay is not active\n") is None
    assert history.replay_icount("") is None


def test_the_writer_is_memset_s_caller_and_the_chain_ends_in_the_module():
    assert history.writer(FREE) == 1
    assert history.chain(FREE) == ["kasan_poison", "____kasan_slab_free", "__kasan_slab_free",
                                   "kfree", "lab_uaf"]
    assert history.chain(ALLOC)[-2:] == ["kmalloc_trace", "lab_uaf"]
    long = [("f%d" % i, "mm/x.c", i) for i in range(30)]
    assert len(history.chain(long)) == history.CHAIN_MAX


def test_kinds_and_where_the_walk_stops():
    assert history.kind(FREE) == "free" and history.kind(ALLOC) == "allocation"
    assert history.kind(SLAB) == "new-slab"
    assert history.kind([("memcpy", "lib/string.c", 1), ("foo", "mm/x.c", 2)]) == "other"
    assert history.stops_here(ALLOC, 0xe5, 0xe5) == "found"
    assert history.stops_here(ALLOC, 0x02, 0xe5) is None, "another tag: the reallocation"
    assert history.stops_here(FREE, 0xfe, 0xe5) is None
    assert history.stops_here(ALLOC, 0x00, None) == "found", "generic: the allocation"
    assert history.stops_here(SLAB, 0xfe, 0xe5).startswith("the slab")


def test_tree_paths_and_lines():
    assert history.tree_path("../linux-source-6.1/mm/kasan/shadow.c") == "mm/kasan/shadow.c"
    assert history.tree_path("/c/build/x/linux-source-6.1/mm/a.c") == "mm/a.c"
    assert history.tree_path("") == ""
    lines = history.format_write(1, 0xfe, FREE, 283246231)
    assert lines[0] == ("write 1: fe  free       by kasan_poison at mm/kasan/shadow.c:98  "
                        "(instruction 283246231)")
    assert lines[1].strip() == ("kasan_poison <- ____kasan_slab_free <- __kasan_slab_free <- "
                                "kfree <- lab_uaf")
    assert history.verdict(True, 2, 0xe5, "").endswith("gave the pointer its tag e5")
    assert history.verdict(False, 8, 0xe5, "the limit").startswith("stopped after 8")


def test_back_where_it_started():
    """The last line of kasan-history and kasan-why."""
    assert history.back_at(400, 400) == "back at instruction 400"
    assert history.back_at(401, 400) == (
        "back at instruction 401 (not 400: `monitor replay_seek 400` returns there)")
    assert history.back_at(None, 400).startswith("back at instruction None (not 400:")
