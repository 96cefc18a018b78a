#!/usr/bin/python3
"""`make fixtures`: capture the serial logs the offline tests read.

Boots swtags and generic once each (KASAN KUnit suite + every lab scenario)
through the project's one runner and stores the logs, xz-compressed, in
gdb-scripts/tests/fixtures/.  The tests then parse real reports of this
project's own kernels, not hand-written ones.
"""

import lzma
import os
import sys

import vm
from labs import scenarios

REPO = vm.REPO

DEST = os.path.join(REPO, "gdb-scripts", "tests", "fixtures")


def main():
    os.makedirs(DEST, exist_ok=True)
    names = ",".join(scenarios.load_expected())
    for variant in ("swtags", "generic"):
        bdir = vm.build_kernel(variant)
        b = vm.boot(bdir, vm.scenario_cmdline(names), 300)
        if not b.ok:
            print(b.tail())
            raise vm.KtError("%s boot failed (%s)" % (variant, b.status))
        # Drop the "# kt boot:" header line: it names this machine's paths.
        text = b.text.split("\n", 1)[1]
        out = os.path.join(DEST, "%s.log.xz" % variant)
        with lzma.open(out, "wt", preset=9) as f:
            f.write(text)
        print("fixtures: %s (%d lines)" % (os.path.relpath(out, REPO), text.count("\n")))


if __name__ == "__main__":
    try:
        main()
    except vm.KtError as e:
        sys.exit("kasan-tags: error: %s" % e)
