# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A scenario run's serial log: the init's KT-SCENARIO-BEGIN/END markers
split it, and the lab module's "kasan_lab: <scenario> <event> key=value"
lines are its events (labs/module/kasan_lab.c prints them)."""
import math
import re

from kasan import report as kreport

LAB_LINE = re.compile(r"kasan_lab: (?P<scn>[\w-]+) (?P<event>[\w-]+)(?P<rest>.*)$")
KV = re.compile(r"(\w+)=(\S+)")


def segments(text):
    """{scenario: [lines]} between the init's BEGIN/END markers."""
    out, cur = {}, None
    for line in kreport.split_lines(text):
        body = kreport.clean(line)
        if body.startswith("KT-SCENARIO-BEGIN "):
            cur = body.split()[1]
            out[cur] = []
        elif body.startswith("KT-SCENARIO-END "):
            cur = None
        elif cur is not None:
            out[cur].append(line)
    return out


def events(lines, scn):
    """The module's own lines of one scenario: [(event, {key: value})]."""
    ev = []
    for line in lines:
        m = LAB_LINE.search(kreport.clean(line))
        if m and m.group("scn") == scn:
            ev.append((m.group("event"), dict(KV.findall(m.group("rest")))))
    return ev


def binomial_bounds(n, p, sigmas=5.0):
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    return max(0, math.floor(mean - sigmas * sd)), math.ceil(mean + sigmas * sd)
