# Live test of the kasan-* gdb commands (run by `make check`, booted with
# kt_run=uaf): stop where KASAN is about to report, look at the bad address
# with our commands, let the report print, then decode it from the log.
break kasan_report
continue
echo KT-GDB kasan-tag\n
kasan-tag $x0
echo KT-GDB kasan-object\n
kasan-modsyms
kasan-object $x0
echo KT-GDB kasan-shadow\n
kasan-shadow $x0
echo KT-GDB functions\n
printf "tag=%02x untag=%016lx\n", $kasan_tag($x0), $kasan_untag($x0)
# No breakpoint left for finish to re-hit (lab 1's slab.gdb).
delete
finish
echo KT-GDB kasan-report\n
kasan-report
echo KT-GDB errors\n
python
for cmd in ("kasan-tag 0x1234", "kasan-tag", "kasan-tag nosuchsymbol",
            "kasan-shadow 0xffffff8000000000 1 2", "kasan-esr 0x1ffffffff",
            "kasan-tag init_task", "kasan-history &init_task", "kasan-why"):
    try:
        gdb.execute(cmd)
    except gdb.error as e:
        print("KT-GDB-ERROR %s => %s" % (cmd, e))
end
echo KT-GDB esr\n
kasan-esr 0xf2000930
kasan-esr 0xf2000800
echo KT-GDB done\n
