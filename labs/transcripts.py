# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Where a lab step's outputs go, and the transcripts the pages include.

    build/grade/LAB/STEP.serial.log ...   a grading run's files (OUTPUTS)
    build/transcripts/LAB/STEP.txt        what `make transcripts` captured
    labs/LAB/transcripts/STEP.txt         the same, kept in the checkout
                                          (the site renders from them)

A transcript starts with '# ' lines: the command that produced it, the
kernel, the seed (transcript_header); its body is the part of the output
the step shows (shown_part), with this machine's paths replaced.
"""

import glob
import json
import os
import re
import shutil

import vm
from labs import lab as labdata
from vm import student_gdb

REPO = vm.REPO
TRANSCRIPTS = os.path.join(REPO, "build", "transcripts")
GRADE = os.path.join(REPO, "build", "grade")
# A grading run's files, build/grade/LAB/STEP<suffix>: this table is their
# one owner (the site, fixtures and checks ask output_path()).
OUTPUTS = {"serial": ".serial.log", "gdb": ".serial.gdb.txt", "control": ".control.serial.log",
           "gdb-file": ".gdb", "interactive": ".interactive.log"}


def output_path(lab, step, kind="serial"):
    """Where the grading run of LAB's STEP keeps its KIND (OUTPUTS)."""
    return os.path.join(GRADE, lab, step + OUTPUTS[kind])


def transcript_path(lab, step):
    """build/transcripts/LAB/STEP.txt: what the page includes."""
    return os.path.join(TRANSCRIPTS, lab, step + ".txt")


def read_path(lab, step):
    """build/transcripts/LAB/STEP.read.json: the lines its check read (the
    page highlights them)."""
    return os.path.join(TRANSCRIPTS, lab, step + ".read.json")


def stored_path(lab, step, suffix=".txt"):
    """labs/LAB/transcripts/STEP.txt (and .read.json): the transcript as the
    site shows it, kept in the checkout by `make transcripts`, so that any
    tree renders the whole site without a kernel; `make check` requires
    that a live capture gives the same bytes."""
    return os.path.join(REPO, "labs", lab, "transcripts", step + suffix)


def shown_steps(lab):
    """The steps whose transcripts a lab's pages or pictures show."""
    steps = []
    for page in sorted(glob.glob(lab.path("*.rst"))):
        steps += re.findall(r"^\s*\.\. include:: /build/gen/transcripts/%s/([\w.-]+)\.rst$"
                            % re.escape(lab.folder), open(page).read(), re.M)
    steps += [p["step"] for p in lab.spec.get("picture", []) if p.get("step")]
    return sorted(set(steps))


def picture_steps(lab):
    """The steps whose serial logs or transcripts a lab's pictures draw."""
    out = set()
    for p in lab.spec.get("picture", []):
        out |= {p["step"]} if p.get("step") else set()
        out |= set(p.get("steps", []))
        out |= {item[0] for item in p.get("items", [])}
    return sorted(out)


# The last `make transcripts` grading's demonstration results, kept (the
# outcome sentences of the site are "checked" in any tree)
KEPT_GRADING = os.path.join(REPO, "labs", "grading.json")


def keep_grading(src):
    """labs/grading.json: the demonstration checks of the grading at src."""
    try:
        with open(src) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return False
    kept = {"seed": data.get("seed"),
            "checks": [c for c in data.get("checks", []) if not c.get("exercise")]}
    with open(KEPT_GRADING + ".tmp", "w") as f:
        json.dump(kept, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(KEPT_GRADING + ".tmp", KEPT_GRADING)
    return True


def store_transcripts():
    """Keep the transcripts the pages show in labs/*/transcripts/ (what
    `make transcripts` captured); the number kept, and the missing ones."""
    kept, missing = 0, []
    for lab in labdata.load_all():
        for step in shown_steps(lab):
            for suffix, live in ((".txt", transcript_path(lab.folder, step)),
                                 (".read.json", read_path(lab.folder, step))):
                if not os.path.exists(live):
                    if suffix == ".txt":
                        missing.append("%s/%s" % (lab.folder, step))
                    continue
                out = stored_path(lab.folder, step, suffix)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copyfile(live, out + ".tmp")
                os.replace(out + ".tmp", out)
                kept += suffix == ".txt"
    return kept, missing


def clean_paths(text, bdir):
    """Show kernel-tree paths relative to the tree, not this machine's cache."""
    tree = vm.source_tree(bdir)
    # the debug info names sources relative to the build dir (vm/kbuild.py: path_args)
    text = text.replace(tree + "/", "").replace("../%s/" % os.path.basename(tree), "")
    text = text.replace(bdir + "/", "<build>/").replace(vm.cache_root() + "/", "<cache>/")
    text = text.replace(REPO + "/", "").replace(vm.cache_root(), "<cache>").replace(REPO, ".")
    # a tree's own module and initramfs dir (vm/kbuild.py: tree_suffix) is
    # kt-HASH: shown as kt/, so that every tree's transcripts are the same
    return re.sub(r"<build>/kt-[0-9a-f]{8}/", "<build>/kt/", text)


def shown_part(step, output, bdir):
    """The part of a step's output its transcript shows: the lines of its
    `filter`, cut to its `limit`, with this machine's paths replaced."""
    if "filter" in step:
        pat = re.compile(step["filter"])
        output = "\n".join(ln for ln in output.splitlines() if pat.search(ln))
    if "limit" in step:
        output = excerpt(output, step["limit"])
    return clean_paths(output, bdir)


TAIL = 3  # lines a `limit`ed transcript keeps from its end


def excerpt(body, limit):
    """The first `limit` lines and the last TAIL of a long transcript, with
    one line saying how many are left out (the full log stays on disk)."""
    lines = body.splitlines()
    if len(lines) <= limit + TAIL + 1:
        return body
    return "\n".join(lines[:limit] + ["[... %d lines left out ...]" % (
        len(lines) - limit - TAIL)] + lines[-TAIL:])


def transcript_header(step, command, variant, release, seed, student=()):
    """The '# ' lines above a transcript: the command, which kernel(s) --
    a host step names the kernels its placeholders used, or none -- and the
    seed its boots ran with (the same command and seed: the same bytes)."""
    hdr = ["# command: %s" % command,
           "# kernel: Linux %s, %s %s; captured by `make transcripts`" % (
               release, "host step; kernels:" if "host" in step else "variant", variant),
           "# seed: %d (the same command and seed print the same bytes: QEMU -icount, "
           "-seed; vm/qemu.py)" % seed]
    if step.get("filter"):
        hdr.append("# shown: the lines matching /%s/" % step["filter"])
    if step.get("limit"):
        hdr.append("# shown: the first %d lines and the last %d" % (step["limit"], TAIL))
    if student:
        hdr.append("# student: this step runs the student's code (%s): in your tree it shows "
                   "what yours does" % ", ".join(student))
    return hdr


def student_code(step, gdb_text, cmdline):
    """The student files a step runs: a gdb file's sourced ones, the
    student's module when the command line runs its scenarios."""
    parts = student_gdb.split(gdb_text) if gdb_text else None
    files = student_gdb.student_files(parts[0]) if parts else []
    optional = vm.initramfs.optional_modules(cmdline)
    if "kasan_student.ko" in optional:
        files.append("labs/module/kasan_student.c")
    if "student_qfq.ko" in optional:
        files.append(vm.initramfs.STUDENT_QFQ["fix"])
    return files


def save_transcript(lab, step, shown, variant, bdir, body, student=()):
    path = transcript_path(lab, step["name"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        rel = vm.kernel_release(bdir)
    except OSError:
        rel = "(no kernel)"
    hdr = transcript_header(step, shown[0], variant, rel, vm.run_seed(), student)
    with open(path, "w") as f:
        f.write("\n".join(hdr + [body.rstrip("\n")]) + "\n")
