# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: the Gradescope zip as Gradescope runs it, on bases that are
not Debian 12.

`make autograder` (lab 1's kernel, the Debian 12 userland) is extracted
into /autograder/source of a container of Debian 11's minbase (a glibc
older than Gradescope's default Ubuntu 22.04) and of Debian 13's, made
from Debian's archive (vm/images/*.txt) and run under podman's default
security, as Gradescope's own:

  setup.sh          once, as root: unpacks the userland and, in it,
                    imports the kernels (it needs no network: none is given)
  run_autograder    copied to /autograder, for each submission, with no
                    network, half a CPU and 768 MB: a solved lab 1 gets
                    every point of lab 1 within 10 minutes; a hostile one,
                    whose Python writes results.json itself and leaves
                    marks beside it, gets 0, and nothing it wrote is left
"""

import json
import os
import shutil
import subprocess
import time

from labs.lab import by_number
from tests.checklib import OUT, REPO, containers, record

TOP = os.path.join(OUT, "gradescope")
BASES = ("debian11-minbase", "debian13-minbase")
LIMITS = ["--cpus", "0.5", "--memory", "768m"]
# A submission's whole grade on Gradescope, at most
GRADE_SECONDS = 600
MARKS = ("results/PWNED", "PWNED", "source/PWNED")
HOSTILE = """import json, os
for p in ("/autograder/results/results.json", "/autograder/results/PWNED",
          "/autograder/PWNED", "/autograder/source/PWNED"):
    try:
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            json.dump({"score": 1000, "tests": []}, f)
    except OSError:
        pass
"""


def lab1():
    x = by_number(1)
    student = os.path.join("labs", x.folder, "student")
    solved = {os.path.join(student, f): open(os.path.join(REPO, student, f)).read()
              for f in sorted(os.listdir(os.path.join(REPO, student)))}
    return x, {"solved": solved, "hostile": {os.path.join(student, "tagmath.py"): HOSTILE}}


def make(args, log):
    with open(log, "w") as f:
        p = subprocess.run(["make", "-s", "-C", REPO] + args, stdout=f, stderr=subprocess.STDOUT,
                           env={k: v for k, v in os.environ.items() if not k.startswith("MAKE")})
    return p.returncode, open(log, errors="replace").read().strip().splitlines()[-1:] or [""]


def submit(root, files, who):
    for d in ("submission", "results"):
        shutil.rmtree(os.path.join(root, d), ignore_errors=True)
    for m in MARKS:
        if os.path.exists(os.path.join(root, m)):
            os.unlink(os.path.join(root, m))
    for rel, text in files.items():
        os.makedirs(os.path.join(root, "submission", os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(root, "submission", rel), "w") as f:
            f.write(text)
    with open(os.path.join(root, "submission_metadata.json"), "w") as f:
        json.dump({"users": [{"email": who + "@example.edu"}],
                   "created_at": "2026-12-07T09:00:00.000000-08:00"}, f)


def check_gradescope():
    from classroom import autograder
    container = containers("gradescope: the zip on other bases", TOP)
    if not container:
        return
    x, subs = lab1()
    most = sum(e["points"] for e in x.exercises)
    t0 = time.time()
    dist, zpath = os.path.join(TOP, "kernels.tar.zst"), os.path.join(TOP, "autograder.zip")
    rc, last = make(["dist", "VARIANTS=swtags", "DIST_FILE=" + dist], os.path.join(TOP, "dist.out"))
    if rc == 0:
        rc, last = make(["autograder", "KERNELS=" + dist, "AUTOGRADER_ZIP=" + zpath],
                        os.path.join(TOP, "zip.out"))
    record("gradescope: make autograder with lab 1's kernel and the Debian 12 userland",
           rc == 0, "%.0f MiB" % (os.path.getsize(zpath) / 2**20) if rc == 0 else last[0],
           time.time() - t0)
    if rc:
        return
    for base in BASES:
        t0 = time.time()
        try:
            tag = container.image(base)
        except Exception as e:  # noqa: BLE001 -- a base that cannot be made is one FAIL
            record("gradescope: the %s base image" % base, False, str(e)[-300:])
            continue
        root = os.path.join(TOP, base, "autograder")
        autograder.unpack(zpath, root)
        mounts = [(root, "/autograder", "rw")]
        rc, out = container.run(tag, ["sh", "/autograder/source/setup.sh"], mounts, timeout=1800)
        record("gradescope: %s: setup.sh, as root, no network (the userland unpacked, the "
               "kernels imported in it)" % base, rc == 0,
               (out.strip().splitlines() or ["exit %d" % rc])[-1], time.time() - t0)
        if rc:
            continue
        for name, files in subs.items():
            submit(root, files, name)
            t0 = time.time()
            rc, out = container.run(tag, ["/autograder/run_autograder", "-n", "1"], mounts,
                                    timeout=GRADE_SECONDS + 120, extra=LIMITS)
            secs = time.time() - t0
            try:
                r = json.load(open(os.path.join(root, "results", "results.json")))
            except (OSError, ValueError):
                r = {}
            left = [m for m in MARKS if os.path.exists(os.path.join(root, m))]
            want = most if name == "solved" else 0
            good = r.get("score") == want and len(r.get("tests", [])) == 2 * len(x.exercises) \
                and not left and secs <= GRADE_SECONDS and rc == 0
            record("gradescope: %s: run_autograder, no network, half a CPU, 768 MB: lab 1 %s "
                   "scores %s of %s within %d s%s" % (
                       base, name, want, most, GRADE_SECONDS,
                       ", nothing it wrote is left" if name == "hostile" else ""),
                   good, "score %s, %d tests, exit %d, left %s" % (
                       r.get("score"), len(r.get("tests", [])), rc, left), secs,
                   [] if good else out.strip().splitlines()[-12:])
