# Load the kasan-tags gdb commands (kasan-tag, kasan-shadow, kasan-esr,
# kasan-report, $kasan_tag, $kasan_untag).  `make gdb` sources this after
# the kernel's own vmlinux-gdb.py:  (gdb) source gdb-scripts/kasan.py
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kasan.commands  # noqa: E402,F401
