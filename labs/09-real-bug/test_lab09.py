# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 9 offline: the checks of CVE-2023-31436's runs on what runs/ keeps
(ALTER and EX_ALTER, which tests/ reads), each kernel's run graded as the
other's, and the helpers that read the 6.1 source."""

from tests.graderlib import grade, load, named, solution_only, this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder

# Each row alters one stored run (step, kind) by re.sub(regex, replacement):
# the step's check must then say BAD.
ALTER = [
    # the fix in place: the class accepted, the datagram delivered, a report
    ("fixed", "serial", r"(qfq-lmax: class .*ret=)-22", r"\g<1>0"),
    ("fixed", "serial", r"MTU size out of bounds", "MTU size fine"),
    ("fixed", "serial", r"delivered=0", "delivered=1"),
    ("fixed", "serial", r"oob=1", "oob=0"),
    # ... or the program stopped before its end
    ("fixed", "serial", r"^.*qfq-lmax: end .*$", ""),
    # the fix reverted: another function, size, allocator, path, delivery
    ("report", "serial", r"(qfq-lmax: class .*ret=)0", r"\g<1>-22"),
    # ... the read in the caller, of another size
    ("report", "serial", r"BUG: KASAN: slab-out-of-bounds in qfq_activate_agg",
     "BUG: KASAN: slab-out-of-bounds in qfq_enqueue"),
    ("report", "serial", r"Read of size 4", "Read of size 8"),
    # another allocator, another way in, no delivery, a free
    ("report", "serial", r"qdisc_alloc\+", "qdisc_other+"),
    ("report", "serial", r"udp_sendmsg\+", "raw_sendmsg+"),
    ("report", "serial", r"delivered=1", "delivered=0"),
    # ... a free stack before the memory state: the object no longer live
    ("report", "serial", r"^(.*Freed by task.*)?(.*Memory state around)",
     lambda m: m.group(0) if m.group(1) else " Freed by task 1:\n kfree+0x0/0x4\n" + m.group(2)),
    # kasan-why: another verdict, no note, another store, another writer
    ("why", "gdb", r"^verdict: out of bounds", "verdict: use after free"),
    ("why", "gdb", r"^note: the chain breaks at .*$", ""),
    # ... the store in another function, of another value
    ("why", "gdb", r'"fn": "qfq_update_agg"', '"fn": "qfq_change_class"'),
    ("why", "gdb", r'("kind": "store",(?:.|\n)*?"value": )(\d+)',
     lambda m: m.group(1) + str(int(m.group(2)) + 8)),
    # the fe written by another path; a free found; not back at the start
    ("why", "gdb", r"____kasan_kmalloc", "__kasan_slab_alloc"),
    ("why", "gdb", r"^Freed: no entry.*$", "Freed by task 1:"),
    ("why", "gdb", r"^back at instruction (\d+)", r"back at instruction 1\1"),
    # generic: tags, another offset
    ("generic", "serial", r"BUG: KASAN: slab-out-of-bounds in qfq_activate_agg",
     "BUG: KASAN: use-after-free in qfq_activate_agg"),
    ("generic", "serial", r"located 7904 bytes inside", "located 7912 bytes inside"),
]


# (exercise, step, kind, regex, replacement): each must turn the exercise's
# check BAD (tests/test_exercises.py runs them).
EX_ALTER = [
    ("9.1", "report", "serial", r"Read of size 4", "Read of size 2"),
    ("9.1", "report", "serial", r"qdisc_alloc\+", "qdisc_other+"),
]


def test_each_run_is_bad_for_the_other_kernel():
    """The fixed kernel's run is BAD as the reverted one's and the reverse:
    each check of the two steps tells the two kernels apart."""
    fixed, rev = ({"serial": load(FOLDER, s, "serial"), "gdb": ""} for s in ("fixed", "report"))
    assert not all(ok for _, ok, _ in grade(FOLDER, "report", fixed))
    res = named(grade(FOLDER, "fixed", rev))
    assert res["no KASAN report"] is False
    assert [k for k, ok in res.items() if ok] == [
        "the program ran to its end",
        "the predicted group index is past q->groups[] (index > QFQ_MAX_INDEX)"]


def test_callees_are_what_the_compiler_may_inline():
    text = ("static inline int g(int x)\n{\n\treturn h(x);\n}\n\n"
            "static int h(int x)\n{\n\treturn x;\n}\n\n"
            "static void\nf(int a,\n  int b)\n{\n\tg(a);\n\tprintk(b);\n}\n")
    assert LAB.module.callees(text, "f") == {"g", "h"}
    assert LAB.module.callees(text, "f", depth=1) == {"g"}
    assert LAB.module.callees(text, "h") == set()
    assert LAB.module.function_at(text, 8) == "h" and LAB.module.function_at(text, 5) is None


@solution_only
def test_cause_and_fix_are_judged():
    """cause and fix against answers.toml: the right pair GOOD, a wrong
    fix BAD."""
    from labs import forensics
    judged = forensics.judged(LAB.path("check.py"), "qfq-lmax", "qfq-lmax: %s",
                              {"cause": "unchecked-input", "fix": "clamp-the-index"})
    assert named(judged) == {"qfq-lmax: cause": True, "qfq-lmax: fix": False}
