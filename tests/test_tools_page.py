# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The tools page (Documentation/tools.rst) names every gdb command the
project registers and every kernel variant a lab or a reader runs."""

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
