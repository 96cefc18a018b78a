# Exercise 7.2: from the report, find the instruction that wrote the memory
# tag the bad access tripped on -- with a reverse watchpoint, not with
# kasan-history.  `make grade N=7` sources this file on a replay of the uaf
# scenario, halted at its first instruction.
#
# When this file ends, gdb must be stopped just after that write and have
# printed `monitor info replay` (the instruction count, which the grader
# compares with kasan-history's) and `x/i $pc`.  The shadow byte of an
# address: ((addr | 0xff00000000000000) >> 4) + CONFIG_KASAN_SHADOW_OFFSET, from
# the kernel's .config (lab 1).
# TODO 7.2: your gdb commands
break do_init_module
continue
kasan-modsyms
delete
break kasan_report
continue
delete
set $shadow = (unsigned char *)((($x0 | 0xff00000000000000) >> 4) + 0xefffffc000000000)
watch -l *$shadow
reverse-continue
delete
monitor info replay
x/i $pc
# END TODO
