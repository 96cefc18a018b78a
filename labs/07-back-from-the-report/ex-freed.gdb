# Exercise 7.1, graded live on the replay of uaf: your file, then the
# rest of the run.
echo KT-GDB student\n
source {repo}/labs/07-back-from-the-report/student/freed.gdb
echo KT-GDB end\n
delete
