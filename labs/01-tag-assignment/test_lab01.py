# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 1's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

from tests.graderlib import grade, load, named, this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (step, kind, regex, replacement): each alteration of a stored run must be
# graded BAD (tests/test_graders.py runs them).
ALTER = [
    ("slab", "gdb", r"(Value returned is \$\d+ = )(\d+)", lambda m: m.group(1) + str(
        (int(m.group(2)) + 1) % 254)),
    ("slab", "gdb", r"(memory tag:\s+)([0-9a-f]{2})", r"\g<1>fe"),
    ("reuse", "serial", r"(tags shadow of=\S+ granule=16 granules=\d+ shadow=)([0-9a-f]{2})",
     r"\g<1>00"),
    ("reuse", "serial", r"(ctor-tag round cache=kasan_lab_ctor round=1 \S+ tag=)([0-9a-f]{2})",
     r"\g<1>01"),
    ("pages", "gdb", r"post_alloc_hook|__kasan_unpoison_pages", "some_function"),
]


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("1.3", "ex-tagstop", "gdb", r"^(memory tag: )([0-9a-f]{2})$", r"\g<1>zz"),
    ("1.3", "ex-tagstop", "gdb", r"^(shadow: [0-9a-f]{2}) ", r"\1 00 "),
    ("1.3", "ex-tagstop", "serial", r"(uaf ptr name=p ptr=)[0-9a-f]{16}", r"\g<1>" + "0" * 16),
]


def slab_gdb(tag, top):
    return ("KT-GDB random-tag\nValue returned is $1 = %d\nKT-GDB kmalloc-return\n"
            "Value returned is $2 = (void *) 0x%02xffff8000b92600\nKT-GDB kasan-tag\n"
            "memory tag:  %02x\nKT-GDB kasan-shadow\n" % (tag, top, top)
            + ">ffffff8000b92600: " + " ".join(["%02x" % top] * 8 + ["fe"] * 8) + "\n")


def test_lab1_slab_edges():
    ok = grade(FOLDER, "slab", {"serial": "x", "gdb": slab_gdb(0x46, 0x46)})
    assert all(r[1] for r in ok), ok
    for tag in (0xFE, 0xFF):
        res = dict((n, o) for n, o, _ in grade(FOLDER, "slab",
                                               {"serial": "x", "gdb": slab_gdb(tag, tag)}))
        assert res["the tag is not reserved (0xfe, 0xff)"] is False
    short = slab_gdb(0x46, 0x46).replace(" 46 46 fe", " 46 fe fe")
    assert not all(r[1] for r in grade(FOLDER, "slab", {"serial": "", "gdb": short}))


def reuse_serial(slots):
    """A tags + ctor-tag run: slots is [(addr, tag)] in allocation order."""
    lines = ["KT-SCENARIO-BEGIN tags"]
    for addr, tag in slots:
        lines += ["kasan_lab: tags ptr name=p ptr=%sffff800000%s tag=%s addr=ffffff800000%s "
                  "size=128 cache=kmalloc-128 align=16" % (tag, addr, tag, addr),
                  "kasan_lab: tags shadow of=p granule=16 granules=8 shadow=%s*8,fe*1" % tag]
    lines += ["KT-SCENARIO-END tags", "KT-SCENARIO-BEGIN ctor-tag"]
    for i, (cache, tag) in enumerate([("kasan_lab_ctor", "aa"), ("kasan_lab_ctor", "aa"),
                                      ("kasan_lab_plain", "01"), ("kasan_lab_plain", "02")]):
        lines.append("kasan_lab: ctor-tag round cache=%s round=%d ptr=x tag=%s" % (cache, i, tag))
    return "\n".join(lines + ["KT-SCENARIO-END ctor-tag"]) + "\n"


def test_lab1_reuse_slot_rules():
    good = named(grade(FOLDER, "reuse", {"serial": reuse_serial(
        [("b00000", "11"), ("b00000", "12"), ("c00000", "13")]), "gdb": ""}))
    assert all(good.values()), good
    same = named(grade(FOLDER, "reuse", {"serial": reuse_serial(
        [("b00000", "11"), ("b00000", "11")]), "gdb": ""}))
    assert same["a reallocated slot gets a new tag each time"] is False
    never = named(grade(FOLDER, "reuse", {"serial": reuse_serial(
        [("b00000", "11"), ("c00000", "12")]), "gdb": ""}))
    assert never["a reallocated slot gets a new tag each time"] is False


def test_lab1_pages_either_frame_is_enough():
    data = {k: load(FOLDER, "pages", k) for k in ("serial", "gdb")}
    for frame in ("post_alloc_hook", "__kasan_unpoison_pages"):
        one = dict(data, gdb=data["gdb"].replace(frame, "other_frame"))
        if one["gdb"] != data["gdb"] and ("post_alloc_hook" in one["gdb"]
                                          or "__kasan_unpoison_pages" in one["gdb"]):
            assert all(named(grade(FOLDER, "pages", one)).values())


def test_lab1_memory_tag_line_with_a_description():
    gdb = slab_gdb(0x46, 0x46).replace("memory tag:  46", "memory tag:  46  0x46: described")
    assert all(named(grade(FOLDER, "slab", {"serial": "", "gdb": gdb})).values())
