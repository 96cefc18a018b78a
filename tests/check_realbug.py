# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check's `real-bug` job: lab 9's real bug, CVE-2023-31436 (6.1's
net/sched/sch_qfq.c), run as a student types it: `make run
SCENARIO=qfq-lmax VARIANT=...` on the kernel with the fix in place
(swtags-qfq: no KASAN report) and on the two with it reverted
(patches/experiments/10-qfq-revert-lmax-check.patch: the reports of the
public one).  What each run must print is vm/init/expected.toml."""

import os

import vm
from labs import scenarios
from tests.checklib import OUT, make_out, record, timed

SCENARIO = "qfq-lmax"
# the fix in place first: the control
VARIANTS = ("swtags-qfq", "exp-qfq-revert", "exp-qfq-revert-generic")


def what(variant):
    """One line: the reports expected.toml says VARIANT's run prints."""
    rows = scenarios.load_program_expected()[SCENARIO]["variants"][variant]
    reps = rows.get("reports", [])
    return ("no KASAN report" if not reps else "%d KASAN reports (%s) in %s" % (
        len(reps), ", ".join(sorted(set(reps))), " or ".join(rows.get("functions", []))))


def check_real_bug():
    for v in VARIANTS:
        b, secs = timed(vm.build_kernel, v)
        if isinstance(b, vm.KtError):
            record("kernel %s builds" % v, False, str(b), secs)
            continue
        (rc, out, err), secs = timed(make_out, ["run", "SCENARIO=" + SCENARIO, "VARIANT=" + v])
        with open(os.path.join(OUT, "real-bug-%s.log" % v), "w") as f:
            f.write(out)
        errs = scenarios.check_program_log(out, v, [SCENARIO])[0][1] if rc == 0 else [
            "make run exited %d: %s" % (rc, err)]
        record("real bug (lab 9, CVE-2023-31436): make run SCENARIO=%s VARIANT=%s prints %s"
               % (SCENARIO, v, what(v)), not errs, "; ".join(errs) or "as vm/init/expected.toml "
               "says; log build/check/real-bug-%s.log" % v, secs)
