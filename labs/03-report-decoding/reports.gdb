# Lab 3, step reports: stop at every KASAN report of five scenarios and look at
# the bad address before the report is printed: its tags and its shadow.
# kasan_report(addr, ...) and kasan_report_invalid_free(ptr, ...) both take
# the address in x0.
break kasan_report
commands
  silent
  echo KT-GDB hit\n
  kasan-tag $x0
  kasan-shadow $x0
  continue
end
break kasan_report_invalid_free
commands
  silent
  echo KT-GDB hit\n
  kasan-tag $x0
  kasan-shadow $x0
  continue
end
continue
echo KT-GDB done\n
