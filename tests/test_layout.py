# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The architecture's rules, as greps over the tracked files.

Only vm/ starts QEMU or gdb or names a build directory's layout; the import
path is set in one Python place (the gdb loader); no lab or page imports
from tests/."""
import os
import re
import subprocess

from conftest import REPO

# What only vm/ may spell: the emulator and debugger commands, the kt/
# folder of a build dir, the cache's build/ tree, kernel outputs by path.
FORBIDDEN = re.compile(r'qemu-system-aarch64|"gdb-multiarch"|gdb-multiarch"|\bpgrep\b|'
                       r'"kt", "module"|kt/module|cache_root\(\), "build"|'
                       r'"arch/arm64/boot/Image"|\+ "/vmlinux"|-brk-\*')


def tracked(*patterns):
    out = subprocess.run(["git", "ls-files", *patterns], cwd=REPO, capture_output=True,
                         text=True).stdout.split()
    return [f for f in out if os.path.exists(os.path.join(REPO, f))]


def code_files():
    return [f for f in tracked("*.py", "*.sh", "*.gdb", "gdb-scripts/kasan-decode",
                               "vm/deps", ".ci/run")
            if not f.startswith("vm/") and f != "tests/test_layout.py"]


def test_only_vm_starts_qemu_or_gdb_or_names_build_dirs():
    bad = []
    for f in code_files():
        for n, line in enumerate(open(os.path.join(REPO, f)), 1):
            if FORBIDDEN.search(line):
                bad.append("%s:%d: %s" % (f, n, line.strip()))
    assert not bad, "\n".join(bad)


def test_forbidden_pattern_catches_what_it_should():
    for line in ('cmd = ["qemu-system-aarch64", "-M"]', 'os.path.join(bdir, "kt", "module")',
                 'p = subprocess.run(["pgrep", "-f", x])', 'run.bdir + "/vmlinux"'):
        assert FORBIDDEN.search(line), line


def test_sys_path_only_in_the_gdb_loader():
    hits = [f for f in tracked("*.py", "gdb-scripts/kasan-decode")
            if f != "tests/test_layout.py"
            and re.search(r"\bsys\.path\b", open(os.path.join(REPO, f)).read())]
    assert hits == ["gdb-scripts/kasan.py"]


def test_labs_and_docs_do_not_import_tests():
    """A lab's own tests (labs/NN-name/test_labNN.py) are tests: they may."""
    for f in tracked("labs/*.py", "Documentation/*.py", "bench/*.py", "vm/*.py"):
        if f.startswith("labs/") and os.path.basename(f).startswith("test_"):
            continue
        text = open(os.path.join(REPO, f)).read()
        assert not re.search(r"^\s*(from tests\b|import tests\b)", text, re.M), f


def test_importing_vm_installs_no_signal_handler():
    code = ("import signal, vm, labs.grade, bench.table; "
            "print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)")
    p = subprocess.run(["/usr/bin/python3", "-c", code], cwd=REPO, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=REPO + ":" +
                                           os.path.join(REPO, "gdb-scripts")))
    assert p.stdout.strip() == "True", p.stderr


def test_no_preexec_fn():
    for f in tracked("*.py"):
        if f != "tests/test_layout.py":
            assert "preexec_fn=" not in open(os.path.join(REPO, f)).read(), f


MODE_SPELLING = re.compile(r"[\"'](sw_tags|hw_tags|sw-tags|hw-tags|swtags|hwtags)[\"']")


def test_mode_names_are_spelt_in_one_table():
    """A KASAN mode's spellings (sw_tags, sw-tags, swtags and hw's) are
    string literals only in the mode table, and in vm's default variant."""
    hits = sorted({f for f in tracked("*.py") if not re.search(r"(^|/)(tests/|test_|conftest)", f)
                   and MODE_SPELLING.search(open(os.path.join(REPO, f)).read())})
    assert hits == ["gdb-scripts/kasan/modes.py", "vm/variant.py"], hits
    from kasan import modes
    import vm
    assert modes.SW_TAGS.variant == vm.DEFAULT_VARIANT


def test_mode_spelling_pattern_catches_each_spelling():
    for s in ('"sw_tags"', "'hw-tags'", '"swtags"', '"hwtags"'):
        assert MODE_SPELLING.search("x = %s" % s), s
    assert not MODE_SPELLING.search('x = "swtags-brk"')


def test_labs_and_bench_do_not_import_each_other():
    """What both need (text tables, the scenario log parser, the mode table)
    lives in shared/ and gdb-scripts/kasan/."""
    for pattern, other in (("labs/*.py", "bench"), ("bench/*.py", "labs")):
        for f in tracked(pattern):
            text = open(os.path.join(REPO, f)).read()
            assert not re.search(r"^\s*(from %s\b|import %s\b)" % (other, other), text, re.M), f
