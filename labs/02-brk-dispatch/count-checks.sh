#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
# Lab 2, step 1: how each kernel checks tags, counted in the lab module,
# and what inlining every check costs in size.  Run it as
# `make lab N=2 STEP=count`, which passes the two kernels' directories.
# usage: count-checks.sh NAME1 MODULE_DIR1 BUILD_DIR1 NAME2 MODULE_DIR2 BUILD_DIR2
#   (the default kernel first, then the kernel with inline brk checks)
set -eu
[ $# -eq 6 ] || { echo "usage: count-checks.sh NAME1 MODULE_DIR1 BUILD_DIR1" \
	"NAME2 MODULE_DIR2 BUILD_DIR2 (make lab N=2 STEP=count passes them)" >&2; exit 2; }
name1=$1 mod1=$2 build1=$3 name2=$4 mod2=$5 build2=$6

mib() { echo "$(( ($(stat -c %s "$1") + 524288) / 1048576 )) MiB"; }

count() {
	ko="$2/kasan_lab.ko"
	[ -f "$ko" ] || { echo "count-checks: no $ko (build the kernel first)" >&2; exit 2; }
	dis=$(llvm-objdump -dr "$ko")
	calls=$(printf '%s\n' "$dis" | grep -cE 'R_AARCH64_CALL26\s+__hwasan_check_' || true)
	brks=$(printf '%s\n' "$dis" | grep -cE 'brk\s+#0x9[0-9a-f]{2}' || true)
	echo "$1: $calls calls to __hwasan_check_*, $brks brk #0x9xx;" \
		"Image $(mib "$3/arch/arm64/boot/Image"), vmlinux $(mib "$3/vmlinux")"
}
count "$name1" "$mod1" "$build1"
count "$name2" "$mod2" "$build2"
echo
echo "lab_uaf in the $name1 module: the check is a call"
llvm-objdump -dr "$mod1/kasan_lab.ko" | awk '/<lab_uaf>:/ {on = 1} on && /^$/ {exit} on' |
	grep -B3 -A1 'R_AARCH64_CALL26\s*__hwasan_check' | head -10
echo
echo "lab_uaf in the $name2 module: the check is inline, then brk"
llvm-objdump -d --disassemble-symbols=lab_uaf "$mod2/kasan_lab.ko" |
	grep -B6 -A1 -E 'brk\s+#0x9' | head -9
