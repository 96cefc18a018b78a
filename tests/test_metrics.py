# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""vm/metrics.py: the figures of a boot log, on a real one and on bench lines."""
from vm import metrics


def test_measure_real_boot(swtags_log):
    m = metrics.measure(swtags_log)
    assert m["boot_s"] and m["boot_s"] > 0
    assert m["ram_kb"] == 524288 and m["reserved_kb"] > 32768   # shadow alone is 1/16
    assert m["tcp_mbit"] is None and m["slab_kb"] is None        # not in this log


def test_measure_bench_lines():
    text = ("[    1.5] Run /init as init process\nSlab:               2392 kB\n"
            "KT-TCPBENCH bytes=10 ms=10000 mbit_per_s=123\n"
            "[ 2.0] kasan_lab: slab-bench result pairs=200000 ns_per_pair=456\n")
    m = metrics.measure(text)
    assert (m["boot_s"], m["slab_kb"], m["tcp_mbit"], m["ns_per_pair"]) == (1.5, 2392, 123, 456)


MEMLINE = ("Memory: 400000K/524288K available (1000K kernel code, 200K rwdata, 300K rodata, "
           "400K init, 500K bss, 60000K reserved, 0K cma-reserved)\n"
           "stackdepot hash table entries: 1048576 (order: 11, 8388608 bytes, linear)\n")


def test_memory_line_fields():
    assert metrics.memory(MEMLINE) == {"ram": 524288, "reserved": 60000,
                                       "image": 1000 + 200 + 300 + 400 + 500, "depot": 8192}
    assert metrics.memory(MEMLINE.splitlines()[0])["depot"] == 0
    assert metrics.memory("no such line") is None


def test_shadow_is_reserved_beyond_the_base():
    base = {"reserved": 10000, "image": 3000, "depot": 0}
    kasan = {"reserved": 50000, "image": 4000, "depot": 8192}
    assert metrics.shadow_kb(kasan, base) == (50000 - 4000 - 8192) - (10000 - 3000)
    assert metrics.shadow_kb(base, base) == 0
    assert metrics.slab_kb("x\nSlab:   123 kB\n") == 123 and metrics.slab_kb("Slab: 1") is None


def test_icount_figures():
    text = ("KT-TCPBENCH bytes=2097152 ms=10000 mbit_per_s=1\n"
            "kasan_lab: slab-bench result pairs=200000 ns_per_pair=3456\n")
    assert metrics.icount(text) == {"insn_per_pair": 3456, "insn_per_tcp_mb": 5 * 10**9}
    assert metrics.icount("") == {"insn_per_pair": None, "insn_per_tcp_mb": None}
    assert metrics.icount("KT-TCPBENCH bytes=0 ms=10000")["insn_per_tcp_mb"] is None
