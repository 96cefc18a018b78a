# Exercise 1.3, graded live: your file, then the project's commands at the
# same moment, then the rest of the scenario (its ptr line on the serial).
echo KT-GDB student\n
source {repo}/labs/01-tag-assignment/student/tagstop.gdb
echo KT-GDB kernel\n
kasan-tag $obj
kasan-shadow $obj 128
delete
continue
