# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-why's pure parts (kasan/why.py): instructions as gdb prints them
(from replays of the lab module's uaf and oob-right), the origin of a
register's value in a trace, the timeline and the verdict."""
from kasan import why

MOD = "/b/module/kasan_lab.c"


def regs(**kw):
    r = {"x%d" % i: 0 for i in range(31)}
    r["sp"] = 0xffffff8000877d00
    r.update(kw)
    return r


def test_parse_loads_stores_calls_and_copies():
    d = why.parse("ldrb\tw2, [x21]")
    assert d["kind"] == "load" and d["dests"] == ["x2"] and d["mem"]["base"] == "x21"
    d = why.parse("ldr\tx0, [x19, #8]")
    assert d["kind"] == "load" and d["mem"]["offset"] == 8 and d["mem"]["wide"] == [True]
    d = why.parse("str\tx0, [x20, #16]")
    assert d["kind"] == "store" and d["dests"] == [] and d["mem"]["regs"] == ["x0"]
    d = why.parse("stp\tx29, x30, [sp, #-48]!")
    assert d["kind"] == "store" and d["mem"]["writeback"] and d["dests"] == []
    d = why.parse("ldp\tx20, x19, [sp, #32]")
    assert d["dests"] == ["x20", "x19"] and why.slot(d["mem"], "x19") == 8
    d = why.parse("ldr\tx1, [x2], #8")
    assert d["mem"]["post"] == 8 and "x2" in d["dests"]
    d = why.parse("bl\t0xffffffc0080f22b0 <kmalloc_trace>")
    assert d["kind"] == "call" and d["target"] == "kmalloc_trace" and "x0" in d["dests"]
    assert "x19" not in d["dests"], "callee-saved"
    d = why.parse("mov\tx21, x0")
    assert d["kind"] == "copy" and d["src"] == "x0" and d["dests"] == ["x21"]
    d = why.parse("add\tx22, x21, #0x80")
    assert d["kind"] == "arith" and d["src"] == "x21" and d["delta"] == 0x80
    d = why.parse("add\tx22, x23, #0x1, lsl #12")
    assert d["kind"] == "arith" and d["src"] == "x23" and d["delta"] == 0x1000
    d = why.parse("sub\tx1, x1, #16")
    assert d["delta"] == -16
    d = why.parse("mov\tw3, #0x80                  \t// #128")
    assert d["kind"] == "other" and d["dests"] == ["x3"]
    for asm in ("cbnz\tx0, 0xffffffc0002e146c <lab_uaf+80>", "cmp\tx0, x1", "b.ne\t0x10",
                "tbz\tw0, #3, 0x20"):
        assert why.parse(asm)["dests"] == [], asm
    assert why.check_register("bl\t0xffffffc0002e0434 <__hwasan_check_x21_67043360>") == "x21"
    d = why.parse("bl\t0xffffffc0002e0434 <__hwasan_check_x24_67043379>")
    assert d["kind"] == "call" and "x0" not in d["dests"], "the checks keep x0..x15"
    assert why.check_register("bl\t0x1 <__asan_load1_noabort>") is None


def test_addresses():
    r = regs(x19=0x1000, x2=0x30)
    assert why.address(why.parse("ldr\tx0, [x19, #8]")["mem"], r) == 0x1008
    assert why.address(why.parse("ldr\tx0, [x19, x2, lsl #3]")["mem"], r) == 0x1180
    assert why.address(why.parse("ldr\tx0, [x19], #8")["mem"], r) == 0x1000
    assert why.address(why.parse("ldur\tx0, [x19, #-8]")["mem"], r) == 0xff8
    st = why.parse("stp\tx1, x0, [x20]")
    assert why.source_of(st, 0x2008, 0x2000) == "x0"
    assert why.source_of(st, 0x2000, 0x2000) == "x1"
    assert why.source_of(st, 0x2010, 0x2000) is None


P = 0xc4ffff8000b65500


def step(asm, **kw):
    return {"pc": 0, "asm": asm, "regs": regs(**kw)}


def test_origin_in_a_trace():
    # lab_uaf: p = kmalloc() in x0, kept in x21, read through x21
    tr = [step("stp\tx29, x30, [sp, #-48]!"),
          step("bl\t0xffffffc0080f22b0 <kmalloc_trace>"),
          step("cbnz\tx0, 0x10 <lab_uaf+80>", x0=P),
          step("mov\tx21, x0", x0=P),
          step("bl\t0x1 <kfree>", x0=P, x21=P),
          step("bl\t0x2 <__hwasan_check_x21_67043360>", x21=P)]
    o = why.origin(tr, "x21")
    assert o == {"how": "copy", "step": 3, "src": "x0", "delta": 0}
    o = why.origin(tr, "x0", 3)
    assert o["how"] == "call" and o["target"] == "kmalloc_trace" and o["step"] == 1
    assert why.is_allocator("kmalloc_trace") and not why.is_allocator("kfree")
    # a value from memory, and one the caller passed
    tr = [step("ldr\tx22, [x19, #8]", x19=0x1000), step("bl\t0x3 <f>", x22=P)]
    assert why.origin(tr, "x22") == {"how": "load", "step": 0, "addr": 0x1008}
    assert why.origin(tr, "x19")["how"] == "entry"
    # a caller-saved register across a call, a value computed
    tr = [step("mov\tx9, x19"), step("bl\t0x3 <f>"), step("ldrb\tw0, [x9]")]
    assert why.origin(tr, "x9")["how"] == "other"
    tr = [step("eor\tx9, x9, x10"), step("ldrb\tw0, [x9]")]
    assert why.origin(tr, "x9")["how"] == "other"


def ev(kind, icount, line, **kw):
    return dict({"kind": kind, "icount": icount, "fn": "lab_x", "where": "%s:%d" % (MOD, line)},
                **kw)


def test_verdicts_name_the_module_lines():
    uaf = [ev("access", 300, 425), ev("alloc", 100, 415, call="kmalloc_trace"),
           ev("tag", 110, 415), ev("free", 200, 420, call="kfree")]
    assert [e["kind"] for e in why.timeline(uaf)] == ["alloc", "tag", "free", "access"]
    assert why.verdict(uaf, 0xc4, 0xfe) == (
        "use after free: the pointer returned by the allocation at kasan_lab.c:415 was used "
        "at kasan_lab.c:425 after kfree at kasan_lab.c:420")
    realloc = uaf + [ev("realloc", 250, 430)]
    assert why.verdict(realloc, 0x62, 0x37).startswith("use after free, the slot reused:")
    assert why.verdict(realloc, 0x62, 0x37).endswith("the reallocation at kasan_lab.c:430")
    oob = [ev("access", 300, 332), ev("alloc", 100, 311), ev("offset", 290, 331, delta=0x80),
           ev("slab", 50, 98)]
    assert why.verdict(oob, 0x2d, 0xfe) == (
        "out of bounds: the pointer returned by the allocation at kasan_lab.c:311 +0x80 was "
        "used at kasan_lab.c:332")
    # oob-history: the neighbour granule got our tag from another allocation
    hist = [ev("access", 300, 508), ev("alloc", 100, 349), ev("offset", 290, 507, delta=0x80),
            ev("tag", 150, 463), ev("free", 160, 457), ev("realloc", 170, 463)]
    assert why.verdict(hist, 0x37, 0x0e) == (
        "out of bounds: the pointer returned by the allocation at kasan_lab.c:349 +0x80 was "
        "used at kasan_lab.c:508 (the granule it hit got the pointer's tag from another "
        "allocation, at kasan_lab.c:463)")
    # hw-tags: the stack ring's allocation and free, without counts
    hw = [ev("access", 300, 425), ev("alloc", 100, 415),
          dict(ev("tag", None, 563), ring=True),
          dict(ev("free", None, 420, call="kfree"), ring=True)]
    assert why.verdict(hw, 0xf6, None) == (
        "use after free: the pointer returned by the allocation at kasan_lab.c:415 was used "
        "at kasan_lab.c:425 after kfree at kasan_lab.c:420")
    field = uaf + [ev("store", 120, 440), ev("load", 250, 450)]
    v = why.verdict(field, 0xc4, 0xfe)
    assert v == ("use after free: the pointer returned by the allocation at kasan_lab.c:415 "
                 "stored at kasan_lab.c:440, loaded at kasan_lab.c:450, was used at "
                 "kasan_lab.c:425 after kfree at kasan_lab.c:420")
    v = why.verdict([ev("access", 3, 9)], 1, 2)
    assert v.startswith("tag mismatch: the pointer (its origin not found)")
    assert why.short(MOD + ":12") == "kasan_lab.c:12"
    assert why.short("mm/slub.c:3") == "mm/slub.c:3"
    line = why.format_event(ev("free", 200, 420, text="memory tag fe"))
    assert line.split() == ["200", "free", "lab_x", "at", "kasan_lab.c:420", "memory", "tag",
                            "fe"]


def test_the_lab_frame():
    fr = [("kasan_poison", "mm/kasan/shadow.c", 98), ("kfree", "mm/slab_common.c", 1007),
          ("lab_uaf", MOD, 420)]
    assert why.lab_frame(fr) == ("lab_uaf", MOD, 420)
    assert why.lab_frame(fr[:2]) is None


def test_object_layout_ring_and_depot():
    from kasan import objinfo
    lay = objinfo.Layout(39, 12, 64)
    assert lay.page_offset == 0xffffff8000000000
    assert lay.vmemmap_start == 0xfffffffe00000000   # -(1 << (39 - 6))
    page = lay.page_of(0xc4ffff8000b65500)
    assert page == 0xfffffffe00000000 + 0xb65 * 64
    assert lay.page_address(page) == 0xffffff8000b65000
    assert objinfo.slot(0xc4ffff8000b65580, 0xffffff8000b65000, 128) == (
        11, 0xffffff8000b65580, 0)
    assert objinfo.slot(0xffffff8000b65505, 0xffffff8000b65000, 128)[1:] == (
        0xffffff8000b65500, 5)
    assert objinfo.state("sw_tags", 0xfe).startswith("free")
    assert objinfo.state("sw_tags", 0x37) == "allocated (memory tag 37)"
    assert objinfo.state("generic", 0x00) == "allocated"
    assert objinfo.state("generic", 0xfa).startswith("free (shadow fa")
    # the ring of uaf-realloc: alloc 62, free 62, alloc 37 (newest); and another object
    obj = 0xffffff8000b65500
    rows = [(0x62ffff8000b65500, False, 11), (0x62ffff8000b65500, True, 12),
            (0x11ffff8000b65600, False, 13), (0x37ffff8000b65500, False, 14)]
    esize, off = 32, {"ptr": 0, "size": 8, "pid": 16, "stack": 20, "is_free": 24}
    raw = b""
    for ptr, free, stack in rows + [(0, False, 0)] * 4:
        raw += (ptr.to_bytes(8, "little") + (128).to_bytes(8, "little") +
                (1).to_bytes(4, "little") + stack.to_bytes(4, "little") +
                bytes([free]) + bytes(7))
    ents = objinfo.ring_entries(raw, 8, esize, off)
    assert ents[1]["is_free"] and ents[1]["stack"] == 12 and ents[0]["pid"] == 1
    mine = objinfo.of_object(ents, 4, obj)
    assert [e["stack"] for e in mine] == [14, 12, 11]
    tr = objinfo.report_tracks(ents, 4, obj, 0x62)
    assert tr["free"]["stack"] == 12 and tr["alloc"]["stack"] == 11
    tr = objinfo.report_tracks(ents, 4, obj, 0x37)
    assert tr["alloc"]["stack"] == 14 and tr["free"] is None
    # a handle: index 3, offset 0x40 (4 units of 16), valid
    assert objinfo.handle_parts(3 | (4 << 16) | (1 << 26)) == (3, 0x40, True)
    assert objinfo.handle_parts(0)[2] is False
    assert objinfo.frame_text("lab_uaf", 0x3c, None, "kasan_lab") == "lab_uaf+0x3c [kasan_lab]"
    assert objinfo.same_stack(["kfree+0x64", "lab_uaf+0xb0 [kasan_lab]"],
                              ["kfree+0x64/0x7c", "lab_uaf+0xb0/0x144 [kasan_lab]"])
    assert not objinfo.same_stack(["kfree+0x60"], ["kfree+0x64/0x7c"])


def test_the_commands_have_their_help():
    """A gdb command's help is its class docstring: a string literal.  The
    commands live in one module per family, kasan/cmd_*.py."""
    import ast
    import glob
    import os
    here = os.path.dirname(why.__file__)
    for path in glob.glob(os.path.join(here, "cmd_*.py")):
        for node in ast.parse(open(path).read()).body:
            if isinstance(node, ast.ClassDef) and node.name.startswith("Kasan"):
                assert ast.get_docstring(node), node.name
    src = open(os.path.join(here, "cmd_history.py")).read()
    assert "up to 6 hops" in src and why.MAX_HOPS == 6


def test_the_loader_imports_every_command_family():
    """gdb-scripts/kasan.py registers the commands by importing each
    kasan/cmd_*.py, as vmlinux-gdb.py imports scripts/gdb/linux/*.py: a
    family it does not import has no command in gdb."""
    import glob
    import os
    here = os.path.dirname(why.__file__)
    loader = open(os.path.join(os.path.dirname(here), "kasan.py")).read()
    families = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(here, "cmd_*.py")))
    assert len(families) == 5, families
    for name in families:
        assert "import kasan.%s " % name in loader, name


def test_icount_of_a_step_counted_back():
    tr = [{"icount": 100}, {}, {}, {"icount": 110}, {}, {"icount": 120}, {}]
    assert why.icount_at(tr, 0) == 100 and why.icount_at(tr, 1) == 108
    assert why.icount_at(tr, 4) == 119 and why.icount_at(tr, 6) is None
