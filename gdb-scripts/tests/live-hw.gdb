# Live test of the kasan-* gdb commands on the hw-tags (MTE) kernel (run by
# `make check`, booted with kt_run=uaf): stop where the tag fault is about
# to be reported, ask our commands about the bad address (no shadow in
# this mode), let the report print, then decode it from the log.
break kasan_report
continue
echo KT-GDB kasan-tag\n
kasan-tag $x0
echo KT-GDB kasan-object\n
kasan-modsyms
kasan-object $x0
echo KT-GDB kasan-shadow\n
python
try:
    gdb.execute("kasan-shadow $x0")
except gdb.error as e:
    print("KT-GDB-ERROR kasan-shadow => %s" % e)
end
echo KT-GDB kasan-history\n
python
try:
    gdb.execute("kasan-history $x0")
except gdb.error as e:
    print("KT-GDB-ERROR kasan-history => %s" % e)
end
# No breakpoint left for finish to re-hit (lab 1's slab.gdb).
delete
finish
echo KT-GDB kasan-report\n
kasan-report
echo KT-GDB done\n
