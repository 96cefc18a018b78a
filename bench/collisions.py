#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make bench-collisions [SEEDS=20] [VARIANT=swtags]`: chance, measured.

Every run is deterministic (vm/qemu.py: ICOUNT), so a tag collision is a
property of a seed, not noise: this boots the kernel once per seed 1..N
with the `collision` and `uaf-realloc` scenarios and prints how often a
reused slot got its old tag back, beside what the generator predicts:

  sw-tags: 6.1's per-CPU LCG, a 32-bit state whose output is taken
           modulo 254 (mm/kasan/sw_tags.c, kasan_random_tag()): consecutive
           draws alternate parity, so a slot reallocated at once never
           repeats its tag (gap 0), and the draw after next repeats it 1
           time in 127 (gap 1).
  hw-tags: QEMU's IRG, an LFSR over the 14 tags 0xf0..0xfd
           (gdb-scripts/kasan/modes.py: HW_REPEAT): 2/16 and 19/256.

The figures are printed, not asserted (a benchmark, not a test).
"""

import argparse
import os

import vm
from bench import run_main
from shared import scenario_log as scenarios
from kasan import modes
from kasan.modes import HW_TAGS, SW_TAGS

SW, HW = SW_TAGS.variant, HW_TAGS.variant

EXPECTED = {SW: {0: 0.0, 1: 1 / 127}, HW: dict(modes.HW_REPEAT)}
CMDLINE = "kunit.enable=0 " + vm.scenario_cmdline("collision,uaf-realloc")
OUT = os.path.join(vm.REPO, "build", "bench", "collisions")


def seed_figures(text):
    """{gap: (same_slot, same_tag)} of the collision scenario, and
    uaf-realloc's (tag collisions seen, slot found) of one serial log."""
    seg = scenarios.segments(text)
    gaps = {}
    for event, kv in scenarios.events(seg.get("collision", []), "collision"):
        if event == "result" and "gap" in kv:
            gaps[int(kv["gap"])] = (int(kv["same_slot"]), int(kv["same_tag"]))
    realloc = scenarios.events(seg.get("uaf-realloc", []), "uaf-realloc")
    collisions = sum(1 for event, _ in realloc if event == "tag-collision")
    found = next((kv.get("found") == "1" for event, kv in realloc if event == "reuse"), False)
    return gaps, (collisions, found)


def main():
    vm.install_signal_handlers()
    ap = argparse.ArgumentParser(prog="bench/collisions.py")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--variant", default=os.environ.get("VARIANT") or SW)
    a = ap.parse_args()
    if a.variant not in EXPECTED:
        raise vm.KtError("bench-collisions runs on %s, not %s"
                         % (" or ".join(EXPECTED), a.variant))
    if a.seeds < 1:
        raise vm.KtError("SEEDS must be at least 1")
    bdir = vm.build_kernel(a.variant)
    os.makedirs(OUT, exist_ok=True)
    totals = {gap: [0, 0] for gap in EXPECTED[a.variant]}
    realloc_collisions = realloc_found = 0
    for seed in range(1, a.seeds + 1):
        os.environ["SEED"] = str(seed)
        log = os.path.join(OUT, "%s-seed%d.log" % (a.variant, seed))
        b = vm.boot(bdir, CMDLINE, 300, log)
        if not b.ok:
            raise vm.KtError("seed %d: the boot ended %s; log %s" % (seed, b.status, log))
        gaps, (coll, found) = seed_figures(b.text)
        for gap in totals:
            slot, tag = gaps.get(gap, (0, 0))
            totals[gap][0] += slot
            totals[gap][1] += tag
        realloc_collisions += coll
        realloc_found += found
    print("%s, seeds 1..%d (one boot each, deterministic: SEED=k reproduces seed k)"
          % (a.variant, a.seeds))
    print("%-44s %12s %12s %10s" % ("collision scenario", "reallocs", "same tag", "rate"))
    for gap, (slot, tag) in sorted(totals.items()):
        rate = tag / slot if slot else 0.0
        print("%-44s %12d %12d %10.5f" % ("gap %d (draws between: %d)" % (gap, gap),
                                          slot, tag, rate))
        print("%-44s %12s %12s %10.5f" % ("  expected from the generator", "", "",
                                          EXPECTED[a.variant][gap]))
    print("uaf-realloc: %d tag collision(s) met while retaking the slot, in %d of %d "
          "seeds that found it" % (realloc_collisions, realloc_found, a.seeds))


if __name__ == "__main__":
    run_main(main)
