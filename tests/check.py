#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make check`: every test of the project, one line per check.

    PASS name (seconds)
    FAIL name (seconds): why

and a last line "N passed, N failed  (N s)".  Each check of CHECKS runs as
a job of its own (`tests/check.py --job NAME`, a child process); JOBS=2 of
them run at once (QEMU's TCG keeps one core busy per boot), the ones that
took longest last time first, each after the jobs it reads (AFTER).  A
job's lines are printed together when it ends, then "[name: N s]".  Logs
of every boot are kept under build/check/.  The checks live by concern:
  check_kernels.py    tooling, each kernel's boot, reproducibility, gdb, decode
  check_processes.py  no process outlives a timeout or a signal
  check_class.py      the labs, the pages' commands, the site, the handout, a class
and checklib.py holds what they share (the record of results, make as a user).
"""

import json
import os
import re
import subprocess
import sys
import time

import vm
from tests import checklib, jobcache
from tests.check_class import (check_classroom, check_grade, check_grade_student,
                               check_handout, check_page_commands, check_published_transcript,
                               check_site, check_site_anywhere, check_transcripts_kept)
from tests.check_kernels import (check_checkpatch, check_decode, check_gdb_live,
                                 check_gdb_live_generic,
                                 check_gdb_live_hw, check_kernel_code, check_lint, check_record,
                                 check_reproducible, check_shell, check_tooling, check_variant)
from tests.check_processes import check_cleanup, check_signals
from tests.check_mistakes import check_mistakes_live
from tests.check_container import check_container
from tests.check_gradescope import check_gradescope
from tests.check_image import check_image
from tests.check_integrity import check_integrity
from tests.check_sandbox import check_sandbox
from tests.check_seeds import check_data_seeds
from tests.check_together import check_together
from tests.check_realbug import VARIANTS as REAL_BUG_VARIANTS, check_real_bug
from tests.checklib import HANDOUT, OUT, PY, REPO


# Every check of `make check`, by name: `make check LIST=1` prints them,
# ONLY=a,b runs those, SKIP=a,b all but those.
CHECKS = [
    ("pytest", check_tooling),
    ("lint", check_lint),
    ("checkpatch", check_checkpatch),
    ("handout", lambda: check_handout(n_exercises())),
    ("sandbox", check_sandbox),
    ("integrity", check_integrity),
    ("container", check_container),
    ("image", check_image),
    ("gradescope", check_gradescope),
    ("mistakes-live", check_mistakes_live),
    ("data-seeds", check_data_seeds),
    ("transcripts-kept", check_transcripts_kept),
    ("together", check_together),
    ("site-anywhere", check_site_anywhere),
    ("variant-swtags", lambda: check_variant("swtags", "sw_tags")),
    ("variant-generic", lambda: check_variant("generic", "generic")),
    ("variant-none", lambda: check_variant("none", None)),
    ("variant-hwtags", lambda: check_variant("hwtags", "hw_tags")),
    ("kernel-code", check_kernel_code),
    ("real-bug", check_real_bug),
    ("reproducible-swtags", lambda: check_reproducible("swtags")),
    ("reproducible-hwtags", lambda: check_reproducible("hwtags")),
    ("record", check_record),
    ("decode", check_decode),
    ("gdb-live", check_gdb_live),
    ("gdb-live-hw", check_gdb_live_hw),
    ("gdb-live-generic", check_gdb_live_generic),
    ("shell", check_shell),
    ("cleanup", check_cleanup),
    ("signals", check_signals),
    ("classroom", check_classroom),
    ("grade", check_grade),
    ("transcript-again", check_published_transcript),
    ("site", check_site),
    ("page-commands", check_page_commands),
]


# A job that reads what another writes runs after it, when both are run:
# decode reads variant-swtags' log; mistakes-live grades whole labs, whose
# unplanted steps grade has put in the run cache; transcript-again reads
# the transcripts grade writes; site reads them too, with grade's results
# (for its :outcome: sentences) and kernel-code's figures (for the claim
# ledger); image compares the grader image's class of four with
# sandbox's; together grades lab 3 in two copies, whose boots grade has
# put in the run cache; page-commands takes make test's and make site's
# results (checklib.COMMANDS) and runs `make grade N=3`, which writes
# where grade does.
AFTER = {
    "decode": ("variant-swtags",),
    "transcript-again": ("grade",),
    "mistakes-live": ("grade",),
    "image": ("sandbox",),
    "together": ("grade",),
    "transcripts-kept": ("grade",),
    "site": ("grade", "kernel-code"),
    "page-commands": ("pytest", "lint", "site", "grade"),
}


# The slower tier: jobs of minutes whose inputs are the whole checkout (a
# class graded in containers, in an image, with every plant of the mistake
# catalogue).  `make check` runs the others and names these; `make check
# TIER=all` (what .ci/run runs) runs both tiers, one after the other.
SLOW = ("image", "gradescope", "mistakes-live", "sandbox", "handout", "site-anywhere",
        "integrity", "classroom", "data-seeds")
TIERS = ("quick", "all")


def tier():
    t = os.environ.get("TIER", "").strip() or "quick"
    if t not in TIERS:
        raise vm.KtError("TIER=%s: it is quick (the default: make check) or all (every check, "
                         "what .ci/run runs)" % t)
    return t


# What a student tree's own make check runs (labs/HANDOUT).
HANDOUT_CHECKS = ("pytest", "lint", "checkpatch", "grade-student")


def n_exercises():
    from labs import lab as labdata
    return sum(len(lab.exercises) for lab in labdata.load_all())


def selected(only, skip, handout=HANDOUT):
    """The (name, function) pairs ONLY/SKIP pick, or a one-line error."""
    table = ([(n, f) for n, f in CHECKS if n in HANDOUT_CHECKS] +
             [("grade-student", check_grade_student)]) if handout else list(CHECKS)
    names = [n for n, _ in table]
    want = [x for x in only.split(",") if x] if only else names
    drop = [x for x in skip.split(",") if x]
    unknown = [x for x in want + drop if x not in names]
    if unknown:
        raise vm.KtError("no check named %s (make check LIST=1 lists them: %s)"
                         % (unknown[0], ", ".join(names)))
    return [(n, f) for n, f in table if n in want and n not in drop]


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="tests/check.py")
    ap.add_argument("--only", default=os.environ.get("ONLY", ""))
    ap.add_argument("--skip", default=os.environ.get("SKIP", ""))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--job", help="run one check in this process (what the pool starts)")
    a = ap.parse_args(argv)
    vm.install_signal_handlers()
    t0 = time.time()
    try:
        checks = selected(a.job or a.only, "" if a.job else a.skip)
        jobs = parallel_jobs()
        tier()
        if a.list:
            slow = set() if HANDOUT else set(SLOW)
            tag = "   (the slower tier: TIER=all)"
            print("\n".join(n + (tag if n in slow else "") for n, _ in checks))
            return 0
        if not a.job:
            vm.preflight()
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    os.makedirs(JOBS_DIR, exist_ok=True)
    if a.job:
        return run_job(*checks[0])
    names = [n for n, _ in checks]
    # ONLY=: each job builds the kernels it boots, if they are not there
    first = kernels_first() if not a.only and set(names) - NO_KERNEL else (0, 0)
    quick = this_run(names, whole=False)
    slow = [n for n in names if n in SLOW]
    only_quick = not (a.only or HANDOUT) and tier() == "quick"
    kept = kept_jobs(this_run(names, whole=not only_quick))
    if a.only or HANDOUT:
        return pool(names, jobs, t0, first=first, kept=kept)
    if only_quick:
        rc = pool(quick, jobs, t0, first=first, kept=kept, tier="quick")
        print("  (the slower tier, not run here: %s -- make check TIER=all, as .ci/run, runs it)"
              % ", ".join(slow))
        return rc
    counts = {}
    pool(quick, jobs, t0, first=first, kept=kept, tier="quick", counts=counts)
    return pool(slow, jobs, t0, first=(counts["passed"], counts["failed"]), kept=kept,
                tier="slower", clean=False)


def this_run(names, whole):
    """The jobs of NAMES a run runs: all of them (TIER=all, ONLY=, a
    handout's), or the quick tier's."""
    return list(names) if whole else [n for n in names if n not in SLOW]


def kept_jobs(names):
    """The digest of this run's inputs and the jobs whose results on them
    are kept (tests/jobcache.py); none with FRESH=1.  NAMES are the jobs
    this run runs: a kept job stands when its readers that run are kept
    too (the quick tier's grade was never kept while mistakes-live, its
    reader in the slower tier, which the quick tier does not run, was not)."""
    from classroom import handout
    digest = jobcache.inputs(REPO, handout.tree_files(),
                             [vm.build_dir(v) for v in wanted_variants()], os.environ)
    hits = [n for n in names if jobcache.enabled() and jobcache.load(digest, n)]
    after = {n: [d for d in AFTER.get(n, ()) if d in names] for n in names}
    return {"digest": digest, "replay": jobcache.replayable(hits, names, after)}


# Checks that boot no kernel
NO_KERNEL = {"pytest", "lint", "checkpatch", "site-anywhere", "container"}


def kernel_order(variants):
    """Variants with the fewest patches and fragments first: a patched
    variant then reuses its base's objects through ccache."""
    return sorted(variants, key=lambda v: tuple(len(x) for x in vm.resolve_variant(v)[::-1])
                  + (v,))


def wanted_variants():
    """Every kernel the checks boot: the labs', each mode's and lab 9's
    real bug's."""
    from labs import lab as labdata
    from kasan.modes import ALL, NONE_VARIANT
    want = set(labdata.needed_variants(labdata.load_all()))
    return want | {m.variant for m in ALL} | {NONE_VARIANT} | set(REAL_BUG_VARIANTS)


def kernels_first():
    """Build (or reuse) every kernel the checks boot, one at a time, before
    the jobs start, so that two jobs never build at once: (0, how many failed)."""
    t0, done, failed = time.time(), 0, 0
    for v in kernel_order(wanted_variants()):
        b, secs = checklib.timed(vm.build_kernel, v)
        if isinstance(b, vm.KtError):
            failed += 1
            print("FAIL kernel %s builds (%.0f s): %s" % (v, secs, b), flush=True)
        else:
            done += 1
    print("  [kernels: %d built or reused, one at a time, before the jobs: %.0f s]"
          % (done, time.time() - t0), flush=True)
    return 0, failed


# Where each job writes its output, its results and the commands it ran.
JOBS_DIR = os.path.join(OUT, "jobs")
# How long each check took last time on this machine, by any checkout
# (the pool starts the longest chain first): kept in the cache, beside the
# job cache, so that a new clone starts grade's chain first too.  A check
# never timed here counts GUESS seconds.  TIMES: another file (the tests').
TIMES = None
GUESS = 60.0


def times_path():
    return TIMES or os.path.join(jobcache.folder(), "times.json")


def parallel_jobs():
    """JOBS=N from the environment (default 2), or a one-line error."""
    v = os.environ.get("JOBS", "2")
    if not v.isdigit() or not 1 <= int(v) <= 8:
        raise vm.KtError("JOBS=%s: give a number of jobs from 1 to 8" % v)
    return int(v)


def run_job(name, fn):
    """One check in this process; its COMMANDS for the jobs after it."""
    checklib.load_commands(JOBS_DIR)
    loaded = dict(checklib.COMMANDS)
    fn()
    checklib.save_commands(os.path.join(JOBS_DIR, name + ".commands.json"), loaded)
    return 0 if all(checklib.results) else 1


# A result line of a job's output (checklib.record).
RESULT = re.compile(r"(PASS|FAIL) ")


def job_argv(name):
    return [PY, "-m", "tests.check", "--job", name]


def pool(names, jobs, t0, argv_of=job_argv, order=AFTER, first=(0, 0), kept=None,
         tier=None, counts=None, clean=True):
    """Run the named checks as jobs (argv_of(name)), `jobs` at a time, each
    after those `order` names; print each job's lines when it ends; the
    summary counts their PASS and FAIL lines.  0 if none failed, else 1.
    kept: {digest, replay}: the jobs of `replay` are shown from the job
    cache (tests/jobcache.py), the others' passing results kept there.
    tier: its name, printed with its time; counts: filled with the totals;
    clean=False keeps an earlier tier's job outputs."""
    from vm import proc
    t_tier = time.time()
    for f in os.listdir(JOBS_DIR) if clean else ():
        os.unlink(os.path.join(JOBS_DIR, f))
    after = {n: [d for d in order.get(n, ()) if d in names] for n in names}
    last = load_times()
    todo = sorted(names, key=lambda n: -chain(n, names, after, last))
    running, ended, times, got = {}, set(), {}, list(first)
    digest = (kept or {}).get("digest")
    replay = [n for n in (kept or {}).get("replay", []) if n in names]
    print("make check%s: %d checks, %d at a time (JOBS=%d)%s" % (
        ", the %s tier" % tier if tier else "", len(names), jobs, jobs,
        "; %d kept from a run of the same inputs (FRESH=1 runs them)" % len(replay)
        if replay else ""), flush=True)
    for n in replay:
        shown = replay_job(digest, n)
        if shown:
            todo.remove(n)
            ended.add(n)
            report_job(n, 0, float(shown["seconds"]), got, kept=str(shown["when"]))
    while todo or running:
        ready = [n for n in todo if all(d in ended for d in after[n])]
        while ready and len(running) < jobs:
            n = ready.pop(0)
            todo.remove(n)
            out = open(os.path.join(JOBS_DIR, n + ".out"), "w")
            running[n] = (proc.spawn(argv_of(n), cwd=REPO,
                                     stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=job_env()), out, time.time())
        time.sleep(0.2)
        for n, (child, out, t1) in list(running.items()):
            if child.poll() is None:
                continue
            proc.forget(child)
            out.close()
            del running[n]
            ended.add(n)
            times[n] = time.time() - t1
            failed = report_job(n, child.returncode, times[n], got)
            if digest and not failed:
                keep_job(digest, n, times[n])
    save_times(dict(last, **times))
    if tier:
        print("  [the %s tier: %d checks, %.0f s]" % (tier, len(names), time.time() - t_tier),
              flush=True)
    if counts is not None:
        counts.update(passed=got[0], failed=got[1])
    print("%d passed, %d failed  (%.0f s)" % (got[0], got[1], time.time() - t0))
    return 0 if got[1] == 0 else 1


def replay_job(digest, name):
    """A kept job's output and commands into JOBS_DIR, as if it had run."""
    d = jobcache.load(digest, name)
    if not d:
        return None
    with open(os.path.join(JOBS_DIR, name + ".out"), "w") as f:
        f.write(str(d["out"]))
    if d["commands"]:
        with open(os.path.join(JOBS_DIR, name + ".commands.json"), "w") as f:
            json.dump(d["commands"], f)
    return d


def keep_job(digest, name, secs):
    out = open(os.path.join(JOBS_DIR, name + ".out"), errors="replace").read()
    try:
        with open(os.path.join(JOBS_DIR, name + ".commands.json")) as f:
            commands = json.load(f)
    except (OSError, ValueError):
        commands = {}
    jobcache.store(digest, name, out, commands, secs)


def chain(name, names, after, last):
    """How long the longest chain of jobs from `name` took last time: its
    own time and the longest of the jobs that wait for it (the pool starts
    the longest chain first)."""
    waiting = [n for n in names if name in after[n]]
    return last.get(name, GUESS) + max([chain(n, names, after, last) for n in waiting] or [0])


def job_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env["PYTHONPATH"] = os.pathsep.join([REPO, os.path.join(REPO, "gdb-scripts")])
    # a student tree's make check, run by the handout job, takes one slot
    env["JOBS"] = "1"
    return env


def report_job(name, rc, secs, counts, kept=None):
    """Print a job's output; count its results.  A job that ended with
    an error and no FAIL line (a traceback) is one FAIL.  True if it failed."""
    text = open(os.path.join(JOBS_DIR, name + ".out"), errors="replace").read()
    lines = text.rstrip("\n").splitlines()
    res = [m.group(1) for m in map(RESULT.match, lines) if m]
    counts[0] += res.count("PASS")
    counts[1] += res.count("FAIL")
    print("\n".join(lines), flush=True)
    if rc and "FAIL" not in res:
        counts[1] += 1
        print("FAIL %s: the check ended with exit %d and no result line (output %s)"
              % (name, rc, os.path.relpath(os.path.join(JOBS_DIR, name + ".out"), REPO)))
    if kept:
        print("  [%s: kept: the same inputs passed on %s, in %.0f s]" % (name, kept, secs),
              flush=True)
    else:
        print("  [%s: %.0f s]" % (name, secs), flush=True)
    return bool(rc) or "FAIL" in res


def load_times():
    try:
        with open(times_path()) as f:
            return {k: float(v) for k, v in json.load(f).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def save_times(times):
    path = times_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(times, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
