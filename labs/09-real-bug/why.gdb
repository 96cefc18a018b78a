# Lab 9: at the first KASAN report of the recorded qfq-lmax run, the
# object the bad address is in (kasan-object) and kasan-why's walk back
# from the read: on code it was not written for, net/sched/sch_qfq.c.
break kasan_report
continue
delete
echo KT-GDB report\n
printf "bad address: 0x%016lx\n", $x0
monitor info replay
echo KT-GDB object\n
kasan-object $x0
echo KT-GDB why\n
kasan-why
echo KT-GDB json\n
kasan-why --json
echo KT-GDB done\n
