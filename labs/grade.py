#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make grade [N=..]` and `make transcripts`: run the labs' steps, check them.

Each lab folder labs/NN-name/ has
  steps.toml   the steps: what to boot (variant, command line), the gdb
               command file to run in batch, or a host command
  check.py     check_<step>(run[, step]) functions returning [(name, ok, why)]
  *.gdb        the gdb command files
One runner for all labs: vm.boot / vm.boot_gdb (timeouts, PID cleanup);
the steps are validated against the schema of labs/lab.py first.
Every step's output is saved as a transcript under build/transcripts/,
which the lab pages include; a failing check keeps the serial log and gdb
transcript under build/grade/ and says where.

    GOOD lab1 kmalloc: pointer top byte == shadow of every granule (12.3 s)
    BAD  lab2 brk: ... (reason)
    Score: 11/12
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib

import vm
from vm import sandbox, student_gdb
from labs import gradejobs, lab as labdata
from labs.points import Tally, credit, hints_of, points_of  # noqa: F401
from labs.transcripts import (GRADE, KEPT_GRADING, TRANSCRIPTS, clean_paths,  # noqa: F401
                              excerpt, keep_grading, output_path, picture_steps, read_path,
                              save_transcript, shown_part, shown_steps,
                              store_transcripts, stored_path, student_code,
                              transcript_header, transcript_path)
from labs.run import Read, Run, Runs  # noqa: F401
from labs.seeds import AtSeed, at_class_seed, class_seed_step, seed_of_step  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = vm.REPO


def expand(text, bdirs, runs, lab=""):
    """Placeholders in gdb files and host commands (labs/lab.py PLACEHOLDERS):
    {bdir:VARIANT} {vmlinux:VARIANT} {moddir:VARIANT} {serial:STEP} {repo}."""
    def sub(m):
        kind, arg = m.group(1), m.group(2)
        if kind == "bdir":
            return bdirs(arg)
        if kind == "vmlinux":
            return vm.vmlinux(bdirs(arg))
        if kind == "moddir":
            vm.build_module(bdirs(arg))  # kbuild: a no-op when up to date
            return vm.module_dir(bdirs(arg))
        if kind == "serial":
            if runs.can_run(arg) if isinstance(runs, Runs) else arg in runs:
                return runs[arg].paths[0]
            path = output_path(lab, arg)
            if not os.path.exists(path):
                raise vm.KtError("step %s of %s has not run yet (no %s)" % (arg, lab, path))
            return path
        if kind == "repo":
            return REPO
        raise vm.KtError("unknown placeholder %s in lab %s" % (m.group(0), lab))
    return labdata.PLACEHOLDER.sub(sub, text)


def step_cmdline(lab, step):
    """The step's kernel command line, each {answer:TABLE.KEY} the value of
    the lab's grader-only answers.toml (lab 9's held-back trigger): a
    student's copy, without that file, cannot run such a step."""
    def sub(m):
        if m.group(1) != "answer":
            return m.group(0)
        table, _, key = (m.group(2) or "").partition(".")
        try:
            with open(os.path.join(HERE, lab, "answers.toml"), "rb") as f:
                return str(tomllib.load(f)[table][key])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            raise vm.KtError("step %s of lab %s runs the teacher's %s (answers.toml), which "
                             "is not in this copy" % (step["name"], lab, m.group(0)))
    return labdata.PLACEHOLDER.sub(sub, step["cmdline"])


def teachers_here(lab, step):
    """Can this copy run the step: it names no {answer:...} of answers.toml,
    or that grader-only file is here."""
    return "{answer:" not in step["cmdline"] or \
        os.path.exists(os.path.join(HERE, lab, "answers.toml"))


def run_step(lab, step, runs, variant=None, transcript=True):
    # KT_LAB_VARIANT runs every step on one kernel: a negative control
    # (lab 2's brk step on the default kernel must be graded BAD).
    variant = variant or os.environ.get("KT_LAB_VARIANT") or step["variant"]
    built = {}

    def bdirs(v):
        if v not in built:
            built[v] = vm.build_kernel(v)
        return built[v]
    # A host step runs no kernel of its own: it names kernels by placeholder.
    bdir = bdirs(variant) if "host" not in step else None
    run = Run(lab, step["name"], bdir or vm.build_dir(variant))
    out = os.path.join(GRADE, lab)
    os.makedirs(out, exist_ok=True)
    serial = output_path(lab, step["name"], "serial" if transcript else "control")
    timeout, cmdline = step["timeout"], step_cmdline(lab, step)
    shown = []
    if "gdb" in step:
        src = os.path.join(HERE, lab, step["gdb"])
        gfile = output_path(lab, step["name"], "gdb-file")
        with open(gfile, "w") as f:
            f.write(expand(open(src).read(), bdirs, runs, lab))
        initrd, rr = replay_of(step, variant, cmdline)
        with open(gfile) as f:
            text = f.read()
        if student_gdb.split(text) is not None:
            # it sources a student's file: two sessions, the student's in a
            # sandbox, then the grader's on the same halted VM (vm/student_gdb.py)
            b, g = student_gdb.boot_gdb_student(bdir, text, cmdline, timeout, serial,
                                                initrd=initrd, rr=rr)
        else:
            b, g = vm.boot_gdb(bdir, gfile, cmdline, timeout, serial, initrd=initrd, rr=rr)
        run.serial, run.gdb, run.status = b.text, g, b.status
        run.paths = [serial, os.path.splitext(serial)[0] + ".gdb.txt"]
        shown = ["$ make lab N=%s STEP=%s SEED=%d   then (gdb) source labs/%s/%s" % (
            lab[:2].lstrip("0"), step["name"], vm.run_seed(), lab, step["gdb"])]
        body = g
    elif "host" in step:
        argv = [expand(a, bdirs, runs, lab) for a in step["host"]]
        bdir = next(iter(built.values()), run.bdir)
        variant = ", ".join(built) or "none (host logs of earlier steps)"
        p = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=timeout)
        run.host = p.stdout + p.stderr
        run.status = "ok" if p.returncode in step.get("ok_exit", [0]) else "exit %d" % p.returncode
        run.paths = [serial]
        with open(serial, "w") as f:
            f.write(run.host)
        shown = ["$ make lab N=%s STEP=%s" % (lab[:2].lstrip("0"), step["name"])]
        body = run.host
    else:
        params = vm.MACHINES[step["machine"]] if "machine" in step else None
        initrd = vm.build_initramfs(bdir, "shell", shell=True) if step.get("busybox") else None
        b = vm.boot(bdir, cmdline, timeout, serial, params=params, initrd=initrd)
        run.serial, run.status, run.paths = b.text, b.status, [serial]
        shown = ["$ make boot VARIANT=%s CMDLINE=%s%s%s SEED=%d" % (
            variant, shlex.quote(cmdline),
            " MACHINE=" + step["machine"] if params else "",
            " BUSYBOX=1" if step.get("busybox") else "", vm.run_seed())]
        body = b.text
    if transcript:
        save_transcript(lab, step, shown, variant, bdir, shown_part(step, body, bdir),
                        student_code(step, text if "gdb" in step else "", cmdline))
    return run


def replay_of(step, variant, cmdline):
    """(initramfs, rr) of a `replay` step: the run recorded now (a run is a
    function of its inputs, so a recording of them is reused), else (None, None)."""
    if not step.get("replay"):
        return None, None
    try:
        rdir, _, initrd = vm.find_recording(variant, cmdline)
    except vm.KtError:
        rdir, _ = vm.record_run(variant, cmdline, step["timeout"])
        initrd = os.path.join(rdir, "initramfs.cpio")
    return initrd, ("replay", rdir)


def grade_step(lab, step, runs):
    """Run one step and its check: [(name, ok, why)] and the Run.  A step
    an exercise's check already ran (Runs: lab 9's 9.2 reads later steps)
    is not run again."""
    run = runs[step["name"]] if step["name"] in runs else run_step(lab.folder, step, runs)
    runs[step["name"]] = run
    if not step["checks"]:
        if os.path.exists(read_path(lab.folder, step["name"])):
            os.unlink(read_path(lab.folder, step["name"]))
        return [], run
    check = safe(lab.checker(step))
    results = list(check(run, step))
    if os.path.exists(transcript_path(lab.folder, step["name"])):
        # the lines as the transcript shows them (clean_paths: no cache or
        # checkout path, which differ from machine to machine; a tree's own
        # module dir, vm/kbuild.py: tree_suffix, read as kt/)
        with open(read_path(lab.folder, step["name"]), "w") as f:
            json.dump([re.sub(r"/kt-[0-9a-f]{8}/", "/kt/", clean_paths(ln, run.bdir))
                       for ln in run.read_lines()], f, indent=0)
    if step.get("control") and any(ok is not None for _, ok, _ in results):
        # The same boot on the unpatched kernel must NOT look like this --
        # and only a control that ran to its end is evidence.
        try:
            ctl = run_step(lab.folder, step, runs, variant=step["control"], transcript=False)
            run.control = ctl
            ok, why = control_differs(ctl, check(ctl, step))
        except (vm.KtError, subprocess.TimeoutExpired, OSError) as e:
            ok, why = False, "the control did not run: %s" % e
        results.append(("differs from the unpatched %s kernel" % step["control"], ok, why))
    teacher = bool(results) and all(ok is None for _, ok, _ in results)
    if run.status == "timeout" or (run.status != "ok" and not step.get("may_die")
                                   and not teacher):
        # A predicted crash is an outcome; a hang never is.
        results.insert(0, ("boot ends (end marker%s)" % (
            " or the predicted crash" if step.get("may_die") else ""), False,
            "%s; serial log tail:\n%s" % (run.status, "\n".join(
                run.serial.splitlines()[-15:]))))
    return results, run


def safe(check):
    """A check that raises on odd input is BAD for that step, not a crash
    of the whole grading run."""
    def run_check(run, step):
        try:
            return check(run, step)
        except Exception as e:  # noqa: BLE001 -- any bug in a check is one BAD line
            return [("the check ran", False, "%s: %s" % (type(e).__name__, e))]
    return run_check


def control_differs(ctl, results):
    """(ok, why): the control ran -- to its end marker, or, where the step's
    gdb file stops the VM itself, at least past the kernel's banner, and
    not into its timeout -- and fails some check."""
    ran = ctl.status == "ok" or (ctl.status != "timeout" and "Linux version " in ctl.serial)
    if not ran:
        return False, "the control run did not reach its end (%s); log %s" % (
            ctl.status, " ".join(ctl.paths))
    if any(ok is False for _, ok, _ in results):
        return True, ""
    if any(ok is None for _, ok, _ in results):
        return None, "graded by your teacher (the expected outcome is not in your copy)"
    return False, "the control kernel shows the same outcome"


def grade_exercise(lab, ex, run, runs):
    """[(name, ok, why)] of one exercise on the run of its step."""
    if run is None:
        return [("step %s ran" % ex["step"], False, "the step failed to run (see above)")]
    results = safe(lambda r, _s: lab.exercise_checker(ex)(r, runs))(run, None)
    return (results or [("the check said something", False, "no results")]) + refused(run)


def refused(run):
    """A BAD check when the student's gdb file tried to write the VM's state
    (a register, memory, call, jump, return): the proxy refused it
    (vm/student_gdb.py), and gdb stopped reading the file there."""
    said = [ln.strip() for ln in labdata.gdb_sections(run.gdb).get("student", [])
            if student_gdb.READ_ONLY.decode() in ln]
    if not said:
        return []
    return [("your gdb file wrote no state of the VM (registers, memory)", False,
             "%d write(s) refused: the VM is read-only while grading, so only running it "
             "moves it; gdb stopped your file at the first: %s" % (len(said), said[0]))]


def exercise_steps(lab):
    """The steps whose runs its exercises are graded on."""
    return [s["name"] for s in lab.steps if any(ex["step"] == s["name"] for ex in lab.exercises)]


def grade_with_exercises(lab, step, runs, tally):
    """Grade one step, then each exercise graded on its run, into TALLY."""
    t0 = time.time()
    run = None
    try:
        results, run = grade_step(lab, step, runs)
    except (vm.KtError, subprocess.TimeoutExpired, OSError) as e:
        results = [("step runs", False, "step failed to run: %s" % e)]
    tally.add(lab.folder, step["name"], results, time.time() - t0)
    bad = any(ok is False for _, ok, _ in results)
    for ex in lab.exercises:
        if ex["step"] == step["name"]:
            res = grade_exercise(lab, ex, run, runs)
            tally.add(lab.folder, step["name"], res, 0.0, exercise=ex,
                      hints=hints_of(lab, ex, res, run, runs))
            bad = bad or any(ok is False for _, ok, _ in res)
    if bad and run is not None:
        print("     logs kept: %s" % " ".join(run.paths), flush=True)


def grade(selected, only_steps=None, out=None, demos=True, jobs=1, part=False):
    """Grade the labs' steps and exercises; demos=False: only the steps
    exercises are graded on (and any step their checks read, when they
    read it), no demonstration (grade-class grades those once per class).
    jobs: the labs in that many processes at once (labs/gradejobs.py);
    part: one of those processes (its results in OUT, no summary lines)."""
    t_all = time.time()
    if not demos:
        only_steps = [n for folder in selected
                      for n in exercise_steps(labdata.load_lab(folder))
                      if not only_steps or n in only_steps]
    if any(ex for folder in selected for ex in labdata.load_lab(folder).exercises
           if not only_steps or ex["step"] in only_steps):
        # an exercise runs its files behind the sandbox's wall: where no
        # wall starts, grading stops here, in one line (never a page of BADs)
        sandbox.require()
    if not part:
        print("Seed: %d (SEED=; every boot of this run uses it%s)%s" % (
            vm.run_seed(), "" if demos else ", but a step a class runs once, at SEED=1",
            "" if demos else "; exercises only, no demonstration"), flush=True)
    if jobs > 1 and len(selected) > 1:
        s = gradejobs.grade_in_parallel(selected, only_steps, demos, jobs)
    else:
        s = grade_labs(selected, only_steps, demos)
    if not part:
        print("Exercises: %d/%d done, %g/%d points" % (
            s["exercises"]["done"], s["exercises"]["total"], s["points"]["earned"],
            s["points"]["max"]))
        print("Score: %d/%d  (SEED=%d, %.0f s)"
              % (s["score"], s["total"], s["seed"], time.time() - t_all))
    if out:
        with open(out, "w") as f:
            json.dump(s, f, indent=1)
    return s["score"] == s["total"] and s["total"] > 0


def grade_labs(selected, only_steps, demos):
    """The summary of grading SELECTED in this process."""
    tally = Tally()
    for folder in selected:
        lab = labdata.load_lab(folder)
        runs = Runs(None if demos else lab, at_class_seed(lab, run_step))
        for step in lab.steps:
            if only_steps and step["name"] not in only_steps:
                continue
            if not teachers_here(lab.folder, step):
                print("     step %s: the teacher's (a held-back trigger: make grade-class "
                      "runs it)" % step["name"], flush=True)
                continue
            t0 = time.time()
            with AtSeed(seed_of_step(lab, step, demos)):
                grade_with_exercises(lab, step, runs, tally)
            tally.took(folder, time.time() - t0)
    s = tally.summary()
    s["exercises_only"] = not demos
    return s


def first_step():
    """`make`'s live proof: lab 1's first step, run now, prints the
    transcript the site shows (kept in labs/01-*/transcripts/), byte for
    byte.  0 when it does."""
    lab = labdata.load_all()[0]
    step = next(s for s in lab.steps if s["name"] in shown_steps(lab))
    run_step(lab.folder, step, {})
    live, kept = transcript_path(lab.folder, step["name"]), stored_path(lab.folder, step["name"])
    a, b = open(live).read(), open(kept).read()
    if a == b:
        print("first step: lab %d's %s step printed the site's transcript, byte for byte "
              "(%s)" % (lab.number, step["name"], os.path.relpath(kept, REPO)))
        return 0
    n = next((i for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())) if x != y),
             min(len(a.splitlines()), len(b.splitlines())))
    print("first step: lab %d's %s step printed another transcript than the site's: "
          "%s and %s part at line %d" % (lab.number, step["name"], os.path.relpath(live, REPO),
                                         os.path.relpath(kept, REPO), n + 1))
    return 1


def interactive(folder, step_name):
    """`make lab N=.. [STEP=..]`: QEMU halted in the background, gdb here."""
    lab = labdata.load_lab(folder)
    host = next((s for s in lab.steps if s["name"] == step_name and "host" in s), None)
    if host:
        # A host step: run its command, as `make grade` does, and show it.
        run = run_step(folder, host, {}, transcript=False)
        print(run.host, end="")
        return 0 if run.status == "ok" else 1
    steps = [s for s in lab.steps if "gdb" in s]
    if not steps:
        raise vm.KtError("lab %s has no gdb step to run interactively (its steps: %s); "
                         "`make grade N=%d` runs them" % (
                             folder, ", ".join(s["name"] for s in lab.steps), lab.number))
    step = next((s for s in steps if s["name"] == step_name), None) if step_name else steps[0]
    if step is None:
        raise vm.KtError("lab %s has no gdb step %r; gdb steps: %s" % (
            folder, step_name, ", ".join(s["name"] for s in steps)))
    bdir = vm.build_kernel(step["variant"])
    serial = output_path(folder, step["name"], "interactive")
    cmdline = step["cmdline"]
    initrd, rr = replay_of(step, step["variant"], cmdline)
    with vm.halted_vm(bdir, cmdline, serial=serial, initrd=initrd, rr=rr) as h:
        gfile = lab.path(step["gdb"])
        hint = "%s, step %s. The kernel is halted at its first instruction." % (
            lab.title, step["name"])
        print("kt: %s\nkt: serial console: tail -f %s\nkt: hint: %s\n"
              "kt: run the whole step with:  source %s\nkt: quit gdb to stop QEMU." % (
                  hint, serial, step.get("hint", ""), os.path.relpath(gfile, os.getcwd())))
        return vm.interactive(h.gdb_argv())


def main(argv=None):
    vm.install_signal_handlers()
    ap = argparse.ArgumentParser(prog="labs/grade.py")
    ap.add_argument("-n", "--lab", help="lab number (e.g. 2)")
    ap.add_argument("--step", action="append")
    ap.add_argument("--interactive", action="store_true", help="`make lab`: gdb on a halted VM")
    ap.add_argument("--out", help="also write the results as JSON to this file")
    ap.add_argument("--exercises-only", action="store_true",
                    help="grade only the steps of exercises (grade-class: DEMOS=no)")
    ap.add_argument("--store-transcripts", action="store_true",
                    help="keep the captured transcripts the pages show in labs/*/transcripts/")
    ap.add_argument("--first-step", action="store_true",
                    help="`make`: lab 1's first step prints the site's transcript")
    ap.add_argument("--jobs", default="1",
                    help="grade the labs in this many processes at once (make grade JOBS=2)")
    ap.add_argument("--part", help=argparse.SUPPRESS)  # labs/gradejobs.py: these folders
    ap.add_argument("--list-variants", action="store_true",
                    help="print the kernels the labs need, comma-separated (make dist)")
    a = ap.parse_args(argv)
    if a.store_transcripts:
        kept, missing = store_transcripts()
        keep_grading(os.path.join(TRANSCRIPTS, "grade.json"))
        print("transcripts: %d kept in labs/*/transcripts/%s" % (
            kept, "; not captured: " + ", ".join(missing) if missing else ""))
        return 1 if missing else 0
    if a.first_step:
        try:
            return first_step()
        except vm.KtError as e:
            print("kasan-tags: error: %s" % e)
            return 2
    if a.list_variants:
        print(",".join(labdata.needed_variants(labdata.load_all())))
        return 0
    if not os.environ.get("SEED", "").strip():
        # a student's tree: its own seed (student.toml, make handout ID=...)
        from labs.student import read_student
        try:
            who = read_student()
        except vm.KtError as e:
            print("kasan-tags: error: %s" % e)
            return 2
        if who:
            os.environ["SEED"] = str(who["seed"])
            print("Student %s: SEED=%d, your seed (student.toml); the site's transcripts "
                  "use SEED=1" % (who["id"], who["seed"]), flush=True)
    sel = labdata.folders()
    if a.part:
        sel = [d for d in sel if d in a.part.split(",")]
    if not (a.jobs.isdigit() and 1 <= int(a.jobs) <= 8):
        print("kasan-tags: error: JOBS=%s: give a number of processes from 1 to 8" % a.jobs)
        return 2
    if a.lab:
        sel = [d for d in sel if d[:2] == "%02d" % int(a.lab)] if a.lab.isdigit() else []
        if not sel:
            print("kasan-tags: error: no lab %s; labs: %s" % (a.lab, ", ".join(
                labdata.folders())))
            return 2
    try:
        if a.interactive:
            if len(sel) != 1:
                print("kasan-tags: error: make lab needs N=<lab number>; labs: %s"
                      % ", ".join(labdata.folders()))
                return 2
            return interactive(sel[0], (a.step or [None])[0])
        return 0 if grade(sel, a.step, a.out, demos=not a.exercises_only, jobs=int(a.jobs),
                          part=bool(a.part)) else 1
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
