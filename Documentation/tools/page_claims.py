# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The claim ledger's table (Documentation/claims.rst includes
build/gen/claims-table.rst): every figure of Documentation/claims.toml with
what measured it here and a verdict -- holds, differs (by how much), or
cannot be measured (why).

Where the measurements come from (nothing is booted or built here):
  stored runs   labs/04-*/runs/table.json.xz, labs/06-*/runs/table.json.xz
                (the lab tables of the last `make fixtures N=4/6`)
  the tree      the installed 6.1 tree (arch/arm64/Makefile, kasan-tags.h)
  kernels       build/check/kernel-code.json (make check's kernel-code
                check), else llvm-size/llvm-objdump on vmlinux files that
                are already built; for the brk counts, else the bench
                run's (below); "not built here" otherwise
  make bench    build/bench/results.json, if `make bench` ran here, else
                the run kept in bench/stored/ (make bench-keep), with the
                host it was measured on
Each MEASURES function returns (measured text, verdict, note); `verdict`
is "holds", "differs", "cannot be measured under TCG", "cannot be measured
under QEMU", or "not measured here" when its input is missing.  origin()
says, for the table's "figures from" column, which of these inputs gave
the row its figures: a stored run of this checkout, the tree, kernels
built on this machine, or bench/stored/ (another host, named)."""

import functools
import json
import lzma
import os
import re
import subprocess
import tomllib
from typing import Any, Callable, Dict, List, Optional, Tuple

from kasan.modes import GENERIC, HW_TAGS, NONE_VARIANT, SW_TAGS
from vm import REPO

# The variants, as the one mode table spells them (kasan/modes.py).
SW, HW, GEN, NONE = SW_TAGS.variant, HW_TAGS.variant, GENERIC.variant, NONE_VARIANT

CLAIMS = os.path.join(REPO, "Documentation", "claims.toml")
KERNEL_CODE = os.path.join(REPO, "build", "check", "kernel-code.json")
CODE_VARIANTS = (NONE, GEN, SW, HW, SW + "-outline", SW + "-brk")
BRK_9XX = re.compile(r"\bbrk\s+#0x9[0-9a-f]{2}\b")
CHECK_CALL = re.compile(r"\bbl\s+\S+\s+<__hwasan_check_")
TCG = "cannot be measured under TCG"
NOT_HERE = "not measured here"
Row = Tuple[str, str, str]


def load_claims(path: str = CLAIMS) -> List[Dict[str, Any]]:
    with open(path, "rb") as f:
        return tomllib.load(f)["claim"]


# -- inputs ---------------------------------------------------------------------

def stored_table(lab: str) -> Optional[Dict[str, Any]]:
    """A lab's stored table.json (runs/), or None."""
    import glob
    for path in glob.glob(os.path.join(REPO, "labs", lab + "-*", "runs", "table.json.xz")):
        with lzma.open(path, "rt") as f:
            return json.load(f)
    return None


def tree() -> Optional[str]:
    try:
        import vm
        t = vm.pristine_tree()[0]
        return t if os.path.isdir(t) else None
    except Exception:  # noqa: BLE001 -- no tree extracted: the row says so
        return None


def kernel_code() -> Dict[str, Dict[str, int]]:
    """{variant: {"text": bytes, "brk_9xx": n, "check_calls": n}}: make check's
    record, else what the vmlinux files already built give."""
    return kernel_code_from()[0]


@functools.lru_cache(maxsize=None)
def kernel_code_from() -> Tuple[Dict[str, Dict[str, int]], str]:
    """kernel_code()'s figures and where they come from (words for origin())."""
    try:
        with open(KERNEL_CODE) as f:
            return json.load(f)["variants"], \
                "kernels built on this machine (build/check/kernel-code.json, make check)"
    except (OSError, ValueError, KeyError):
        pass
    out = {}
    for v in CODE_VARIANTS:
        try:
            import vm
            path = vm.vmlinux(vm.build_dir(v))
        except Exception:  # noqa: BLE001 -- an unknown variant or no cache
            continue
        if os.path.exists(path):
            out[v] = measure_vmlinux(path, disassemble=v in (SW, SW + "-brk"))
    return out, "the vmlinux files built on this machine"


def measure_vmlinux(path: str, disassemble: bool = True) -> Dict[str, int]:
    """.text size (llvm-size -A) and, disassembled, the KASAN brk sites and
    the calls to outlined checks (llvm-objdump -d): cheap, nothing booted."""
    out: Dict[str, int] = {}
    size = subprocess.run(["llvm-size", "-A", path], capture_output=True, text=True).stdout
    m = re.search(r"^\.text\s+(\d+)", size, re.M)
    if m:
        out["text"] = int(m.group(1))
    if disassemble:
        p = subprocess.Popen(["llvm-objdump", "-d", "--no-show-raw-insn", path],
                             stdout=subprocess.PIPE, text=True)
        brk = calls = 0
        for line in p.stdout or ():
            if "brk" in line and BRK_9XX.search(line):
                brk += 1
            elif "__hwasan_check_" in line and CHECK_CALL.search(line):
                calls += 1
        p.wait()
        out["brk_9xx"], out["check_calls"] = brk, calls
    return out


def bench() -> Optional[Dict[str, Any]]:
    """The results of the reader's own `make bench`, else of the kept run."""
    from bench.table import last_results
    data, _ = last_results(REPO)
    return data.get("results") if isinstance(data, dict) else None


def bench_from() -> str:
    """Where bench() reads (words for origin()): this machine's own run, or
    the kept one with the host it was measured on; "" if neither."""
    from bench.table import KEPT, last_results
    data, where = last_results(REPO)
    if not isinstance(data, dict):
        return ""
    meta = data.get("meta", {})
    if where != KEPT:
        return "this machine's make bench (%s/results.json, %s)" % (where, meta.get("date", "?"))
    return ("%s/results.json (make bench-keep), measured on the host %s, %s (the "
            "-bench kernels, with the network stack)" % (where, meta.get("host", "not recorded"),
                                                         meta.get("date", "?")))


# -- verdicts ---------------------------------------------------------------------

def within(got: float, want: float, tol: float) -> bool:
    return want != 0 and abs(got / want - 1) <= tol


def frac(x: float) -> str:
    return "1/%.1f" % (1 / x) if x else "0"


def shadow_fraction(t: Dict[str, Any], mode: str) -> Optional[float]:
    from vm.metrics import shadow_kb
    mem = t.get("memory", {})
    if mode not in mem or NONE not in mem:
        return None
    return shadow_kb(mem[mode], mem[NONE]) / mem[mode]["ram"]


def m_shadow_scale(c: Dict[str, Any]) -> Row:
    src = tree()
    if not src:
        return "no 6.1 tree extracted", NOT_HERE, ""
    mk = open(os.path.join(src, "arch", "arm64", "Makefile")).read()
    shifts = re.findall(r"KASAN_SHADOW_SCALE_SHIFT := (\d)", mk)
    sw, gen = 1 << int(shifts[0]), 1 << int(shifts[1])
    return ("6.1 arch/arm64/Makefile: KASAN_SHADOW_SCALE_SHIFT %s (sw-tags) and %s (generic): "
            "1/%d and 1/%d" % (shifts[0], shifts[1], sw, gen),
            "holds" if (sw, gen) == (16, 8) else "differs", "")


def _shadow(c: Dict[str, Any], modes: Tuple[Tuple[str, int], ...]) -> Row:
    t = stored_table("04")
    if not t:
        return "no stored lab 4 table", NOT_HERE, ""
    got = [(m, want, shadow_fraction(t, m)) for m, want in modes]
    if any(g is None for _, _, g in got):
        return "the stored table lacks a mode", NOT_HERE, ""
    ok = all(within(g, 1 / want, c.get("tolerance", 0.1)) for _, want, g in got)
    return ("; ".join("%s reserves %s of RAM beyond none's (image, depot apart)" % (m, frac(g))
                      for m, _, g in got),
            "holds" if ok else "differs", "lab 4's stored run, 512 MiB guest")


def m_shadow_reserved(c: Dict[str, Any]) -> Row:
    return _shadow(c, ((SW, 16), (GEN, 8)))


def m_shadow_reserved_generic(c: Dict[str, Any]) -> Row:
    return _shadow(c, ((GEN, 8),))


def m_shadow_reserved_swtags(c: Dict[str, Any]) -> Row:
    return _shadow(c, ((SW, 16),))


def pct(x: float) -> str:
    """An overhead as a signed percent: +347%, +162.5% (no rounding away of a half)."""
    p = 100 * x
    return ("%+.0f%%" if abs(p - round(p)) < 0.05 else "%+.1f%%") % p


def _slab(c: Dict[str, Any], claimed: Dict[str, float],
          how: Optional[Dict[str, str]] = None) -> Row:
    """Each mode's slab overhead over none's (slab / none's slab - 1, as a
    percent), against the claimed overhead in the same unit."""
    t = stored_table("04")
    mem = (t or {}).get("memory", {})
    if not all(m in mem and "slab" in mem[m] for m in list(claimed) + [NONE]):
        return "no stored lab 4 table", NOT_HERE, ""
    base = mem[NONE]["slab"]
    parts, ok = [], True
    for m, want in claimed.items():
        over = mem[m]["slab"] / base - 1
        parts.append("%s %s (%d kB against none's %d kB; claimed %s%s, %+.0f points)" % (
            m, pct(over), mem[m]["slab"], base, pct(want), (how or {}).get(m, ""),
            100 * (over - want)))
        ok = ok and abs(over - want) <= c.get("tolerance", 0.10)
    return "; ".join(parts), "holds" if ok else "differs", \
        "Slab: of /proc/meminfo after boot, lab 4's stored run (a tinyconfig kernel)"


def m_slab_overhead(c: Dict[str, Any]) -> Row:
    """The cover letter's own kB, read as overheads like the measured ones:
    105 against 40 kB is +162.5% (its "~260%" is 105/40, the ratio, which
    the performance page compares), 47 against 40 kB is +17.5% ("~20%")."""
    from bench.kasan_modes import COVER
    kb = COVER["slab_kb"]
    return _slab(c, {m: kb[m] / kb[NONE] - 1 for m in (GEN, SW)},
                 {m: ", the letter's %d kB against %d" % (kb[m], kb[NONE]) for m in (GEN, SW)})


def m_slab_generic(c: Dict[str, Any]) -> Row:
    return _slab(c, {GEN: 0.50})


def m_slab_swtags(c: Dict[str, Any]) -> Row:
    return _slab(c, {SW: 0.20})


def m_tag_collisions(c: Dict[str, Any]) -> Row:
    src, t = tree(), stored_table("04")
    if not src or not t:
        return "no 6.1 tree or stored lab 4 table", NOT_HERE, ""
    h = open(os.path.join(src, "include", "linux", "kasan-tags.h")).read()
    tag_max = int(re.search(r"#define KASAN_TAG_MAX\s+(0x[0-9A-Fa-f]+)", h).group(1), 16)
    col = t.get("collision", {})
    k0, n0 = col["0"]
    k1, n1 = col["1"]
    return ("6.1 draws %d tags (0x00..0x%02x): a 32-bit LCG's output taken modulo %d; a "
            "reused slot kept its tag %d/%d times with no allocation between (the parity "
            "of the LCG's state forbids it) and %d/%d with one (1/%.0f; the generator "
            "predicts 1/127)"
            % (tag_max + 1, tag_max, tag_max + 1, k0, n0, k1, n1, n1 / k1 if k1 else 0),
            "holds" if tag_max + 1 == 256 and within(k1 / n1, 1 / 256, 0.2) else "differs",
            "lab 4's stored run; the rate depends on the draws between, not 1/256")


def m_hwtags_tags(c: Dict[str, Any]) -> Row:
    t = stored_table("06")
    if not t or "tags" not in t:
        return "no stored lab 6 table", NOT_HERE, ""
    tags = sorted(set(t["tags"]))
    ok = tags == list(range(0xF0, 0xFE))
    return ("%d tags drawn: %02x..%02x" % (len(tags), tags[0], tags[-1]),
            "holds" if ok else "differs", "lab 6's stored run")


def m_hwtags_collisions(c: Dict[str, Any]) -> Row:
    t = stored_table("06")
    col = ((t or {}).get("collision") or {}).get(HW)
    if not col:
        return "no stored lab 6 table", NOT_HERE, ""
    want = {"0": 2 / 16, "1": 19 / 256}
    got = {g: col[g][0] / col[g][1] for g in want}
    ok = all(within(got[g], want[g], c.get("tolerance", 0.2)) for g in want)
    return ("%d/%d (%.4f, claimed %.4f) and %d/%d (%.4f, claimed %.4f)" % (
        col["0"][0], col["0"][1], got["0"], want["0"], col["1"][0], col["1"][1], got["1"],
        want["1"]), "holds" if ok else "differs", "lab 6's stored run, QEMU 10.0")


def m_hwtags_memory(c: Dict[str, Any]) -> Row:
    t = stored_table("06")
    g = shadow_fraction(t, HW) if t else None
    seen = ("the hwtags kernel reserves %s of RAM beyond none's (image, depot apart)" % frac(g)
            if g is not None else "no stored lab 6 table")
    return (seen, "cannot be measured under QEMU",
            "the 1/32 is MTE tag storage (4 bits per 16 bytes); QEMU keeps it in a memory "
            "region of its own, outside the guest's RAM (QEMU 10.0 hw/arm/virt.c: "
            "create_tag_ram(..., \"mach-virt.tag\")), so no guest figure shows it")


def m_text_size(c: Dict[str, Any]) -> Row:
    code = kernel_code()
    if any(v not in code or "text" not in code[v] for v in (NONE, GEN)):
        # both are the comparison: one without the other is not measured
        return "no none and generic kernels built here", NOT_HERE, \
            "make check's kernel-code check measures it"
    base = code[NONE]["text"]
    parts = ["%s %.1f MiB (x%.2f)" % (v, code[v]["text"] / 2 ** 20, code[v]["text"] / base)
             for v in CODE_VARIANTS if v in code and "text" in code[v]]
    ok = code[GEN]["text"] > 1.5 * base
    return (".text of vmlinux: " + ", ".join(parts), "holds" if ok else "differs",
            "inline generic KASAN is the bigger one; 6.1's \"inline\" swtags calls outlined "
            "checks (hwasan-inline-all-checks=0), so its .text grows less")


def brk_counts() -> Tuple[Dict[str, Dict[str, int]], str]:
    """The brk and check-call counts per variant, and where they come from:
    the kernels built here, else the bench run (bench/kasan_modes.py's
    check_counts(), on the -bench kernels); ({}, "") if neither has them."""
    code, where = kernel_code_from()
    if "brk_9xx" in code.get(SW, {}):
        return code, where
    res = bench() or {}
    if "brk_9xx" in res.get(SW, {}):
        return {v: {"brk_9xx": r["brk_9xx"], "check_calls": r.get("outlined_check_calls", 0)}
                for v, r in res.items() if "brk_9xx" in r}, bench_from()
    return {}, ""


def m_brk_sites(c: Dict[str, Any]) -> Row:
    code, _ = brk_counts()
    sw = code.get(SW, {})
    if "brk_9xx" not in sw:
        return ("no swtags kernel built here and no bench run", NOT_HERE,
                "make check's kernel-code check counts them")
    txt = "swtags vmlinux: %d brk #0x9xx, %d calls to __hwasan_check_*" % (
        sw["brk_9xx"], sw.get("check_calls", 0))
    brk = code.get(SW + "-brk", {})
    if "brk_9xx" in brk:
        txt += "; swtags-brk vmlinux: %d brk #0x9xx" % brk["brk_9xx"]
    return (txt, "holds" if sw["brk_9xx"] == 0 and sw.get("check_calls", 0) > 0 else "differs",
            "llvm-objdump -d of the vmlinux, not only the lab module (lab 2 counts the module)")


def _bench(key: str, label: str, modes: Tuple[str, ...], base: str = NONE) -> Row:
    res = bench()
    why = ("TCG translates every guest instruction into host code, so an instrumented load "
           "or store costs far more than on hardware: time ratios are not hardware ratios")
    if not res or base not in res:
        return "measured by make bench (not run on this machine)", TCG, why
    b = res[base].get(key)
    parts = ["%s x%.2f" % (m, res[m][key] / b) for m in modes
             if b and res.get(m, {}).get(key)]
    return ("make bench, %s against %s: %s" % (label, base, ", ".join(parts) or "--"), TCG, why)


def m_bench_boot(c: Dict[str, Any]) -> Row:
    return _bench("boot_s", "boot time", (GEN, SW, SW + "-brk"))


def m_bench_tcp(c: Dict[str, Any]) -> Row:
    return _bench("tcp_mbit", "TCP throughput", (GEN, SW, SW + "-brk"))


def m_bench_slowdown_generic(c: Dict[str, Any]) -> Row:
    return _bench("insn_per_tcp_mb", "guest instructions per TCP MiB", (GEN,))


def m_bench_inline(c: Dict[str, Any]) -> Row:
    return _bench("ns_per_pair", "kmalloc+kfree time", (SW, SW + "-brk"),
                  base=SW + "-outline")


MEASURES: Dict[str, Callable[[Dict[str, Any]], Row]] = {
    name[2:]: fn for name, fn in globals().items() if name.startswith("m_") and callable(fn)}

# What each measure reads (its m_ function above): the inputs origin() names.
LAB_RUN = "this checkout's stored run of lab %d (%s, make fixtures N=%d)"
INPUTS = {"shadow_scale": ("tree",), "tag_collisions": ("tree", "04"),
          "hwtags_tags": ("06",), "hwtags_collisions": ("06",), "hwtags_memory": ("06",),
          "text_size": ("kernels",), "brk_sites": ("brk",)}


def inputs(measure: str) -> Tuple[str, ...]:
    if measure in INPUTS:
        return INPUTS[measure]
    return ("bench",) if measure.startswith("bench_") else ("04",)


def origin(c: Dict[str, Any], verdict: str) -> str:
    """Where a row's figures come from, in words: a stored run of this
    checkout, the 6.1 tree installed here, kernels built on this machine, or
    a bench run (this machine's, or bench/stored/'s with its host); "not
    measured" when the row has none."""
    if verdict == NOT_HERE:
        return "not measured: its input is missing here"
    out = []
    for i in inputs(c["measure"]):
        if i == "tree":
            out.append("the 6.1 tree installed here")
        elif i in ("04", "06"):
            import glob
            for path in glob.glob(os.path.join(REPO, "labs", i + "-*", "runs", "table.json.xz")):
                out.append(LAB_RUN % (int(i), os.path.relpath(path, REPO), int(i)))
        elif i == "kernels":
            out.append(kernel_code_from()[1])
        elif i == "brk":
            out.append(brk_counts()[1])
        else:
            out.append(bench_from() or "not measured: no make bench run here and none kept")
    return "; ".join(out) or "not measured"


def evaluate(claims: Optional[List[Dict[str, Any]]] = None) -> List[Dict[str, Any]]:
    """Each claim with its measured text, verdict and note."""
    out = []
    for c in claims if claims is not None else load_claims():
        measured, verdict, note = MEASURES[c["measure"]](c)
        out.append(dict(c, measured=measured, verdict=verdict, note=note,
                        origin=origin(c, verdict)))
    return out


def table_rst(rows: List[Dict[str, Any]]) -> str:
    def cell(s: str) -> str:
        return " ".join(str(s).split()).replace("*", "\\*").replace("|", "\\|")
    out = [".. list-table::\n   :header-rows: 1\n   :widths: 15 25 30 16 14\n"
           "   :class: kt-claims\n\n",
           "   * - source\n     - claim\n     - measured here\n     - figures from\n"
           "     - verdict\n"]
    for r in rows:
        out.append("   * - %s\n     - %s\n     - %s%s\n     - %s\n     - **%s**\n" % (
            cell(r["source"]), cell(r["claim"]), cell(r["measured"]),
            " (%s)" % cell(r["note"]) if r["note"] else "", cell(r.get("origin", "")),
            cell(r["verdict"])))
    return "".join(out) + "\n"


def write_pages() -> List[Dict[str, Any]]:
    from Documentation.tools.sitelib import write
    rows = evaluate()
    write("claims-table.rst", table_rst(rows))
    return rows
