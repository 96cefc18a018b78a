# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 5's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

from labs.mistakes import answer_edit

PRED = "student/predictions.toml"


def predict(step, right, wrong):
    return answer_edit(PRED, step, '"%s"' % right, '"%s"' % wrong)


PLANTS = [
    {"mistake": "no-tbi-top-byte-harmless", "edits": predict("no-tbi", "silent", "same")},
    {"mistake": "no-tbi-checks-switched-off", "edits": predict("no-tbi", "silent", "misses-bugs")},
    {"mistake": "no-tbi-oops-on-the-console", "edits": predict("no-tbi", "silent", "dies-booting")},
    {"mistake": "fixed-tag-catches-everything", "edits": predict("fixed-tag", "misses-bugs", "same")},
    {"mistake": "fixed-tag-kunit-failures-stop-the-boot",
     "edits": predict("fixed-tag", "misses-bugs", "dies-booting")},
    {"mistake": "fixed-tag-missed-bug-crashes",
     "edits": predict("fixed-tag", "misses-bugs", "dies-at-bug")},
    {"mistake": "no-untag-phys-tbi-covers-arithmetic",
     "edits": predict("no-untag-phys", "dies-booting", "same")},
    {"mistake": "no-untag-phys-every-address-broken",
     "edits": predict("no-untag-phys", "dies-booting", "silent")},
    {"mistake": "no-untag-phys-only-in-scenarios",
     "edits": predict("no-untag-phys", "dies-booting", "dies-at-bug")},
    {"mistake": "no-redzone-tag-free-retags", "edits": predict("no-redzone-tag", "misses-bugs", "same")},
    {"mistake": "no-redzone-tag-missed-bug-crashes",
     "edits": predict("no-redzone-tag", "misses-bugs", "dies-at-bug")},
    {"mistake": "no-redzone-tag-kunit-overflows",
     "edits": predict("no-redzone-tag", "misses-bugs", "dies-booting")},
    {"mistake": "no-brk-hook-brk-skipped", "edits": predict("no-brk-hook", "dies-at-bug", "misses-bugs")},
    {"mistake": "no-brk-hook-reported-anyway", "edits": predict("no-brk-hook", "dies-at-bug", "same")},
    {"mistake": "no-brk-hook-brk-at-every-check",
     "edits": predict("no-brk-hook", "dies-at-bug", "dies-booting")},
]
