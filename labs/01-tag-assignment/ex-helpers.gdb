# Exercises 1.1 and 1.2, graded live: stop at the kmalloc(128) return of
# the oob-right scenario and show the kernel's view of the object; the
# grader then calls your tagmath.py (in a sandbox) with these values.
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
kasan-shadow $obj 128
echo KT-GDB done\n
delete
continue
