# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The grader's own answer to exercise 1.1 (grader_only in steps.toml:
never in a student's copy; `make grade-class` puts it back).  6.1's
kasan_check_range(), mm/kasan/sw_tags.c, for the cases the grader asks."""


def access_ok(ptr, size, start, tags):
    if size == 0:
        return True
    tag = ptr >> 56
    if tag == 0xFF:
        return True
    first = ((ptr | 0xFF << 56) - start) >> 4
    last = ((ptr | 0xFF << 56) + size - 1 - start) >> 4
    return set(tags[first:last + 1]) == {tag}
