# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: two trees that share one cache, graded at the same time.

A teacher grades in one checkout while a student works in another, or two
clones of a CI runner share the cache.  Lab 3 builds the lab module and
decodes its reports with the module's debug info (kasan-decode): were the
module built at one path for every tree, one tree's rebuild would replace
the .ko the other is decoding with (a `lab_uaf+0x3c/0x144 [kasan_lab]`
without its `kasan_lab.c:417`, seen once).  Every tree has its own module
directory (vm/kbuild.py: tree_suffix); here two copies of this checkout run
`make grade N=3` at once, and each must print the kept transcripts, byte
for byte: what each prints alone.
"""

import os
import shutil
import subprocess
import time

from labs.lab import by_number
from tests.checklib import OUT, checkout_copy, first_difference, kept_env, record
from vm import proc

TOP = os.path.join(OUT, "together")
LAB = 3


def check_together():
    from labs import grade as labgrade
    lab = by_number(LAB)
    shutil.rmtree(TOP, ignore_errors=True)
    trees = [os.path.join(TOP, t) for t in ("a", "b")]
    for t in trees:
        checkout_copy(t)
    t0 = time.time()
    children = []
    for t in trees:
        log = open(os.path.join(TOP, os.path.basename(t) + ".out"), "w")
        children.append((proc.spawn(["make", "-s", "-C", t, "grade", "N=%d" % LAB],
                                    env=kept_env(), stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL), log))
    rcs = []
    for child, log in children:
        try:
            rcs.append(child.wait(timeout=1200))
        except subprocess.TimeoutExpired:
            rcs.append("timeout")
        proc.reap(child)
        proc.forget(child)
        log.close()
    bad, n = [], 0
    for t in trees:
        for step in labgrade.shown_steps(lab):
            kept = labgrade.stored_path(lab.folder, step)
            if not os.path.exists(kept):
                continue
            mine = os.path.join(t, "build", "transcripts", lab.folder, step + ".txt")
            n += 1
            d = first_difference(open(kept, errors="replace").read(),
                                 open(mine, errors="replace").read()
                                 if os.path.exists(mine) else "")
            if d:
                bad.append("%s: %s/%s: %s" % (os.path.basename(t), lab.folder, step, d))
    record("together: two checkouts sharing one cache grade lab %d at the same time; each "
           "prints the %d kept transcripts byte for byte" % (LAB, n // 2),
           rcs == [0, 0] and n > 0 and not bad,
           "exits %s, %d differ" % (rcs, len(bad)), time.time() - t0, bad[:10])
