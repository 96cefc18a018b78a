# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Runs kept by their inputs: a deterministic boot (vm/qemu.py: ICOUNT, the
seed) is a function of the QEMU it runs on, its kernel, initramfs, command
line and seed -- and, under gdb, of the gdb command file and everything
gdb loads -- so its output can be kept and read again instead of booting
again when none of them changed.

Opt-in: KASAN_TAGS_RUNCACHE=1.  `make check` sets it for the graders, the
handout's own check and the page commands; the checks of determinism
itself (the same boot twice, make run with two seeds, a published
transcript run again, the recording) and every interactive session always
boot.  A timeout is never kept.

    CACHE/runs/<key>.serial   the raw serial bytes
    CACHE/runs/<key>.json     how the run ended (and a gdb run's transcript)

`make grade-class` turns it on (a class shares the runs of the same
inputs: its demonstrations, and the steps that run at the class's seed,
labs/seeds.py); KASAN_TAGS_RUNCACHE=0 turns it off there too.
"""

import json
import os
import re
import shutil
from typing import Any, Dict, List, Optional, Sequence, Tuple

from vm import cache
from vm.base import REPO, sha256_file, sha256_text

PORT = re.compile(r"tcp:127\.0\.0\.1:\d+")
# What gdb loads besides the command file: the project's gdb commands (all
# of gdb-scripts/) and, of labs/, the gdb files it may source (.gdb) --
# not the graders' Python (labs/*.py, a lab's check.py: gdb runs none of
# it; tests/test_runcache.py holds every gdb file of labs/ to that), a
# page, a stored run or a test, whose edits would otherwise turn every
# kept gdb run stale, and not a student's file (labs/*/student/): gdb
# reads one only in vm/student_gdb.py's session, whose key names each file
# it sources by content.  So a grader's own gdb step keeps one key in
# every student's tree, and a class shares its run.
GDB_INPUTS: Tuple[Tuple[str, Optional[Tuple[str, ...]]], ...] = (
    ("gdb-scripts", None), ("labs", (".gdb",)))
_sha: Dict[Tuple[str, int, int], str] = {}


def enabled() -> bool:
    return os.environ.get("KASAN_TAGS_RUNCACHE") == "1"


def file_sha(path: str) -> str:
    st = os.stat(path)
    k = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if k not in _sha:
        _sha[k] = sha256_file(path)
    return _sha[k]


def tree_sha(top: str, suffixes: Optional[Tuple[str, ...]] = None) -> str:
    """One hash of every file below `top` (names and contents); with
    SUFFIXES, of the files with those endings only (tests, runs/ and
    student/ apart)."""
    parts = []
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", ".git")
                         and not (suffixes and d in ("runs", "student")))
        for f in sorted(files):
            if suffixes and (not f.endswith(suffixes) or f.startswith("test_")):
                continue
            path = os.path.join(root, f)
            parts.append("%s %s" % (os.path.relpath(path, top), file_sha(path)))
    return sha256_text(*parts)


def key(argv: Sequence[str], extra: Sequence[str] = ()) -> str:
    """The inputs of a run: QEMU's argv with each file named by its content
    (the gdb port left out), QEMU's own binary, and `extra`."""
    parts: List[str] = []
    for a in argv:
        parts.append("file " + file_sha(a) if os.path.isfile(a) else PORT.sub("tcp:PORT", a))
    exe = shutil.which(argv[0]) or argv[0]
    parts.append("binary " + (file_sha(exe) if os.path.isfile(exe) else exe))
    return sha256_text(*parts, *extra)[:24]


def gdb_extra(gdb_file: str, vmlinux: str) -> List[str]:
    """What a gdb run depends on besides QEMU's: its command file, gdb, the
    vmlinux it reads (its debug info is not in the Image), and the files
    gdb may load from this checkout."""
    exe = shutil.which("gdb-multiarch") or "gdb-multiarch"
    return ["gdb " + file_sha(exe), "file " + file_sha(gdb_file),
            "vmlinux " + file_sha(vmlinux)] + \
        ["tree %s %s" % (d, tree_sha(os.path.join(REPO, d), sfx)) for d, sfx in GDB_INPUTS]


def runs_dir() -> str:
    """CACHE/runs, or KASAN_TAGS_RUNS (make bench-class keeps its own, so
    that it reads only the runs it made)."""
    return os.environ.get("KASAN_TAGS_RUNS") or os.path.join(cache.cache_root(), "runs")


def path(k: str, ext: str) -> str:
    return os.path.join(runs_dir(), k + ext)


def get(k: str) -> Optional[Tuple[bytes, Dict[str, Any]]]:
    try:
        with open(path(k, ".json")) as f:
            meta: Dict[str, Any] = json.load(f)
        with open(path(k, ".serial"), "rb") as f:
            return f.read(), meta
    except (OSError, ValueError):
        return None


def put(k: str, raw: bytes, meta: Dict[str, Any]) -> None:
    """Keep a run; each file is replaced whole, through a temporary file of
    this process's own (two jobs of make check may keep the same run)."""
    os.makedirs(os.path.dirname(path(k, "")), exist_ok=True)
    tmp = ".%d.tmp" % os.getpid()
    with open(path(k, ".serial" + tmp), "wb") as f:
        f.write(raw)
    os.replace(path(k, ".serial" + tmp), path(k, ".serial"))
    with open(path(k, ".json" + tmp), "w") as f:
        json.dump(meta, f)
    os.replace(path(k, ".json" + tmp), path(k, ".json"))
