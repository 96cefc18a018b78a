# Exercise 7.2, graded live on the replay of uaf: your file runs in a
# sandboxed gdb; then the grader's own gdb attaches where your file left
# the replay and reads its instruction count and instruction there; then
# the rest of the run.
source {repo}/labs/07-back-from-the-report/student/tagwrite.gdb
# kt-trusted:
echo KT-GDB state\n
monitor info replay
x/i $pc
echo KT-GDB end\n
delete
