# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 8's known mistakes, planted in the solution (grader-only: the edits
quote it and the lab's classification); labs/mistakes.py says what a
plant is."""

import re

from labs.mistakes import alter_once

CLASSIFY = "student/classify.toml"
STUDENT_C = "labs/module/kasan_student.c"
STUB = '\n# TODO 8.1: the kind of each site\n# STUB: kind = ""\nkind = '
# The solution's site in the stored run: a, tagged 33, against its untagged copy.
SITE = r"^ptrcmp site count=1 tags=33,ff at student_ptrcmp\+0x5c/0xe2c \[kasan_student\]\n"
RESULT = "kasan_lab: student-ptrcmp result a_below_u=1"
OBJECT = 0xFFFFFF8000B4C400   # where the planted kmalloc(64)s are (kmalloc-128)


def kind(function, lab, theirs):
    return (CLASSIFY, 'function = "%s"%s"%s"' % (function, STUB, lab),
            'function = "%s"%s"%s"' % (function, STUB, theirs))


def nothing_recorded(result):
    """The run of a module whose comparison the runtime does not record:
    no site in student_ptrcmp, one site fewer, and its own result line."""
    def alter(text):
        text = alter_once(SITE, "")(text)
        text = alter_once(r"^ptrcmp sites=(\d+) ", lambda m: "ptrcmp sites=%d " % (int(m.group(1)) - 1))(text)
        return alter_once(re.escape(RESULT), "kasan_lab: student-ptrcmp result " + result)(text)
    return alter


def ptr(tag, offset=0):
    return "%016x" % (((OBJECT + offset) & ~(0xFF << 56)) | tag << 56)


# The solution's comparison, and the student's instead.
COMPARED = """\tu = kasan_reset_tag(a);
\tHIDE(u);
\tpr_info("%s result a_below_u=%d\\n", scn, a < u);
"""
SAME_OBJECT = """\tu = a + 8;
\tHIDE(u);
\tpr_info("%s result a=%016lx u=%016lx a_below_u=%d\\n", scn,
\t\t(unsigned long)a, (unsigned long)u, a < u);
"""
TAGS_COMPARED = """\tu = kasan_reset_tag(a);
\tHIDE(u);
\tpr_info("%s result a=%016lx u=%016lx tags_differ=%d\\n", scn, (unsigned long)a,
\t\t(unsigned long)u, ((unsigned long)a >> 56) != ((unsigned long)u >> 56));
"""
SOLUTION = """\tchar *a = kmalloc(64, GFP_KERNEL), *u;

\tif (!a)
\t\treturn;
""" + COMPARED + "\tkfree(a);\n"
BOTH_UNTAGGED = """\tchar *a = kmalloc(64, GFP_KERNEL), *b = kmalloc(64, GFP_KERNEL), *ua, *ub;

\tif (a && b) {
\t\t/* compare the addresses, not the tags: untag both first */
\t\tua = kasan_reset_tag(a);
\t\tub = kasan_reset_tag(b);
\t\tHIDE(ua);
\t\tHIDE(ub);
\t\tpr_info("%s result a=%016lx b=%016lx a_below_b=%d\\n", scn,
\t\t\t(unsigned long)ua, (unsigned long)ub, ua < ub);
\t}
\tkfree(b);
\tkfree(a);
"""
HEAD = "static void student_ptrcmp(const char *scn)\n{\n"
HELPER = """static noinline bool student_below(const char *a, const char *b)
{
\treturn a < b;
}

"""

PLANTS = [
    # -- 8.1: the kinds of three sites -----------------------------------
    {"mistake": "ptrcmp-identity-by-operator",
     "edits": [kind("kmalloc_uaf2", "aliased", "identity")]},
    {"mistake": "ptrcmp-same-allocation-misread",
     "edits": [kind("kset_find_obj", "identity", "same-allocation")]},
    {"mistake": "ptrcmp-fixed-address-misread",
     "edits": [kind("__request_region", "identity", "fixed-address")]},
    {"mistake": "ptrcmp-aliased-by-tags",
     "edits": [kind("kset_find_obj", "identity", "aliased")]},
    # -- 8.2: a comparison the runtime records in student_ptrcmp ---------
    {"mistake": "ptrcmp-compared-in-a-helper",
     "edits": [(STUDENT_C, HEAD, HELPER + HEAD),
               (STUDENT_C, "scn, a < u);", "scn, student_below(a, u));")],
     "runs": {"ex-student": {"serial": alter_once(
         SITE, "ptrcmp site count=1 tags=33,ff at student_below+0x18/0x30 [kasan_student]\n")}}},
    {"mistake": "ptrcmp-one-object-compared",
     "edits": [(STUDENT_C, COMPARED, SAME_OBJECT)],
     "runs": {"ex-student": {"serial": nothing_recorded(
         "a=%s u=%s a_below_u=1" % (ptr(0x33), ptr(0x33, 8)))}}},
    {"mistake": "ptrcmp-both-untagged",
     "edits": [(STUDENT_C, SOLUTION, BOTH_UNTAGGED)],
     "runs": {"ex-student": {"serial": nothing_recorded(
         "a=%s b=%s a_below_b=1" % (ptr(0xFF), ptr(0xFF, 0x80)))}}},
    {"mistake": "ptrcmp-tags-compared-not-pointers",
     "edits": [(STUDENT_C, COMPARED, TAGS_COMPARED)],
     "runs": {"ex-student": {"serial": nothing_recorded(
         "a=%s u=%s tags_differ=1" % (ptr(0x33), ptr(0xFF)))}}},
]
