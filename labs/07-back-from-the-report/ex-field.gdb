# Exercise 7.3, graded live on the replay of uaf-field: your file runs in a
# sandboxed gdb; then the grader's own gdb attaches where your file left
# the replay, with your $load and $store, and shows the instructions there
# and the functions they are in; then the rest of the run.
source {repo}/labs/07-back-from-the-report/student/field.gdb
# kt-trusted: load store
kasan-modsyms
echo KT-GDB state\n
printf "load: 0x%016lx\n", $load
x/i $load
printf "store: 0x%016lx\n", $store
x/i $store
echo KT-GDB end\n
delete
