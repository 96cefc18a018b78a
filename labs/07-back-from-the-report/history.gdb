# Lab 7: at the report, back through the history of the bad address's tag.
# The VM replays a recording (make record, make replay): gdb can run it
# backwards.  The module's functions are known once kasan-modsyms has
# loaded its symbols, in do_init_module.
break do_init_module
continue
kasan-modsyms
delete
# kasan_report(addr, size, is_write, ip): x0 holds the bad address
break kasan_report
continue
delete
echo KT-GDB report\n
printf "bad address: 0x%016lx\n", $x0
monitor info replay
echo KT-GDB history\n
kasan-history $x0
echo KT-GDB done\n
