# Lab 1, step slab: where a slab object gets its tag.
# Stop when the kernel initialises the lab module, load its symbols with
# kasan-modsyms (lx-symbols, fixed for .text.hot), then stop in the oob-in-granule scenario,
# which does kmalloc(123).
break do_init_module
continue
kasan-modsyms
delete
break lab_oob_in_granule
continue
echo KT-GDB in-scenario\n
bt 2
## Delete before going on: once here, continuing stopped at this same
## breakpoint again (same pc, the scenario ran once; the cause in gdb or
## QEMU is not known), and every later stop was then one step behind.
delete
echo KT-GDB random-tag\n
# tbreak, not break: an interrupt that allocates during "finish" would
# re-hit a breakpoint that is still set, and finish would never return.
tbreak kasan_random_tag
continue
bt 6
finish
echo KT-GDB kmalloc-return\n
delete
# Stop at the first instruction of __kasan_kmalloc(cache, object, size,
# flags) when size is 123: there, by the arm64 calling convention, the
# third argument is in register x2.  (A condition on the name `size` at
# the line gdb picks after the prologue fails: there it names a variable
# of the inlined ____kasan_kmalloc, and gdb says "Error in testing
# breakpoint condition".)
tbreak *__kasan_kmalloc if $x2 == 123
continue
finish
echo KT-GDB kasan-tag\n
kasan-tag $
echo KT-GDB kasan-shadow\n
kasan-shadow $ 123
echo KT-GDB done\n
delete
