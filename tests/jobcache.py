# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check's jobs kept by their inputs, as vm/runcache.py keeps runs.

A job of tests/check.py that passed is kept, its output and the commands
it ran (checklib.COMMANDS), under a key of everything it could read:

    the job's name
    every file of the checkout (classroom/handout.py tree_files: committed
      or not, not ignored), by its path and its bytes
    every kernel the checks boot, by its build directory (vm/kbuild.py:
      the key of its tree version, config and patches) and whether it is built
    Debian's installed packages and their versions (dpkg-query), this
      machine's kernel release and the user
    the environment that steers a run (KASAN_TAGS_*, JOBS, SEED, PATH,
      HOME, LANG)

The same key is the same job on the same inputs: `make check` shows what it
printed then, marked as kept, instead of running it again.  One changed
byte anywhere is a new key for every job, so a kept result can never hide
a change.  A job that failed is never kept.  FRESH=1 runs every job
(and keeps what passes).  CACHE/checks/ holds the results.
"""

import hashlib
import json
import os
import platform
import subprocess
import time
from typing import Dict, Iterable, List, Optional

from vm import cache

# The environment that can change what a job does
ENV_PREFIXES = ("KASAN_TAGS_",)
ENV_NAMES = ("JOBS", "SEED", "PATH", "HOME", "LANG")


def enabled() -> bool:
    return os.environ.get("FRESH", "") in ("", "0")


def folder() -> str:
    return os.path.join(cache.cache_root(), "checks")


def environment(env: Dict[str, str]) -> List[str]:
    return sorted("%s=%s" % (k, v) for k, v in env.items()
                  if k in ENV_NAMES or k.startswith(ENV_PREFIXES))


def packages() -> str:
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Package}=${Version}\\n"],
                       capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else "no dpkg"


def inputs(repo: str, files: Iterable[str], kernels: Iterable[str],
           env: Dict[str, str]) -> str:
    """The digest of what every job of this run could read (without its name)."""
    h = hashlib.sha256()
    for rel in sorted(files):
        with open(os.path.join(repo, rel), "rb") as f:
            h.update(b"file %d %s\n" % (len(rel), rel.encode()))
            h.update(hashlib.sha256(f.read()).digest())
    for bdir in sorted(kernels):
        built = os.path.exists(os.path.join(bdir, "vmlinux"))
        h.update(("kernel %s %s\n" % (bdir, built)).encode())
    h.update(packages().encode())
    h.update(("host %s uid %d\n" % (platform.release(), os.geteuid())).encode())
    h.update("\n".join(environment(env)).encode())
    return h.hexdigest()


def path(digest: str, name: str) -> str:
    return os.path.join(folder(), "%s-%s.json" % (name, digest[:24]))


def load(digest: str, name: str) -> Optional[Dict[str, object]]:
    """The kept result of job `name` on these inputs, or None."""
    try:
        with open(path(digest, name)) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) and d.get("digest") == digest else None


def store(digest: str, name: str, out: str, commands: Dict[str, object],
          seconds: float) -> None:
    os.makedirs(folder(), exist_ok=True)
    tmp = path(digest, name) + ".%d.tmp" % os.getpid()
    with open(tmp, "w") as f:
        json.dump({"digest": digest, "name": name, "out": out, "commands": commands,
                   "seconds": seconds, "when": time.strftime("%Y-%m-%d %H:%M")}, f)
    os.replace(tmp, path(digest, name))


def replayable(hits: Iterable[str], names: Iterable[str],
               after: Dict[str, List[str]]) -> List[str]:
    """The jobs whose kept results can stand: a hit, and so is every job it
    reads from and every job that reads from it (those read each other's
    files in build/, which a job shown from the cache does not write)."""
    keep = set(hits)
    changed = True
    while changed:
        changed = False
        for n in sorted(keep):
            readers = [m for m in names if n in after.get(m, ())]
            if any(d not in keep for d in after.get(n, ())) or \
                    any(m not in keep for m in readers):
                keep.discard(n)
                changed = True
    return sorted(keep)
