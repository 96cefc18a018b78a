/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lab 9, exercise 9.2: the student's net/sched/sch_qfq.c (the reverted
 * tree's file with the student's labs/09-real-bug/student/fix.patch) is
 * built as student_qfq.ko, with this header included first (Kbuild).
 *
 * The kernel it loads into has its own QFQ built in, registered as "qfq":
 * two qdiscs cannot share a name (register_qdisc() returns -EEXIST), so the
 * student's build registers as "qfq-student", the kind the qfq-lmax
 * program asks for after its "student" step (vm/init/qfq_lmax.c).
 */
#ifndef QFQ_STUDENT_H
#define QFQ_STUDENT_H

#include <linux/string.h>
#include <net/pkt_sched.h>

static inline int student_register_qdisc(struct Qdisc_ops *ops)
{
	strscpy(ops->id, "qfq-student", sizeof(ops->id));
	return register_qdisc(ops);
}

/* the macro does not expand inside its own body: this is the real one */
#define register_qdisc(ops) student_register_qdisc(ops)

#endif /* QFQ_STUDENT_H */
