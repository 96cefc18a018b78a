# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The ptrcmp LLVM pass plugin (vm/ptrcmp/ptrcmp.cpp, lab 8), built with
Debian's clang++ and llvm-14-dev and run on vm/ptrcmp/tests/cases.c: a call
to __ptrcmp_check in every want_* function, none in the skip_* ones.  A
plugin that loads but instruments nothing fails here."""
import os
import re
import shutil
import subprocess

import pytest

import vm
from vm import kbuild

CASES = os.path.join(vm.REPO, "vm", "ptrcmp", "tests", "cases.c")
PLUGIN = os.path.join(vm.REPO, "vm", "ptrcmp", "ptrcmp.cpp")


@pytest.fixture(scope="module")
def assembly(tmp_path_factory):
    if not shutil.which("llvm-config-14"):
        pytest.skip("llvm-14-dev is not installed (make deps)")
    d = tmp_path_factory.mktemp("ptrcmp")
    os.environ["KASAN_TAGS_CACHE"] = str(d / "cache")
    try:
        so = kbuild.build_plugin(PLUGIN)
    finally:
        del os.environ["KASAN_TAGS_CACHE"]
    out = d / "cases.s"
    subprocess.run(["clang", "--target=aarch64-linux-gnu", "-O2", "-fsanitize=kernel-hwaddress",
                    "-fpass-plugin=" + so, "-S", CASES, "-o", str(out)], check=True)
    return out.read_text()


def calls_by_function(asm):
    out, fn = {}, None
    for line in asm.splitlines():
        m = re.match(r"^(\w+):", line)
        if m:
            fn = m.group(1)
        if fn and re.search(r"\bbl\s+__ptrcmp_check\b", line):
            out[fn] = out.get(fn, 0) + 1
    return out


def test_every_pointer_comparison_and_subtraction_calls_the_runtime(assembly):
    calls = calls_by_function(assembly)
    for fn in ("want_less", "want_equal", "want_fixed_address", "want_subtraction"):
        assert calls.get(fn) == 1, (fn, calls)


def test_null_error_pointers_integers_and_uninstrumented_code_are_left_alone(assembly):
    calls = calls_by_function(assembly)
    for fn in ("skip_null", "skip_error_pointer", "skip_is_err", "skip_integers",
               "skip_not_instrumented"):
        assert fn not in calls, (fn, calls)


def test_a_missing_llvm_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(vm.KtError, match=r"needs llvm-14-dev and clang .*run `make deps`"):
        kbuild.build_plugin(PLUGIN)


def test_a_plugin_that_does_not_build_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path))
    bad = tmp_path / "broken.cpp"
    bad.write_text("this is not C++\n")
    with pytest.raises(vm.KtError, match=r"^the broken plugin does not build: .*error"):
        kbuild.build_plugin(str(bad))
