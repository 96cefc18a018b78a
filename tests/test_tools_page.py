# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The tools page (Documentation/tools.rst) names every gdb command the
project registers, every kernel variant a lab or a reader runs, and every
make target and variable a reader sets."""

import glob
import os
import re

from vm import REPO

PAGE = open(os.path.join(REPO, "Documentation", "tools.rst")).read()


def test_every_gdb_command_is_on_the_tools_page():
    """The commands are gdb-scripts/kasan/cmd_*.py's, one module per family."""
    src = "".join(open(f).read() for f in sorted(glob.glob(
        os.path.join(REPO, "gdb-scripts", "kasan", "cmd_*.py"))))
    names = re.findall(r'^\s+name = "(kasan-[\w-]+)"', src, re.M)
    assert "kasan-history" in names
    missing = [n for n in names if "``%s" % n not in PAGE]
    assert not missing, missing


def test_every_lab_variant_is_on_the_tools_page():
    configs = os.listdir(os.path.join(REPO, "vm", "configs"))
    variants = [c[:-len(".config")] for c in configs if c.endswith(".config")]
    shown = [v for v in variants if not re.search(r"^exp-|-bench$|^swtags-dwarf|^x86-", v)]
    assert {"hwtags", "ptrcmp"} <= set(shown)
    missing = [v for v in shown if "``%s``" % v not in PAGE]
    assert not missing, missing
    assert "``exp-*``" in PAGE and "``*-bench``" in PAGE


MAKEFILE = open(os.path.join(REPO, "Makefile")).read()


def on_page(word, page=PAGE):
    return re.search(r"``make %s\b|``%s``|``%s=" % ((re.escape(word),) * 3), page) is not None


def targets_and_variables(makefile=MAKEFILE):
    """The Makefile's targets, and the variables its rules read or export
    that a reader sets (not those it sets itself with = or :=; ?= is a
    default)."""
    targets = set(re.findall(r"^([a-z][\w-]*):(?!=)", makefile, re.M))
    fixed = set(re.findall(r"^(?:export )?([A-Z][A-Z_0-9]*)\s*:?=", makefile, re.M))
    read = set(re.findall(r"\$\(([A-Z][A-Z_0-9]*)\)|^export ([A-Z][A-Z_0-9]*)\s*$", makefile, re.M))
    read = {a or b for a, b in read}
    return sorted(targets), sorted(read - fixed - {"CURDIR", "MAKE"})


def test_every_make_target_and_variable_is_on_the_tools_page():
    targets, variables = targets_and_variables()
    assert {"check", "grade", "grade-class"} <= set(targets) and {"VARIANT", "SEED"} <= set(variables)
    missing = [w for w in targets + variables if not on_page(w)]
    assert not missing, missing


def test_a_planted_target_and_variable_not_on_the_page_are_found():
    targets, variables = targets_and_variables(MAKEFILE + "\nplanted-target:\n\t@echo $(PLANTED_VAR)\n")
    assert [w for w in targets + variables if not on_page(w)] == ["planted-target", "PLANTED_VAR"]
