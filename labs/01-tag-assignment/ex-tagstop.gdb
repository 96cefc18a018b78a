# Exercise 1.3, graded live: your file runs in a sandboxed gdb (it sees the
# kernel, not the grader); then the grader's own gdb attaches to the VM
# where your file left it, with your $obj, and reads the same moment
# (kasan-tag, kasan-shadow); the scenario's ptr line follows on the serial.
source {repo}/labs/01-tag-assignment/student/tagstop.gdb
# kt-trusted: obj
echo KT-GDB stop\n
x/i $pc
printf "x0: 0x%016lx\n", $x0
echo KT-GDB kernel\n
kasan-tag $obj
kasan-shadow $obj 128
delete
continue
