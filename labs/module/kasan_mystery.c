// SPDX-License-Identifier: GPL-2.0-only
/*
 * kasan_mystery: lab 3's report-forensics scenarios.  This source is in
 * the solution tree only; a handout ships the built module, so students
 * meet these bugs the way a developer meets one: as a report.
 *
 * Each scenario spreads the life of its object over small functions, so
 * that the allocating, freeing and faulting functions differ, as they do
 * in real bugs.  Registered with kasan_lab.ko (kasan_lab_add_scenarios()).
 */

#define pr_fmt(fmt) "kasan_lab: " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "kasan_lab.h"

struct mystery_rec {
	u64 id;
	u64 flags;
	u64 next;
	char name[72];
};

/* Mystery A: a table of 20 u64 slots, filled one slot too far. */
static noinline u64 *mystery_table_new(void)
{
	return kmalloc_array(20, sizeof(u64), GFP_KERNEL);
}

static noinline void mystery_table_fill(u64 *t, size_t n)
{
	size_t i;

	HIDE(n);
	for (i = 0; i <= n; i++)
		t[i] = i;
}

static void mystery_a(const char *scn)
{
	u64 *t = mystery_table_new();

	if (!t)
		return;
	mystery_table_fill(t, 20);
	kfree(t);
}

/* Mystery B: a record released by one function, read by another. */
static noinline struct mystery_rec *mystery_rec_get(void)
{
	return kzalloc(sizeof(struct mystery_rec), GFP_KERNEL);
}

static noinline void mystery_rec_put(struct mystery_rec *r)
{
	kfree(r);
}

static noinline u64 mystery_rec_next(struct mystery_rec *r)
{
	HIDE(r);
	return READ_ONCE(r->next);
}

static void mystery_b(const char *scn)
{
	struct mystery_rec *r = mystery_rec_get();

	if (!r)
		return;
	mystery_rec_put(r);
	pr_info("%s value=%llu\n", scn, mystery_rec_next(r));
}

/* Mystery C: an object of a private cache given back twice. */
static struct kmem_cache *mystery_cache;

static noinline void mystery_session_end(void *s)
{
	kmem_cache_free(mystery_cache, s);
}

static void mystery_c(const char *scn)
{
	void *s;

	/*
	 * A usercopy region keeps the cache from aliasing another: 6.1's
	 * kmem_cache_create_usercopy() calls __kmem_cache_alias() only "if
	 * (!usersize)" (mm/slab_common.c).  A plain 72-byte cache was an
	 * alias here, and its report named the cache nsproxy.
	 */
	if (!mystery_cache)
		mystery_cache = kmem_cache_create_usercopy("mystery_session", 72, 0,
							   0, 0, 72, NULL);
	if (!mystery_cache)
		return;
	s = kmem_cache_alloc(mystery_cache, GFP_KERNEL);
	if (!s)
		return;
	mystery_session_end(s);
	HIDE(s);
	mystery_session_end(s);
}

static const struct lab_scenario mysteries[] = {
	{ "mystery-a", mystery_a, "lab 3 forensics: what went wrong?" },
	{ "mystery-b", mystery_b, "lab 3 forensics: what went wrong?" },
	{ "mystery-c", mystery_c, "lab 3 forensics: what went wrong?" },
};

static int __init kasan_mystery_init(void)
{
	return kasan_lab_add_scenarios(mysteries, ARRAY_SIZE(mysteries));
}

/* No exit function: the scenarios must outlive their debugfs files. */
module_init(kasan_mystery_init);
MODULE_DESCRIPTION("KASAN lab 3 forensics scenarios (kasan-tags)");
MODULE_LICENSE("GPL");
