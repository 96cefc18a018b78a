# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Figures a serial log carries: the boot "Memory:" line, Slab: from
/proc/meminfo, the time of "Run /init", and the bench programs' lines.

Pure functions over text, shared by `make bench`, lab 4 and the site."""

import re
from typing import Dict, Optional

MEM = re.compile(r"Memory: (\d+)K/(\d+)K available \((\d+)K kernel code, (\d+)K rwdata, "
                 r"(\d+)K rodata, (\d+)K init, (\d+)K bss, (\d+)K reserved")
DEPOT = re.compile(r"stackdepot hash table entries: \d+ \(order: \d+, (\d+) bytes")


def memory(text: str) -> Optional[Dict[str, int]]:
    """The boot "Memory:" line: RAM, reserved, the kernel image (code, data,
    init, bss) and KASAN's stack depot hash table, in kB; None if absent.
    reserved - image - depot is mostly the KASAN shadow (and page tables)."""
    m = MEM.search(text)
    if not m:
        return None
    v = [int(x) for x in m.groups()]
    depot = DEPOT.search(text)
    return {"ram": v[1], "reserved": v[7], "image": sum(v[2:7]),
            "depot": int(depot.group(1)) // 1024 if depot else 0}


def shadow_kb(mem: Dict[str, int], base: Dict[str, int]) -> int:
    """What a KASAN kernel reserves beyond a kernel without KASAN, after
    taking out the image and the stack depot: its shadow."""
    def rest(x: Dict[str, int]) -> int:
        return x["reserved"] - x["image"] - x["depot"]
    return rest(mem) - rest(base)


def slab_kb(text: str) -> Optional[int]:
    """Slab: of a /proc/meminfo the init printed (kt_cat=/proc/meminfo)."""
    m = re.search(r"\nSlab:\s+(\d+) kB", text)
    return int(m.group(1)) if m else None


def icount(text: str) -> Dict[str, Optional[float]]:
    """Guest instructions, from a boot under -icount shift=0 (1 ns of guest
    time per instruction): per kmalloc/kfree pair, and per MiB of loopback
    TCP (tcpbench's guest milliseconds are 10^6 instructions each)."""
    m = re.search(r"KT-TCPBENCH bytes=(\d+) ms=(\d+)", text)
    pair = re.search(r"slab-bench result pairs=\d+ ns_per_pair=(\d+)", text)
    per_mb = None
    if m and int(m.group(1)):
        per_mb = int(m.group(2)) * 1e6 / (int(m.group(1)) / 2**20)
    return {"insn_per_pair": int(pair.group(1)) if pair else None,
            "insn_per_tcp_mb": round(per_mb) if per_mb else None}


def measure(text: str) -> Dict[str, Optional[float]]:
    """Figures of one boot log (None where a line is missing)."""
    def num(pattern: str) -> Optional[float]:
        m = re.search(pattern, text)
        return float(m.group(1)) if m else None

    def whole(pattern: str) -> Optional[float]:
        m = re.search(pattern, text)
        return int(m.group(1)) if m else None
    mem = memory(text) or {}
    return {
        "boot_s": num(r"\[\s*(\d+\.\d+)\] Run /init as init process"),
        "slab_kb": slab_kb(text),
        "tcp_mbit": whole(r"KT-TCPBENCH .*mbit_per_s=(\d+)"),
        "ns_per_pair": whole(r"slab-bench result pairs=\d+ ns_per_pair=(\d+)"),
        "ram_kb": mem.get("ram"),
        "reserved_kb": mem.get("reserved"),
        "image_kb": mem.get("image"),
        "depot_kb": mem.get("depot"),
    }
