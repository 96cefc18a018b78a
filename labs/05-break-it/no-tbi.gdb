# Lab 5, no-tbi: the kernel prints nothing at all.  Stop at the first data
# abort and look at the faulting address and instruction.
break do_mem_abort
continue
echo KT-GDB abort\n
printf "far=0x%016lx esr=0x%08lx\n", far, esr
printf "pc=0x%016lx\n", regs->pc
info symbol regs->pc
x/i regs->pc
echo KT-GDB caller\n
info symbol regs->regs[30]
echo KT-GDB again\n
continue
printf "far=0x%016lx\n", far
info symbol regs->pc
echo KT-GDB done\n
kill
