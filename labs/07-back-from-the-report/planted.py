# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 7's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

import lzma
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
FREED = "student/freed.gdb"
TAGWRITE = "student/tagwrite.gdb"
FIELD = "student/field.gdb"
OFFSET = 0xEFFFFFC000000000       # the swtags kernel's CONFIG_KASAN_SHADOW_OFFSET
REPORT_LINE = "506\t\tstruct kasan_report_info info;\n"
MEMSET_STOP = ("__pi_memset () at ../linux-source-6.1/arch/arm64/lib/memset.S:58\n"
               "58\t\ttbz\tcount, #2, 2f\n")
SIGTRAP = "\nProgram received signal SIGTRAP, Trace/breakpoint trap.\n"
MEMSET_STORE = 0xFFFFFFC00829AD64       # __pi_memset+36: str x7, [x8], #8


def once(text, old, new):
    assert text.count(old) == 1, "the alteration %r does not apply" % old
    return text.replace(old, new)


def after_report(text, tail):
    """The run up to the student's stop at kasan_report, then tail."""
    i = text.index(REPORT_LINE) + len(REPORT_LINE)
    return text[:i] + tail


def frames_below(text, fn):
    """The frame lines of the student's first bt from function fn on, without
    their '#N', and the 'Backtrace stopped' line."""
    lines = text.splitlines()
    i = next(i for i, ln in enumerate(lines) if re.match(r"^#\d+\s+(0x\w+ in )?%s " % fn, ln))
    out = []
    for ln in lines[i:]:
        m = re.match(r"^#\d+\s+(.*)$", ln)
        if not m:
            return out, ln
        out.append(m.group(1))
    raise AssertionError("no end of the backtrace")


def bt(frames, end):
    return "".join("#%-3d%s\n" % (n, f) for n, f in enumerate(frames)) + end + "\n"


# -- 7.1: where freed.gdb leaves the replay ------------------------------------

KFREE_BP = ("Breakpoint 3 at 0xffffffc0080f215c: file ../linux-source-6.1/mm/slab_common.c, "
            "line 975.\n\nBreakpoint 3, kfree (object=object@entry=0x%s) at "
            "../linux-source-6.1/mm/slab_common.c:975\n975\t\ttrace_kfree(_RET_IP_, object);\n")


def freed_tail(text, stop, frames, attach):
    """The run of a planted freed.gdb: after the report, what the student's
    file printed to its stop, its bt (frames, then the end line of the
    stored one), gdb 2's attach line, and its bt in the state section."""
    _, end = frames_below(text, "lab_uaf")
    loaded = re.search(r"^loaded .*\n", text, re.M).group(0)
    trace = bt(frames, end)
    return after_report(text, stop + trace + attach + loaded + "KT-GDB state\n" + trace
                        + "KT-GDB end\n[Inferior 1 (process 1) detached]\n")


def bad_address(text):
    return "%x" % int(re.search(r"kasan_report \(addr=(\d+)", text).group(1))


def stepped_out(text):
    # reverse-finish from the breakpoint in kfree: back at lab_uaf's bl kfree
    below, _ = frames_below(text, "lab_uaf")
    ret = re.match(r"(0x[0-9a-f]+) in ", below[0]).group(1)
    call = "0x%016x" % (int(ret, 16) - 4)
    lab_uaf = below[0].replace(ret, call)
    kfree = KFREE_BP % bad_address(text)
    stop = (kfree + "Run back to call of #0  %s\n" % kfree.splitlines()[-2].split(", ", 1)[1]
            + lab_uaf + "\n420\t\tkfree(p);\n")
    return freed_tail(text, stop, [lab_uaf] + below[1:], "%s in ?? ()\n" % call)


KFREE_RET = 18446743798966854072         # kfree+0x64, after its call of __kmem_cache_free


def kfree_frames(text):
    """The frames from the free's KASAN hook down to lab_uaf and below."""
    bad = bad_address(text)
    s = "0xffffff8000010500"
    return [
        "0xffffffc008125ea4 in kasan_slab_free (s=%s, object=0x%s, init=false) at "
        "../linux-source-6.1/include/linux/kasan.h:177" % (s, bad),
        "slab_free_hook (s=%s, x=0x%s, init=false) at ../linux-source-6.1/mm/slub.c:1735"
        % (s, bad),
        "slab_free_freelist_hook (s=%s, head=<synthetic pointer>, tail=<synthetic pointer>, "
        "cnt=<synthetic pointer>) at ../linux-source-6.1/mm/slub.c:1761" % s,
        "slab_free (s=%s, slab=0xfffffffe0002e6c0, head=0x%s, tail=0x0, p=<synthetic pointer>, "
        "cnt=1, addr=%d) at ../linux-source-6.1/mm/slub.c:3694" % (s, bad, KFREE_RET),
        "__kmem_cache_free (s=%s, x=0x%s, caller=%d) at ../linux-source-6.1/mm/slub.c:3707"
        % (s, bad, KFREE_RET),
        "0xffffffc0080f21b8 in kfree (object=0x%s) at ../linux-source-6.1/mm/slab_common.c:988"
        % bad,
    ] + frames_below(text, "lab_uaf")[0]


def at_the_tag_write(text):
    # a reverse watchpoint on the shadow byte: stopped after __memset's store
    bad = bad_address(text)
    top = ["__pi_memset () at ../linux-source-6.1/arch/arm64/lib/memset.S:58",
           "0xffffffc00812e96c in kasan_poison (addr=<optimized out>, size=<optimized out>, "
           "value=<optimized out>, init=<optimized out>) at "
           "../linux-source-6.1/mm/kasan/shadow.c:98",
           "0xffffffc00812d160 in ____kasan_slab_free (cache=0xffffff8000010500, "
           "object=0xffffff%s, ip=%d, quarantine=true, init=false) at "
           "../linux-source-6.1/mm/kasan/common.c:230" % (bad[6:], KFREE_RET),
           "0xffffffc00812d064 in __kasan_slab_free (cache=<optimized out>, "
           "object=<optimized out>, ip=<optimized out>, init=<optimized out>) at "
           "../linux-source-6.1/mm/kasan/common.c:245"]
    return freed_tail(text, "Hardware watchpoint 3: -location *$shadow\n" + SIGTRAP
                      + MEMSET_STOP, top + kfree_frames(text), MEMSET_STOP)


def in_the_free_hook(text):
    # break __kasan_slab_free if $x1 == $bad: the report's Freed by stack's hook
    where = ("__kasan_slab_free (cache=cache@entry=0xffffff8000010500, object=object@entry=0x%s, "
             "ip=ip@entry=%d, init=false) at ../linux-source-6.1/mm/kasan/common.c:245"
             % (bad_address(text), KFREE_RET))
    src = "245\t\treturn ____kasan_slab_free(cache, object, ip, true, init);\n"
    stop = ("Breakpoint 3 at 0xffffffc00812d060: file ../linux-source-6.1/mm/kasan/common.c, "
            "line 245.\n\nBreakpoint 3, %s\n%s" % (where, src))
    return freed_tail(text, stop, [where] + kfree_frames(text),
                      re.sub(r"\w+@entry=", "", where) + "\n" + src)


# -- 7.2: where tagwrite.gdb leaves the replay and what it printed ------------

def replaying(text, count):
    rec = re.search(r"^(Replaying execution '[^']*': instruction count = )\d+$", text, re.M)
    return "%s%d\n" % (rec.group(1), count)


def tagwrite_tail(text, student, count, xi, attach):
    return after_report(text, student + attach + "KT-GDB state\n" + replaying(text, count) + xi
                        + "KT-GDB end\n[Inferior 1 (process 1) detached]\n")


WATCHED = "Hardware watchpoint 3: -location *$shadow\n"
AT_WRITE = re.compile(r"^=> 0x[0-9a-f]+ <__pi_memset\+40>:.*\n", re.M)


def to_the_start(text):
    # the watched byte is never written: reverse-continue ends at instruction 0
    xi = "=> 0x40000000:\tldr\tx0, 0x40000018\n"
    start = "0x0000000040000000 in ?? ()\n"
    return tagwrite_tail(text, WATCHED + SIGTRAP + start + replaying(text, 0) + xi, 0, xi, start)


def step1():
    """kasan-history's run of step 1 (uaf: the same recording)."""
    with lzma.open(os.path.join(HERE, "runs", "uaf.gdb.xz"), "rt") as f:
        return f.read()


def history_count(n):
    """kasan-history's count of write n in step 1: 1 the free, 2 the allocation."""
    return int(re.search(r"^write %d: .*\(instruction (\d+)\)$" % n, step1(), re.M).group(1))


def report_count():
    """The count at the report, where kasan-history started."""
    return int(re.search(r"going back from instruction (\d+)", step1()).group(1))


def two_writes_back(text):
    xi = AT_WRITE.search(text).group(0)
    count = history_count(2)
    return tagwrite_tail(text, WATCHED + SIGTRAP + MEMSET_STOP + SIGTRAP + MEMSET_STOP
                         + replaying(text, count) + xi, count, xi, MEMSET_STOP)


def count_at_the_report(text):
    xi = AT_WRITE.search(text).group(0)
    return tagwrite_tail(text, replaying(text, report_count()) + WATCHED + SIGTRAP + MEMSET_STOP
                         + xi, history_count(1), xi, MEMSET_STOP)


def onto_the_store(text):
    xi = "=> 0x%x <__pi_memset+36>:\tstr\tx7, [x8], #8\n" % MEMSET_STORE
    src = "56\t\tstr\tA_l, [dst], #8\n"
    count = history_count(1) - 1
    return tagwrite_tail(text, WATCHED + SIGTRAP + MEMSET_STOP + src + replaying(text, count) + xi,
                         count, xi, MEMSET_STOP.replace("memset.S:58\n58\t\ttbz\tcount, #2, 2f\n",
                                                        "memset.S:56\n" + src))


# -- 7.3: the $load and $store field.gdb leaves --------------------------------

def carried(text, name):
    return int(re.search(r"^KT-CARRY %s 0x([0-9a-f]+)$" % name, text, re.M).group(1), 16)


def relabel(text, name, new, fn_off, asm):
    """$name's value new: its x/i lines (the student's, without symbols, and
    the grader's, with fn_off) and its carried and printed values."""
    old = carried(text, name)
    text = re.sub(r"^   0x%x:\t.*$" % old, "   0x%x:\t%s" % (new, asm), text, count=1, flags=re.M)
    text = once(text, "KT-CARRY %s 0x%x\n" % (name, old), "KT-CARRY %s 0x%x\n" % (name, new))
    return re.sub(r"^(%s: 0x)%016x\n   0x%x <[^>]*>:\t.*$" % (name, old, old),
                  lambda m: "%s%016x\n   0x%x <%s>:\t%s" % (m.group(1), new, new, fn_off, asm),
                  text, count=1, flags=re.M)


def store_is_the_stop_pc(text):
    store = carried(text, "store")
    return relabel(text, "store", store + 4, "lab_holder_set+24", "ldr\tx30, [sp], #16")


def load_is_the_bad_read(text):
    load, ip = carried(text, "load"), int(re.search(r"ip=(\d+)\)", text).group(1))
    off = int(re.search(r"<lab_holder_peek\+(\d+)>", text).group(1)) + ip - load
    return relabel(text, "load", ip, "lab_holder_peek+%d" % off, "ldrb\tw0, [x20]")


def last_load_before_the_read(text):
    # the last ldr before the access: access_mark()'s ldrb w6, [x0] of the
    # memory tag, x0 its shadow address; watched, the free's memset stops it
    load = carried(text, "load")
    off = int(re.search(r"<lab_holder_peek\+(\d+)>", text).group(1))
    new = load + 84 - off
    bad = int(re.search(r"kasan_report \(addr=(\d+)", text).group(1))
    shadow = ((bad | 0xFF << 56) >> 4) + OFFSET & ((1 << 64) - 1)
    stop = re.search(r"^(0x[0-9a-f]+) in \?\? \(\)\nsending: z2", text, re.M).group(1)
    text = text.replace("reakpoint 3 at 0x%x" % load, "reakpoint 3 at 0x%x" % new)
    text = text.replace("reakpoint 3, 0x%016x in" % load, "reakpoint 3, 0x%016x in" % new)
    text = re.sub(r"^(sending: [Zz]2,)[0-9a-f]+,8$", lambda m: "%s%x,8" % (m.group(1), shadow),
                  text, flags=re.M)
    text = once(text, "%s in ?? ()\nsending: z2" % stop, MEMSET_STOP + "sending: z2")
    text = once(text, "%s in ?? ()\nloaded" % stop, MEMSET_STOP + "loaded")
    text = relabel(text, "load", new, "lab_holder_peek+84", "ldrb\tw6, [x0]")
    text = relabel(text, "store", MEMSET_STORE, "__pi_memset+36", "str\tx7, [x8], #8")
    # the student's gdb has vmlinux's symbols: its x/i names __pi_memset
    return once(text, "   0x%x:\tstr" % MEMSET_STORE, "   0x%x <__pi_memset+36>:\tstr" % MEMSET_STORE)


def gdb_watchpoint(text):
    # gdb watches the field untagged: the module's store through the tagged
    # pointer does not stop it; the slab allocator's untagged write of its
    # freelist pointer (the field, in the slot's earlier life) does
    field = re.search(r"^sending: Z2,([0-9a-f]+),8$", text, re.M).group(1)
    stop = re.search(r"^(0x[0-9a-f]+) in \?\? \(\)\nsending: z2", text, re.M).group(1)
    where = ("0xffffffc008125f90 in do_slab_free (s=0xffffff8000010200, slab=<optimized out>, "
             "head=<optimized out>, tail=<optimized out>, cnt=1, addr=<optimized out>) at "
             "../linux-source-6.1/mm/slub.c:3657\n"
             "3657\t\t\tif (unlikely(!this_cpu_cmpxchg_double(\n")
    text = once(text, 'sending: Z2,%s,8\nreceived: "OK"\n' % field,
                "Hardware watchpoint 4: -location *(char **)0x%s\n" % field)
    text = once(text, '%s in ?? ()\nsending: z2,%s,8\nreceived: "OK"\n' % (stop, field), where)
    text = once(text, "%s in ?? ()\nloaded" % stop, where + "loaded")
    new = 0xFFFFFFC008125F8C
    text = relabel(text, "store", new, "__kmem_cache_free+420", "str\tx9, [x10]")
    return once(text, "   0x%x:\tstr" % new, "   0x%x <__kmem_cache_free+420>:\tstr" % new)


PLANTS = [
    {"mistake": "freed-stepped-out-to-the-caller",
     "edits": [(FREED, "reverse-continue\nbt\n", "reverse-continue\nreverse-finish\nbt\n")],
     "runs": {"ex-freed": {"gdb": stepped_out}}},
    {"mistake": "freed-at-the-tag-write",
     "edits": [(FREED, "break kfree if $x0 == $bad\n",
                "set $shadow = (unsigned char *)((($bad | 0xff00000000000000) >> 4) + "
                "0xefffffc000000000)\nwatch -l *$shadow\n")],
     "runs": {"ex-freed": {"gdb": at_the_tag_write}}},
    {"mistake": "freed-in-the-kasan-free-hook",
     "edits": [(FREED, "break kfree if $x0 == $bad\n", "break __kasan_slab_free if $x1 == $bad\n")],
     "runs": {"ex-freed": {"gdb": in_the_free_hook}}},
    {"mistake": "tagwrite-shadow-of-the-tagged-pointer",
     "edits": [(TAGWRITE, "((($x0 | 0xff00000000000000) >> 4)", "(($x0 >> 4)")],
     "runs": {"ex-tagwrite": {"gdb": to_the_start}}},
    {"mistake": "tagwrite-the-allocation-write",
     "edits": [(TAGWRITE, "reverse-continue\ndelete\n", "reverse-continue\nreverse-continue\ndelete\n")],
     "runs": {"ex-tagwrite": {"gdb": two_writes_back}}},
    {"mistake": "tagwrite-count-read-at-the-report",
     "edits": [(TAGWRITE, "watch -l *$shadow\n", "monitor info replay\nwatch -l *$shadow\n"),
               (TAGWRITE, "delete\nmonitor info replay\n", "delete\n")],
     "runs": {"ex-tagwrite": {"gdb": count_at_the_report}}},
    {"mistake": "tagwrite-stepped-back-onto-the-store",
     "edits": [(TAGWRITE, "reverse-continue\ndelete\n", "reverse-continue\ndelete\nreverse-stepi\n")],
     "runs": {"ex-tagwrite": {"gdb": onto_the_store}}},
    {"mistake": "field-store-is-the-stop-pc",
     "edits": [(FIELD, "set $store = $pc - 4\n", "set $store = $pc\n")],
     "runs": {"ex-field": {"gdb": store_is_the_stop_pc}}},
    {"mistake": "field-load-is-the-bad-read",
     "edits": [(FIELD, "set $store = $pc - 4\n", "set $store = $pc - 4\nset $load = $ip\n")],
     "runs": {"ex-field": {"gdb": load_is_the_bad_read}}},
    {"mistake": "field-last-load-before-the-read",
     "edits": [(FIELD, r'r"ldr\s+%s, \[(x\d+)(?:, #(-?\d+))?\]$" % base',
                r'r"ldr\w*\s+\w+, \[(x\d+)(?:, #(-?\d+))?\]$"')],
     "runs": {"ex-field": {"gdb": last_load_before_the_read}}},
    {"mistake": "field-gdb-watchpoint-drops-the-tag",
     "edits": [(FIELD, 'gdb.execute("maint packet Z2,%x,8" % f)',
                'gdb.execute("watch -l *(char **)0x%x" % f)'),
               (FIELD, 'gdb.execute("maint packet z2,%x,8" % f)', 'gdb.execute("delete")')],
     "runs": {"ex-field": {"gdb": gdb_watchpoint}}},
]
