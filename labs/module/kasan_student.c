// SPDX-License-Identifier: GPL-2.0-only
/*
 * kasan_student: your own scenarios, lab 4's exercises 4.1 and 4.2 and lab
 * 8's exercise 8.2.
 *
 * Run them with `make run SCENARIO=student-generic-only VARIANT=generic`
 * (and VARIANT=swtags); `make grade N=4` boots both kernels and reads the
 * reports with kasan-decode.  Registered with kasan_lab.ko, like the lab's
 * own scenarios in kasan_lab.c, whose style (one bug per function, HIDE()
 * on the pointer before the bad access) you should follow.
 */

#define pr_fmt(fmt) "kasan_lab: " fmt

#include <linux/kasan.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "kasan_lab.h"

/*
 * Exercise 4.1: a bug that generic KASAN reports and software tag-based
 * KASAN does not -- not one of the lab's (oob-in-granule).
 */
static void student_generic_only(const char *scn)
{
	/* TODO 4.1: a bug generic KASAN reports and sw-tags misses */
	/*
	 * 6.1: generic KASAN instruments globals (asan-globals=1 in
	 * scripts/Makefile.kasan) and gives them redzones; software
	 * tag-based KASAN "supports slab, page_alloc, vmalloc, and stack
	 * memory" (Documentation/dev-tools/kasan.rst), so a global keeps
	 * the native tag 0xff (KASAN_TAG_KERNEL), which is never checked.
	 */
	static char table[10];
	size_t i = sizeof(table);

	HIDE(i);
	pr_info("%s value=%d\n", scn, READ_ONCE(table[i]));
	/* END TODO */
}

/*
 * Exercise 4.2: a bug that software tag-based KASAN reports and generic
 * KASAN does not -- not one of the lab's (uaf-realloc).
 */
static void student_tags_only(const char *scn)
{
	/* TODO 4.2: a bug sw-tags reports and generic misses */
	/*
	 * Reach another live object through this one's pointer: for generic
	 * KASAN the bytes are valid memory; in tag-based mode the pointer
	 * keeps a's tag, and b is picked so that its tag differs.
	 */
	char *a = kmalloc(256, GFP_KERNEL), *b = NULL, *p;
	int tries;

	for (tries = 0; a && tries < 16; tries++) {
		b = kmalloc(256, GFP_KERNEL);
		if (!b || ((unsigned long)a >> 56) != ((unsigned long)b >> 56))
			break;
		kfree(b);
		b = NULL;
	}
	if (a && b) {
		p = a + ((unsigned long)kasan_reset_tag(b) -
			 (unsigned long)kasan_reset_tag(a));
		HIDE(p);
		pr_info("%s value=%d\n", scn, READ_ONCE(p[8]));
	}
	kfree(b);
	kfree(a);
	/* END TODO */
}

/*
 * Exercise 8.2: a pointer comparison (or subtraction) of two pointers with
 * different tags, which the ptrcmp kernel's runtime must record (lab 8).
 */
static void student_ptrcmp(const char *scn)
{
	/* TODO 8.2: compare two kernel pointers that carry different tags */
	/* STUB: pr_info("%s result nothing compared\n", scn); */
	/*
	 * The same memory through two tags: the object's pointer and its
	 * untagged copy (tag 0xff) -- the "aliased" kind of lab 8.
	 */
	char *a = kmalloc(64, GFP_KERNEL), *u;

	if (!a)
		return;
	u = kasan_reset_tag(a);
	HIDE(u);
	pr_info("%s result a_below_u=%d\n", scn, a < u);
	kfree(a);
	/* END TODO */
}

static const struct lab_scenario student_scenarios[] = {
	{ "student-generic-only", student_generic_only,
	  "exercise 4.1: reported by generic, missed by sw-tags" },
	{ "student-tags-only", student_tags_only,
	  "exercise 4.2: reported by sw-tags, missed by generic" },
	{ "student-ptrcmp", student_ptrcmp,
	  "exercise 8.2: a comparison of pointers with different tags" },
};

static int __init kasan_student_init(void)
{
	return kasan_lab_add_scenarios(student_scenarios,
				       ARRAY_SIZE(student_scenarios));
}

/* No exit function: the scenarios must outlive their debugfs files. */
module_init(kasan_student_init);
MODULE_DESCRIPTION("KASAN lab 4 exercises: the student's scenarios (kasan-tags)");
MODULE_LICENSE("GPL");
