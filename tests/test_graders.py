"""Every lab check on the outputs of real runs (tests/data/labs/, stored by
`python3 -m tests.fixtures labs` after `make grade`): GOOD on the run as
captured, BAD on a copy altered in the one value the check is about, and
BAD on empty input.  A grader that cannot fail is caught here."""
import json
import lzma
import os
import re

import pytest

from labs import lab
from labs.grade import Run
from conftest import REPO

DATA = os.path.join(REPO, "tests", "data", "labs")
LABS = {x.folder[:2]: x for x in lab.load_all()}

# (lab, step, what to alter, regex, replacement): each alteration must be graded BAD.
ALTER = [
    ("01", "slab", "gdb", r"(Value returned is \$\d+ = )(\d+)", lambda m: m.group(1) + str(
        (int(m.group(2)) + 1) % 254)),
    ("01", "slab", "gdb", r"(memory tag:\s+)([0-9a-f]{2})", r"\g<1>fe"),
    ("01", "reuse", "serial", r"(tags shadow of=\S+ granule=16 granules=\d+ shadow=)([0-9a-f]{2})",
     r"\g<1>00"),
    ("01", "reuse", "serial", r"(ctor-tag round cache=kasan_lab_ctor round=1 \S+ tag=)([0-9a-f]{2})",
     r"\g<1>01"),
    ("01", "pages", "gdb", r"post_alloc_hook|__kasan_unpoison_pages", "some_function"),
    ("02", "count", "host", r"^swtags: \d+ calls", "swtags: 0 calls"),
    ("02", "count", "host", r"^swtags-brk: (\d+) calls to __hwasan_check_\*, \d+ brk",
     r"swtags-brk: \1 calls to __hwasan_check_*, 0 brk"),
    ("02", "brk", "gdb", r"call_break_hook", "call_brake_hook"),
    ("02", "brk", "gdb", r"(pc after=0x[0-9a-f]+?)([0-9a-f])\b",
     lambda m: m.group(1) + "%x" % ((int(m.group(2), 16) + 8) % 16)),
    ("02", "outline", "gdb", r"kasan_tag_mismatch", "kasan_tag_mizmatch"),
    ("02", "outline", "gdb", r"lab_uaf", "lab_other"),
    ("03", "reports", "gdb", r"(memory tag:\s+)([0-9a-f]{2})", r"\g<1>00"),
    ("03", "reports", "serial", r"lab_uaf_realloc", "lab_uaf_reelloc"),
    ("03", "reports", "gdb", r"^(pointer:\s+0x)([0-9a-f])", lambda m: m.group(1) + (
        "0" if m.group(2) != "0" else "1")),
    ("03", "generic", "serial", r"BUG: KASAN: use-after-free", "BUG: KASAN: slab-out-of-bounds"),
    ("03", "decode-generic", "host", r"generic mode: no tags", "sw_tags mode"),
    ("03", "history", "serial", r"BUG: KASAN: use-after-free in lab_oob_history",
     "BUG: KASAN: invalid-access in lab_oob_history"),
    ("03", "history", "serial", r"BUG: KASAN: invalid-access in lab_oob_right",
     "BUG: KASAN: use-after-free in lab_oob_right"),
    ("03", "history", "serial", r"oob-history result found=1", "oob-history result found=0"),
    ("03", "history", "serial", r"retake_slot\+", "other_fn+"),
    ("03", "history", "serial", r"(oob-history ptr name=neighbour \S+ tag=)([0-9a-f]{2})",
     lambda m: m.group(1) + "%02x" % ((int(m.group(2), 16) + 1) % 254)),
    ("05", "no-tbi", "gdb", r"far=0xef", "far=0x00"),
    ("05", "no-tbi", "serial", r"\A", "[    0.000000] Booting Linux on physical CPU 0x0\n"),
    ("05", "fixed-tag", "serial", r"same_tag=10000", "same_tag=9999"),
    ("05", "fixed-tag", "serial", r"not ok (\d+) kmalloc_uaf2", r"ok \1 kmalloc_uaf2"),
    ("05", "no-untag-phys", "serial", r"pc : handle_mm_fault", "pc : other_fn"),
    ("05", "no-redzone-tag", "serial", r"(uaf shadow of=freed granule=16 granules=8 shadow=)"
     r"[0-9a-f]{2}", r"\1fe"),
    ("05", "no-redzone-tag", "serial", r"BUG: KASAN: invalid-access", "BUG: KASAN: use-after-free"),
    ("05", "no-brk-hook", "serial", r"Unexpected kernel BRK exception", "Expected BRK"),
    ("06", "hwtags", "serial", r"\(hw-tags, mode=sync", "(hw-tags, mode=async"),
    ("06", "hwtags", "serial", r"BUG: KASAN: use-after-free in lab_uaf\+",
     "BUG: KASAN: invalid-access in lab_uaf+"),
    ("06", "hwtags", "serial", r"(collision result gap=0 rounds=10000 same_slot=10000 "
     r"same_tag=)\d+", r"\g<1>714"),
    ("06", "async", "serial", r"\(hw-tags, mode=async", "(hw-tags, mode=sync"),
    ("06", "async", "serial", r"Asynchronous fault: no details available",
     "Read at addr f5ffff8000baf100 by task init/1"),
    ("06", "hwtags-qemu72", "serial", r"\A", "KT-INIT-START\n"),
    ("06", "qemu72", "serial", r"(kt-tags after one dc gva at \+0x800 page \w+: ).*$",
     r"\1f0*128@0 f3*4@800 f0*124@840"),
    ("06", "qemu10", "serial", r"f3\*4@800", "f3*5@800"),
    ("06", "qemu10", "serial", r"kt-tags after one stg", "kt-tags after two stg"),
    # lab 7: kasan-history naming the wrong function, value, order or return
    ("07", "uaf", "gdb", r"kfree <- lab_uaf", "kmalloc <- lab_uaf"),
    ("07", "uaf", "gdb", r"^(write 1: )fe", r"\g<1>00"),
    ("07", "uaf", "gdb", r"^back at instruction (\d+)", r"back at instruction 1\1"),
    ("07", "uaf", "gdb", r"^stopped: write", "stopped after"),
    ("07", "realloc", "gdb", r"^(write 2: )fe  free      ", r"\g<1>fe  allocation"),
    ("07", "realloc", "gdb", r"<- lab_uaf_realloc$", "<- lab_other"),
    ("07", "redzone", "gdb", r"^(write 1: [0-9a-f]{2}\s+)[\w-]+", r"\1other"),
    ("07", "redzone", "gdb", r"^stopped.*$", ""),
    # lab 8: the planted site missing, a same-tag site recorded, sites lost, a verdict gone
    ("08", "sites", "serial", r"^.*ptrcmp site .* at lab_ptr_compare\+.*$", ""),
    ("08", "sites", "serial", r"at lab_ptr_compare\+", "at lab_ptr_same_tag+"),
    ("08", "sites", "serial", r"lost=0", "lost=3"),
    ("08", "sites", "serial", r"workload done", "workload failed"),
    ("08", "table", "host", r"^  is_kernel_rodata .*$", ""),
    ("08", "table", "host", r"(lab_ptr_compare\+\S+ \[kasan_lab\]\s+)\S+", r"\1?"),
]


def load(folder, step, kind):
    path = os.path.join(DATA, folder, "%s.%s.xz" % (step, kind))
    if not os.path.exists(path):
        return None
    with lzma.open(path, "rt") as f:
        return f.read()


def run_of(folder, step, data):
    r = Run(folder, step, "<cache>/build/x")
    r.serial, r.gdb, r.host = data.get("serial") or "", data.get("gdb") or "", ""
    if LABS[folder[:2]].step(step).get("host"):
        r.host, r.serial = r.serial, ""
    return r


def captured():
    """(lab, step, {kind: text}) of every stored graded step (lab 4's table apart)."""
    out = []
    for x in LABS.values():
        for s in x.steps:
            if not s.get("checks", True) or s["name"] in ("decode", "table"):
                continue
            data = {k: load(x.folder, s["name"], k) for k in ("serial", "gdb")}
            if data["serial"] is not None:
                out.append((x.folder, s["name"], data))
    return out


def grade(folder, step, data):
    x = LABS[folder[:2]]
    s = x.step(step)
    return x.checker(s)(run_of(folder, step, data), s)


def test_stored_runs_cover_every_lab():
    assert {f[:2] for f, _, _ in captured()} >= {"01", "02", "03"}
    assert load("04-generic-vs-tags", "table", "json")
    assert load("06-hardware-tags", "table", "json")


@pytest.mark.parametrize("folder,step,data", captured(), ids=lambda v: v if isinstance(
    v, str) else "")
def test_real_run_is_good_and_empty_is_bad(folder, step, data):
    res = grade(folder, step, data)
    assert res and all(ok for _, ok, _ in res), [r for r in res if not r[1]]
    empty = grade(folder, step, {"serial": "", "gdb": ""})
    assert empty and not all(ok for _, ok, _ in empty), empty


@pytest.mark.parametrize("lab_no,step,kind,pattern,repl", ALTER,
                         ids=["%s-%s-%d" % (a[0], a[1], i) for i, a in enumerate(ALTER)])
def test_altered_run_is_bad(lab_no, step, kind, pattern, repl):
    folder = LABS[lab_no].folder
    data = {k: load(folder, step, k) for k in ("serial", "gdb")}
    src = "serial" if kind == "host" else kind
    assert data[src] is not None, "no stored %s of %s/%s" % (kind, folder, step)
    new, n = re.subn(pattern, repl, data[src], flags=re.M)
    assert n >= 1, "the alteration /%s/ does not apply" % pattern
    data[src] = new
    res = grade(folder, step, data)
    assert not all(ok for _, ok, _ in res), "altered %s still GOOD" % pattern


def table():
    return json.loads(load("04-generic-vs-tags", "table", "json"))


def test_lab4_table_good_then_each_gap_bad():
    check = LABS["04"].module.check_table_data
    assert all(ok for _, ok, _ in check(table()))
    for alter in (lambda t: t["bugs"]["uaf-realloc"].update(generic=["use-after-free"]),
                  lambda t: t["bugs"]["oob-in-granule"].update(swtags=None),
                  lambda t: t["bugs"]["uaf-realloc"].update(generic=None),
                  lambda t: t.update(collision={}),
                  lambda t: t["collision"].update({"1": [5000, 10000]}),
                  lambda t: t["memory"]["swtags"].update(shadow_fraction=1 / 8),
                  lambda t: t["memory"]["generic"].update(slab=1)):
        t = table()
        alter(t)
        assert not all(ok for _, ok, _ in check(t)), alter
    assert not all(ok for _, ok, _ in check({}))


def test_lab6_table_good_then_each_claim_bad():
    check = LABS["06"].module.check_table_data

    def table6():
        return json.loads(load("06-hardware-tags", "table", "json"))
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


def test_control_is_evidence_only_when_it_ran_to_its_end():
    from labs.grade import control_differs
    ctl = Run("05-break-it", "x", "<cache>/build/x")
    ctl.paths = ["ctl.log"]
    bad, good = [("a", False, "")], [("a", True, "")]
    for status in ("timeout", "exit", "panic"):
        ctl.status = status
        ok, why = control_differs(ctl, bad)
        assert not ok and "did not reach its end (%s)" % status in why
    ctl.serial = "[ 0.0] Linux version 6.1\n"  # a gdb step that stopped the booted VM itself
    ctl.status = "exit"
    assert control_differs(ctl, bad) == (True, "")
    ctl.status = "timeout"
    assert not control_differs(ctl, bad)[0]
    ctl.serial, ctl.status = "", "ok"
    assert control_differs(ctl, bad) == (True, "")
    assert control_differs(ctl, good) == (False, "the control kernel shows the same outcome")


def test_host_step_header_names_its_kernels():
    from labs.grade import transcript_header
    host = transcript_header({"name": "t", "host": ["x"]}, "$ x", "swtags, generic", "6.1",
                             "2026-12-03", 7)
    assert host[1] == ("# kernel: Linux 6.1, host step; kernels: swtags, generic; captured "
                       "2026-12-03 by `make transcripts`")
    boot = transcript_header({"name": "b", "filter": "BUG"}, "$ make boot", "generic", "6.1",
                             "d", 7)
    assert boot[1].startswith("# kernel: Linux 6.1, variant generic;")
    assert boot[2].startswith("# seed: 7 ")
    assert boot[3] == "# shown: the lines matching /BUG/"


def test_limit_keeps_the_head_and_tail_and_counts_the_rest():
    from labs.grade import excerpt, transcript_header
    body = "\n".join("line %d" % i for i in range(100))
    out = excerpt(body, 16).splitlines()
    assert out[:16] == ["line %d" % i for i in range(16)]
    assert out[16] == "[... 81 lines left out ...]" and out[17:] == ["line 97", "line 98", "line 99"]
    short = "\n".join("line %d" % i for i in range(20))
    assert excerpt(short, 16) == short  # leaving out one line would not shorten it
    hdr = transcript_header({"name": "b", "filter": "BUG", "limit": 16}, "$ x", "v", "6.1", "d",
                            1)
    assert hdr[4] == "# shown: the first 16 lines and the last 3"


def test_serial_absent_needs_a_captured_run():
    check = LABS["05"].module.check_experiment
    step = {"name": "x", "serial_absent": ["Booting Linux"]}
    r = Run("05-break-it", "x", "<cache>/build/x")
    assert check(r, step) == [("serial log has no /Booting Linux/", False,
                               "nothing was captured (no serial, no gdb)")]
    r.gdb = "far=0xef00000000000000"
    assert check(r, step)[0][1] is True
    r.serial = "[ 0.0] Booting Linux on physical CPU 0x0"
    assert check(r, step)[0][1] is False


def test_live_gdb_tag_fields_never_crash():
    from tests.check_kernels import tag_fields
    assert tag_fields(["pointer tag: 35", "memory tag:  fe  0xfe KASAN_TAG_INVALID"])[1] == (
        "35", "fe")
    assert tag_fields(["pointer tag: 35"])[1] == ("35", "none")
    assert tag_fields([])[1] == ("none", "none")


def test_site_check_wants_the_runs_value_in_a_transcript_block(tmp_path, monkeypatch):
    from tests import site_check
    d = tmp_path / "build" / "transcripts" / "01-x"
    d.mkdir(parents=True)
    (d / "s.txt").write_text("# command: x\nValue returned is $1 = 77\n")
    monkeypatch.setattr(site_check, "REPO", str(tmp_path))
    good = '<div class="kt-transcript docutils container"><pre>Value returned is $1 = 77</pre>'
    assert site_check.transcript_shown(good, "01-x", "s", r"Value returned is \$\d+ = \d+")[1]
    prose = '<p>Value returned is $1 = 77</p><div class="kt-transcript"><pre>other</pre>'
    assert not site_check.transcript_shown(prose, "01-x", "s", r"Value returned is \$\d+ = \d+")[1]
    assert not site_check.transcript_shown(good, "01-x", "t", r"x")[1]


def test_machine_paths_are_found(tmp_path):
    from tests import site_check
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "p.html").write_text("<pre>/home/me/kasan-tags/labs/x</pre>")
    (tmp_path / "q.html").write_text("<pre>labs/x</pre>")
    assert site_check.machine_paths(str(tmp_path), ["/home/me/kasan-tags"]) == [
        ("a/p.html", "/home/me/kasan-tags")]


def without_section(gdb, name):
    out, skip = [], False
    for ln in gdb.splitlines():
        if ln.startswith("KT-GDB "):
            skip = ln[7:].strip() == name
        if not skip:
            out.append(ln)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("folder,step,data", [c for c in captured() if c[2]["gdb"]],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_each_missing_gdb_section_is_bad_not_a_crash(folder, step, data):
    sections = lab.gdb_sections(data["gdb"])
    assert sections
    for name in sections:
        res = grade(folder, step, dict(data, gdb=without_section(data["gdb"], name)))
        # called directly: an exception here fails the test
        if not all(ok for _, ok, _ in res):
            continue
        # a section no check reads is allowed only if it is not the only one
        assert len(sections) > 1, (step, name)


@pytest.mark.parametrize("folder,step,data", captured(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_cut_runs_never_crash(folder, step, data):
    for frac in (0.25, 0.5, 0.9):
        cut = {k: (v[: int(len(v) * frac)] if v else v) for k, v in data.items()}
        res = grade(folder, step, cut)
        assert all(len(r) == 3 for r in res)


def test_a_crashing_check_is_one_bad_line():
    from labs.grade import safe

    def broken(run, step):
        return None.group(1)
    assert safe(broken)(None, {}) == [("the check ran", False,
                                       "AttributeError: 'NoneType' object has no attribute "
                                       "'group'")]


def slab_gdb(tag, top):
    return ("KT-GDB random-tag\nValue returned is $1 = %d\nKT-GDB kmalloc-return\n"
            "Value returned is $2 = (void *) 0x%02xffff8000b92600\nKT-GDB kasan-tag\n"
            "memory tag:  %02x\nKT-GDB kasan-shadow\n" % (tag, top, top)
            + ">ffffff8000b92600: " + " ".join(["%02x" % top] * 8 + ["fe"] * 8) + "\n")


def test_lab1_slab_edges():
    ok = grade("01-tag-assignment", "slab", {"serial": "x", "gdb": slab_gdb(0x46, 0x46)})
    assert all(r[1] for r in ok), ok
    for tag in (0xFE, 0xFF):
        res = dict((n, o) for n, o, _ in grade("01-tag-assignment", "slab",
                                               {"serial": "x", "gdb": slab_gdb(tag, tag)}))
        assert res["the tag is not reserved (0xfe, 0xff)"] is False
    short = slab_gdb(0x46, 0x46).replace(" 46 46 fe", " 46 fe fe")
    assert not all(r[1] for r in grade("01-tag-assignment", "slab", {"serial": "", "gdb": short}))


def test_lab4_check_table_reads_its_file(tmp_path):
    check = LABS["04"].module.check_table
    r = Run("04-generic-vs-tags", "table", "<cache>/build/x")
    r.paths = [str(tmp_path / "table.serial.log")]
    res = check(r)
    assert res[0][0] == "table computed" and res[0][1] is False
    (tmp_path / "table.json").write_text(json.dumps(table()))
    assert all(ok for _, ok, _ in check(r))


def test_lab4_binomial_band_edges():
    check = LABS["04"].module.check_table_data
    for k, ok in ((123, True), (124, False), (34, True), (33, False)):
        t = table()
        t["collision"]["1"] = [k, 10000]
        got = dict((n, o) for n, o, _ in check(t))
        assert got["tag collisions, one draw apart: within the binomial band of 1/127"] is ok, k
    t = table()
    t["collision"]["1"] = [0, 0]
    assert not all(ok for _, ok, _ in check(t))


def named(res):
    return {n: ok for n, ok, _ in res}


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
    good = named(grade("01-tag-assignment", "reuse", {"serial": reuse_serial(
        [("b00000", "11"), ("b00000", "12"), ("c00000", "13")]), "gdb": ""}))
    assert all(good.values()), good
    same = named(grade("01-tag-assignment", "reuse", {"serial": reuse_serial(
        [("b00000", "11"), ("b00000", "11")]), "gdb": ""}))
    assert same["a reallocated slot gets a new tag each time"] is False
    never = named(grade("01-tag-assignment", "reuse", {"serial": reuse_serial(
        [("b00000", "11"), ("c00000", "12")]), "gdb": ""}))
    assert never["a reallocated slot gets a new tag each time"] is False


def test_lab1_pages_either_frame_is_enough():
    data = {k: load("01-tag-assignment", "pages", k) for k in ("serial", "gdb")}
    for frame in ("post_alloc_hook", "__kasan_unpoison_pages"):
        one = dict(data, gdb=data["gdb"].replace(frame, "other_frame"))
        if one["gdb"] != data["gdb"] and ("post_alloc_hook" in one["gdb"]
                                          or "__kasan_unpoison_pages" in one["gdb"]):
            assert all(named(grade("01-tag-assignment", "pages", one)).values())


def test_lab1_memory_tag_line_with_a_description():
    gdb = slab_gdb(0x46, 0x46).replace("memory tag:  46", "memory tag:  46  0x46: described")
    assert all(named(grade("01-tag-assignment", "slab", {"serial": "", "gdb": gdb})).values())


def test_lab2_count_edges():
    def count(text):
        return named(grade("02-brk-dispatch", "count", {"serial": text, "gdb": ""}))
    ok = count("swtags: 1 calls to __hwasan_check_*, 0 brk #0x9xx; Image 5 MiB, vmlinux 44 MiB\n"
               "swtags-brk: 0 calls to __hwasan_check_*, 1 brk #0x9xx; Image 11 MiB, "
               "vmlinux 55 MiB\n")
    assert all(ok.values()), ok
    same = count("swtags: 1 calls to __hwasan_check_*, 0 brk #0x9xx; Image 5 MiB, vmlinux 44 MiB\n"
                 "swtags-brk: 0 calls to __hwasan_check_*, 1 brk #0x9xx; Image 5 MiB, "
                 "vmlinux 55 MiB\n")
    assert same["inlining every check makes the Image larger"] is False
    assert count("swtags: 1 calls to __hwasan_check_*, 0 brk #0x9xx\n") == {
        "counted checks in both modules": False}
    bad = count("swtags: 0 calls to __hwasan_check_*, 1 brk #0x9xx\n"
                "swtags-brk: 1 calls to __hwasan_check_*, 0 brk #0x9xx\n")
    assert not any(bad.values())


def test_lab3_each_check_on_its_own():
    data = {k: load("03-report-decoding", "reports", k) for k in ("serial", "gdb")}
    first = data["gdb"].index("KT-GDB hit")
    second = data["gdb"].index("KT-GDB hit", first + 1)
    one_less = dict(data, gdb=data["gdb"][:first] + data["gdb"][second:])
    assert named(grade("03-report-decoding", "reports", one_less))[
        "gdb stopped before each report"] is False
    noaddr = dict(data, serial=re.sub(r"^.*(Read|Write) of size .*$", "", data["serial"],
                                      count=1, flags=re.M))
    res = named(grade("03-report-decoding", "reports", noaddr))
    assert [v for k, v in res.items() if k.endswith("address in the report == x0 at the stop")
            ][0] is False
    empty = named(grade("03-report-decoding", "generic", {"serial": "", "gdb": ""}))
    assert empty["generic reports carry no tags"] is False


def test_lab4_band_at_large_n_and_tiny_n():
    check = LABS["04"].module.check_table_data
    name = "tag collisions, one draw apart: within the binomial band of 1/127"
    t = table()
    t["collision"]["1"] = [925, 100000]     # inside 1/127's band, outside 1/128's
    assert named(check(t))[name] is True
    t["collision"]["1"] = [0, 1]
    assert named(check(t))[name] is True


def test_qemu10_dump_whatever_the_objects_own_tag():
    """The experiment's object draws a random tag, and in one run it drew
    f3, the tag the DC GVA then writes: only granules that newly carry
    f3/f4 are the instructions' doing."""
    serial = load("06-hardware-tags", "qemu10", "serial")
    own = re.search(r"kt-tags after 1st alloc page \w+: ([0-9a-f]{2})\*", serial).group(1)
    for tag in ("f3", "f4"):
        data = {"serial": re.sub(r"\b%s\*(\d+)@0\b" % own, tag + r"*\1@0", serial)}
        assert data["serial"] != serial
        res = grade("06-hardware-tags", "qemu10", data)
        assert all(ok for _, ok, _ in res), res


def test_lab3_a_stop_reported_twice_counts_once():
    """gdb may stop twice at the breakpoint it resumes from: the same
    hit block twice in a row is one stop, not a sixth report."""
    gdb = load("03-report-decoding", "reports", "gdb")
    first = "KT-GDB hit" + gdb.split("KT-GDB hit")[1]
    data = {"serial": load("03-report-decoding", "reports", "serial"),
            "gdb": gdb.replace(first, first + first, 1)}
    assert all(ok for _, ok, _ in grade("03-report-decoding", "reports", data))
    # A hit that saw something else is not folded away.
    other = re.sub(r"(pointer:\s+0x)([0-9a-f])", lambda m: m.group(1) + (
        "0" if m.group(2) != "0" else "1"), first, count=1)
    data["gdb"] = gdb.replace(first, first + other, 1)
    assert not all(ok for _, ok, _ in grade("03-report-decoding", "reports", data))
