# Lab 1, step pages: pages get tags too (series patch 18).
break do_init_module
continue
kasan-modsyms
delete
break lab_page_tag
continue
## Deleted before going on: see slab.gdb.
delete
echo KT-GDB random-tag\n
# tbreak: a breakpoint still set could be re-hit during finish.
tbreak kasan_random_tag
continue
bt 8
finish
delete
echo KT-GDB done\n
