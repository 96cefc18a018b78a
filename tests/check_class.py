# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: the course as its users meet it -- the graded labs, the
published transcripts and page commands, the site, the handout, and a
class graded by the teacher (make grade-class), also from a private clone."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import vm
from labs.lab import by_number
from tests.checklib import (COMMANDS, NOBODY, OUT, PY, REPO, checkout_copy, first_difference,
                            kept_env, make_out, record)


def check_classroom():
    """A classroom: `make dist` here, then a student who is not root, with
    a read-only checkout (only build/ writable) and an empty cache:
    `make deps`, `make import`, `make run` and `make grade N=1` work and
    build no kernel, and nothing is written outside build/ and the cache."""
    if os.geteuid() != 0:
        # Not counted: becoming another user (setpriv, chown) needs root.
        print("SKIP classroom: needs root to run the student steps as the user nobody",
              flush=True)
        return
    vm.build_kernel("swtags")
    # Everything the student gets lives in a directory of its own that the
    # user nobody can reach, never under the teacher's checkout: a checkout
    # in a private (0700) home directory is not reachable by another user.
    # The teacher's side runs from such a checkout: a copy of this one in a
    # directory of mode 0700 (as mkdtemp makes it).
    top = tempfile.mkdtemp(prefix="kt-classroom-")
    private = tempfile.mkdtemp(prefix="kt-teacher-")
    try:
        os.chmod(top, 0o755)
        t0 = time.time()
        teacher = os.path.join(private, "kasan-tags")
        checkout_copy(teacher)
        archive = os.path.join(top, "classroom-kernels.tar.zst")
        p = subprocess.run(["make", "-s", "-C", teacher, "dist", "VARIANTS=swtags",
                            "DIST_FILE=" + archive], capture_output=True, text=True)
        record("classroom: make dist VARIANTS=swtags, from a checkout under a 0700 directory",
               p.returncode == 0 and os.stat(private).st_mode & 0o777 == 0o700,
               (p.stderr.strip().splitlines() or ["no output"])[-1], time.time() - t0)
        if p.returncode:
            return
        os.chmod(archive, 0o644)
        co, home, cache = (os.path.join(top, d) for d in ("checkout", "home", "cache"))
        checkout_copy(co)
        os.makedirs(os.path.join(co, "build"))
        for d in (home, cache):
            os.makedirs(d)
        for d in (home, cache, os.path.join(co, "build")):
            os.chown(d, 65534, 65534)
        subprocess.run(["chmod", "-R", "a-w", co], check=True)
        os.chmod(os.path.join(co, "build"), 0o755)
        env = {"PATH": os.environ["PATH"], "HOME": home, "KASAN_TAGS_CACHE": cache,
               "LANG": "C.UTF-8"}
        stamp = time.time()
        for label, args, want in (
                ("make deps says all is installed", ["deps"], "packages are installed"),
                ("make import FILE=…", ["import", "FILE=" + archive], "swtags: imported"),
                ("make run SCENARIO=uaf builds no kernel", ["run", "SCENARIO=uaf"],
                 "BUG: KASAN: use-after-free"),
                ("make grade N=1 builds no kernel", ["grade", "N=1"], "GOOD 01")):
            t1 = time.time()
            p = subprocess.run(NOBODY + ["make", "-s", "-C", co] + args, env=env,
                               capture_output=True, text=True, timeout=900)
            out = p.stdout + p.stderr
            built = re.search(r"kt: building (the )?\S+ kernel", out)
            ok = p.returncode == 0 and want in out and not built
            record("classroom: as nobody, read-only checkout: " + label, ok,
                   "" if ok else "exit %d%s" % (p.returncode, ", built a kernel" if built
                                                else ""), time.time() - t1,
                   () if ok else out.strip().splitlines()[-12:])
            if not ok:
                return
        # A write refused by the permissions would have failed a step above;
        # this also catches one that root's own files would have let through.
        new = [os.path.relpath(os.path.join(r, f), co) for r, _, fs in os.walk(co)
               for f in fs if os.path.getmtime(os.path.join(r, f)) >= stamp
               and not os.path.relpath(r, co).startswith("build")]
        record("classroom: nothing written in the checkout outside build/", not new,
               "%d file(s)" % len(new), 0, new[:10])
    finally:
        subprocess.run(["chmod", "-R", "u+w", top])
        shutil.rmtree(top, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)


def check_site():
    from tests import site_check
    t0 = time.time()
    ok, out = site_check.build()
    record("site: make site (sphinx-build -W)", ok, "" if ok else out[-1], time.time() - t0,
           () if ok else out)
    COMMANDS["make site"] = (ok, "" if ok else out[-1])
    if not ok:
        return
    t0 = time.time()
    ok, out = site_check.build("teacher")
    record("site: make site EDITION=teacher (sphinx-build -W -t teacher)", ok,
           "" if ok else out[-1], time.time() - t0, () if ok else out)
    COMMANDS["make site EDITION=teacher"] = (ok, "" if ok else out[-1])
    paths = site_check.machine_paths() + site_check.machine_paths(site_check.TEACHER)
    record("site: no page shows this machine's checkout or cache path", not paths,
           "%d pages" % len(paths), 0, ["%s: %s" % p for p in paths[:10]])
    extra = site_check.site_extras()
    record("site: the student edition holds pages and their static files only (no "
           "_sources, no doctrees)", not extra, "%d other files" % len(extra), 0, extra[:10])
    bad = site_check.broken_links()
    record("site: internal links and anchors resolve", not bad, "%d broken" % len(bad), 0,
           bad[:10])
    t0 = time.time()
    for name, ok, why in site_check.edition_checks():
        record(name, ok, why if not ok else "", time.time() - t0)
        t0 = time.time()
    try:
        for name, ok, why in site_check.dom_checks():
            record(name, ok, str(why) if not ok else "", time.time() - t0)
            t0 = time.time()
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        record("site: browser checks", False, str(e), time.time() - t0)


def run_grade():
    """make grade, with its results as JSON: (process, results or None, seconds)."""
    t0 = time.time()
    out = os.path.join(OUT, "grade.json")
    os.makedirs(OUT, exist_ok=True)
    if os.path.exists(out):
        os.unlink(out)
    # two processes (labs/gradejobs.py): the pool's longest job, whose
    # readers (site, page-commands) wait for it, one QEMU at a time otherwise
    p = subprocess.run([PY, "-m", "labs.grade", "--out", out, "--jobs", "2"], cwd=REPO,
                       capture_output=True, text=True, env=kept_env())
    for ln in p.stdout.splitlines():
        if ln.startswith("BAD") or ln.startswith("     logs"):
            print("    " + ln)
    try:
        with open(out) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = None
    return p, data, time.time() - t0


def check_grade():
    """make grade in the solution tree: every check GOOD, every exercise done."""
    p, d, secs = run_grade()
    score = [ln for ln in p.stdout.splitlines() if ln.startswith("Score:")]
    record("grade: labs " + (score[0] if score else "(no score)"), p.returncode == 0,
           "" if p.returncode == 0 else (p.stderr.strip().splitlines() or ["see above"])[-1],
           secs)
    ex = d["exercises"] if d else {"done": 0, "total": 0}
    record("grade: the solution tree does every exercise", ex["total"] >= 12
           and ex["done"] == ex["total"], "%d/%d done" % (ex["done"], ex["total"]))
    return ex["total"]


def check_published_transcript(number=3, name="serial"):
    """The reader's side of determinism: the command a page prints above a
    transcript, typed as printed, prints that transcript's lines again
    (lab 3's serial step: its report's lines)."""
    import shlex
    from labs import grade as labgrade
    from labs.lab import load_lab, split_transcript
    lab = by_number(number).folder
    path = os.path.join(labgrade.TRANSCRIPTS, lab, name + ".txt")
    what = "reproducible: the published transcript %s/%s, its command run again" % (lab, name)
    try:
        hdr, body = split_transcript(open(path).read())
    except OSError as e:
        record(what, False, str(e))
        return
    command = next((h[len("command: "):] for h in hdr if h.startswith("command: ")), "")
    argv = shlex.split(command)
    if argv[:2] != ["$", "make"]:
        record(what, False, "its command is not a make command: %r" % command)
        return
    step = next(s for s in load_lab(lab).steps if s["name"] == name)
    t0 = time.time()
    rc, out, err = make_out(argv[2:])
    again = labgrade.shown_part(step, out, vm.build_dir(step["variant"])).split("\n")
    diff = first_difference("\n".join(body), "\n".join(again)) if rc == 0 else \
        "exit %d: %s" % (rc, err)
    record(what + ": `%s`" % command[2:], not diff, diff, time.time() - t0)


def check_page_commands():
    """The page is the test: every console command of the student pages and
    every command of README.md's shell blocks, run exactly as printed,
    succeeds (tests/page_commands.py); blocks marked kt-manual (the whole
    build, the whole test, two-terminal pairs: README.md says why in a
    comment above the block) are listed, not run."""
    from tests import page_commands as pc
    cmds = pc.page_commands()
    manual = sorted({c for _, _, c, m in cmds if m is True})
    print("    not run (kt-manual): %s" % ", ".join(manual), flush=True)
    done = {}
    for page, line, command, how in cmds:
        if how is True:
            continue
        t0 = time.time()
        if command not in done:
            done[command] = COMMANDS.get(command) or pc.run_command(command, env=kept_env())
        ok, why = done[command]
        if how == "fails":
            record("page command %s:%d (shows a failure, kt-fails): %s" % (page, line, command),
                   not ok, why if ok else "", time.time() - t0)
            continue
        again = " (its run above)" if command in COMMANDS else ""
        record("page command %s:%d: %s%s" % (page, line, command, again),
               ok, "" if ok else why, time.time() - t0)


def check_grade_student():
    """make grade in a student tree: the demonstrations must pass; the
    exercises are the student's work, reported, not a test."""
    p, d, secs = run_grade()
    demo = d["demonstrations"] if d else {"good": 0, "total": 0}
    record("grade: the labs' demonstrations", demo["total"] > 0 and demo["good"] == demo["total"],
           "%d/%d GOOD" % (demo["good"], demo["total"]), secs)
    if d:
        print("exercises: %d/%d done (your work; `make grade` says what each needs)" % (
            d["exercises"]["done"], d["exercises"]["total"]))


# A demonstration's BAD line in a student tree's output (its exercises' BAD
# lines are the student's work, not a failure of the handout).
DEMO_BAD = re.compile(r"\s*BAD\s+\d\d (?!ex )")


def check_handout(n_exercises):
    """make handout, then the student tree's own make check: no solution
    text in it, its demonstrations GOOD, and 0 exercises done.  Its make
    check runs one check at a time (JOBS=1: the job's one slot)."""
    from classroom import handout
    from vm import proc
    dest = os.path.join(REPO, "build", "handout-check")
    t0 = time.time()
    p = subprocess.run([PY, "-m", "classroom.handout", "--force", dest], cwd=REPO,
                       capture_output=True, text=True)
    record("handout: make handout DEST=build/handout-check", p.returncode == 0,
           (p.stdout.strip().splitlines() or [p.stderr.strip()])[-1], time.time() - t0)
    if p.returncode:
        return
    found = handout.leaks(dest)
    record("handout: no solution text in the student tree (nor a stored run of an exercise "
           "step, nor a kt-teacher line)", not found, "%d found" % len(found), 0, found[:10])
    from classroom import implscan
    t0 = time.time()
    impl = implscan.implementations(dest)
    record("handout: no function of its code answers a Python exercise as the solution does "
           "(classroom/implscan.py, in a sandbox)", not impl, "%d found" % len(impl),
           time.time() - t0, impl[:10])
    t0 = time.time()
    # the student tree's own make check, whole (not this run's ONLY= or SKIP=)
    # FRESH=1: it runs every job (its grade writes the transcripts compared
    # below), none shown from the job cache (tests/jobcache.py)
    env = {k: v for k, v in kept_env().items() if k not in ("ONLY", "SKIP", "LIST")}
    env["FRESH"] = "1"
    out = os.path.join(OUT, "handout-check.out")
    with open(out, "w") as f:
        child = proc.spawn(["make", "-s", "check"], cwd=dest, env=env, stdout=f,
                           stderr=subprocess.STDOUT)
    child.wait()
    proc.forget(child)
    tail = open(out, errors="replace").read().strip().splitlines()
    record("handout: the student tree's make check (output %s)"
           % os.path.relpath(out, REPO), child.returncode == 0,
           (tail or ["no output"])[-1], time.time() - t0,
           [ln for ln in tail if ln.startswith("FAIL") or DEMO_BAD.match(ln)][:16])
    try:
        with open(os.path.join(dest, "build", "check", "grade.json")) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        record("handout: its grade results", False, str(e))
        return
    ex = d["exercises"]
    pts = d.get("points", {}).get("earned")
    record("handout: untouched, it scores 0 on every exercise, 0 points", ex["done"] == 0
           and ex["total"] == n_exercises and pts == 0, "%d/%d done, %s points" % (
               ex["done"], ex["total"], pts), 0,
           ["%s: %s points" % (e["id"], e["points"]) for e in ex["list"] if e.get("points")])
    same_as_kept(dest)


def same_as_kept(dest):
    """The student tree's own grading printed, for every step that runs no
    student code, the bytes of the transcripts the site shows (kept in
    labs/*/transcripts/): the student's runs are the page's."""
    from labs import grade as labgrade
    from labs.edition import hidden_steps
    from labs.lab import load_all
    n, bad = 0, []
    for lab in load_all():
        for step in sorted(set(labgrade.shown_steps(lab)) - set(hidden_steps(lab))):
            kept = labgrade.stored_path(lab.folder, step)
            mine = os.path.join(dest, "build", "transcripts", lab.folder, step + ".txt")
            if not os.path.exists(kept):
                continue
            n += 1
            d = first_difference(open(kept, errors="replace").read(),
                                 open(mine, errors="replace").read()
                                 if os.path.exists(mine) else "")
            if d:
                bad.append("%s/%s: %s" % (lab.folder, step, d))
    record("handout: its own runs print the site's %d transcripts of steps that run no "
           "student code, byte for byte" % n, n > 0 and not bad, "%d differ" % len(bad), 0,
           bad[:10])


def check_transcripts_kept():
    """The transcripts the pages show are kept in labs/*/transcripts/ (so
    that a tree without kernels renders the whole site): make check's own
    grading, live, must capture the very same bytes."""
    from labs import grade as labgrade
    from labs.lab import load_all
    t0, n, bad = time.time(), 0, []
    for lab in load_all():
        for step in labgrade.shown_steps(lab):
            for suffix, live in ((".txt", labgrade.transcript_path(lab.folder, step)),
                                 (".read.json", labgrade.read_path(lab.folder, step))):
                kept = labgrade.stored_path(lab.folder, step, suffix)
                if not os.path.exists(kept):
                    if suffix == ".txt":
                        bad.append("%s/%s: not kept (make transcripts keeps it)" % (
                            lab.folder, step))
                    continue
                n += 1
                a = open(kept, errors="replace").read()
                b = open(live, errors="replace").read() if os.path.exists(live) else ""
                d = first_difference(a, b)
                if d:
                    bad.append("%s/%s%s: %s" % (lab.folder, step, suffix, d))
    record("transcripts: the %d kept files equal make check's live capture, byte for byte"
           % n, not bad, "%d differ or are missing" % len(bad), time.time() - t0, bad[:12])


def check_site_anywhere():
    """A fresh clone with an empty cache and no kernel renders the whole
    site from what the checkout keeps: no transcript, picture or outcome
    waits for a capture on this machine."""
    t0 = time.time()
    top = tempfile.mkdtemp(prefix="kt-site-")
    try:
        clone = os.path.join(top, "clone")
        p = subprocess.run(["git", "clone", "-q", REPO, clone], capture_output=True, text=True)
        if p.returncode:
            record("site anywhere: git clone", False, p.stderr.strip()[-200:])
            return
        # what is not committed yet (make check runs on a work tree): as it is here
        for rel in subprocess.run(["git", "ls-files", "-m", "-o", "--exclude-standard"],
                                  cwd=REPO, capture_output=True, text=True).stdout.split():
            if os.path.isfile(os.path.join(REPO, rel)):
                os.makedirs(os.path.dirname(os.path.join(clone, rel)) or clone, exist_ok=True)
                shutil.copy(os.path.join(REPO, rel), os.path.join(clone, rel))
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
        env["KASAN_TAGS_CACHE"] = os.path.join(top, "cache")
        p = subprocess.run(["make", "-s", "site"], cwd=clone, env=env, capture_output=True,
                           text=True)
        waiting = []
        for root, _dirs, files in os.walk(os.path.join(clone, "build", "site")):
            for f in files:
                if f.endswith(".html"):
                    text = open(os.path.join(root, f), errors="replace").read()
                    if re.search(r"has not been captured|which this machine does not have yet|"
                                 r"not yet checked on this machine", text):
                        waiting.append(os.path.relpath(os.path.join(root, f), clone))
        built = os.path.exists(os.path.join(clone, "build", "site", "index.html"))
        record("site anywhere: a fresh clone, an empty cache, no kernel: make site renders "
               "every transcript, picture and outcome", p.returncode == 0 and built
               and not waiting, "%d pages wait for a capture" % len(waiting) if built else
               (p.stdout + p.stderr).strip()[-200:], time.time() - t0, waiting[:8])
    finally:
        shutil.rmtree(top, ignore_errors=True)
