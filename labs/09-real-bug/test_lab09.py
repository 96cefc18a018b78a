# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 9 offline: the checks of CVE-2023-31436's runs on what runs/ keeps
(ALTER and EX_ALTER, which tests/ reads), each kernel's run graded as the
other's, and the helpers that read the 6.1 source."""

import vm
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
    # 9.2: the module not loaded; the qdisc broken at the usual MTU; the
    # reproducer's read reported, on each kernel; the program cut short
    ("9.2", "ex-fix", "serial", r"(module name=student_qfq .*ret=)0", r"\g<1>-2"),
    ("9.2", "ex-fix", "serial", r"delivered=1", "delivered=0"),
    ("9.2", "ex-fix", "serial", r"(class dev=lo classid=1:1 .*ret=)0", r"\g<1>-22"),
    ("9.2", "ex-fix", "serial", r"^(qfq-lmax: sent .*\n)(?=(?:.*\n)*?qfq-lmax: end)",
     lambda m: "[    0.15] BUG: KASAN: slab-out-of-bounds in qfq_activate_agg+0x50/0x194 "
     "[student_qfq]\n" + m.group(1)),
    ("9.2", "ex-fix-generic", "serial", r"^qfq-lmax: end .*$", ""),
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


# -- exercise 9.2's patch: what vm/initramfs.py's student_qfq makes of it

FIX_HEAD = "--- a/net/sched/sch_qfq.c\n+++ b/net/sched/sch_qfq.c\n"


def reverted_kernel():
    """The exp-qfq-revert build dir; the test is skipped where that kernel
    is not built (its tree, which the page's commands copy from, with it)."""
    import os
    import pytest
    bdir = vm.build_dir("exp-qfq-revert")
    if not os.path.exists(os.path.join(bdir, "vmlinux")):
        pytest.skip("the exp-qfq-revert kernel is not built")
    return bdir


def student_qfq(tmp_path, monkeypatch, text):
    """(student_qfq.c or None, the rejection or "") of fix.patch TEXT on the
    built exp-qfq-revert kernel; skipped where that kernel is not built."""
    import pytest
    from vm import initramfs, sandbox
    bdir = reverted_kernel()
    try:
        sandbox.require()
    except vm.KtError as e:
        pytest.skip(str(e))
    tmp_path.mkdir(exist_ok=True)
    fix = tmp_path / "fix.patch"
    fix.write_text(text)
    monkeypatch.setitem(initramfs.STUDENT_QFQ, "fix", str(fix))
    mdir = tmp_path / "m"
    mdir.mkdir()
    initramfs.student_qfq(bdir, str(mdir))
    out, note = mdir / "student_qfq.c", mdir / "student_qfq.reject"
    return (out.read_text() if out.exists() else None,
            note.read_text().strip() if note.exists() else "")


@solution_only
def test_fix_patch_applied_or_refused_in_one_line(tmp_path, monkeypatch):
    """The solution applies; a file without a hunk is the reverted file;
    another file, a forbidden word and a hunk that does not apply are each
    refused with one line that says why, and no student_qfq.c."""
    import os
    solution = open(LAB.path("student", "fix.patch")).read()
    out, why = student_qfq(tmp_path / "a", monkeypatch, solution)
    assert why == "" and "MTU size out of bounds for qfq" in out
    out, why = student_qfq(tmp_path / "b", monkeypatch, "# TODO 9.2: x\n# END TODO\n")
    src = vm.kernel_info(vm.build_dir("exp-qfq-revert"))["src"]
    assert why == "" and out == open(os.path.join(src, "net/sched/sch_qfq.c")).read()
    for text, words in [
            (solution.replace("net/sched/sch_qfq.c", "net/core/dev.c"), "it changes net/core/dev.c"),
            (solution.replace("\t\t\treturn -EINVAL;", "\t\t\tpr_info(\"KT-SCENARIO-END\");"),
             "it adds KT-, pr_info"),
            (FIX_HEAD + "@@ -1,3 +1,3 @@\n-nothing\n+something\n context\n", "does not apply")]:
        out, why = student_qfq(tmp_path / str(len(words)), monkeypatch, text)
        assert out is None and words in why and "\n" not in why, why


@solution_only
def test_the_pages_diff_commands_make_a_patch_the_grader_applies(tmp_path, monkeypatch):
    """Exercise 9.2's commands as the page prints them (its kt-manual block:
    they edit the student's own files), run in bash with a scratch copy and
    a scratch fix.patch, the editor replaced by the solution's edit: the
    diff they append is one the grader applies, to the same file."""
    import subprocess
    reverted_kernel()
    text = open(LAB.path("index.rst")).read()
    block = text[text.index("   $ mkdir -p build\n"):]
    cmds = [ln.strip()[2:] for ln in block.splitlines()[:5] if ln.strip().startswith("$ ")]
    assert [c.split()[0] for c in cmds] == ["mkdir", "cp", "editor", "diff", "make"]
    cmds = cmds[1:]
    copy, mine = tmp_path / "sch_qfq.c", tmp_path / "fix.patch"
    mine.write_text("# TODO 9.2: x\n# END TODO\n")
    solution = open(LAB.path("student", "fix.patch")).read()
    for cmd in (cmds[0], cmds[2]):
        cmd = cmd.replace("build/sch_qfq.c", str(copy)).replace(
            "labs/09-real-bug/student/fix.patch", str(mine))
        if cmd.startswith("diff"):
            want, _ = student_qfq(tmp_path / "want", monkeypatch, solution)
            copy.write_text(want)          # the editor's work: the solution's change
        p = subprocess.run(["bash", "-c", cmd], cwd=vm.REPO, capture_output=True, text=True)
        assert p.returncode in ((0,) if cmd.startswith("cp") else (1,)), (cmd, p.stderr)
    out, why = student_qfq(tmp_path / "got", monkeypatch, mine.read_text())
    assert why == "" and out == copy.read_text()
    assert mine.stat().st_size > 100
