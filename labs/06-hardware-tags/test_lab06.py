# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 6's offline grader tests: its checks on its stored runs (runs/),
its alteration tables, and the edge cases of its checks."""

import json
import re

from tests.graderlib import grade, load, this_lab

LAB = this_lab(__file__)
FOLDER = LAB.folder


# (step, kind, regex, replacement): each alteration of a stored run must be
# graded BAD (tests/test_graders.py runs them).
ALTER = [
    ("hwtags", "serial", r"\(hw-tags, mode=sync", "(hw-tags, mode=async"),
    ("hwtags", "serial", r"BUG: KASAN: use-after-free in lab_uaf\+",
     "BUG: KASAN: invalid-access in lab_uaf+"),
    ("hwtags", "serial", r"(collision result gap=0 rounds=10000 same_slot=10000 "
     r"same_tag=)\d+", r"\g<1>714"),
    ("async", "serial", r"\(hw-tags, mode=async", "(hw-tags, mode=sync"),
    ("async", "serial", r"Asynchronous fault: no details available",
     "Read at addr f5ffff8000baf100 by task init/1"),
    ("hwtags-qemu72", "serial", r"\A", "KT-INIT-START\n"),
    ("qemu72", "serial", r"(kt-tags after one dc gva at \+0x800 page \w+: ).*$",
     r"\1f0*128@0 f3*4@800 f0*124@840"),
    ("qemu10", "serial", r"f3\*4@800", "f3*5@800"),
    ("qemu10", "serial", r"kt-tags after one stg", "kt-tags after two stg"),
]


def test_lab6_table_good_then_each_claim_bad():
    check = LAB.module.check_table_data

    def table6():
        return json.loads(load(FOLDER, "table", "json"))
    assert all(ok for _, ok, _ in check(table6()))
    for alter in (lambda t: t["bugs"]["uaf-realloc"].update(hwtags=[]),
                  lambda t: t["bugs"]["match-all"].update(hwtags=["use-after-free"]),
                  lambda t: t["bugs"]["oob-in-granule"].update(hwtags=None),
                  lambda t: t.update(tags=t["tags"] + [0x35]),
                  lambda t: t.update(tags=[0xF0]),
                  lambda t: t["collision"]["hwtags"].update({"0": [714, 10000]}),
                  lambda t: t["collision"]["hwtags"].update({"1": [0, 0]}),
                  lambda t: t["memory"]["hwtags"].update(reserved=t["memory"]["swtags"][
                      "reserved"])):
        t = table6()
        alter(t)
        assert not all(ok for _, ok, _ in check(t)), alter
    assert not all(ok for _, ok, _ in check({}))


def test_qemu10_dump_whatever_the_objects_own_tag():
    """The experiment's object draws a random tag, and in one run it drew
    f3, the tag the DC GVA then writes: only granules that newly carry
    f3/f4 are the instructions' doing."""
    serial = load(FOLDER, "qemu10", "serial")
    own = re.search(r"kt-tags after 1st alloc page \w+: ([0-9a-f]{2})\*", serial).group(1)
    for tag in ("f3", "f4"):
        data = {"serial": re.sub(r"\b%s\*(\d+)@0\b" % own, tag + r"*\1@0", serial)}
        assert data["serial"] != serial
        res = grade(FOLDER, "qemu10", data)
        assert all(ok for _, ok, _ in res), res
