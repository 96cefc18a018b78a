// SPDX-License-Identifier: GPL-2.0-only
// SPDX-FileCopyrightText: 2026 The kasan-tags authors
/* What the ptrcmp plugin must instrument (want_*) and leave alone (skip_*). */
extern char __start_rodata[];

int want_less(char *a, char *b) { return a < b; }
int want_equal(char *a, char *b) { return a == b; }
int want_fixed_address(char *a) { return a >= __start_rodata; }
long want_subtraction(char *a, char *b) { return a - b; }
int skip_null(char *a) { return a == 0; }
int skip_error_pointer(char *a) { return a == (char *)-12; }
int skip_is_err(char *a) { return (unsigned long)a >= (unsigned long)-4095; }
long skip_integers(long a, long b) { return a < b; }
__attribute__((no_sanitize("kernel-hwaddress")))
int skip_not_instrumented(char *a, char *b) { return a < b; }
