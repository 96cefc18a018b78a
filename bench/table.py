"""The one renderer of the `make bench` table: for the terminal
(bench/kasan_modes.py), lab 4 and the site (Documentation/tools/gensite.py).

Everything here is computed from results.json's content; nothing is typed."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from vm.metrics import shadow_kb

MODES = ["none", "generic", "swtags", "swtags-outline"]
LABELS = (("boot_s", "boot to /init, s"), ("slab_kb", "Slab after boot, kB"),
          ("reserved_kb", "reserved at boot, kB"), ("tcp_mbit", "loopback TCP, Mbit/s"),
          ("ns_per_pair", "kmalloc+kfree, ns"), ("build_s", "kernel build, s"),
          ("image_mb", "Image, MB"), ("vmlinux_mb", "vmlinux, MB"),
          ("outlined_check_calls", "calls to __hwasan_check_*"),
          ("callback_calls", "load/store callbacks"))
RATIOS = (("boot_s", "boot time"), ("tcp_mbit", "TCP throughput"), ("slab_kb", "Slab"))
Results = Dict[str, Dict[str, Any]]


def fmt(v: Any, nd: int = 2) -> str:
    return "--" if v is None else ("%.*f" % (nd, v) if isinstance(v, float) else str(v))


def _mem(r: Dict[str, Any]) -> Dict[str, int]:
    return {"reserved": r.get("reserved_kb") or 0, "image": r.get("image_kb") or 0,
            "depot": r.get("depot_kb") or 0}


def shadow_share(results: Results, mode: str) -> Optional[float]:
    """RAM / (what `mode` reserves beyond none's, minus image and depot)."""
    r, ram = results[mode], results[mode].get("ram_kb")
    extra = shadow_kb(_mem(r), _mem(results["none"]))
    return ram / extra if ram and extra > 0 else None


def rows(results: Results, modes: Sequence[str] = MODES) -> List[Tuple[str, List[str]]]:
    """(label, a cell per mode) for every measured figure, then the shadow."""
    out = [(label, [fmt(results[m].get(key)) for m in modes]) for key, label in LABELS]

    def share(m: str) -> str:
        s = None if m == "none" else shadow_share(results, m)
        return "--" if s is None else "1/%.1f" % s
    out.append(("shadow, share of RAM", [share(m) for m in modes]))
    return out


def ratio(results: Results, key: str, mode: str) -> Optional[float]:
    n, v = results["none"].get(key), results[mode].get(key)
    return v / n if n and v else None


def ratio_rows(results: Results, cover: Results) -> List[Tuple[str, List[str]]]:
    """(figure, [generic measured, generic 2018, swtags measured, swtags 2018])."""
    out = []
    for key, label in RATIOS:
        cells = []
        for m in ("generic", "swtags"):
            cells += [fmt(ratio(results, key, m)),
                      "%.2f" % (cover[key][m] / cover[key]["none"])]
        out.append((label, cells))
    return out


def text_table(header: Sequence[str], body: Sequence[Tuple[str, Sequence[str]]]) -> str:
    """Columns for the terminal: the first one left-aligned, the rest right."""
    cols = [list(header)] + [[label, *cells] for label, cells in body]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))) for r in cols)


def rst_table(header: Sequence[str], body: Sequence[Tuple[str, Sequence[str]]],
              title: str = "", css: str = "") -> str:
    out = [".. list-table::%s\n   :header-rows: 1\n" % (" " + title if title else "")]
    if css:
        out.append("   :class: %s\n" % css)
    out.append("\n")
    for r in [list(header)] + [[label, *cells] for label, cells in body]:
        out.append("   * - %s\n" % (r[0] or " ") + "".join("     - %s\n" % c for c in r[1:]))
    return "".join(out)


RATIO_HEADER = ["", "generic, measured", "generic, 2018", "swtags, measured", "swtags, 2018"]


def text(results: Results, meta: Dict[str, Any], cover: Results) -> str:
    """What `make bench` prints."""
    return "\n".join([
        "%s; %s; median of %d boots" % (meta["qemu"], meta["machine"], meta["runs"]),
        text_table([""] + MODES, rows(results)),
        "swtags-brk: %s brk #0x9xx sites in vmlinux"
        % results.get("swtags-brk", {}).get("brk_9xx", "?"),
        "", "ratios to none",
        text_table(RATIO_HEADER, ratio_rows(results, cover))])


def rst(results: Results, meta: Dict[str, Any], cover: Results) -> str:
    """The site's tables of the same figures."""
    return "".join([
        ":Measured: %s, %s\n:Machine: %s\n:Boots: median of %d per variant\n\n" % (
            meta["date"], meta["qemu"], meta["machine"], meta["runs"]),
        rst_table([""] + MODES, rows(results), css="kt-bench"),
        "\n``swtags-brk`` has %s ``brk #0x9xx`` sites in vmlinux.\n\n"
        % results.get("swtags-brk", {}).get("brk_9xx", "?"),
        rst_table(RATIO_HEADER, ratio_rows(results, cover),
                  title="Ratios to the kernel without KASAN")])
