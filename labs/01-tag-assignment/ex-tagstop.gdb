# Exercise 1.3, graded live: your file runs in a sandboxed gdb (it sees the
# kernel, not the grader); then the grader's own gdb attaches to the VM
# where your file left it, with your $obj, and reads the same moment
# (kasan-tag, kasan-shadow); the scenario's ptr line follows on the serial.
## The stop is judged by the stop itself: the instruction before $pc must be
## the call into kmalloc that has just returned (the proxy refuses every
## write of the student's gdb, so $pc and $x0 are where the VM really is).
source {repo}/labs/01-tag-assignment/student/tagstop.gdb
# kt-trusted: obj
echo KT-GDB stop\n
x/i $pc
printf "x0: 0x%016lx\n", $x0
x/i $pc - 4
echo KT-GDB kernel\n
kasan-tag $obj
kasan-shadow $obj 128
delete
continue
