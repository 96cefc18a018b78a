# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
# Load the kasan-tags gdb commands (kasan-tag, kasan-shadow, kasan-esr,
# kasan-report, kasan-modsyms, kasan-object, kasan-history, kasan-why,
# $kasan_tag, $kasan_untag).  `make gdb`
# sources this after the kernel's own vmlinux-gdb.py:
#     (gdb) source gdb-scripts/kasan.py
# Each family of commands is a module of kasan/ that registers its commands
# when imported, as vmlinux-gdb.py imports scripts/gdb/linux/*.py: tags and
# shadow, reports and the brk ESR, module symbols, objects, and the replay's
# kasan-history and kasan-why.
# This is the one place the import path is set from inside Python, as the
# kernel's vmlinux-gdb.py does: gdb-scripts/ for the `kasan` package and
# the checkout for `vm` (where the build dirs are laid out).
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [p for p in (_here, os.path.dirname(_here)) if p not in sys.path]

import kasan.cmd_tags  # noqa: E402,F401
import kasan.cmd_report  # noqa: E402,F401
import kasan.cmd_symbols  # noqa: E402,F401
import kasan.cmd_object  # noqa: E402,F401
import kasan.cmd_history  # noqa: E402,F401
