# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 3's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

A = "student/mystery-a.toml"
B = "student/mystery-b.toml"
C = "student/mystery-c.toml"

PLANTS = [
    # 3.1: the memory tag fe read as "freed"
    {"mistake": "mystery-a-fe-read-as-freed",
     "edits": [(A, 'bug = "slab-out-of-bounds"\n', 'bug = "use-after-free"\n')]},
    # 3.1: the 10 granules with the pointer's tag (kmalloc_array(20, 8)) as the region
    {"mistake": "mystery-a-request-as-region",
     "edits": [(A, "object_size = 256\n", "object_size = 160\n")]},
    # 3.1: "0 bytes past the array", as a generic report would put it
    {"mistake": "mystery-a-offset-from-the-end",
     "edits": [(A, "offset = 160\n", "offset = 0\n")]},
    # 3.1: a frame of KASAN's reporting path
    {"mistake": "mystery-a-reporting-frame",
     "edits": [(A, 'function = "mystery_table_fill"\n', 'function = "kasan_report"\n')]},
    # 3.2: the free function itself
    {"mistake": "mystery-b-free-path-as-free-fn",
     "edits": [(B, 'free_fn = "mystery_rec_put"\n', 'free_fn = "kfree"\n')]},
    # 3.2: "Read of size 8" as the object's size
    {"mistake": "mystery-b-access-size-as-object-size",
     "edits": [(B, "object_size = 128\n", "object_size = 8\n")]},
    # 3.2: the ^ under the second shadow byte of the > row
    {"mistake": "mystery-b-offset-in-granules",
     "edits": [(B, "offset = 16\n", "offset = 1\n")]},
    # 3.2: "(or the bad free)" read as the free before the use
    {"mistake": "mystery-b-freeing-function-as-culprit",
     "edits": [(B, 'function = "mystery_rec_next"\n', 'function = "mystery_rec_put"\n')]},
    # 3.3: kmem_cache_alloc is not "kmalloc itself"
    {"mistake": "mystery-c-allocator-as-alloc-fn",
     "edits": [(C, 'alloc_fn = "mystery_c"\n', 'alloc_fn = "kmem_cache_alloc"\n')]},
    # 3.3: a free "accesses" the whole object
    {"mistake": "mystery-c-free-sized-as-object",
     "edits": [(C, "\nsize = 0\n", "\nsize = 72\n")]},
    # 3.3: a 72-byte object taken for a kmalloc one
    {"mistake": "mystery-c-kmalloc-cache-assumed",
     "edits": [(C, 'cache = "mystery_session"\n', 'cache = "kmalloc-128"\n')]},
    # 3.3: the type read off kasan_report_invalid_free in the Call trace
    {"mistake": "mystery-c-type-from-the-trace",
     "edits": [(C, 'bug = "double-free"\n', 'bug = "invalid-free"\n')]},
]
