# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: the wall where graders run, in a container.

A Debian 12 container (vm/images/sandbox-test.txt, made from Debian's
packages by vm/container.py) runs under podman's default security: masked
/proc, the default seccomp profile, no added capability, not privileged,
no network.  In it, with this checkout mounted read-only, the sandbox's own
tests run as on the host: the hostile student's Python (host writes,
network, the grader's objects), the gdb proxy's refusals (writes, monitor
escapes) against a fake stub.  The wall they get must be named, and it
must be the container's (a new /proc is refused there).
"""

import os
import re
import time

from tests.checklib import REPO, record

TESTS = ["tests/test_sandbox.py", "tests/test_gdb_writes.py", "tests/test_wall.py"]


def check_container():
    from vm import container
    ok, why = container.available()
    if not ok:
        record("container: the sandbox's tests in a container of default security", False, why)
        return
    t0 = time.time()
    try:
        tag = container.image("sandbox-test")
    except Exception as e:  # noqa: BLE001 -- a failed image build is one FAIL line
        record("container: the sandbox-test image (mmdebstrap, podman import)", False, str(e),
               time.time() - t0)
        return
    record("container: the sandbox-test image (Debian 12, from Debian's archive)", True, tag,
           time.time() - t0)
    t0 = time.time()
    code = ("from vm import sandbox; print('wall:', sandbox.wall()); "
            "r = sandbox.run(['/bin/sh', '-c', 'echo inside; id -u']); print(r.status, r.text())")
    env = ["-e", "PYTHONPATH=/src:/src/gdb-scripts", "-e", "PYTHONDONTWRITEBYTECODE=1"]
    rc, out = container.run(tag, ["/usr/bin/python3", "-c", code], [(REPO, "/src", "ro")],
                            timeout=120, workdir="/src", extra=env)
    wall = re.search(r"^wall: (\S+)$", out, re.M)
    record("container: the sandbox starts behind the container's wall (a new /proc refused "
           "there) and runs as uid 65534", rc == 0 and bool(wall) and wall.group(1) ==
           "bwrap-outer-proc" and "ok inside\n65534" in out, out.strip()[-300:],
           time.time() - t0)
    t0 = time.time()
    rc, out = container.run(tag, ["/usr/bin/python3", "-m", "pytest", "-q", "-p",
                                  "no:cacheprovider"] + TESTS, [(REPO, "/src", "ro")],
                            timeout=900, workdir="/src", extra=env)
    summary = (re.findall(r"^(\d+ passed.*|.*failed.*|.*error.*)$", out, re.M) or [out[-300:]])
    record("container: the sandbox's tests (%s) pass in the container, with no network"
           % ", ".join(os.path.basename(t) for t in TESTS),
           rc == 0 and "passed" in out and "skipped" not in summary[-1],
           summary[-1].strip(), time.time() - t0,
           [] if rc == 0 else out.strip().splitlines()[-15:])
