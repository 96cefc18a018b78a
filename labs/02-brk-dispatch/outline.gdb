# Lab 2, step outline: the same bug in the default 6.1 kernel: no brk, a call.
break do_init_module
continue
kasan-modsyms
delete
break lab_uaf
continue
# Deleted before going on: a resumed breakpoint can be re-hit (slab.gdb, lab 1).
delete
break kasan_tag_mismatch
continue
echo KT-GDB backtrace\n
bt 5
printf "addr=0x%016lx access_info=0x%lx\n", $x0, $x1
echo KT-GDB caller\n
info symbol ret_ip
delete
echo KT-GDB done\n
