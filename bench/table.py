# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The one renderer of the `make bench` table: for the terminal
(bench/kasan_modes.py), lab 4 and the site (Documentation/tools/page_bench.py).

Everything here is computed from results.json's content; nothing is typed."""

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from vm.metrics import shadow_kb
from shared.tables import rst_table, text_table
from kasan.modes import HW_TAGS, SW_TAGS

SW, HW = SW_TAGS.variant, HW_TAGS.variant

# swtags is 6.1's default "inline" build (outlined __hwasan_check_* calls);
# swtags-brk inlines every check, ending in brk, as "inline" meant in 2018.
# hwtags (MTE) runs on another QEMU (vm/qemu.py: virt-mte): compare its
# memory with the others, not its times.
# Where `make bench` writes (the reader's own run) and where `make
# bench-keep` keeps a run for every tree (the one the site shows until the
# reader has their own), relative to the checkout.
OWN, KEPT = os.path.join("build", "bench"), os.path.join("bench", "stored")


def last_results(repo: str) -> Tuple[Optional[Dict[str, Any]], str]:
    """(results.json's content, the directory it came from): the reader's
    own last run if there is one, else the kept run, else (None, "")."""
    for d in (OWN, KEPT):
        try:
            with open(os.path.join(repo, d, "results.json")) as f:
                return json.load(f), d
        except (OSError, ValueError):
            continue
    return None, ""


MODES = ["none", "generic", SW, "swtags-outline", "swtags-brk", HW]
LABELS = (("qemu", "QEMU"), ("boot_s", "boot to /init, s"), ("slab_kb", "Slab after boot, kB"),
          ("reserved_kb", "reserved at boot, kB"), ("tcp_mbit", "loopback TCP, Mbit/s"),
          ("ns_per_pair", "kmalloc+kfree, ns"),
          ("ns_per_pair_nostack", "kmalloc+kfree, ns, kasan.stacktrace=off"),
          ("insn_per_pair", "kmalloc+kfree, guest instructions"),
          ("insn_per_tcp_mb", "guest instructions per TCP MiB"),
          ("build_s", "kernel build, s"),
          ("image_mb", "Image, MB"), ("vmlinux_mb", "vmlinux, MB"),
          ("outlined_check_calls", "calls to __hwasan_check_*"),
          ("callback_calls", "load/store callbacks"), ("brk_9xx", "brk #0x9xx sites"))
RATIOS = (("boot_s", "boot time"), ("tcp_mbit", "TCP throughput"), ("slab_kb", "Slab"),
          ("insn_per_tcp_mb", "instructions per TCP MiB"),
          ("insn_per_pair", "instructions per kmalloc+kfree"))
Results = Dict[str, Dict[str, Any]]


def fmt(v: Any, nd: int = 2) -> str:
    return "--" if v is None else ("%.*f" % (nd, v) if isinstance(v, float) else str(v))


def _mem(r: Dict[str, Any]) -> Dict[str, int]:
    return {"reserved": r.get("reserved_kb") or 0, "image": r.get("image_kb") or 0,
            "depot": r.get("depot_kb") or 0}


def shadow_share(results: Results, mode: str) -> Optional[float]:
    """RAM / (what `mode` reserves beyond none's, minus image and depot)."""
    r, ram = results.get(mode, {}), results.get(mode, {}).get("ram_kb")
    extra = shadow_kb(_mem(r), _mem(results["none"]))
    return ram / extra if ram and extra > 0 else None


def rows(results: Results, modes: Sequence[str] = MODES) -> List[Tuple[str, List[str]]]:
    """(label, a cell per mode) for every measured figure, then the shadow."""
    out = [(label, [fmt(results.get(m, {}).get(key)) for m in modes]) for key, label in LABELS]

    def share(m: str) -> str:
        s = None if m == "none" else shadow_share(results, m)
        return "--" if s is None else "1/%.1f" % s
    out.append(("shadow, share of RAM", [share(m) for m in modes]))
    return out


def ratio(results: Results, key: str, mode: str) -> Optional[float]:
    n, v = results["none"].get(key), results[mode].get(key)
    return v / n if n and v else None


def ratio_rows(results: Results, cover: Results) -> List[Tuple[str, List[str]]]:
    """(figure, [generic measured, generic 2018, swtags, swtags-brk, swtags 2018]);
    2018's tag-based kernel was inline in the brk sense, like swtags-brk."""
    out = []
    for key, label in RATIOS:
        def then(m: str) -> str:
            return "%.2f" % (cover[key][m] / cover[key]["none"]) if key in cover else "--"
        out.append((label, [fmt(ratio(results, key, "generic")), then("generic"),
                            fmt(ratio(results, key, SW)),
                            fmt(ratio(results, key, "swtags-brk")), then(SW)]))
    return out


def gap_sentences(results: Results) -> List[str]:
    """Does inlining every check (swtags-brk) close the CPU gap between
    6.1's default tag-based kernel and generic KASAN?  Computed, not typed."""
    out = []
    for key, label, higher_is_faster in (("tcp_mbit", "loopback TCP throughput", True),
                                         ("insn_per_tcp_mb", "guest instructions per TCP "
                                          "MiB", False),
                                         ("ns_per_pair", "time per kmalloc+kfree", False)):
        g, d, b = (results.get(m, {}).get(key) for m in ("generic", SW, "swtags-brk"))
        if not (g and d and b):
            continue
        # speed relative to generic: > 1 means faster than generic
        sd, sb = (d / g, b / g) if higher_is_faster else (g / d, g / b)
        verdict = ("closes the gap: swtags-brk is as fast as generic or faster"
                   if sb >= 0.95 else "narrows the gap" if sb > sd * 1.05 else
                   "does not close the gap")
        out.append("%s: swtags %.2f x generic's speed, swtags-brk %.2f x -- inlining every "
                   "check %s." % (label, sd, sb, verdict))
    return out


RATIO_HEADER = ["", "generic, measured", "generic, 2018", "swtags, measured",
                "swtags-brk, measured", "swtags (inline), 2018"]


def text(results: Results, meta: Dict[str, Any], cover: Results) -> str:
    """What `make bench` prints."""
    return "\n".join([
        "%s; %s; median of %d boots" % (meta["qemu"], meta["machine"], meta["runs"]),
        text_table([""] + MODES, rows(results)),
        "", "ratios to none",
        text_table(RATIO_HEADER, ratio_rows(results, cover)), ""] + gap_sentences(results))


def rst(results: Results, meta: Dict[str, Any], cover: Results) -> str:
    """The site's tables of the same figures."""
    return "".join([
        ":Measured: %s, %s\n:Machine: %s\n:Host: %s\n:Boots: median of %d per variant\n\n" % (
            meta["date"], meta["qemu"], meta["machine"], meta.get("host", "not recorded"),
            meta["runs"]),
        rst_table([""] + MODES, rows(results), css="kt-bench"), "\n",
        rst_table(RATIO_HEADER, ratio_rows(results, cover),
                  title="Ratios to the kernel without KASAN"),
        "\n**Does inlining every check close the gap?** Computed from the rows above:\n\n",
        "".join("* %s\n" % s for s in gap_sentences(results)) or
        "* (the swtags-brk row is missing: run ``make bench``)\n"])
