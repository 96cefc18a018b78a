# Lab 7: at the report, kasan-why: the bad access, the pointer's way back
# to its allocation, the memory's life, a verdict -- and back to the report.
# Before it, kasan-object: the object, and the stacks KASAN kept for it.
break do_init_module
continue
kasan-modsyms
delete
break kasan_report
continue
delete
echo KT-GDB report\n
printf "bad address: 0x%016lx\n", $x0
monitor info replay
echo KT-GDB object\n
kasan-object $x0
echo KT-GDB why\n
kasan-why
echo KT-GDB json\n
kasan-why --json
echo KT-GDB done\n
