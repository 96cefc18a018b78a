// SPDX-License-Identifier: GPL-2.0-only
/*
 * kasan_lab: bug scenarios that make KASAN show each mechanism of the
 * software tag-based series, on demand, inside the kasan-tags VM.
 *
 * Every scenario is one function, triggered by writing to
 * /sys/kernel/debug/kasan_lab/<name>; reading
 * /sys/kernel/debug/kasan_lab/scenarios lists them.  Each prints
 * machine-readable lines of the form
 *
 *   kasan_lab: <scenario> <event> key=value ...
 *
 * before and after the bad access: pointers with their tags, the untagged
 * address, size and cache, the memory tags read from shadow for every
 * granule, and what KASAN is expected to do in this mode.  The report (or
 * its absence) then comes from KASAN itself.
 *
 * Modelled on the kernel's own mm/kasan/kasan_test.c.
 */

#define pr_fmt(fmt) "kasan_lab: " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/kasan.h>
#include <linux/kasan-tags.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "kasan_lab.h"

#if defined(CONFIG_KASAN_SW_TAGS)
#define LAB_MODE "sw_tags"
#elif defined(CONFIG_KASAN_HW_TAGS)
#define LAB_MODE "hw_tags"
#elif defined(CONFIG_KASAN_GENERIC)
#define LAB_MODE "generic"
#else
#define LAB_MODE "none"
#endif

/* Either tag-based mode: pointers carry tags, memory has tags. */
#define TAG_BASED (IS_ENABLED(CONFIG_KASAN_SW_TAGS) || \
		   IS_ENABLED(CONFIG_KASAN_HW_TAGS))

/*
 * Hardware tags (MTE, 6.1's third mode) have no shadow: the memory tag of
 * a 16-byte granule is in tag storage, and KASAN_SHADOW_SCALE_SHIFT is
 * empty (arch/arm64/Makefile sets it for the other two modes only).
 */
#if defined(CONFIG_KASAN_HW_TAGS)
#include <asm/mte-kasan.h>
#define GRANULE MTE_GRANULE_SIZE
#define MEMTAG_FROM "ldg"
#elif defined(CONFIG_KASAN)
#define GRANULE (1UL << KASAN_SHADOW_SCALE_SHIFT)
#define MEMTAG_FROM "shadow"
#else
#define GRANULE 16UL
#define MEMTAG_FROM "none"
#endif

#define TAG_SHIFT 56
#define LAB_DEBUGFS "/sys/kernel/debug/kasan_lab/"
#define MAX_TRIES 1000000	/* uaf-realloc: bound on allocations */
#define HOLD 4096		/* uaf-realloc: objects kept while searching */
#define COLLISION_ROUNDS 10000
#define MAX_GROUPS 4		/* this module and the ones that add scenarios */

/*
 * Read a byte without a KASAN check.  The out-of-bounds writes below store
 * back the value that is already there: KASAN sees (and reports) a bad
 * write, but the neighbour object, which may belong to anyone, is not
 * corrupted, so the VM goes on to the next scenario.
 */
static __no_sanitize_address u8 peek(const char *p)
{
	/* hw-tags: the CPU checks every access; a 0xff pointer is not checked */
	return READ_ONCE(*(const char *)kasan_reset_tag(p));
}

/*
 * hw-tags, sync mode: the tag fault handler turns tag checking off on
 * this CPU after its report (6.1 arch/arm64/mm/fault.c, do_tag_recovery);
 * turn it on again, as mm/kasan/kasan_test.c does after each bad access.
 */
#if defined(CONFIG_KASAN_HW_TAGS) && IS_ENABLED(CONFIG_KASAN_KUNIT_TEST)
/* mm/kasan/hw_tags.c exports it for the KUnit test; mm/kasan/kasan.h is private */
void kasan_enable_tagging(void);

static void rearm(void)
{
	kasan_enable_tagging();
}
#else
static void rearm(void)
{
}
#endif

static u8 ptr_tag(const void *p)
{
	return (unsigned long)p >> TAG_SHIFT;
}

static unsigned long untagged(const void *p)
{
	return (unsigned long)kasan_reset_tag(p);
}

/*
 * The memory tag of the granule at @p: its shadow byte in sw-tags (in
 * generic mode the shadow byte is a state, not a tag), or, in hw-tags,
 * the allocation tag that the kernel's own helper reads from tag storage
 * with LDG (6.1 arch/arm64/include/asm/mte-kasan.h, mte_get_mem_tag).
 */
static u8 shadow_byte(const void *p)
{
#if defined(CONFIG_KASAN_HW_TAGS)
	return mte_get_mem_tag(kasan_reset_tag(p));
#elif defined(CONFIG_KASAN)
	return *(u8 *)kasan_mem_to_shadow(kasan_reset_tag(p));
#else
	return 0;
#endif
}

/*
 * Print the shadow of [p, p + size + GRANULE) run-length encoded, e.g.
 * "b4*8,fe*1": eight granules tagged 0xb4, then one 0xfe granule past the
 * object.  The extra granule shows what lies right after the object.
 */
static void show_shadow(const char *scn, const char *what, const void *p,
			size_t size)
{
	char buf[160];
	size_t len = 0, n = DIV_ROUND_UP(size, GRANULE) + 1, i, run = 0;
	u8 cur = 0, s;

	for (i = 0; i <= n && len < sizeof(buf) - 12; i++) {
		s = i < n ? shadow_byte(p + i * GRANULE) : 0;
		if (i > 0 && (i == n || s != cur)) {
			len += scnprintf(buf + len, sizeof(buf) - len, "%s%02x*%zu",
					 len ? "," : "", cur, run);
			run = 0;
		}
		cur = s;
		run++;
	}
	pr_info("%s shadow of=%s granule=%lu granules=%zu shadow=%s from=%s\n",
		scn, what, GRANULE, n - 1, buf, MEMTAG_FROM);
}

/*
 * The kmalloc cache an allocation of @size comes from, named as SLUB names
 * it ("kmalloc-128"): struct kmem_cache is private to mm/, so compute the
 * name from kmalloc_index() the way mm/slab_common.c builds kmalloc_info[].
 */
static const char *kmalloc_cache_name(size_t size)
{
	static char names[KMALLOC_SHIFT_HIGH + 1][24];
	unsigned int i = kmalloc_index(size);
	unsigned int bytes = i == 1 ? 96 : i == 2 ? 192 : 1U << i;

	if (i > KMALLOC_SHIFT_HIGH)
		return "kmalloc-large";
	if (!names[i][0])
		scnprintf(names[i], sizeof(names[i]), "kmalloc-%u", bytes);
	return names[i];
}

static void show_ptr(const char *scn, const char *what, const void *p,
		     size_t size, const char *cache)
{
	pr_info("%s ptr name=%s ptr=%016lx tag=%02x addr=%lx size=%zu cache=%s align=%lu\n",
		scn, what, (unsigned long)p, ptr_tag(p), untagged(p), size, cache,
		untagged(p) & (GRANULE - 1) ? 0UL : GRANULE);
	show_shadow(scn, what, p, size);
}

/*
 * Raw pointers are printed as numbers (%016lx, not %p, which hashes them):
 * the tag in the top byte is the point of this lab.
 */

/* What KASAN is expected to do next, in this mode (see expected.toml). */
static void predict(const char *scn, const char *sw_tags, const char *generic)
{
	const char *e = !IS_ENABLED(CONFIG_KASAN) ? "none" :
		TAG_BASED ? sw_tags : generic;

	pr_info("%s expect mode=%s outcome=%s\n", scn, LAB_MODE, e);
}

static void access_mark(const char *scn, const char *how, const void *p)
{
	pr_info("%s access %s ptr=%016lx tag=%02x addr=%lx memtag=%02x\n", scn, how,
		(unsigned long)p, ptr_tag(p), untagged(p), shadow_byte(p));
}

/* kmalloc objects of many sizes and a private cache: tags and shadow. */
static void lab_tags(const char *scn)
{
	static const size_t sizes[] = { 16, 32, 64, 100, 128, 256, 512, 1024,
					2048, 4096 };
	struct kmem_cache *c;
	size_t i;
	char *p;

	predict(scn, "tag-in-top-byte-shadow-equals-tag", "no-tags-shadow-zero");
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		p = kmalloc(sizes[i], GFP_KERNEL);
		if (!p)
			continue;
		show_ptr(scn, "kmalloc", p, sizes[i], kmalloc_cache_name(sizes[i]));
		kfree(p);
	}
	c = kmem_cache_create("kasan_lab_40", 40, 0, 0, NULL);
	if (!c)
		return;
	p = kmem_cache_alloc(c, GFP_KERNEL);
	if (p) {
		show_ptr(scn, "cache", p, 40, "kasan_lab_40");
		kmem_cache_free(c, p);
	}
	kmem_cache_destroy(c);
}

static void lab_ctor(void *obj)
{
	memset(obj, 0, 40);
}

/*
 * A cache with a constructor keeps an object's tag across free and
 * reallocation (v9: "preassigns tags for caches with constructors"),
 * a cache without one gives a new random tag each time.
 */
static void lab_ctor_tag(const char *scn)
{
	struct kmem_cache *c[2];
	int i, round;
	char *p;

	predict(scn, "ctor-tag-kept-plain-tag-changes", "no-tags");
	c[0] = kmem_cache_create("kasan_lab_plain", 40, 0, 0, NULL);
	c[1] = kmem_cache_create("kasan_lab_ctor", 40, 0, 0, lab_ctor);
	for (i = 0; i < 2; i++) {
		if (!c[i])
			continue;
		for (round = 0; round < 4; round++) {
			p = kmem_cache_alloc(c[i], GFP_KERNEL);
			if (!p)
				break;
			pr_info("%s round cache=%s round=%d ptr=%016lx tag=%02x addr=%lx\n",
				scn, i ? "kasan_lab_ctor" : "kasan_lab_plain",
				round, (unsigned long)p, ptr_tag(p), untagged(p));
			kmem_cache_free(c[i], p);
		}
		kmem_cache_destroy(c[i]);
	}
}

/*
 * 6.1 names a tag-based bug from a ring of the last alloc/free records
 * (mm/kasan/report_tags.c, kasan_complete_mode_report_info()): a record
 * of the object the bad address lies in, carrying the pointer's tag, makes
 * the report a use-after-free (a free record) or a slab-out-of-bounds (an
 * alloc record); none leaves "invalid-access".  A write past our object
 * lands in the next object, and one of that object's earlier lives may
 * have carried our tag (one tag in 254 with sw-tags, in 14 with hw-tags):
 * the report would then say use-after-free.  Push every earlier record out
 * of the ring first, with allocations of another cache, so that the bug
 * type no longer depends on what the slot did before this scenario.
 * Generic KASAN keeps no ring (its shadow says what the bytes are): 0.
 */
#define STACK_RING_RECORDS (32 << 10)	/* 6.1 mm/kasan/tags.c default */

/* @n kmalloc(@size)/kfree pairs; how many were made. */
static unsigned int alloc_free(size_t size, unsigned int n)
{
	unsigned int i;
	void *q;

	for (i = 0; i < n; i++) {
		q = kmalloc(size, GFP_KERNEL);
		if (!q)
			break;
		kfree(q);
		if (i % 1024 == 0)
			cond_resched();
	}
	return i;
}

static void forget_history(const char *scn)
{
	/* One kmalloc and one kfree: two records, never of a 128-byte slot. */
	unsigned int n = alloc_free(512, TAG_BASED ? STACK_RING_RECORDS / 2 : 0);

	pr_info("%s forget records=%u\n", scn, 2 * n);
}

/* Write one byte past a 128-byte object: into the next object or redzone. */
static void lab_oob_right(const char *scn)
{
	char *p = kmalloc(128, GFP_KERNEL);
	int tries = 0;

	/*
	 * The byte past the object is the next object's first granule; its tag
	 * equals ours with chance 1/254 (sw-tags; 1/14 hw-tags): no report.
	 * Make the scenario deterministic: take another object then.
	 */
	while (p && shadow_byte(p + 128) == ptr_tag(p) &&
	       TAG_BASED && tries++ < 8) {
		pr_info("%s tag-collision with next object, reallocating\n", scn);
		kfree(p);
		p = kmalloc(128, GFP_KERNEL);
	}
	if (!p)
		return;
	show_ptr(scn, "p", p, 128, kmalloc_cache_name(128));
	forget_history(scn);
	predict(scn, "report", "report");
	HIDE(p);
	access_mark(scn, "write", p + 128);
	p[128] = peek(p + 128);
	kfree(p);
}

/*
 * Allocate up to @n kmalloc-128 objects into @obj and find two that are
 * adjacent in the slab, preferring two with different tags: obj[*a], and
 * obj[*b] right after it (*b = -1 if no two are adjacent).  Returns how
 * many were allocated; the caller frees them.
 */
static int alloc_adjacent(char **obj, int n, int *a, int *b)
{
	int i, j, got;

	*a = -1;
	*b = -1;
	for (got = 0; got < n; got++) {
		obj[got] = kmalloc(128, GFP_KERNEL);
		if (!obj[got])
			break;
	}
	for (i = 0; i < got; i++)
		for (j = 0; j < got; j++)
			if (untagged(obj[j]) == untagged(obj[i]) + 128 &&
			    (*b < 0 || ptr_tag(obj[*a]) == ptr_tag(obj[*b]))) {
				*a = i;
				*b = j;
			}
	if (*a < 0 && got)
		*a = 0;
	return got;
}

/*
 * Write past an object into its allocated neighbour: find two kmalloc-128
 * objects that are adjacent in the slab (preferring different tags) and
 * write the byte after the first.  Generic KASAN puts redzones between
 * objects, so there no neighbour is adjacent and the byte is a redzone.
 */
static void lab_oob_neighbour(const char *scn)
{
	char *obj[32], *p;
	int a, b, n = alloc_adjacent(obj, ARRAY_SIZE(obj), &a, &b);

	if (a >= 0) {
		p = obj[a];
		show_ptr(scn, "a", p, 128, kmalloc_cache_name(128));
		if (b >= 0)
			show_ptr(scn, "neighbour", obj[b], 128,
				 kmalloc_cache_name(128));
		pr_info("%s result adjacent=%d\n", scn, b >= 0);
		forget_history(scn);
		predict(scn, "report", "report");
		HIDE(p);
		access_mark(scn, "write", p + 128);
		p[128] = peek(p + 128);
	}
	while (n--)
		kfree(obj[n]);
}

/*
 * kmalloc(123), read byte 125: in the last 16-byte granule, which 6.1 tags
 * whole (shadow.c, kasan_unpoison(): round_up(size, KASAN_GRANULE_SIZE)), so
 * only generic KASAN (8-byte granules, partial shadow values) sees it.
 */
static void lab_oob_in_granule(const char *scn)
{
	char *p = kmalloc(123, GFP_KERNEL);

	if (!p)
		return;
	show_ptr(scn, "p", p, 123, kmalloc_cache_name(123));
	predict(scn, "missed", "report");
	HIDE(p);
	access_mark(scn, "read", p + 125);
	pr_info("%s value=%d\n", scn, READ_ONCE(p[125]));
	kfree(p);
}

/* Read after kfree: freed memory is retagged 0xfe (sw-tags). */
static void lab_uaf(const char *scn)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (!p)
		return;
	show_ptr(scn, "p", p, 128, kmalloc_cache_name(128));
	kfree(p);
	show_shadow(scn, "freed", p, 128);
	predict(scn, "report", "report");
	HIDE(p);
	access_mark(scn, "read", p);
	pr_info("%s value=%d\n", scn, READ_ONCE(p[0]));
}

struct hold {
	void *obj[HOLD];
	int n;
};

/* Free an allocation unless it is kept in @h to stay out of the way. */
static void hold_or_free(struct hold *h, void *q)
{
	if (h->n < HOLD)
		h->obj[h->n++] = q;
	else
		kfree(q);
}

static void hold_release(struct hold *h)
{
	while (h->n)
		kfree(h->obj[--h->n]);
}

/*
 * Free *@q and allocate 128-byte objects until one lands in @slot again,
 * keeping the others in @h, while the slot's tag is not yet @tag (@same)
 * or still is (!@same).  False if the tries ran out.
 */
static bool retake_slot(char **q, struct hold *h, unsigned long slot, u8 tag,
			bool same, int *tries)
{
	while ((ptr_tag(*q) == tag) != same) {
		kfree(*q);
		do {
			if ((*tries)++ == MAX_TRIES) {
				*q = NULL;
				return false;
			}
			*q = kmalloc(128, GFP_KERNEL);
			if (!*q)
				return false;
			if (untagged(*q) != slot)
				hold_or_free(h, *q);
		} while (untagged(*q) != slot);
	}
	return true;
}

/*
 * The bug type of a tag-based report is a guess (see forget_history()).
 * Give the neighbour's slot a past life with our tag, then a new life
 * with another tag: the write past our object into the live neighbour is
 * an out-of-bounds, but the stack ring's newest record of that slot with
 * our tag is a free, so 6.1 names it a use-after-free and prints the free
 * stack of the past life.  Generic KASAN: redzones, no guess.
 */
static void lab_oob_history(const char *scn)
{
	struct hold *h = kzalloc(sizeof(*h), GFP_KERNEL);
	char *obj[32], *p;
	int a, b, n, tries = 0, found = 0;

	if (!h)
		return;
	n = alloc_adjacent(obj, ARRAY_SIZE(obj), &a, &b);
	if (a < 0)
		goto out;
	p = obj[a];
	show_ptr(scn, "a", p, 128, kmalloc_cache_name(128));
	if (b >= 0 && TAG_BASED) {
		unsigned long slot = untagged(obj[b]);

		/* The past life, with our tag; its kfree is the record. */
		found = retake_slot(&obj[b], h, slot, ptr_tag(p), true, &tries) &&
			retake_slot(&obj[b], h, slot, ptr_tag(p), false, &tries);
		if (found)
			show_ptr(scn, "neighbour", obj[b], 128,
				 kmalloc_cache_name(128));
	}
	pr_info("%s result found=%d tries=%d\n", scn, found, tries);
	predict(scn, "report", "report");
	HIDE(p);
	access_mark(scn, "write", p + 128);
	p[128] = peek(p + 128);
out:
	while (n--)
		kfree(obj[n]);
	hold_release(h);
	kfree(h);
}

/*
 * The bug class only tag-based KASAN catches: use-after-free after the
 * slot was given to someone else.  Generic KASAN's quarantine delays reuse,
 * but once the slot is reallocated its shadow says "accessible" again.
 */
static void lab_uaf_realloc(const char *scn)
{
	struct hold *h = kzalloc(sizeof(*h), GFP_KERNEL);
	char *p, *q = NULL;
	int tries, same_tag = 0;

	if (!h)
		return;
	p = kmalloc(128, GFP_KERNEL);
	if (!p)
		goto out;
	show_ptr(scn, "old", p, 128, kmalloc_cache_name(128));
	kfree(p);
	for (tries = 0; tries < MAX_TRIES; tries++) {
		q = kmalloc(128, GFP_KERNEL);
		if (!q)
			break;
		/* Generic pointers all carry 0xff: the address is enough. */
		if (untagged(q) == untagged(p) &&
		    (ptr_tag(q) != ptr_tag(p) || !TAG_BASED))
			break;
		if (untagged(q) == untagged(p)) {
			pr_info("%s tag-collision tag=%02x, retrying\n", scn, ptr_tag(q));
			/* A kernel whose tags never change: use the slot anyway. */
			if (++same_tag == 8)
				break;
			/* Give the slot back: its next allocation draws a new tag. */
			kfree(q);
			q = NULL;
			continue;
		}
		hold_or_free(h, q);
		q = NULL;
	}
	pr_info("%s reuse found=%d tries=%d\n", scn, q != NULL, tries);
	if (!q)
		goto out;
	show_ptr(scn, "new", q, 128, kmalloc_cache_name(128));
	predict(scn, "report", "missed");
	HIDE(p);
	access_mark(scn, "read", p);
	pr_info("%s value=%d\n", scn, READ_ONCE(p[0]));
	kfree(q);
out:
	hold_release(h);
	kfree(h);
}

static void lab_double_free(const char *scn)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (!p)
		return;
	show_ptr(scn, "p", p, 128, kmalloc_cache_name(128));
	kfree(p);
	predict(scn, "report", "report");
	HIDE(p);
	kfree(p);
}

static void lab_invalid_free(const char *scn)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (!p)
		return;
	show_ptr(scn, "p", p, 128, kmalloc_cache_name(128));
	predict(scn, "report", "report");
	HIDE(p);
	kfree(p + 1);
	kfree(p);
}

/*
 * A pointer tagged 0xff (KASAN_TAG_KERNEL, what kasan_reset_tag() gives)
 * matches every memory tag: sw-tags does not check it.  Generic KASAN has
 * no tags, so the same pointer still hits a freed object.
 */
static void lab_match_all(const char *scn)
{
	char *p = kmalloc(128, GFP_KERNEL), *q;

	if (!p)
		return;
	show_ptr(scn, "p", p, 128, kmalloc_cache_name(128));
	kfree(p);
	q = kasan_reset_tag(p);
	predict(scn, "missed", "report");
	HIDE(q);
	access_mark(scn, "read", q);
	pr_info("%s value=%d\n", scn, READ_ONCE(q[0]));
}

/*
 * Pages from alloc_pages() get a tag too (series patch 18): it is kept in
 * page->flags and page_address() puts it in the pointer.  Split an order-1
 * block, free the second page and read one byte past the first.
 */
static void lab_page_tag(const char *scn)
{
	struct page *page = alloc_pages(GFP_KERNEL, 1);
	char *p;

	if (!page)
		return;
	split_page(page, 1);
	p = page_address(page);
#if defined(CONFIG_KASAN_SW_TAGS) || defined(CONFIG_KASAN_HW_TAGS)
	pr_info("%s page page_tag=%02x\n", scn, page_kasan_tag(page));
#endif
	show_ptr(scn, "page", p, PAGE_SIZE, "page-allocator");
	__free_page(page + 1);
	show_shadow(scn, "next-page-freed", p + PAGE_SIZE, 16);
	predict(scn, "report", "report");
	HIDE(p);
	access_mark(scn, "read", p + PAGE_SIZE);
	pr_info("%s value=%d\n", scn, READ_ONCE(p[PAGE_SIZE]));
	__free_page(page);
}

/*
 * Reallocate one slot COLLISION_ROUNDS times and count how often the new
 * tag equals the old one (a stale pointer would then go unnoticed).
 * @gap extra allocations happen between the two, i.e. the new tag is the
 * (gap + 1)-th draw of kasan_random_tag() after the old one.
 */
static void collide(const char *scn, unsigned int gap, unsigned int *hist)
{
	unsigned int same_slot = 0, same_tag = 0, i, j;
	void *extra[4];
	char *p, *q;

	for (i = 0; i < COLLISION_ROUNDS; i++) {
		p = kmalloc(64, GFP_KERNEL);
		for (j = 0; j < gap; j++)
			extra[j] = kmalloc(64, GFP_KERNEL);
		kfree(p);
		q = kmalloc(64, GFP_KERNEL);
		if (p && q) {
			hist[ptr_tag(p)]++;
			hist[ptr_tag(q)]++;
		}
		if (p && q && untagged(q) == untagged(p)) {
			same_slot++;
			same_tag += ptr_tag(q) == ptr_tag(p);
		}
		kfree(q);
		for (j = 0; j < gap; j++)
			kfree(extra[j]);
	}
	pr_info("%s result gap=%u rounds=%u same_slot=%u same_tag=%u\n",
		scn, gap, COLLISION_ROUNDS, same_slot, same_tag);
}

/*
 * The tag generator (mm/kasan/sw_tags.c) is a per-CPU LCG taken modulo
 * 254: consecutive draws alternate odd/even, so the immediate reuse of a
 * slot never repeats a tag, while every other draw repeats it 1 time in 127.
 * hw-tags draws with the IRG instruction from 0xf0..0xfd (6.1
 * include/linux/kasan-tags.h): 14 tags; how they follow each other is the
 * CPU's choice (labs/scenarios.py: what QEMU does).
 */
static void lab_collision(const char *scn)
{
	unsigned int *hist = kcalloc(256, sizeof(*hist), GFP_KERNEL);
	unsigned int i, gap;

	if (!hist)
		return;
	predict(scn, "gap0-never-gap1-about-1/127", "no-tags");
	for (gap = 0; gap < 2; gap++)
		collide(scn, gap, hist);
	for (i = 0; i < 256; i += 16)
		pr_info("%s hist from=%02x counts=%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u\n",
			scn, i, hist[i], hist[i + 1], hist[i + 2], hist[i + 3],
			hist[i + 4], hist[i + 5], hist[i + 6], hist[i + 7],
			hist[i + 8], hist[i + 9], hist[i + 10], hist[i + 11],
			hist[i + 12], hist[i + 13], hist[i + 14], hist[i + 15]);
	pr_info("%s result reserved_tags=%u\n", scn,
		TAG_BASED ? hist[KASAN_TAG_INVALID] + hist[KASAN_TAG_KERNEL] : 0);
	kfree(hist);
}

/* krealloc: shrink in place (tail retagged 0xfe), then grow (new object). */
static void lab_krealloc(const char *scn)
{
	char *p = kmalloc(64, GFP_KERNEL), *q, *r;

	if (!p)
		return;
	show_ptr(scn, "p", p, 64, kmalloc_cache_name(64));
	q = krealloc(p, 32, GFP_KERNEL);
	if (!q) {
		kfree(p);
		return;
	}
	show_ptr(scn, "shrunk", q, 32, kmalloc_cache_name(64));
	pr_info("%s result shrink_same_ptr=%d\n", scn, q == p);
	predict(scn, "report", "report");
	HIDE(q);
	access_mark(scn, "read", q + 40);
	pr_info("%s value=%d\n", scn, READ_ONCE(q[40]));
	rearm();
	r = krealloc(q, 256, GFP_KERNEL);
	if (!r) {
		kfree(q);
		return;
	}
	show_ptr(scn, "grown", r, 256, kmalloc_cache_name(256));
	pr_info("%s result grow_same_addr=%d\n", scn, untagged(r) == untagged(q));
	predict(scn, "report", "report");
	access_mark(scn, "read", q);
	pr_info("%s value=%d\n", scn, READ_ONCE(q[0]));
	kfree(r);
}

/*
 * Two pointers to the same byte with different tags compare unequal: the
 * cover letter's "Testing" concern about pointer comparisons.
 */
/*
 * Two pointers with the same tag: in the ptrcmp kernel (lab 8) this
 * comparison calls __ptrcmp_check() too, which records nothing for it.
 */
static noinline int lab_ptr_same_tag(const char *a, const char *b)
{
	return a < b;
}

static void lab_ptr_compare(const char *scn)
{
	char *p = kmalloc(64, GFP_KERNEL), *q, *r;

	if (!p)
		return;
	q = kasan_reset_tag(p);
	r = p + 8;
	HIDE(r);
	predict(scn, "unequal", "equal");
	pr_info("%s result p=%016lx q=%016lx equal=%d untagged_equal=%d diff=%ld\n",
		scn, (unsigned long)p, (unsigned long)q, p == q, untagged(p) == untagged(q), (long)(q - p));
	pr_info("%s result same_tag_less=%d\n", scn, lab_ptr_same_tag(p, r));
	kfree(p);
}

/*
 * Not a bug: the slab fast path's cost in this mode (`make bench`).
 * kmalloc/kfree pairs of mixed sizes, timed with ktime_get_ns().
 */
static void lab_slab_bench(const char *scn)
{
	static const size_t sizes[] = { 32, 64, 128, 256, 512, 1024 };
	const unsigned int pairs = 200000;
	unsigned int i;
	u64 t0, t1;
	void *p;

	t0 = ktime_get_ns();
	for (i = 0; i < pairs; i++) {
		p = kmalloc(sizes[i % ARRAY_SIZE(sizes)], GFP_KERNEL);
		HIDE(p);
		kfree(p);
	}
	t1 = ktime_get_ns();
	pr_info("%s result pairs=%u ns_per_pair=%llu\n", scn, pairs,
		div_u64(t1 - t0, pairs));
}

/*
 * A stale pointer kept in a struct field: one function stores it, another
 * loads it back and reads through it after the object was freed.  Its
 * way from kmalloc() to the bad read goes through memory (lab 7:
 * kasan-why follows it; exercise 7.3 asks for the store and the load).
 */
struct lab_holder {
	long id;
	char *buf;
};

static noinline void lab_holder_set(struct lab_holder *h, char *p)
{
	WRITE_ONCE(h->buf, p);
}

static noinline int lab_holder_peek(const char *scn, struct lab_holder *h)
{
	char *p = READ_ONCE(h->buf);

	access_mark(scn, "read", p);
	return READ_ONCE(p[0]);
}

static void lab_uaf_field(const char *scn)
{
	struct lab_holder *h = kzalloc(sizeof(*h), GFP_KERNEL);
	char *p;

	if (!h)
		return;
	p = kmalloc(128, GFP_KERNEL);
	if (!p)
		goto out;
	show_ptr(scn, "p", p, 128, kmalloc_cache_name(128));
	lab_holder_set(h, p);
	kfree(p);
	predict(scn, "report", "report");
	pr_info("%s value=%d\n", scn, lab_holder_peek(scn, h));
out:
	kfree(h);
}

static const struct lab_scenario scenarios[] = {
	{ "tags", lab_tags, "kmalloc 16 B..4 KiB and a private cache: tag, shadow" },
	{ "ctor-tag", lab_ctor_tag, "cache with a constructor keeps its tags" },
	{ "oob-right", lab_oob_right, "write 1 byte past a 128-byte object" },
	{ "oob-neighbour", lab_oob_neighbour, "write 1 byte into the adjacent object" },
	{ "oob-history", lab_oob_history, "write into a neighbour whose slot once had our tag" },
	{ "oob-in-granule", lab_oob_in_granule, "kmalloc(123), read byte 125" },
	{ "uaf", lab_uaf, "read after kfree" },
	{ "uaf-realloc", lab_uaf_realloc, "use-after-free after the slot is reused" },
	{ "uaf-field", lab_uaf_field, "read after kfree through a pointer kept in a struct" },
	{ "double-free", lab_double_free, "kfree twice" },
	{ "invalid-free", lab_invalid_free, "kfree(p + 1)" },
	{ "match-all", lab_match_all, "read freed memory through a 0xff pointer" },
	{ "page-tag", lab_page_tag, "alloc_pages tag, read past the page" },
	{ "collision", lab_collision, "how often a reused slot gets the same tag" },
	{ "krealloc", lab_krealloc, "shrink and grow with krealloc, stale use" },
	{ "ptr-compare", lab_ptr_compare, "same memory, different tags, ==" },
	{ "slab-bench", lab_slab_bench, "benchmark: ns per kmalloc/kfree pair" },
};

static ssize_t lab_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	const struct lab_scenario *s = file->private_data;

	pr_info("%s begin mode=%s\n", s->name, LAB_MODE);
	s->fn(s->name);
	rearm();
	pr_info("%s end\n", s->name);
	return count;
}

/* Reading a scenario's file says what it does and how to run it. */
static ssize_t lab_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	const struct lab_scenario *s = file->private_data;
	char msg[160];
	int len;

	len = scnprintf(msg, sizeof(msg), "%s: %s\nrun it: echo 1 > %s%s\n",
			s->name, s->help, LAB_DEBUGFS, s->name);
	return simple_read_from_buffer(buf, count, ppos, msg, len);
}

static const struct file_operations lab_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = lab_read,
	.write = lab_write,
	.llseek = noop_llseek,
};

/* This module's scenarios, then those that other modules add. */
static struct {
	const struct lab_scenario *s;
	size_t n;
} groups[MAX_GROUPS] = { { scenarios, ARRAY_SIZE(scenarios) } };
static size_t ngroups = 1;

static int list_show(struct seq_file *m, void *v)
{
	size_t g, i;

	seq_printf(m, "# run one: echo 1 > %sNAME (its report: dmesg)\n",
		   LAB_DEBUGFS);
	for (g = 0; g < ngroups; g++)
		for (i = 0; i < groups[g].n; i++)
			seq_printf(m, "%-16s %s\n", groups[g].s[i].name,
				   groups[g].s[i].help);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(list);

static struct dentry *lab_dir;

static void add_files(const struct lab_scenario *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		debugfs_create_file(s[i].name, 0600, lab_dir, (void *)&s[i],
				    &lab_fops);
}

/*
 * Add scenarios from another module (kasan_student.ko, kasan_mystery.ko):
 * each gets its file in /sys/kernel/debug/kasan_lab/ like ours.  Those
 * modules have no exit function, so @s stays valid while the files exist.
 */
int kasan_lab_add_scenarios(const struct lab_scenario *s, size_t n)
{
	if (ngroups == MAX_GROUPS)
		return -ENOSPC;
	groups[ngroups].s = s;
	groups[ngroups++].n = n;
	add_files(s, n);
	pr_info("added scenarios=%zu\n", n);
	return 0;
}
EXPORT_SYMBOL_GPL(kasan_lab_add_scenarios);

/*
 * The run's seed (vm/qemu.py: run_seed(); the init passes kt_seed= from the
 * command line).  sw-tags draws from a per-CPU generator seeded with the
 * cycle counter at boot (6.1 mm/kasan/sw_tags.c, kasan_init_sw_tags());
 * hw-tags draws with MTE's IRG instruction, which QEMU implements as an
 * LFSR that 6.1 seeds from the same counter (arch/arm64/kernel/mte.c,
 * mte_cpu_setup()).  Under QEMU's -icount the counter is an instruction
 * count, the same on every boot.  So that the seed changes the tags, take
 * (seed mod 65536) draws before any scenario: each kmalloc() of a cache
 * without a constructor draws one tag (6.1 mm/kasan/common.c, assign_tag()).
 */
static unsigned int seed;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "advance the tag generator by seed % 65536 draws");

static void seed_tags(void)
{
	unsigned int n = alloc_free(8, TAG_BASED ? seed % 65536 : 0);

	pr_info("seed=%u tag draws=%u\n", seed, n);
}

static int __init kasan_lab_init(void)
{
	seed_tags();
	lab_dir = debugfs_create_dir("kasan_lab", NULL);
	debugfs_create_file("scenarios", 0444, lab_dir, NULL, &list_fops);
	add_files(scenarios, ARRAY_SIZE(scenarios));
	pr_info("loaded mode=%s granule=%lu scenarios=%zu\n", LAB_MODE, GRANULE,
		ARRAY_SIZE(scenarios));
	return 0;
}

static void __exit kasan_lab_exit(void)
{
	debugfs_remove_recursive(lab_dir);
}

module_init(kasan_lab_init);
module_exit(kasan_lab_exit);
MODULE_DESCRIPTION("KASAN tag-based mode lab scenarios (kasan-tags)");
MODULE_LICENSE("GPL");
