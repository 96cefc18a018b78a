# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 9's known mistakes, planted in the solution (grader-only: the edits quote
it); labs/mistakes.py says what a plant is."""

import lzma
import os
import re

from labs.mistakes import alter_once, answer_edit


def plant(mistake, key, right, wrong):
    """The mistake: the answer `key` of student/real-bug.toml made wrong."""
    return {"mistake": mistake, "edits": answer_edit("student/real-bug.toml", key, right, wrong)}


# Exercise 9.2: the solution's check in the else branch that both ways to
# set_change_agg pass, and a check on the new-class way only
FIX = "student/fix.patch"
# the context of the lmax branch in the reverted file, above and below it
ABOVE = " \telse\n \t\tweight = 1;\n \n"
BELOW = " \n \tinv_w = ONE_FP / weight;\n \tweight = ONE_FP / inv_w;\n"


def lmax_hunk(new_lines, body):
    """A hunk that rewrites the reverted file's 4-line lmax branch as BODY."""
    return "@@ -433,10 +433,%d @@\n" % new_lines + ABOVE + body + BELOW


RIGHT_FIX = lmax_hunk(17, """\
-\tif (tb[TCA_QFQ_LMAX])
+\tif (tb[TCA_QFQ_LMAX]) {
 \t\tlmax = nla_get_u32(tb[TCA_QFQ_LMAX]);
-\telse
+\t} else {
+\t\t/* MTU size is user controlled */
 \t\tlmax = psched_mtu(qdisc_dev(sch));
+\t\tif (lmax < QFQ_MIN_LMAX || lmax > QFQ_MAX_LMAX) {
+\t\t\tNL_SET_ERR_MSG_MOD(extack,
+\t\t\t\t\t   "MTU size out of bounds for qfq");
+\t\t\treturn -EINVAL;
+\t\t}
+\t}
""")
NEW_CLASS_ONLY = """@@ -473,6 +473,10 @@
 \t}
\x20
 \t/* create and init new class */
+\tif (lmax > QFQ_MAX_LMAX) {
+\t\tNL_SET_ERR_MSG_MOD(extack, "MTU size out of bounds for qfq");
+\t\treturn -EINVAL;
+\t}
 \tcl = kzalloc(sizeof(struct qfq_class), GFP_KERNEL);
 \tif (cl == NULL)
 \t\treturn -ENOBUFS;
"""
# a check of the explicit TCA_QFQ_LMAX, which the reproducer does not send
EXPLICIT_ONLY = lmax_hunk(13, """\
-\tif (tb[TCA_QFQ_LMAX])
+\tif (tb[TCA_QFQ_LMAX]) {
 \t\tlmax = nla_get_u32(tb[TCA_QFQ_LMAX]);
-\telse
+\t\tif (lmax > QFQ_MAX_LMAX)
+\t\t\treturn -EINVAL;
+\t} else {
 \t\tlmax = psched_mtu(qdisc_dev(sch));
+\t}
""")
# every class without TCA_QFQ_LMAX refused, whatever its lmax
EVERY_CLASS = lmax_hunk(12, """\
-\tif (tb[TCA_QFQ_LMAX])
+\tif (tb[TCA_QFQ_LMAX]) {
 \t\tlmax = nla_get_u32(tb[TCA_QFQ_LMAX]);
-\telse
-\t\tlmax = psched_mtu(qdisc_dev(sch));
+\t} else {
+\t\tNL_SET_ERR_MSG_MOD(extack, "MTU size out of bounds for qfq");
+\t\treturn -EINVAL;
+\t}
""")
CLASS = r'^(qfq-lmax: class dev=lo classid=1:%d weight=1 lmax=none) ret=%s msg="[^"]*"\n'
REFUSED = CLASS % (1, "-22")
MSG = "student_qfq: MTU size out of bounds for qfq"


def first_report(step):
    """The first KASAN report of a stored run of this lab, from its BUG line
    to its closing line of '='."""
    with lzma.open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs",
                                step + ".serial.xz"), "rt") as f:
        text = f.read()
    return re.search(r"^[^\n]*BUG: KASAN: .*?^[^\n]*={20,}\n", text, re.M | re.S).group(0)


def reported(report_step):
    """The reproducer's class accepted, and its datagram's read reported (the
    kernel's own report of it, REPORT_STEP's, as in crashes_again)."""
    def alter(text):
        text = alter_once(CLASS % (2, "-22"), lambda m: m.group(1) + ' ret=0 msg=""\n')(text)
        text = alter_once(r"^qfq-lmax: recv ret=-11 delivered=0$", "qfq-lmax: recv ret=15 delivered=1")(text)
        text = alter_once(r"^qfq-lmax: end class=-22$", "qfq-lmax: end class=0")(text)
        return alter_once(r"^(qfq-lmax: access send .*prio=0x10002.*\n)",
                          lambda m: m.group(1) + first_report(report_step))(text)
    return alter


def refused_at_1500(text):
    """Class 1:1 at MTU 1500 refused as well: its datagram dropped."""
    text = alter_once(CLASS % (1, "0"), lambda m: '%s ret=-22 msg="%s"\n' % (m.group(1), MSG))(text)
    return alter_once(r"^qfq-lmax: recv ret=15 delivered=1$", "qfq-lmax: recv ret=-11 delivered=0")(text)


def crashes_again(report_step):
    """The held-back run of the new-class-only fix, as the live run of the
    plant shows it (mistakes-live): the change of class 1:1 is accepted, and
    the datagram makes the read past the Qdisc -- here the kernel's own
    report of that read, the REPORT_STEP's, in place of the module's."""
    def alter(text):
        text = alter_once(REFUSED, lambda m: m.group(1) + ' ret=0 msg=""\n')(text)
        return alter_once(r"^(qfq-lmax: access send .*\n)(?![\s\S]*qfq-lmax: access send)",
                          lambda m: m.group(1) + first_report(report_step))(text)
    return alter


PLANTS = [
    # a frame of KASAN's reporting path
    plant("reporting-frame", "function", '"qfq_activate_agg"', '"kasan_report"'),
    # kzalloc_node()'s allocator function, not its caller
    plant("allocator-as-alloc-fn", "alloc_fn", '"qdisc_alloc"', '"__kmalloc_node"'),
    # sizeof(struct Qdisc) + priv_size, the granules with the pointer's tag
    plant("request-as-region", "object_size", "8192", "7904"),
    # the callee whose source line kasan-decode --vmlinux shows
    plant("inlined-callee", "function", '"qfq_activate_agg"', '"qfq_update_start"'),
    # 9.2: the check on the new-class path only: the held-back trigger changes
    # an existing class, which jumps past it
    {"mistake": "guards-one-path", "edits": [(FIX, RIGHT_FIX, NEW_CLASS_ONLY)],
     "runs": {"ex-fix-heldback": {"serial": crashes_again("report")},
              "ex-fix-heldback-generic": {"serial": crashes_again("generic")}}},
    # 9.2: the explicit lmax checked, the MTU's not: the reproducer crashes
    {"mistake": "check-misses-the-mtu", "edits": [(FIX, RIGHT_FIX, EXPLICIT_ONLY)],
     "runs": {"ex-fix": {"serial": reported("report")},
              "ex-fix-generic": {"serial": reported("generic")}}},
    # 9.2: every class without TCA_QFQ_LMAX refused, the usual one too
    {"mistake": "refuses-every-class", "edits": [(FIX, RIGHT_FIX, EVERY_CLASS)],
     "runs": {step: {"serial": refused_at_1500} for step in (
         "ex-fix", "ex-fix-generic", "ex-fix-heldback", "ex-fix-heldback-generic")}},
]
