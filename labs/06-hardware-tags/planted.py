# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 6's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

from labs.mistakes import answer_edit

PRED = "student/predictions.toml"


def answer(key, right, wrong):
    return answer_edit(PRED, key, right, wrong)


PLANTS = [
    {"mistake": "hwtags-byte-exact", "edits": answer("oob-in-granule", '"missed"', '"report"')},
    {"mistake": "hwtags-match-all-checked", "edits": answer("match-all", '"missed"', '"report"')},
    {"mistake": "hwtags-free-not-an-access", "edits": answer("double-free", '"report"', '"missed"')},
    {"mistake": "hwtags-reuse-keeps-tag", "edits": answer("uaf-realloc", '"report"', '"missed"')},
    {"mistake": "hwtags-async-bug-type-as-sync",
     "edits": answer("bug_type", '"invalid-access"', '"use-after-free"')},
    {"mistake": "hwtags-async-address-recorded", "edits": answer("has_address", "false", "true")},
    {"mistake": "hwtags-async-stack-at-the-access", "edits": answer("names_lab_uaf", "false", "true")},
]
