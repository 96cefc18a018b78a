"""Lab 1 grader: what the student must see about tag assignment."""
import random
import re

from kasan import tags
from labs.exercises import compare, hex_or_none, kv_lines, load_student
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
             "backtrace: %s" % bt[:200]),  # mutation: equivalent (message length)
            ("page->flags tag == random tag == page_address() tag",
             page[0]["page_tag"] == ptr[0]["tag"] == "%02x" % tag,
             "flags %s, pointer %s, random 0x%02x" % (page[0]["page_tag"], ptr[0]["tag"], tag))]


# -- Exercises ---------------------------------------------------------------

def tagmath():
    """The student's labs/01-tag-assignment/student/tagmath.py, freshly loaded."""
    return load_student(__file__, "tagmath.py")


def sample_pointers(n=200, seed=1):
    """Kernel pointers with every tag, plus edge cases; fixed seed."""
    rnd = random.Random(seed)
    ptrs = [0xFFFF_FF80_0000_0000, 0x00FF_FF80_0000_0010, 0xFEFF_FFFF_FFFF_FFF0,
            0xB4FF_FF80_0123_4560]
    return ptrs + [(rnd.randrange(256) << 56) | (0xFF_FF80 << 32) | rnd.randrange(1 << 32)
                   for _ in range(n)]


def ex_tag_helpers(run, _runs):
    m = tagmath()
    ptrs = sample_pointers()
    res = [compare("tag_of on %d pointers" % len(ptrs), m.tag_of, tags.tag_of,
                   [(p,) for p in ptrs]),
           compare("with_tag on every tag", m.with_tag, tags.set_tag,
                   [(p, t) for p in ptrs[:8] for t in range(256)]),
           compare("untag on %d pointers" % len(ptrs), m.untag, tags.untag,
                   [(p,) for p in ptrs])]
    kern = kv_lines(run.sections().get("kernel", []))
    stud = kv_lines(run.sections().get("student", []))
    ptr = hex_or_none(kern.get("pointer"))
    if ptr is None:
        return res + [("the live run reached the kmalloc return", False,
                       "no pointer in the kernel section")]
    live = [("tag_of", "pointer tag"), ("untag", "untag")]
    for mine, theirs in live:
        got, want = hex_or_none(stud.get(mine)), hex_or_none(kern.get(theirs))
        res.append(("live: %s(0x%016x) = the kernel's %s" % (mine, ptr, theirs),
                    got is not None and got == want,
                    "you said %s, the kernel %s" % (stud.get(mine), kern.get(theirs))))
    got = hex_or_none(stud.get("with_tag 0x42"))
    res.append(("live: with_tag(ptr, 0x42)", got == tags.set_tag(ptr, 0x42),
                "you said %s" % stud.get("with_tag 0x42")))
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


def ex_shadow_helper(run, _runs):
    m = tagmath()
    p = tags.Params(SW, 0xEFFFFFC000000000)
    ptrs = sample_pointers()
    res = [compare("mem_to_shadow on %d pointers (offset 0x%x)" % (len(ptrs), p.offset),
                   m.mem_to_shadow, lambda a, o: tags.mem_to_shadow(a, tags.Params(SW, o)),
                   [(a, p.offset) for a in ptrs] + [(a, 0x1000) for a in ptrs[:20]])]
    sec = run.sections()
    kern, stud = kv_lines(sec.get("kernel", [])), kv_lines(sec.get("student", []))
    ptr = hex_or_none(kern.get("pointer"))
    if ptr is None:
        return res + [("the live run reached the kmalloc return", False,
                       "no pointer in the kernel section")]
    want = shadow_row_bytes(sec.get("kernel", []), ptr, 9)
    got = [stud.get("shadow byte granule %d" % i) for i in range(9)]
    res.append(("live: the bytes at your shadow addresses are the kernel's shadow of "
                "the object and the granule after it", got == want and None not in want,
                "at your addresses: %s; kasan-shadow: %s" % (got, want)))
    return res


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
    return [("$obj is lab_uaf's object (its ptr line on the serial)", obj == ptr,
             "$obj 0x%016x, scenario %s" % (ptr, ev[0]["ptr"] if ev else "(no ptr line)")),
            ("pointer tag: as kasan-tag", stud.get("pointer tag") == kern.get("pointer tag"),
             "you: %s, kasan-tag: %s" % (stud.get("pointer tag"), kern.get("pointer tag"))),
            ("memory tag: as kasan-tag", (stud.get("memory tag") or "?").split()[:1]
             == (kern.get("memory tag") or "").split()[:1],
             "you: %s, kasan-tag: %s" % (stud.get("memory tag"), kern.get("memory tag"))),
            ("shadow: 9 granules as kasan-shadow", (stud.get("shadow") or "").split()
             == want_shadow, "you: %s, kasan-shadow: %s" % (stud.get("shadow"), want_shadow))]
