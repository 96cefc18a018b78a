# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A seeded mutator over real logs: kasan-decode never crashes or hangs, every
report a mutation leaves intact decodes as before, and no report it returns
is an invented mix (each equals an original or says what went wrong).

The mutations are what logs go through on their way to a developer:
truncation, line noise, two CPUs printing at once, another encoding,
a tool's line prefix, colour.  Bounded: ITERATIONS per seed, BUDGET seconds
in all; a failure prints the seed and mutation that reproduce it."""
import io
import lzma
import os
import random
import time

import pytest

from kasan import decode, report

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
ITERATIONS = 40
BUDGET = 30.0
WHERE = ("line", "caller")
PREFIXES = {
    "kmsg": lambda i, ln: "3,%d,%d,-;%s" % (i, i * 1000, ln),
    "dmesg-x": lambda i, ln: "kern  :err   : " + ln,
    "journal": lambda i, ln: "Dec 04 04:00:00 host kernel: " + ln,
    "iso": lambda i, ln: "2026-12-04T04:00:00,000000+00:00 " + ln,
}


def fields(r):
    return {k: v for k, v in r.items() if k not in WHERE}


def decode_bytes(data):
    return list(report.iter_reports(decode.lines_of(io.BytesIO(data))))


def spans(lines, reports):
    """(first, last) line index of each report: separator to separator."""
    out = []
    for r in reports:
        bug = r["line"] - 1
        start = bug - 1 if bug and report.SEP.match(report.clean(lines[bug - 1])) else bug
        end = next((j for j in range(bug + 1, len(lines))
                    if report.SEP.match(report.clean(lines[j]))), len(lines) - 1)
        out.append((start, end))
    return out


# Each mutation: (lines, spans, rng) -> (bytes, indices of reports left intact)

def truncate(lines, sp, rng):
    cut = rng.randrange(len(lines))
    text = "\n".join(lines[:cut]) + "\n" + lines[cut][:rng.randrange(len(lines[cut]) + 1)]
    return text.encode(), {i for i, (_, e) in enumerate(sp) if e < cut}


def noise(lines, sp, rng):
    out = []
    for ln in lines:
        if rng.random() < 0.1:
            out.append(bytes(rng.choice(b"\x00\x07\x1b\xff\xfe\x80\xc3") for _ in range(8)))
        raw = ln.encode()
        if rng.random() < 0.2 and b" " in raw:
            at = raw.index(b" ", rng.randrange(len(raw) - raw[::-1].index(b" ")))
            raw = raw[:at] + b"\xff\x00\x1b[0m" + raw[at:]
        out.append(raw)
    return b"\n".join(out) + b"\n", set(range(len(sp)))


def interleave(lines, sp, rng):
    if len(sp) < 2:
        return "\n".join(lines).encode(), set(range(len(sp)))
    i = rng.randrange(len(sp) - 1)
    (a0, a1), (b0, b1) = sp[i], sp[i + 1]
    a, b = lines[a0:a1 + 1], lines[b0:b1 + 1]
    mixed = []
    while a or b:
        src = a if a and (not b or rng.random() < 0.5) else b
        mixed.append(src.pop(0))
    text = lines[:a0] + mixed + lines[b1 + 1:]
    return "\n".join(text).encode(), set(range(len(sp))) - {i, i + 1}


def reencode(lines, sp, rng):
    how = rng.choice(("crlf", "utf-16-le", "latin-1-junk"))
    text = "\n".join(lines) + "\n"
    if how == "crlf":
        return text.replace("\n", "\r\n").encode(), set(range(len(sp)))
    if how == "utf-16-le":
        return b"\xff\xfe" + text.encode("utf-16-le"), set(range(len(sp)))
    return text.replace("\n", "\xe9\n").encode("latin-1"), set(range(len(sp)))


def prefix(lines, sp, rng):
    name = rng.choice(sorted(PREFIXES))
    return "\n".join(PREFIXES[name](i, ln) for i, ln in enumerate(lines)).encode(), \
        set(range(len(sp)))


def colour(lines, sp, rng):
    out = []
    for ln in lines:
        words = ln.split(" ")
        k = rng.randrange(len(words))
        words[k] = "\x1b[%dm%s\x1b[0m" % (rng.choice((1, 31, 32, 33)), words[k])
        out.append(" ".join(words))
    return "\n".join(out).encode(), set(range(len(sp)))


MUTATIONS = [truncate, noise, interleave, reencode, prefix, colour]


@pytest.fixture(scope="module")
def logs():
    out = {}
    for name in ("forms/clean", "generic"):
        with lzma.open(os.path.join(FIXTURES, name + ".log.xz"), "rt") as f:
            text = f.read()
        if name == "generic":       # the lab scenarios: every bug type once
            text = text[text.index("kasan_lab: tags begin"):]
        lines = text.splitlines()
        reps = report.parse_reports(text)
        out[name] = (lines, reps, spans(lines, reps))
    return out


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.__name__)
def test_mutation(logs, mutation):
    deadline = time.monotonic() + BUDGET / len(MUTATIONS)
    for name, (lines, reps, sp) in logs.items():
        originals = [fields(r) for r in reps]
        for seed in range(ITERATIONS):
            if time.monotonic() > deadline:
                return
            data, intact = mutation(lines, sp, random.Random(seed))
            where = "%s on %s, seed %d" % (mutation.__name__, name, seed)
            got = decode_bytes(data)          # must not raise
            got_fields = [fields(r) for r in got]
            for i in intact:
                assert originals[i] in got_fields, "%s: report %d lost or changed" % (where, i)
            for r in got:
                assert fields(r) in originals or r["truncated"] or r["interleaved"] or \
                    r["problems"], "%s: an invented report at line %d" % (where, r["line"])


def test_the_mutations_do_change_something(logs):
    """A mutator that changes nothing would pass every test above."""
    lines, reps, sp = logs["forms/clean"]
    plain = "\n".join(lines).encode()
    for m in MUTATIONS:
        assert m(lines, sp, random.Random(1))[0] != plain, m.__name__
    data, intact = truncate(lines, sp, random.Random(3))
    assert len(intact) < len(reps)
