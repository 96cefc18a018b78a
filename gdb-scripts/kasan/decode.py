# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""kasan-decode: decode every KASAN report in a kernel log.

    kasan-decode [--json] [--title=project|syzkaller] [--vmlinux FILE]
                 [--modules DIR] [LOGFILE|-]

Reads a serial console log, dmesg (plain, -T, -x, --time-format=iso,
--color), journalctl -k or raw /dev/kmsg records, from arm64 or x86
kernels, in any mix; junk bytes around and inside lines are skipped.  The
log is read and decoded report by report, so its size does not matter.
Interleaved reports are separated by printk caller id ([T123], [C1]); where
there are no ids, a report whose lines were mixed is flagged "interleaved".

--json prints one JSON object per report, with these keys:
{keys}

--title=syzkaller titles reports as syzbot does (for matching a report
against syzbot's): "KASAN: TYPE Read|Write in FUNC", frees as
"KASAN: invalid-free in FUNC", FUNC being the first frame that is not
KASAN, the allocator or a mem*/str* helper, without .isra/.constprop.

--vmlinux adds file:line to each frame, with one llvm-symbolizer (or
addr2line) for the whole log, as the tree's scripts/decode_stacktrace.sh
prints them: the address as printed, then the inline chain, innermost
first ("mm/kasan/report.c:317 mm/kasan/report.c:420").  --modules DIR
(default: the directory of vmlinux; of a kasan-tags kernel, this
checkout's module dir in it) is searched for NAME.ko to symbolize
"[NAME]" frames; a module's files are named relative to its directory.

Exit status:
  0  every report decoded
  1  no KASAN report in the input
  2  bad usage: unreadable log, bad --vmlinux (not ELF, empty, stripped,
     no DWARF) or --modules
  3  some report is truncated, interleaved or has an unreadable field
     (it is still printed, with what could be read)
  4  internal error of kasan-decode (a bug: please report it)
"""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
from typing import Dict, Iterator, List, Optional, Tuple

from kasan import report


class DecodeError(Exception):
    """Bad input the user must fix: one line, exit 2."""


# ------------------------------------------------------------------ ELF

def elf_sections(path: str) -> List[str]:
    """The section names of an ELF file; DecodeError if it is not one."""
    try:
        with open(path, "rb") as f:
            ident = f.read(64)
            if not ident:
                raise DecodeError("%s is empty" % path)
            if ident[:4] != b"\x7fELF" or len(ident) < 52:
                raise DecodeError("%s is not an ELF file" % path)
            is64, end = ident[4] == 2, "<" if ident[5] == 1 else ">"
            if is64:
                shoff, = struct.unpack_from(end + "Q", ident, 0x28)
                shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", ident, 0x3A)
            else:
                shoff, = struct.unpack_from(end + "I", ident, 0x20)
                shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", ident, 0x2E)
            if not shoff or not shnum or shstrndx >= shnum:
                raise DecodeError("%s has no section headers" % path)
            f.seek(shoff)
            table = f.read(shentsize * shnum)
            if len(table) < shentsize * shnum:
                raise DecodeError("%s is truncated (section headers missing)" % path)

            def header(i: int) -> Tuple[int, int, int]:
                if is64:
                    name, _, _, _, off, size = struct.unpack_from(end + "IIQQQQ", table,
                                                                  i * shentsize)
                else:
                    name, _, _, _, off, size = struct.unpack_from(end + "IIIIII", table,
                                                                  i * shentsize)
                return name, off, size
            _, stroff, strsize = header(shstrndx)
            f.seek(stroff)
            strtab = f.read(strsize)
    except OSError as e:
        raise DecodeError("cannot read %s: %s" % (path, e.strerror))
    names = []
    for i in range(shnum):
        n = header(i)[0]
        names.append(strtab[n:strtab.find(b"\0", n)].decode("ascii", "replace"))
    return names


def check_object(path: str) -> None:
    """Refuse, in one line, an object that cannot symbolize anything."""
    if not os.path.isfile(path):
        raise DecodeError("no such file: %s" % path)
    names = elf_sections(path)
    if ".symtab" not in names:
        raise DecodeError("%s is stripped (no .symtab): nothing to symbolize with" % path)
    if ".debug_info" not in names:
        raise DecodeError("%s has no DWARF (.debug_info): build with CONFIG_DEBUG_INFO" % path)


# ------------------------------------------------------------ symbolizer

FRAME = re.compile(r"^(?P<sym>[\w.$]+)\+0x(?P<off>[0-9a-f]+)/0x(?P<size>[0-9a-f]+)"
                   r"(?: \[(?P<mod>[\w-]+)\])?$")


def relative(loc: str) -> str:
    """file:line relative to the tree, as scripts/decode_stacktrace.sh prints."""
    loc = re.sub(r"^.*?/linux-source-[0-9.]+/", "", loc)
    return re.sub(r"^(.*:\d+):\d+$", r"\1", loc)


def chain(block: List[str], obj: str) -> Optional[str]:
    """A symbolizer's answer for one address -- (function, file:line) pairs,
    innermost inlined function first -- as decode_stacktrace.sh prints it:
    the file:line of each, space-separated; None if it knows nothing.  A
    module's own files are named relative to its directory."""
    base = os.path.dirname(os.path.abspath(obj)) + "/"
    locs = [relative(loc[len(base):] if loc.startswith(base) else loc)
            for loc in block[1::2] if not loc.startswith("??")]
    return " ".join(locs) or None


def default_modules(vmlinux: str) -> str:
    """Where NAME.ko files are when --modules is not given: vmlinux's
    directory; in a kasan-tags build dir (kt-variant.json), which every tree
    sharing the cache fills with a module dir of its own (kt-HASH), this
    checkout's one.  A walk of the whole directory took whichever tree's
    kasan_lab.ko came first, one that another checkout could be rebuilding
    at that moment: lab 3's decode then printed a frame without its line."""
    d = os.path.dirname(vmlinux) or "."
    if not os.path.exists(os.path.join(d, "kt-variant.json")):
        return d
    try:   # the checkout's vm (the launcher puts the checkout on the path)
        from vm.kbuild import module_dir
    except ImportError:
        return d
    return module_dir(d)


class Symbolizer:
    """One symbolizer process for a whole log, and one symbol table per
    object, read once: "sym+off/size [mod]" frames become "... file:line"."""

    def __init__(self, vmlinux: str, modules: Optional[str] = None, check: bool = True) -> None:
        if check:
            check_object(vmlinux)
        self.vmlinux = vmlinux
        self.modules = modules if modules is not None else default_modules(vmlinux)
        if check and not os.path.isdir(self.modules):
            raise DecodeError("no such directory: %s (--modules)" % self.modules)
        self.nm = shutil.which("llvm-nm") or shutil.which("nm")
        self.tool = shutil.which("llvm-symbolizer") or shutil.which("addr2line")
        self.symbols: Dict[str, Dict[str, List[Tuple[int, int]]]] = {}
        self.objects: Dict[str, Optional[str]] = {}
        self.cache: Dict[Tuple[str, int], Optional[str]] = {}
        # the functions at an address, innermost (inlined) first (llvm-symbolizer)
        self.names: Dict[Tuple[str, int], List[str]] = {}
        self.proc: Optional[subprocess.Popen] = None
        self.nm_runs = 0

    def _table(self, obj: str) -> Dict[str, List[Tuple[int, int]]]:
        if obj not in self.symbols:
            table: Dict[str, List[Tuple[int, int]]] = {}
            if self.nm:
                self.nm_runs += 1
                try:
                    out = subprocess.run([self.nm, "-S", "--defined-only", obj],
                                         capture_output=True, text=True, timeout=120).stdout
                except (OSError, subprocess.TimeoutExpired):
                    out = ""
                for line in out.splitlines():
                    parts = line.split()
                    try:
                        if len(parts) == 4:
                            table.setdefault(parts[3], []).append(
                                (int(parts[0], 16), int(parts[1], 16)))
                        elif len(parts) == 3:
                            table.setdefault(parts[2], []).append((int(parts[0], 16), 0))
                    except ValueError:
                        continue
            self.symbols[obj] = table
        return self.symbols[obj]

    def _object(self, mod: Optional[str]) -> Optional[str]:
        if mod is None:
            return self.vmlinux
        if mod not in self.objects:
            found = None
            for d, _, files in os.walk(self.modules):
                for name in (mod + ".ko", mod.replace("-", "_") + ".ko"):
                    if name in files:
                        found = os.path.join(d, name)
                        break
                if found:
                    break
            self.objects[mod] = found
        return self.objects[mod]

    def _address(self, frame: str) -> Optional[Tuple[str, int]]:
        m = FRAME.match(frame)
        if not m:
            return None
        obj = self._object(m.group("mod"))
        if obj is None:
            return None
        cands = self._table(obj).get(m.group("sym"))
        if not cands:
            return None
        size = int(m.group("size"), 16)
        start = next((a for a, s in cands if s == size), cands[0][0])
        # The address as printed, as scripts/decode_stacktrace.sh asks for it.
        return obj, start + int(m.group("off"), 16)

    def _ask_llvm(self, queries: List[Tuple[str, int]]) -> List[Optional[str]]:
        if self.proc is None:
            self.proc = subprocess.Popen([self.tool, "--inlining"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         text=True, bufsize=1)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        for obj, addr in queries:
            self.proc.stdin.write('"%s" 0x%x\n' % (obj, addr))
        self.proc.stdin.flush()
        out: List[Optional[str]] = []
        for obj, addr in queries:
            block = []
            while True:
                line = self.proc.stdout.readline()
                if not line or not line.strip():
                    break
                block.append(line.strip())
            out.append(chain(block, obj))
            self.names[(obj, addr)] = [b for b in block[0::2] if b != "??"]
        return out

    def functions(self, frame: str) -> List[str]:
        """The functions at a frame's address, innermost (inlined) first, as
        llvm-symbolizer named them when frames() asked; [] if unknown."""
        q = self._address(frame)
        return self.names.get(q, []) if q else []

    def _ask_addr2line(self, queries: List[Tuple[str, int]]) -> List[Optional[str]]:
        out: List[Optional[str]] = [None] * len(queries)
        by_obj: Dict[str, List[int]] = {}
        for i, (obj, _) in enumerate(queries):
            by_obj.setdefault(obj, []).append(i)
        for obj, idx in by_obj.items():
            addrs = ["0x%x" % queries[i][1] for i in idx]
            res = subprocess.run([self.tool, "-a", "-f", "-i", "-e", obj] + addrs,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True, timeout=300).stdout
            # -a starts each address's answer with the address itself, so a
            # missing answer can never shift the next one onto this frame
            blocks = re.split(r"^0x[0-9a-f]+\n", res, flags=re.M)[1:]
            for i, b in zip(idx, blocks):
                out[i] = chain(b.splitlines(), obj)
        return out

    def frames(self, frames: List[str]) -> List[str]:
        """The frames, each with its file:line where it can be found."""
        if not self.tool:
            return frames
        want = []
        for i, f in enumerate(frames):
            q = self._address(f)
            if q is not None and q not in self.cache:
                want.append(q)
        if want:
            want = list(dict.fromkeys(want))
            try:
                ask = self._ask_llvm if "symbolizer" in os.path.basename(self.tool) \
                    else self._ask_addr2line
                for q, loc in zip(want, ask(want)):
                    self.cache[q] = loc
            except (OSError, subprocess.SubprocessError, BrokenPipeError):
                self.tool = None
                return frames
        res = []
        for f in frames:
            q = self._address(f)
            loc = self.cache.get(q) if q else None
            res.append("%s %s" % (f, loc) if loc else f)
        return res

    def close(self) -> None:
        if self.proc is not None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self.proc = None


def symbolize(frames: List[str], vmlinux: str) -> List[str]:
    """file:line for one list of frames (a Symbolizer for one use)."""
    s = Symbolizer(vmlinux, check=False)
    try:
        return s.frames(frames) if s.nm else frames
    finally:
        s.close()


# ------------------------------------------------------------------ CLI

def lines_of(f) -> Iterator[str]:
    for raw in f:
        yield raw.decode("utf-8", errors="replace")


CHUNK = 8 << 20                 # bytes a worker decodes at once
BOOT_BYTES = re.compile(rb"KernelAddressSanitizer initialized \(([\w-]+)")


def chunks(path: str, size: int = CHUNK) -> Iterator[Tuple[str, int, int, int, Optional[str]]]:
    """(path, start, end, lines before start, boot mode before start) of
    each chunk of the file, cut at line starts: one quick pass in bytes."""
    start = line0 = 0
    boot: Optional[str] = None
    with open(path, "rb") as f:
        while True:
            data = f.read(size)
            if not data:
                break
            data += f.readline()
            yield path, start, start + len(data), line0, boot
            start += len(data)
            line0 += data.count(b"\n")
            hits = BOOT_BYTES.findall(data.replace(b"\x00", b"") if b"\x00" in data else data)
            if hits:
                m = hits[-1].decode()
                boot = report.MODES.get(m, m)


_worker: Dict[str, object] = {}     # a pool worker's options and symbolizer


def _init_worker(a: argparse.Namespace) -> None:
    _worker["a"] = a
    _worker["sym"] = Symbolizer(a.vmlinux, a.modules, check=False) if a.vmlinux else None


def _chunk(args: Tuple[str, int, int, int, Optional[str]]) -> Tuple[str, int, int]:
    """A worker: one chunk's reports, rendered; (text, reports, bad ones)."""
    a, sym = _worker["a"], _worker["sym"]
    reps = sorted(report.chunk_reports(*args), key=lambda r: r["line"])
    out = [render(r, a, sym) for r in reps]   # type: ignore[arg-type]
    return "".join(t for t, _ in out), len(out), sum(b for _, b in out)


def parallel(a: argparse.Namespace, jobs: int, size: int = CHUNK) -> Tuple[int, int]:
    """Decode a file with `jobs` processes, chunk by chunk, printing in the
    order of the BUG lines; memory stays a few chunks' worth."""
    import multiprocessing
    n = bad = 0
    with multiprocessing.get_context("fork").Pool(jobs, _init_worker, (a,)) as pool:
        for text, k, b in pool.imap(_chunk, chunks(a.log, size)):
            sys.stdout.write(text)
            n, bad = n + k, bad + b
    return n, bad


def render(r: report.Report, a: argparse.Namespace, sym: Optional["Symbolizer"]) -> Tuple[str, bool]:
    """One report as printed (JSON line or summary), and whether it is bad."""
    if sym:
        for k in ("alloc_stack", "free_stack", "call_trace"):
            r[k] = sym.frames(r[k])
    if a.title == "syzkaller":
        r["title"] = report.syzkaller_title(r)
    text = json.dumps(r, sort_keys=True) + "\n" if a.json else report.summary(r) + "\n\n"
    return text, bool(r["truncated"] or r["interleaved"] or r["problems"])


def help_text() -> str:
    keys = "\n".join("  %-13s %s" % (k, v) for k, v in report.KEYS.items())
    return __doc__.format(keys=keys)


def run(a) -> int:
    sym = Symbolizer(a.vmlinux, a.modules) if a.vmlinux else None
    if a.modules and not a.vmlinux:
        raise DecodeError("--modules needs --vmlinux")
    try:
        f = sys.stdin.buffer if a.log == "-" else open(a.log, "rb")
    except OSError as e:
        raise DecodeError("cannot read %s: %s" % (a.log, e.strerror))
    n = bad = 0
    jobs = min(os.cpu_count() or 1, 8)
    try:
        with f:
            if a.log != "-" and jobs > 1 and os.path.getsize(a.log) > 2 * CHUNK:
                n, bad = parallel(a, jobs)
            else:
                for r in report.iter_reports(lines_of(f)):
                    text, b = render(r, a, sym)
                    sys.stdout.write(text)
                    n, bad = n + 1, bad + b
    except BrokenPipeError:
        raise
    except OSError as e:
        raise DecodeError("cannot read %s: %s" % (a.log, e.strerror))
    finally:
        if sym:
            sym.close()
    if not n:
        print("kasan-decode: no KASAN report in the input", file=sys.stderr)
        return 1
    if bad:
        print("kasan-decode: %d of %d report(s) truncated, interleaved or with an "
              "unreadable field" % (bad, n), file=sys.stderr)
        return 3
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="kasan-decode", description=help_text(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 usage=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help="one JSON object per report")
    ap.add_argument("--title", choices=("project", "syzkaller"), default="project",
                    help="the title convention (default: project)")
    ap.add_argument("--vmlinux", help="symbolize frames to file:line")
    ap.add_argument("--modules", help="where NAME.ko files are (default: vmlinux's directory)")
    ap.add_argument("log", nargs="?", default="-")
    a = ap.parse_args(argv)
    try:
        return run(a)
    except DecodeError as e:
        print("kasan-decode: %s" % e, file=sys.stderr)
        return 2
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as e:  # an internal error is not "no report"
        print("kasan-decode: internal error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 4


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
