# Exercise 2.2, graded live: your file, then the project's reading of the
# same stop, then the report that kasan_handler prints.
echo KT-GDB student\n
source {repo}/labs/02-brk-dispatch/student/handler.gdb
echo KT-GDB kernel\n
kasan-esr esr
x/i regs->pc
delete
continue
