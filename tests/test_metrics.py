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
