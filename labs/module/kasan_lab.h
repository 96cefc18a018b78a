/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kasan_lab.ko offers the modules that add scenarios to it:
 * kasan_student.ko (the exercises of labs 4) and kasan_mystery.ko (the
 * report-forensics scenarios of lab 3).
 */
#ifndef KASAN_LAB_H
#define KASAN_LAB_H

#include <linux/compiler.h>
#include <linux/types.h>

/* Keep the compiler from proving an access out of bounds and dropping it. */
#define HIDE(p) OPTIMIZER_HIDE_VAR(p)

/* One scenario: /sys/kernel/debug/kasan_lab/<name> runs fn(name). */
struct lab_scenario {
	const char *name;
	void (*fn)(const char *scn);
	const char *help;
};

/* Add @n scenarios; they must stay valid as long as the module is loaded. */
int kasan_lab_add_scenarios(const struct lab_scenario *s, size_t n);

#endif
