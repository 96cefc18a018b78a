"""Lab 1 grader: what the student must see about tag assignment."""
import re

from labs.scenarios import check_ctor_tag, check_tags


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
    untagged = ptr | (0xFF << 56)
    grans = []
    rows = [ln for ln in s.get("kasan-shadow", []) if re.match(r"[ >][0-9a-f]{16}: ", ln)]
    for ln in rows:
        base = int(ln[1:17], 16)
        for i, b in enumerate(ln[19:].split()):
            a = base + 16 * i  # mutation: equivalent (17*i//16 == i for the 16 granules of a row)
            if untagged <= a < untagged + 128:
                grans.append(b)
    res.append(("kasan-shadow: all 8 granules of the object carry its tag",
                grans == ["%02x" % top] * 8, "granules %s" % grans))
    return res


def check_reuse(run):
    ev = run.lab_lines("tags")
    res = [("tags: shadow == pointer tag for every object", not check_tags(ev, "sw_tags"),
            "; ".join(check_tags(ev, "sw_tags")))]
    same_slot = {}
    for e, kv in ev:
        if e == "ptr":
            same_slot.setdefault(kv["addr"], []).append(kv["tag"])
    reused = [tags for tags in same_slot.values() if len(tags) > 1]
    # Back-to-back allocations of a slot draw consecutive LCG values, which
    # never repeat; a slot's tags further apart may match (1 in 127).
    res.append(("a reallocated slot gets a new tag each time",
                bool(reused) and all(a != b for t in reused for a, b in zip(t, t[1:])),
                "slots reused: %s" % reused))
    ctor = check_ctor_tag(run.lab_lines("ctor-tag"), "sw_tags")
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
