#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make fixtures`: capture the logs the offline tests read.

    python3 -m tests.fixtures          boot swtags, generic, hwtags once each (KASAN
                                       KUnit suite + every lab scenario) and
                                       x86-generic (the suite), and store the
                                       serial logs in gdb-scripts/tests/fixtures/
    python3 -m tests.fixtures labs     store what the last `make grade` captured
                                       for each graded step in its lab's runs/
    python3 -m tests.fixtures labs 6   the same for one lab (make fixtures N=6)
    python3 -m tests.fixtures forms    from those serial logs, the input forms
                                       kasan-decode reads (no boot): see FORMS
    python3 -m tests.fixtures boot V   only variant V's log (e.g. x86-generic,
                                       the x86_64 generic-KASAN KUnit log)

Everything is xz-compressed, with this machine's cache and checkout paths
replaced by <cache> and <repo>.  The tests then parse real reports and
real gdb sessions of this project's own kernels, not hand-written ones.
"""

import lzma
import os
import random
import re
import subprocess
import sys
import tempfile

import vm
from labs import scenarios
from labs.grade import output_path

REPO = vm.REPO

DEST = os.path.join(REPO, "gdb-scripts", "tests", "fixtures")
GRADE = os.path.join(REPO, "build", "grade")
# What a check reads: the serial log (or a host step's output), the gdb
# transcript; lab 4's table step reads the table.json its host step wrote;
# a step with a control also keeps the control's serial log (lab 5's
# predictions compare with it).
KINDS = ("serial", "gdb")


def scrub(text):
    """No machine paths in the repository: <cache>/..., <repo>/..."""
    if text.startswith("# kt boot:"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return text.replace(vm.cache_root(), "<cache>").replace(REPO, "<repo>")


def store_labs(only=None):
    """only: a lab number ("6" or "06"): store that lab's runs, leave the others'."""
    from labs import lab
    n = 0
    for x in lab.load_all():
        if only and x.folder[:2] != only.zfill(2):
            continue
        # The exercises' steps, and the runs their checks read (ex-*).
        graded_by_exercise = {ex["step"] for ex in x.exercises} | {
            s["name"] for s in x.steps if s["name"].startswith("ex-")}
        # and the steps the pictures draw (any tree draws them from runs/)
        from labs.grade import picture_steps
        graded_by_exercise |= set(picture_steps(x))
        for step in x.steps:
            if not step["checks"] and step["name"] not in graded_by_exercise:
                continue
            names = [(k, output_path(x.folder, step["name"], k)) for k in KINDS]
            if step.get("control"):
                names.append(("control", output_path(x.folder, step["name"], "control")))
            if step["name"] == "table" and "host" in step:  # a table step's output: table.json
                names = [("json", os.path.join(GRADE, x.folder, "table.json"))]
            for kind, src in names:
                if not os.path.exists(src):
                    if kind == "serial" or kind == "json":
                        print("fixtures: no %s (run `make grade N=%d`)" % (src, x.number))
                    continue
                out = x.path("runs", "%s.%s.xz" % (step["name"], kind))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with lzma.open(out, "wt", preset=9) as f:
                    f.write(scrub(open(src, errors="replace").read()))
                n += 1
    print("fixtures: %d files in labs/*/runs/" % n)


# ------------------------------------------------ the forms kasan-decode reads

FORMS = os.path.join(DEST, "forms")
# Each form of gdb-scripts/tests/fixtures/forms/, and how it is made from
# clean.log (real serial lines of the swtags log).  "dmesg" forms are the
# real output of this machine's util-linux dmesg -F; the others follow the
# formats named, and say so.
FORM_DOC = {
    "clean": "real serial lines: the swtags boot head, lab scenarios uaf, oob-right, "
             "double-free, page-tag and the first two KUnit reports",
    "dmesg": "util-linux `dmesg -F` of clean.log given as <3> (KERN_ERR) records",
    "dmesg-T": "the same with -T (wall-clock times)",
    "dmesg-x": "the same with -x (facility and level)",
    "dmesg-iso": "the same with --time-format=iso",
    "dmesg-color": "the same with --color=always (ANSI colour)",
    "journalctl-k": "made here in journalctl -k's short format (date, host, 'kernel:'), "
                    "the printk time stripped as journald does",
    "kmsg": "made here as raw /dev/kmsg records 'level,seq,usec,flags;message' "
            "(6.1 Documentation/ABI/testing/dev-kmsg)",
    "serial-noise": "clean.log after a NUL run, UART garbage and a UTF-16 fragment, with "
                    "junk bytes inside the tag lines, shadow rows and frames",
    "two-boots": "the generic log's head and uaf scenario, then the swtags log's head "
                 "and uaf scenario: one file, two kernels",
    "smp-callers": "the first two KUnit reports (tasks 19 and 20), each line given its "
                   "printk caller id [T19]/[T20], interleaved as two CPUs print",
    "smp-no-callers": "the same interleaving without caller ids",
}


def _segment(lines, name):
    """The lines of a lab scenario, begin to end."""
    b = next(i for i, ln in enumerate(lines) if "kasan_lab: %s begin" % name in ln)
    e = next(i for i, ln in enumerate(lines) if "kasan_lab: %s end" % name in ln)
    return lines[b:e + 1]


def _head(lines):
    """The boot lines before the first report or KUnit output."""
    return lines[:next(i for i, ln in enumerate(lines) if "KTAP" in ln or "====" in ln)]


def _kunit_reports(lines, n):
    """The first `n` KASAN reports (separator to separator) of a log."""
    out, i = [], 0
    while len(out) < n:
        b = next(j for j in range(i, len(lines)) if lines[j].endswith("=" * 66))
        e = next(j for j in range(b + 1, len(lines)) if lines[j].endswith("=" * 66))
        out.append(lines[b:e + 1])
        i = e + 1
    return out


def _interleave(a, b, rng):
    """Merge two lists, each keeping its order, at random points."""
    out, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and rng.random() < 0.5):
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out


def _with_caller(line, caller):
    m = re.match(r"(\[\s*\d+\.\d+\])(.*)", line)
    return "%s[%6s]%s" % (m.group(1), caller, m.group(2)) if m else line


def _dmesg(records, *opts):
    with tempfile.NamedTemporaryFile("w", suffix=".kmsg") as f:
        f.write("".join("<3>%s\n" % ln for ln in records))
        f.flush()
        return subprocess.run(["dmesg", "-F", f.name, *opts], check=True,
                              capture_output=True, text=True, env={"TZ": "UTC"}).stdout


def _noisy(lines, rng):
    junk = b"\x00" * 40 + bytes(rng.randrange(0x80, 0x100) for _ in range(64)) + \
        "KT boot\n".encode("utf-16-le") + b"\n"
    out = [junk]
    for ln in lines:
        raw = ln.encode()
        if re.search(r"tag: \[|^\S+\] [ >][0-9a-f]{16}: | \w+\+0x", ln):
            cut = rng.randrange(len(raw) // 2, len(raw))
            if raw[cut:cut + 1] == b" ":
                raw = raw[:cut] + b"\xff\x00\xfe" + raw[cut:]
            else:
                raw += b"\x1b[0m\xc3"
        out.append(raw + b"\n")
    return b"".join(out)


def forms():
    rng = random.Random(15)
    sw = lzma.open(os.path.join(DEST, "swtags.log.xz"), "rt").read().splitlines()
    gen = lzma.open(os.path.join(DEST, "generic.log.xz"), "rt").read().splitlines()
    k1, k2 = _kunit_reports(sw, 2)
    clean = _head(sw) + k1 + k2
    for name in ("uaf", "oob-right", "double-free", "page-tag"):
        clean += _segment(sw, name)
    msgs = [re.sub(r"^\[\s*\d+\.\d+\] ?", "", ln) for ln in clean]
    usec = [int(float(re.match(r"\[\s*([\d.]+)\]", ln).group(1)) * 1e6) for ln in clean]
    out = {
        "clean": "\n".join(clean) + "\n",
        "dmesg": _dmesg(clean),
        "dmesg-T": _dmesg(clean, "-T"),
        "dmesg-x": _dmesg(clean, "-x"),
        "dmesg-iso": _dmesg(clean, "--time-format=iso"),
        "dmesg-color": _dmesg(clean, "--color=always"),
        "journalctl-k": "".join("Dec 04 04:00:%02d kt-host kernel: %s\n" % (u // 10 ** 6 % 60, m)
                                for u, m in zip(usec, msgs)),
        "kmsg": "".join("3,%d,%d,-;%s\n" % (i, u, m)
                        for i, (u, m) in enumerate(zip(usec, msgs))),
        "serial-noise": _noisy(clean, rng),
        "two-boots": "\n".join(_head(gen) + _segment(gen, "uaf") + _head(sw)
                               + _segment(sw, "uaf")) + "\n",
        "smp-callers": "\n".join(_interleave(
            [_with_caller(ln, "T19") for ln in k1],
            [_with_caller(ln, "T20") for ln in k2], rng)) + "\n",
        "smp-no-callers": "\n".join(_interleave(k1, k2, random.Random(15))) + "\n",
    }
    os.makedirs(FORMS, exist_ok=True)
    for name, text in out.items():
        data = text if isinstance(text, bytes) else text.encode()
        with lzma.open(os.path.join(FORMS, name + ".log.xz"), "wb", preset=9) as f:
            f.write(data)
    with open(os.path.join(FORMS, "README"), "w") as f:
        f.write("The input forms kasan-decode reads (`python3 -m tests.fixtures forms`):\n\n")
        f.writelines("%s.log.xz\n    %s\n" % (k, v) for k, v in FORM_DOC.items())
    print("fixtures: %d forms in %s" % (len(out), os.path.relpath(FORMS, REPO)))


# (variant, what its boot runs): the arm64 kernels run the KASAN KUnit suite
# and every lab scenario; x86-generic (no lab module there) the suite only.
BOOTS = (("swtags", True), ("generic", True), ("hwtags", True), ("x86-generic", False))


def main(only=None):
    os.makedirs(DEST, exist_ok=True)
    names = ",".join(scenarios.load_expected())
    for variant, labs in BOOTS:
        if only and variant != only:
            continue
        bdir = vm.build_kernel(variant)
        b = vm.boot(bdir, vm.scenario_cmdline(names if labs else ""), 900)
        if not b.ok:
            print(b.tail())
            raise vm.KtError("%s boot failed (%s)" % (variant, b.status))
        # Drop the "# kt boot:" header line: it names this machine's paths.
        text = b.text.split("\n", 1)[1]
        out = os.path.join(DEST, "%s.log.xz" % variant)
        with lzma.open(out, "wt", preset=9) as f:
            f.write(text)
        print("fixtures: %s (%d lines)" % (os.path.relpath(out, REPO), text.count("\n")))


if __name__ == "__main__":
    try:
        if sys.argv[1:2] == ["labs"] and len(sys.argv) <= 3:
            store_labs(sys.argv[2] if len(sys.argv) == 3 else None)
        elif sys.argv[1:] == ["forms"]:
            forms()
        elif sys.argv[1:2] == ["boot"] and len(sys.argv) == 3:
            main(sys.argv[2])
        else:
            main()
    except vm.KtError as e:
        sys.exit("kasan-tags: error: %s" % e)
