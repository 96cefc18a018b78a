# Exercise 2.2: in the swtags-brk kernel booted with kt_run=uaf, stop in
# kasan_handler() for lab_uaf's bad read, and print from its arguments
# (regs, esr) -- not from the report, which is not printed yet:
#   addr: 0x<the 64-bit address the access used, tag included>
#   access: read|write
#   size: <bytes>
#   pc: 0x<address of the brk instruction>
# When this file ends, gdb must still be stopped in kasan_handler.
# TODO 2.2: your gdb commands
break do_init_module
continue
kasan-modsyms
delete
break lab_uaf
continue
break kasan_handler
continue
printf "addr: 0x%016lx\n", regs->regs[0]
if esr & 0x10
  echo access: write\n
else
  echo access: read\n
end
printf "size: %d\n", 1 << (esr & 0xf)
printf "pc: 0x%016lx\n", regs->pc
# END TODO
