# Exercise 2.2, graded live: your file runs in a sandboxed gdb; then the
# grader's own gdb attaches to the VM where your file left it and reads
# the same stop (the function, kasan-esr, the brk), then lets the report
# that kasan_handler prints come out.
source {repo}/labs/02-brk-dispatch/student/handler.gdb
# kt-trusted:
kasan-modsyms
echo KT-GDB stop\n
frame 0
echo KT-GDB kernel\n
kasan-esr esr
x/i regs->pc
printf "x0: 0x%016lx\n", regs->regs[0]
delete
continue
