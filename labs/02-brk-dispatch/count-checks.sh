#!/bin/sh
# Lab 2, step 1: how each kernel checks tags, counted in the lab module.
# usage: count-checks.sh NAME1 MODULE_DIR1 NAME2 MODULE_DIR2
#   (the default kernel first, then the kernel with inline brk checks)
set -eu
[ $# -eq 4 ] || { echo "usage: count-checks.sh NAME1 DIR1 NAME2 DIR2" >&2; exit 2; }
for pair in "$1 $2" "$3 $4"; do
	name=${pair%% *}
	ko="${pair#* }/kasan_lab.ko"
	[ -f "$ko" ] || { echo "count-checks: no $ko (build the kernel first)" >&2; exit 2; }
	dis=$(llvm-objdump -dr "$ko")
	calls=$(printf '%s\n' "$dis" | grep -cE 'R_AARCH64_CALL26\s+__hwasan_check_' || true)
	brks=$(printf '%s\n' "$dis" | grep -cE 'brk\s+#0x9[0-9a-f]{2}' || true)
	echo "$name: $calls calls to __hwasan_check_*, $brks brk #0x9xx"
done
echo
echo "lab_uaf in the $1 module: the check is a call"
llvm-objdump -dr "$2/kasan_lab.ko" | awk '/<lab_uaf>:/ {on = 1} on && /^$/ {exit} on' |
	grep -B3 -A1 'R_AARCH64_CALL26\s*__hwasan_check' | head -10
echo
echo "lab_uaf in the $3 module: the check is inline, then brk"
llvm-objdump -d --disassemble-symbols=lab_uaf "$4/kasan_lab.ko" |
	grep -B6 -A1 -E 'brk\s+#0x9' | head -9
