# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What labs 7 and 9 read of a replay's gdb transcript at a report: the
`object` section (kasan-object: the object, its cache and the stacks read
back from the stack ring and depot), the `why` section (kasan-why's text:
the instruction it started from and came back to, its verdict) and the
`json` section (kasan-why --json)."""

import json
import re

from kasan import objinfo

FROM = re.compile(r"from instruction (\d+)")
BACK = re.compile(r"^back at instruction (\d+)")


def why_json(run):
    """kasan-why --json's object, or {}."""
    text = "\n".join(run.sections().get("json", []))
    try:
        return json.loads(text[text.index("{"):])
    except ValueError:
        return {}


def why_verdict(run):
    """(verdict, start, back, json) of a kasan-why run."""
    lines = run.sections().get("why", [])
    verdict = next((ln[len("verdict: "):] for ln in lines if ln.startswith("verdict: ")), "")
    start = next((int(m.group(1)) for m in map(FROM.search, lines) if m), None)
    back = next((int(m.group(1)) for m in map(BACK.match, lines) if m), None)
    return verdict, start, back, why_json(run)


def object_checks(run, r, stacks=("alloc", "free")):
    """kasan-object at the report R: the report's object and cache, and
    the STACKS it printed read back from the stack ring and depot."""
    lines = run.sections().get("object", [])
    head = lines[0] if lines else ""
    st = objinfo.printed_stacks(lines)
    res = [("kasan-object names the report's cache and object (%s, %s)" % (
        r and r["cache"], r and r["object"]),
        r is not None and ("cache %s," % r["cache"]) in head and
        ("object 0x%s " % r["object"]) in head, head or "no kasan-object line")]
    for k in stacks:
        name = {"alloc": "allocation", "free": "free"}[k]
        want = r[k + "_stack"] if r else []
        res.append(("its %s stack is the report's (%d frames)" % (name, len(want)),
                    objinfo.same_stack(st.get(k, []), want),
                    "kasan-object: %s" % (st.get(k, [])[:8] or "none")))
    return res
