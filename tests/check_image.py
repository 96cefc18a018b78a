# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: both images where their users run them (make image).

Both flavours of classroom/image.py are built from one `make dist`, and
run under podman's default security (masked /proc, default seccomp, no
added capability, not privileged), no network, with an empty folder of
this machine mounted at /course, as the teacher's guide's commands do.

The student: the entry copies the handout there; the start page's first
commands (make deps, make kernel) find everything in; make first-step
prints the site's transcript byte for byte; lab 1's Python solved, written
into the folder on the host, is graded there by make grade N=1.

The grader: make check's class of four (tests/check_sandbox.py: the
untouched, the tampered, the hard-coded and the hostile student), run in
the image by its own `make check ONLY=sandbox`, passes there behind the
container's wall, and gives each student the exercises and points this
machine's run gave them.
"""

import json
import os
import secrets
import shutil
import time

from labs.lab import by_number
from tests.checklib import OUT, REPO, containers, record

TOP = os.path.join(OUT, "image")
STUDENTS = ("ann", "bob", "carol", "mallory")


def check_image():
    from classroom import image
    container = containers("image: the student and grader images", TOP)
    if not container:
        return
    t0 = time.time()
    try:
        dist = image.kernels(os.path.join(TOP, "kernels.tar.zst"))
    except Exception as e:  # noqa: BLE001 -- a failed dist is one FAIL line
        record("image: make dist for the images", False, str(e)[-300:], time.time() - t0)
        return
    tags = {}
    for flavour, what in (("student", "the handout"), ("grader", "the checkout")):
        t0 = time.time()
        try:
            r = image.build(flavour, save=False, dist=dist)
        except Exception as e:  # noqa: BLE001 -- a failed build is one FAIL line
            record("image: make image FLAVOUR=" + flavour, False, str(e)[-300:],
                   time.time() - t0)
            continue
        tags[flavour] = r["tag"]
        record("image: make image FLAVOUR=%s (Debian's packages, %s, every kernel)"
               % (flavour, what), True, "%s, %.0f MiB" % (r["tag"], int(r["bytes"]) / 2**20),
               time.time() - t0)
    os.unlink(dist)
    if "student" in tags:
        student_session(container, str(tags["student"]))
    if "grader" in tags:
        grader_class(container, str(tags["grader"]))
        prairielearn(container, str(tags["grader"]))


def student_session(container, tag):
    """A student's first session in the student image."""
    work = os.path.join(TOP, "kasan-work")
    os.makedirs(work)
    mounts = [(work, "/course", "rw")]

    def student(cmd, timeout=900):
        t = time.time()
        rc, out = container.run(tag, ["sh", "-c", cmd], mounts, timeout=timeout)
        return rc, out, time.time() - t

    rc, out, secs = student("make deps && make kernel")
    record("image: the start page's first commands (make deps, make kernel) in /course",
           rc == 0 and os.path.exists(os.path.join(work, "labs", "HANDOUT")),
           out.strip().splitlines()[-1] if out.strip() else "exit %d" % rc, secs)
    rc, out, secs = student("make -s first-step")
    record("image: lab 1's first step prints the site's transcript, byte for byte",
           rc == 0 and "byte for byte" in out, out.strip()[-200:], secs)
    lab1 = os.path.join("labs", by_number(1).folder, "student", "tagmath.py")
    shutil.copy(os.path.join(REPO, lab1), os.path.join(work, lab1))
    rc, out, secs = student("make grade N=1")
    lines = {ln.split(":")[0]: ln for ln in out.splitlines() if " exercise 1." in ln}
    # 1.2 is checked whole in a student's copy; 1.1's random cases need the
    # teacher's reference, which a copy lacks: TEACHER, never BAD
    ok = lines.get("GOOD exercise 1.2") and lines.get("TEACHER exercise 1.1")
    record("image: tagmath.py solved, written on the host: make grade N=1 there says GOOD "
           "for 1.2 and, for 1.1, all its copy can check", bool(ok),
           "; ".join(sorted(lines)) or (out.strip().splitlines()[-1:] or ["no output"])[0], secs)


def outcomes(results):
    """{student: {exercise: (done, points)}} of a grade-class results dir."""
    got = {}
    for name in STUDENTS:
        try:
            with open(os.path.join(results, name + ".json")) as f:
                d = json.load(f)
            got[name] = {e["id"]: (e["done"], e["points"]) for e in d["exercises"]["list"]}
            got[name]["wall"] = d.get("wall")
        except (OSError, ValueError, KeyError) as e:
            got[name] = {"error": str(e)}
    return got


def grader_class(container, tag):
    """make check's class of four in the grader image."""
    course = os.path.join(TOP, "grader-course")
    os.makedirs(course)
    t0 = time.time()
    rc, out = container.run(tag, ["make", "-s", "check", "ONLY=sandbox"],
                            [(course, "/course", "rw")], timeout=1800)
    lines = out.strip().splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    ok = rc == 0 and not fails and any(ln.startswith("PASS sandbox:") for ln in lines)
    record("image: the grader image's own make check ONLY=sandbox (the class of four, the "
           "zip's run_autograder, the module's compiler) passes", ok,
           (lines or ["no output"])[-1], time.time() - t0,
           [] if ok else fails[:10] or lines[-8:])
    inside = outcomes(os.path.join(course, "build", "check", "sandbox", "results"))
    walls = {n: g.pop("wall", None) for n, g in inside.items()}
    record("image: there, every student was graded behind the container's wall "
           "(bwrap-outer-proc: a new /proc is refused)",
           set(walls.values()) == {"bwrap-outer-proc"}, "walls %s" % walls)
    host = outcomes(os.path.join(REPO, "build", "check", "sandbox", "results"))
    for g in host.values():
        g.pop("wall", None)
    if any("error" in g for g in host.values()):
        # ONLY=image: this machine's class of four has not run; what it
        # asserts is what its check wants (tests/check_sandbox.py)
        record("image: the class of four's results there (this machine's are not here: "
               "make check runs both)", False, "run make check ONLY=sandbox,image")
        return
    diff = ["%s: host %s, image %s" % (n, host[n], inside[n]) for n in STUDENTS
            if host[n] != inside[n]]
    record("image: the class of four gets, exercise by exercise, the same done and points "
           "in the grader image as on this machine", not diff, "%d differ" % len(diff), 0,
           diff)


# A hostile lab-1 submission for PrairieLearn: its Python, run by the
# grader, tries to write the results itself and to leave a mark beside them
PL_HOSTILE = """import os
for p in ("/grade/results/results.json", "/grade/results/PWNED", "/grade/student/PWNED"):
    try:
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write('{"gradable": true, "score": 1.0}')
    except OSError:
        pass
"""


def prairielearn(container, tag):
    """PrairieLearn's layout in the grader image, no network: lab 1 solved
    scores 1, the hostile submission 0, and nothing it wrote is left."""
    lab1 = os.path.join(REPO, "labs", by_number(1).folder, "student")
    for name, files in (("solved", {f: open(os.path.join(lab1, f)).read()
                                    for f in sorted(os.listdir(lab1))}),
                        ("hostile", {"tagmath.py": PL_HOSTILE})):
        grade = os.path.join(TOP, "pl-" + name)
        for d in ("student", "data", "serverFilesCourse/kasan-tags"):
            os.makedirs(os.path.join(grade, d))
        for f, text in files.items():
            with open(os.path.join(grade, "student", f), "w") as out:
                out.write(text)
        with open(os.path.join(grade, "data", "data.json"), "w") as f:
            json.dump({"variant_seed": 1234567 if name == "solved" else 7654321}, f)
        with open(os.path.join(grade, "serverFilesCourse/kasan-tags/course-secret"), "w") as f:
            f.write(secrets.token_hex(32) + "\n")
        t0 = time.time()
        rc, out = container.run(tag, ["/opt/kasan-tags/tree/classroom/pl-grade", "1"],
                                [(grade, "/grade", "rw")], timeout=600)
        try:
            with open(os.path.join(grade, "results", "results.json")) as f:
                r = json.load(f)
        except (OSError, ValueError):
            r = {}
        left = [p for p in ("results/PWNED", "student/PWNED")
                if os.path.exists(os.path.join(grade, p))]
        want = 1.0 if name == "solved" else 0.0
        ok = rc == 0 and r.get("gradable") is True and r.get("score") == want and \
            all({"name", "points", "max_points", "message"} <= set(t) for t in r["tests"]) \
            and not left
        why = "score %s, %d tests, left %s" % (r.get("score"), len(r.get("tests", [])), left)
        record("image: PrairieLearn's layout (/grade), no network: lab 1 %s scores %s%s"
               % (name, want, ", nothing it wrote is left" if name == "hostile" else ""),
               ok, why if r else out.strip()[-300:], time.time() - t0)
