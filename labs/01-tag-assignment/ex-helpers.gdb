# Exercises 1.1 and 1.2, graded live: stop at the kmalloc(128) return of
# the oob-right scenario; the kernel's view, then your tagmath.py's.
break do_init_module
continue
kasan-modsyms
delete
break lab_oob_right
continue
delete
tbreak *__kasan_kmalloc if $x2 == 128
continue
finish
set $obj = $
echo KT-GDB kernel\n
kasan-tag $obj
printf "untag: 0x%lx\n", $kasan_untag($obj)
kasan-shadow $obj 128
echo KT-GDB student\n
source {repo}/labs/01-tag-assignment/ex_helpers_gdb.py
echo KT-GDB done\n
