# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Record and replay: a deterministic run kept as QEMU's record/replay log,
replayed halted under a gdb stub so that gdb can run it backwards
(`reverse-continue`, `reverse-stepi`, reverse watchpoints; `make record`,
`make replay`, lab 7, gdb's kasan-history).

    CACHE/recordings/<variant>-<key>/   rec.bin (QEMU's log), snap.qcow2 (its
                                        snapshot "init"), initramfs.cpio,
                                        serial.log, kt-recording.json (last)

The key hashes what the run is a function of: the kernel's build dir (its
own key), the initramfs, the command line, the seed and the machine.  A
replay is refused, in one line naming the difference, when no recording
matches what the replay would run.
"""

import json
import os
import shutil
import subprocess
import time
from typing import Any, Dict, List, Tuple

from vm import cache
from vm.base import KtError, Lock, sha256_file, sha256_text
from vm.initramfs import build_initramfs, build_name, optional_modules
from vm.kbuild import build_kernel
from vm.qemu import BASE_CMDLINE, Boot, boot, full_cmdline, machine, run_seed

META = "kt-recording.json"
PARTS = ("kernel", "initramfs", "cmdline", "seed", "machine")


def root() -> str:
    return os.path.join(cache.cache_root(), "recordings")


def inputs(bdir: str, initrd: str, cmdline: str) -> Dict[str, Any]:
    """What a run is a function of, by name (PARTS)."""
    return {"kernel": build_name(bdir),
            "initramfs": sha256_file(initrd), "cmdline": full_cmdline(cmdline),
            "seed": run_seed(), "machine": machine(bdir).name}


def directory(variant: str, parts: Dict[str, Any]) -> str:
    key = sha256_text(*[str(parts[k]) for k in PARTS])[:16]
    return os.path.join(root(), "%s-%s" % (variant, key))


def record(variant: str, cmdline: str, timeout: float = 300, echo: bool = False) -> Tuple[str, Boot]:
    """Record one run of `variant` with `cmdline` (and this run's seed)."""
    cache.preflight(["qemu-img"], need_tarball=False)
    bdir = build_kernel(variant)
    initrd = build_initramfs(bdir, optional=optional_modules(cmdline))
    parts = inputs(bdir, initrd, cmdline)
    rdir = directory(variant, parts)
    with Lock(rdir + ".lock", "recording %s" % variant):
        shutil.rmtree(rdir, ignore_errors=True)
        os.makedirs(rdir)
        p = subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2",
                            os.path.join(rdir, "snap.qcow2"), "1G"],
                           capture_output=True, text=True)
        if p.returncode:
            raise KtError("qemu-img create failed: %s" % p.stderr.strip())
        shutil.copy(initrd, os.path.join(rdir, "initramfs.cpio"))
        b = boot(bdir, cmdline, timeout, os.path.join(rdir, "serial.log"), echo=echo,
                 initrd=os.path.join(rdir, "initramfs.cpio"), rr=("record", rdir))
        if not b.ok:
            raise KtError("the recorded run ended %s, not at its end marker; its serial log: "
                          "%s" % (b.status, b.log_path))
        meta = dict(parts, variant=variant, recorded=time.strftime("%Y-%m-%d %H:%M:%S"),
                    seconds=round(b.seconds, 1),
                    log_mib=round(os.path.getsize(os.path.join(rdir, "rec.bin")) / 2**20, 1))
        with open(os.path.join(rdir, META + ".tmp"), "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(os.path.join(rdir, META + ".tmp"), os.path.join(rdir, META))
    return rdir, b


def recordings(variant: str) -> List[Dict[str, Any]]:
    """The complete recordings of `variant` in the cache, newest first."""
    out = []
    if os.path.isdir(root()):
        for d in os.listdir(root()):
            path = os.path.join(root(), d, META)
            if d.startswith(variant + "-") and os.path.exists(path):
                try:
                    with open(path) as f:
                        meta = json.load(f)
                except (OSError, ValueError):
                    continue
                if meta.get("variant") == variant:
                    out.append(dict(meta, dir=os.path.dirname(path)))
    return sorted(out, key=lambda m: m.get("recorded", ""), reverse=True)


def difference(want: Dict[str, Any], have: Dict[str, Any]) -> str:
    """The first input a recording differs in, in words."""
    for k in PARTS:
        if want[k] != have.get(k):
            if k in ("kernel", "initramfs"):
                return "it was made with another %s (rebuilt since)" % k
            if k == "cmdline":
                return "it ran `%s`, not `%s`" % (shown(have.get(k, "")), shown(want[k]))
            name = "SEED=" if k == "seed" else k + " "
            return "it has %s%s, not %s" % (name, have.get(k), want[k])
    return "it is incomplete"


def find(variant: str, cmdline: str, how: str = "") -> Tuple[str, str, str]:
    """(recording dir, kernel build dir, initramfs) of the recording that
    matches what a replay of `variant` with `cmdline` and this seed runs,
    or a one-line error that says what to record (`make record HOW`)."""
    bdir = build_kernel(variant)
    parts = inputs(bdir, build_initramfs(bdir, optional=optional_modules(cmdline)), cmdline)
    rdir = directory(variant, parts)
    if os.path.exists(os.path.join(rdir, META)):
        return rdir, bdir, os.path.join(rdir, "initramfs.cpio")
    have = recordings(variant)
    hint = "record it with `make record%s`" % (" " + how if how else "")
    if not have:
        raise KtError("no recording of %s in %s; %s" % (variant, root(), hint))
    raise KtError("no recording of this run of %s: the newest (%s) does not match, %s; %s"
                  % (variant, have[0].get("recorded"), difference(parts, have[0]), hint))


def shown(cmdline: str) -> str:
    """A command line without the part every boot has (qemu.BASE_CMDLINE)."""
    return cmdline[len(BASE_CMDLINE):].strip() if cmdline.startswith(BASE_CMDLINE) else cmdline


def describe(rdir: str) -> str:
    """One line about a recording: what ran, its seed, when, its size."""
    with open(os.path.join(rdir, META)) as f:
        m = json.load(f)
    return "%s with `%s`, SEED=%s, recorded %s (%s MiB log)" % (
        m["variant"], shown(m["cmdline"]), m["seed"],
        m["recorded"], m.get("log_mib"))
