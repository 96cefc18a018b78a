# Exercise 7.1, graded live on the replay of uaf: your file runs in a
# sandboxed gdb; then the grader's own gdb attaches where your file left
# the replay and takes the backtrace there; then the rest of the run.
source {repo}/labs/07-back-from-the-report/student/freed.gdb
# kt-trusted:
kasan-modsyms
echo KT-GDB state\n
bt
echo KT-GDB end\n
delete
