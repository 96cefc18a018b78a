# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
# Live test of kasan-object on the generic kernel (run by `make check`,
# booted with kt_run=uaf): stop where KASAN is about to report, ask for the
# object's alloc/free meta through the stack depot, let the report print.
break kasan_report
continue
echo KT-GDB kasan-object\n
kasan-modsyms
kasan-object $x0
delete
finish
echo KT-GDB done\n
