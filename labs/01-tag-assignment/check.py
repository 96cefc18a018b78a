# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 1 grader: what the student must see about tag assignment."""
import importlib.util
import os
import random
import re

import vm

from kasan import tags
from labs import exercises
from labs.exercises import StudentCode, clip, compare, hex_or_none, kv_lines
from labs import scenarios
from kasan.modes import SW_TAGS

SW = SW_TAGS.name


def returned_tag(lines):
    for ln in lines:
        m = re.match(r"Value returned is \$\d+ = (\d+)", ln)
        if m:
            return int(m.group(1))
    return None


def check_slab(run):
    s = run.sections()
    tag = returned_tag(s.get("random-tag", []))
    ptr = None
    for ln in s.get("kmalloc-return", []):
        m = re.search(r"Value returned is \$\d+ = \(void \*\) 0x([0-9a-f]{1,16})", ln)
        if m:
            ptr = int(m.group(1), 16)
    if tag is None or ptr is None:
        return [("gdb reached kasan_random_tag and the kmalloc return", False,
                 "sections: %s" % sorted(s))]
    top = ptr >> 56
    res = [("kasan_random_tag returned the tag kmalloc put in the pointer (0x%02x)" % top,
            tag == top, "random tag 0x%02x, pointer 0x%016x" % (tag, ptr)),
           ("the tag is not reserved (0xfe, 0xff)", top not in (0xFE, 0xFF), "0x%02x" % top)]
    kv = dict(ln.split(":", 1) for ln in s.get("kasan-tag", []) if ":" in ln)
    mem = kv.get("memory tag", "").split()
    res.append(("kasan-tag: memory tag == pointer tag", mem[:1] == ["%02x" % top],
                "memory tag %s" % mem[:1]))  # mutation: equivalent (message)
    # The object's 8 granules (123 bytes -> 128) in the '>' row of kasan-shadow.
    grans = shadow_row_bytes(s.get("kasan-shadow", []), ptr, 8)
    res.append(("kasan-shadow: all 8 granules of the object carry its tag",
                grans == ["%02x" % top] * 8, "granules %s" % grans))
    return res


def check_reuse(run):
    ev = run.lab_lines("tags")
    errs = scenarios.run_check("tags", ev, SW)
    res = [("tags: shadow == pointer tag for every object", not errs, "; ".join(errs))]
    same_slot = {}
    for e, kv in ev:
        if e == "ptr" and "addr" in kv and "tag" in kv:
            same_slot.setdefault(kv["addr"], []).append(kv["tag"])
    reused = [tags for tags in same_slot.values() if len(tags) > 1]
    # Back-to-back allocations of a slot draw consecutive LCG values, which
    # never repeat; a slot's tags further apart may match (1 in 127).
    res.append(("a reallocated slot gets a new tag each time",
                bool(reused) and all(a != b for t in reused for a, b in zip(t, t[1:])),
                "slots reused: %s" % reused))
    ctor = scenarios.run_check("ctor_tag", run.lab_lines("ctor-tag"), SW)
    res.append(("ctor cache keeps its tag, plain cache changes it", not ctor, "; ".join(ctor)))
    return res


def check_pages(run):
    s = run.sections()
    tag = returned_tag(s.get("random-tag", []))
    bt = "\n".join(s.get("random-tag", []))
    ev = run.lab_lines("page-tag")
    page = [kv for e, kv in ev if e == "page"]
    ptr = [kv for e, kv in ev if e == "ptr"]
    if tag is None or not page or not ptr:
        return [("gdb and the scenario show the page tag", False, "missing output")]
    return [("the page allocator draws the tag (post_alloc_hook in the backtrace)",
             "post_alloc_hook" in bt or "__kasan_unpoison_pages" in bt,
             "backtrace: %s" % clip(bt, 200)),  # mutation: equivalent (message length)
            ("page->flags tag == random tag == page_address() tag",
             page[0]["page_tag"] == ptr[0]["tag"] == "%02x" % tag,
             "flags %s, pointer %s, random 0x%02x" % (page[0]["page_tag"], ptr[0]["tag"], tag))]


# -- Exercises ---------------------------------------------------------------

def tagmath():
    """The student's student/tagmath.py: called in a sandbox, never imported."""
    return StudentCode(__file__, "tagmath.py")


def reference():
    """The grader's answer to 1.1 (reference.py, grader_only): None in a
    student's copy, where the random cases are left to the teacher."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("lab01_reference", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def access_cases(seed, n=300):
    """(ptr, size, start, tags) for exercise 1.1, drawn from the grading
    seed: pointers of every kind of tag (0xff among them), accesses that
    start and end inside, across and outside granules of that tag."""
    rnd = random.Random("1.1 %d" % seed)
    out = []
    for i in range(n):
        tag = 0xFF if i % 10 == 0 else rnd.choice([rnd.randrange(256), 0xFE, 0x00])
        start = 0xFFFF_FF80_0000_0000 | rnd.randrange(1 << 30) << 4
        ngr = rnd.randrange(1, 9)
        tags_ = [tag if rnd.random() < 0.8 else rnd.randrange(256) for _ in range(ngr)]
        off = rnd.randrange(16 * ngr)
        size = rnd.choice([0, 1, 2, 4, 8, 16, rnd.randrange(1, 16 * ngr - off + 1)])
        size = min(size, 16 * ngr - off)
        out.append(((tag << 56) | ((start + off) & ((1 << 56) - 1)), size, start, tags_))
    return out


def live_object(run):
    """(pointer, shadow address, tags of its 9 granules) that kasan-tag and
    kasan-shadow showed at the kmalloc(128) return, or None."""
    sec = run.sections()
    kern = kv_lines(sec.get("kernel", []))
    ptr, shadow = hex_or_none(kern.get("pointer")), hex_or_none(kern.get("shadow"))
    granules = shadow_row_bytes(sec.get("kernel", []), ptr or 0, 9)
    if ptr is None or shadow is None or None in granules:
        return None
    return ptr, shadow, [int(b, 16) for b in granules]


def ex_access_check(run, _runs):
    m, ref = tagmath(), reference()
    if ref is None:
        res = [("access_ok on the grader's random cases", None,
                "graded by your teacher's `make grade-class` (its reference is not in "
                "your copy)")]
    else:
        cases = access_cases(vm.run_seed())
        # the cases come from the run's seed, which the name never shows
        # (the hidden seed's must stay hidden)
        res = [compare("access_ok on %d cases drawn from the seed" % len(cases),
                       m, "access_ok", ref.access_ok, cases)]  # expect(*case)
    live = live_object(run)
    if live is None:
        return res + [("the live run reached the kmalloc return", False,
                       "no pointer, shadow address or shadow bytes in the kernel section")]
    ptr, _, granules = live
    start = tags.untag(ptr)
    reps = exercises.reports_of(run.serial, "oob-right")
    bad = [r for r in reps if r.get("addr") == "%016x" % (ptr + 128)]
    # The facts of this run: the scenario read its 128 bytes unreported and
    # its write of 1 byte at +128 was reported; a 0xff pointer always passes.
    facts = [((ptr, 128, start, granules), True, "the kernel let lab_oob_right use its "
              "128 bytes"),
             ((ptr + 128, 1, start, granules), False if bad else None,
              "the kernel reported the write at +128 (%s)" % (
                  "its report" if bad else "no report of it in this run")),
             ((tags.untag(ptr) + 128, 1, start, granules), True,
              "a 0xff pointer is never checked (kasan_check_range)")]
    for case, want, why in facts:
        if want is None:
            res.append(("live: %s" % why, False, "the run has no report at 0x%x" % (ptr + 128)))
            continue
        kind, got = m.call("access_ok", [case])[0]
        res.append(("live: access_ok(0x%x, %d, ...) is %s: %s" % (case[0], case[1], want, why),
                    kind == "value" and got is want,
                    "you: %s" % (exercises.hexs(got) if kind == "value" else got)))
    return res


def shadow_row_bytes(lines, start, count):
    """The shadow bytes kasan-shadow showed for `count` granules from start."""
    out = {}
    for ln in lines:
        m = re.match(r"[ >]([0-9a-f]{16}): ((?:[0-9a-f]{2} ?)+)$", ln)
        if m:
            base = int(m.group(1), 16)
            for i, b in enumerate(m.group(2).split()):
                out[base + 16 * i] = b
    return [out.get(tags.untag(start) + 16 * i) for i in range(count)]


def shadow_pairs(seed, n=100):
    """(offset, granule address) for exercise 1.2, drawn from the seed."""
    rnd = random.Random("1.2 %d" % seed)
    offsets = [0xEFFFFFC000000000, 0xDFFFFFC000000000, 0x1000]
    addrs = [0xFFFF_FF80_0000_0000, 0xFFFF_FFFF_FFFF_FFF0] + [
        0xFFFF_FF80_0000_0000 | rnd.randrange(1 << 35) << 4 for _ in range(n)]
    return [(o, a) for o in offsets for a in addrs]


def shadow_args(pairs):
    """shadow_to_mem's arguments: (the shadow address, the offset), made with
    the forward map (tags.py), which is not the answer."""
    return [(tags.mem_to_shadow(a, tags.Params(SW, o)), o) for o, a in pairs]


# What the leak test (classroom/implscan.py) calls every function of a handout
# with: one that answers as the solution does implements the exercise.
PROBES = {"access_ok": access_cases(7, 120), "shadow_to_mem": shadow_args(shadow_pairs(7, 30))}


def ex_shadow_inverse(run, _runs):
    m = tagmath()
    pairs = shadow_pairs(vm.run_seed())
    res = [compare("shadow_to_mem on %d shadow addresses drawn from the seed" % len(pairs),
                   m, "shadow_to_mem", [a for _, a in pairs], shadow_args(pairs))]
    live = live_object(run)
    if live is None:
        return res + [("the live run reached the kmalloc return", False,
                       "no pointer, shadow address or shadow bytes in the kernel section")]
    ptr, shadow, _ = live
    offset = (shadow - (tags.untag(ptr) >> 4)) & ((1 << 64) - 1)   # the kernel's own
    res.append(compare("live: shadow_to_mem of the shadow of the object's 8 granules and the "
                       "one after (kasan-tag: shadow 0x%x) is each granule" % shadow,
                       m, "shadow_to_mem", [tags.untag(ptr) + 16 * i for i in range(9)],
                       [(shadow + i, offset) for i in range(9)]))
    return res


# The instruction before a stop just after a call returned: `bl` to the
# function called (x/i $pc - 4: "   0x... <f+n>:\tbl\t0x... <callee>")
CALL_BEFORE = re.compile(r"^\s+0x[0-9a-f]+ <[^>]+>:\s+bl\s+0x[0-9a-f]+ <([\w.]+)(?:\+\d+)?>",
                         re.M)


def returned_from_kmalloc(stop_lines):
    """The kmalloc-path function (__kasan_kmalloc, kmalloc_trace, __kmalloc)
    whose call the instruction before the stop is, or None: the stop is
    where an allocation has just returned its object only then."""
    m = CALL_BEFORE.search("\n".join(stop_lines))
    return m.group(1) if m and "kmalloc" in m.group(1) else None


def ex_tagstop(run, _runs):
    sec = run.sections()
    stud = kv_lines(sec.get("student", []))
    kern = kv_lines(sec.get("kernel", []))
    ptr = hex_or_none(kern.get("pointer"))
    if ptr is None:
        return [("your file left $obj set at a stop", False,
                 "the project's kasan-tag $obj said: %s" % " | ".join(
                     sec.get("kernel", [])[:2] or ["(nothing: gdb stopped in your file)"]))]
    # The object the uaf scenario prints after the stop must be $obj.
    ev = [kv for e, kv in run.lab_lines("uaf") if e == "ptr"]
    obj = int(ev[0]["ptr"], 16) if ev else None
    want_shadow = shadow_row_bytes(sec.get("kernel", []), ptr, 9)
    stop = " ".join(sec.get("stop", []))
    x0 = hex_or_none(kv_lines(sec.get("stop", [])).get("x0"))
    callee = returned_from_kmalloc(sec.get("stop", []))
    return [("the VM is stopped just after a call into kmalloc returned (the instruction "
             "before $pc)", callee is not None,
             "the instruction before the stop is no call into kmalloc; the stop: %s" % clip(
                 stop, 200)),
            ("the VM is stopped where the allocation has just returned the object: x0 is "
             "$obj (the grader's $x0 there)", x0 == ptr,
             "x0 0x%x, $obj 0x%x; x/i $pc: %s" % (x0 or 0, ptr, clip(stop, 160))),
            ("$obj is lab_uaf's object (its ptr line on the serial)", obj == ptr,
             "$obj 0x%016x, scenario %s" % (ptr, ev[0]["ptr"] if ev else "(no ptr line)")),
            ("pointer tag: as kasan-tag", stud.get("pointer tag") is not None
             and stud.get("pointer tag") == kern.get("pointer tag"),
             "you: %s, kasan-tag: %s" % (stud.get("pointer tag"), kern.get("pointer tag"))),
            ("memory tag: as kasan-tag", (stud.get("memory tag") or "?").split()[:1]
             == (kern.get("memory tag") or "").split()[:1],
             "you: %s, kasan-tag: %s" % (stud.get("memory tag"), kern.get("memory tag"))),
            ("shadow: 9 granules as kasan-shadow", (stud.get("shadow") or "").split()
             == want_shadow, "you: %s, kasan-shadow: %s" % (stud.get("shadow"), want_shadow))]


# -- Known mistakes (mistakes.toml): what the work shows when a student
# makes one.  Each detector asks the student's code about a few accesses
# or reads what their gdb file left, never a stored answer.

MASK64 = (1 << 64) - 1
BASE = 0xFFFF_FF80_0012_3400          # an untagged, granule-aligned address


def access(tag, off, size, tags_):
    """access_ok's arguments for an access at BASE + off through a pointer
    tagged `tag`, over granules of tags_ from BASE."""
    return ((tag << 56) | ((BASE + off) & ((1 << 56) - 1)), size, BASE, tags_)


def student_access(*cases):
    return exercises.answers(tagmath(), "access_ok", cases)


def mistake_match_all_checked(run, runs):
    # 0xff pointers over memory tagged otherwise, refused
    return student_access(access(0xFF, 0, 16, [0x12]), access(0xFF, 8, 16, [0x34, 0x56])) \
        == [False, False]


def mistake_last_byte_unchecked(run, runs):
    # first granule right, second wrong: passed; first granule wrong: refused
    return student_access(access(0x12, 8, 16, [0x12, 0x34]), access(0x12, 20, 4, [0x12, 0x34])) \
        == [True, False]


def mistake_one_past_the_end(run, runs):
    # a whole granule of the right tag, the next one other: refused; half of
    # it, or 12 bytes (which 8-byte granules would take into the next): passed
    return student_access(access(0x12, 0, 16, [0x12, 0x34]), access(0x12, 0, 8, [0x12, 0x34]),
                          access(0x12, 0, 12, [0x12, 0x34])) == [False, True, True]


def mistake_zero_size_checked(run, runs):
    return student_access(access(0x12, 4, 0, [0x34]), access(0x12, 4, 1, [0x12])) == [False, True]


def mistake_tag_left_in_the_address(run, runs):
    # one granule of the pointer's tag, one of another (each list longer
    # than the access needs, so that a granule count off by a few stays in
    # it): a tag left in the address makes the granule index meaningless:
    # an IndexError, or no granule looked at (both pass)
    cases = (access(0x12, 0, 16, [0x12] * 4), access(0x12, 0, 16, [0x34] * 4))
    got = tagmath().call("access_ok", cases)
    return any(kind == "error" and str(v).startswith("IndexError") for kind, v in got) \
        or got == [("value", True), ("value", True)]


# (offset, granule address) of the swtags and the generic offset
SHADOW_PROBES = [(0xEFFFFFC000000000, 0xFFFF_FF80_0012_3400),
                 (0xDFFFFFC000000000, 0xFFFF_FF80_4567_8900),
                 (0xEFFFFFC000000000, 0xFFFF_FFFF_FFFF_FFF0)]


def student_inverse(probes):
    """(student's values, the granule addresses) on probes."""
    return (exercises.answers(tagmath(), "shadow_to_mem", shadow_args(probes)),
            [a for _, a in probes])


def mistake_granule_scale_forgotten(run, runs):
    got, want = student_inverse(SHADOW_PROBES[:2])
    return got == [a >> 4 for a in want]


def mistake_generic_granule(run, runs):
    # 8-byte granules (generic KASAN's): the granule of byte 32 is taken as
    # the fifth, not the third; a first granule the same either way passes
    odd = access(0x12, 32, 8, [0x34, 0x34, 0x12, 0x56, 0x56, 0x56])
    return student_access(odd, access(0x12, 0, 8, [0x12] * 6)) == [False, True]


def mistake_generic_scale(run, runs):
    # generic KASAN's scale (8-byte granules: << 3) undone instead of 16's
    got, want = student_inverse(SHADOW_PROBES[:2])
    return got == [(a >> 1) | (a & (1 << 63)) for a in want] or \
        got == [((a >> 4) << 3) & MASK64 for a in want]


def mistake_shifted_the_wrong_way(run, runs):
    got, want = student_inverse(SHADOW_PROBES[:2])
    return got == [a >> 8 for a in want]


def mistake_offset_added(run, runs):
    got, want = student_inverse(SHADOW_PROBES[:2])
    return got == [(a + (o << 5)) & MASK64 for (o, _), a in zip(SHADOW_PROBES, want)]


def mistake_untagged_as_zero(run, runs):
    got, want = student_inverse(SHADOW_PROBES)
    return got == [a & ((1 << 56) - 1) for a in want]


def stop_state(run):
    """(x0 where the student's file stopped, $obj, the student's lines,
    the kernel section's lines) of an exercise 1.3 run."""
    sec = run.sections()
    return (hex_or_none(kv_lines(sec.get("stop", [])).get("x0")),
            hex_or_none(kv_lines(sec.get("kernel", [])).get("pointer")),
            sec.get("student", []), sec.get("kernel", []))


def untag56(v):
    return v | 0xFF << 56


def mistake_stopped_before_return(run, runs):
    x0, obj, _, _ = stop_state(run)
    return None not in (x0, obj) and untag56(x0) != untag56(obj)


def mistake_object_untagged(run, runs):
    x0, obj, _, _ = stop_state(run)
    ev = [kv for e, kv in run.lab_lines("uaf") if e == "ptr"]
    scen = int(ev[0]["ptr"], 16)
    return obj >> 56 == 0xFF and scen >> 56 != 0xFF and untag56(scen) == obj


def mistake_shadow_of_the_tagged_address(run, runs):
    _, obj, stud, kern = stop_state(run)
    shadow = hex_or_none(kv_lines(kern).get("shadow"))
    offset = (shadow - (untag56(obj) >> 4)) & MASK64
    wrong = ((obj >> 4) + offset) & MASK64
    return any(re.search(r"Cannot access memory at address 0x0*%x\b" % wrong, ln) for ln in stud)


def mistake_eight_granules(run, runs):
    _, obj, stud, kern = stop_state(run)
    got = (kv_lines(stud).get("shadow") or "").split()
    return len(got) == 8 and got == shadow_row_bytes(kern, obj, 8)
