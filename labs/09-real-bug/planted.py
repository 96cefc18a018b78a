# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 9's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

from labs.mistakes import answer_edit


def plant(mistake, key, right, wrong):
    """The mistake: the answer `key` of student/real-bug.toml made wrong."""
    return {"mistake": mistake, "edits": answer_edit("student/real-bug.toml", key, right, wrong)}


PLANTS = [
    # a frame of KASAN's reporting path
    plant("reporting-frame", "function", '"qfq_activate_agg"', '"kasan_report"'),
    # kzalloc_node()'s allocator function, not its caller
    plant("allocator-as-alloc-fn", "alloc_fn", '"qdisc_alloc"', '"__kmalloc_node"'),
    # sizeof(struct Qdisc) + priv_size, the granules with the pointer's tag
    plant("request-as-region", "object_size", "8192", "7904"),
    # the callee whose source line kasan-decode --vmlinux shows
    plant("inlined-callee", "function", '"qfq_activate_agg"', '"qfq_update_start"'),
]
