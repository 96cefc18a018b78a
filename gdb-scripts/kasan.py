# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
# Load the kasan-tags gdb commands (kasan-tag, kasan-shadow, kasan-esr,
# kasan-report, kasan-modsyms, kasan-object, kasan-history, kasan-why,
# $kasan_tag, $kasan_untag).  `make gdb`
# sources this after the kernel's own vmlinux-gdb.py:
#     (gdb) source gdb-scripts/kasan.py
# This is the one place the import path is set from inside Python, as the
# kernel's vmlinux-gdb.py does: gdb-scripts/ for the `kasan` package and
# the checkout for `vm` (where the build dirs are laid out).
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [p for p in (_here, os.path.dirname(_here)) if p not in sys.path]

import kasan.commands  # noqa: E402,F401
