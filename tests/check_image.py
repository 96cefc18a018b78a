# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: the student image where a student runs it (make image).

The student image (classroom/image.py) runs under podman's default
security, no network, with an empty folder of this machine mounted at
/course, as the start page's one command does.  A student's first session:
the entry copies the handout there; the start page's first commands
(make deps, make kernel) find everything in; make first-step prints the
site's transcript byte for byte; lab 1's Python solved, written into the
folder on the host, is graded there by make grade N=1.
"""

import os
import shutil
import time

from labs.lab import by_number
from tests.checklib import OUT, REPO, record

TOP = os.path.join(OUT, "image")


def check_image():
    from classroom import image
    from vm import container
    ok, why = container.available()
    if not ok:
        record("image: the student image", False, why)
        return
    t0 = time.time()
    try:
        r = image.build("student", save=False)
    except Exception as e:  # noqa: BLE001 -- a failed build is one FAIL line
        record("image: make image FLAVOUR=student", False, str(e)[-300:], time.time() - t0)
        return
    record("image: make image FLAVOUR=student (Debian's packages, the handout, every kernel)",
           True, "%s, %.0f MiB" % (r["tag"], int(r["bytes"]) / 2**20), time.time() - t0)
    shutil.rmtree(TOP, ignore_errors=True)
    work = os.path.join(TOP, "kasan-work")
    os.makedirs(work)
    mounts = [(work, "/course", "rw")]

    def student(cmd, timeout=900):
        t = time.time()
        rc, out = container.run(r["tag"], ["sh", "-c", cmd], mounts, timeout=timeout)
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
