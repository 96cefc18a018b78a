# Exercise 7.1: from the report, run the replay backwards to the kfree()
# that freed the object, and show where the lab module asked for it.
# `make grade N=7` sources this file on a replay of the uaf scenario,
# halted at its first instruction.
#
# When this file ends, gdb must have printed a backtrace (bt) taken inside
# the kfree() call that freed the object the report is about; its frame in
# lab_uaf names the line of kasan_lab.c that called kfree().  Use reverse
# execution (reverse-continue, reverse-step, ...): the grader requires it.
# Start as history.gdb does (do_init_module, kasan-modsyms, kasan_report).
# TODO 7.1: your gdb commands
break do_init_module
continue
kasan-modsyms
delete
break kasan_report
continue
delete
set $bad = $x0
# kfree(objp): its argument is in x0 at the breakpoint
break kfree if $x0 == $bad
reverse-continue
bt
delete
# END TODO
