# Lab 2, step brk: a tag mismatch in the swtags-brk kernel executes brk #0x9xx.
# Follow the debug exception to 6.1's KASAN brk hook, kasan_handler (the
# descendant of series patch 17's handler).
break do_init_module
continue
kasan-modsyms
delete
break lab_uaf
continue
# Deleted before going on: a resumed breakpoint can be re-hit (slab.gdb, lab 1).
delete
break kasan_handler
continue
echo KT-GDB backtrace\n
bt
echo KT-GDB esr\n
kasan-esr
echo KT-GDB regs\n
printf "x0=0x%016lx\n", regs->regs[0]
printf "pc=0x%016lx\n", regs->pc
x/i regs->pc
echo KT-GDB after\n
# Where the kernel goes on: the brk's pc + 4 (kasan_handler skips it).
## (`finish` here instead left the VM hung once gdb detached, under QEMU
## 7.2 with -icount, cause not known: a breakpoint where the kernel resumes
## shows it as well.)
set $next = regs->pc + 4
delete
tbreak *$next
continue
printf "pc after=0x%016lx\n", $pc
delete
echo KT-GDB done\n
