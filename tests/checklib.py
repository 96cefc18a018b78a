# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What the checks of `make check` (tests/check.py) share: the result
record (one PASS/FAIL line each), the output folder, running `make` as a
user would, and a copy of the checkout."""

import json
import os
import shutil
import subprocess
import time

import vm


REPO = vm.REPO


HANDOUT = os.path.exists(os.path.join(REPO, "labs", "HANDOUT"))


OUT = os.path.join(REPO, "build", "check")


PY = "/usr/bin/python3"


results = []
# What a check ran that is also a command a page prints, as the page prints
# it: {command: (ok, why)}.  The page-commands check takes these results
# instead of running the same command twice.  Each job saves its own
# (save_commands), the jobs after it load them all (load_commands).  make
# test is pytest + lint, two jobs: each saves its part (TEST_PARTS).
COMMANDS = {}
TEST_PARTS = ("make test: pytest", "make test: lint")


def save_commands(path, loaded=None):
    """The commands this job ran (not those it loaded), for the jobs after it."""
    mine = {k: v for k, v in COMMANDS.items() if (loaded or {}).get(k) != v}
    if mine:
        with open(path, "w") as f:
            json.dump(mine, f)


def load_commands(folder):
    for name in sorted(os.listdir(folder)):
        if name.endswith(".commands.json"):
            with open(os.path.join(folder, name)) as f:
                COMMANDS.update({k: tuple(v) for k, v in json.load(f).items()})
    if all(p in COMMANDS for p in TEST_PARTS):
        parts = [COMMANDS[p] for p in TEST_PARTS]
        COMMANDS["make test"] = (all(ok for ok, _ in parts),
                                 "; ".join(why for ok, why in parts if not ok))


def record(name, ok, why="", seconds=0.0, detail=()):
    results.append(ok)
    line = "%s %s (%.1f s)" % ("PASS" if ok else "FAIL", name, seconds)
    if why:
        line += ": " + why
    print(line, flush=True)
    for d in detail:
        print("    " + d, flush=True)


def timed(fn, *a):
    t0 = time.time()
    try:
        return fn(*a), time.time() - t0
    except vm.KtError as e:
        return e, time.time() - t0


def kept_env():
    """The environment of a check whose runs may be read from earlier runs of
    the same inputs (vm/runcache.py): the graders and the page commands.
    The checks of determinism itself never get it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env["KASAN_TAGS_RUNCACHE"] = "1"
    return env


def first_difference(a, b):
    """"" if a == b, else where they part: "line N: 'x' / 'y'"."""
    if a == b:
        return ""
    la, lb = a.splitlines(), b.splitlines()
    n = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
    return "line %d of %d/%d: %r / %r" % (n + 1, len(la), len(lb), (la + [""])[n][:100],
                                          (lb + [""])[n][:100])


def make_out(args, seed=None):
    """`make -s ARGS` in this checkout (SEED=seed if given): (exit code,
    its standard output with the console's CRLF as LF, its one-line error
    or else its last stderr line)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    if seed is not None:
        env["SEED"] = str(seed)
    p = subprocess.run(["make", "-s", "-C", REPO] + args, env=env, capture_output=True,
                       text=True, errors="replace", timeout=600, stdin=subprocess.DEVNULL)
    lines = p.stderr.strip().splitlines()
    error = [ln for ln in lines if ln.startswith("kasan-tags: error:")]
    return p.returncode, p.stdout.replace("\r\n", "\n"), (error or lines or [""])[-1]


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def checkout_copy(dest):
    """This checkout's files (those make handout reads) in dest."""
    from classroom import handout
    for rel in handout.tree_files():
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(REPO, rel), os.path.join(dest, rel))


def containers(what, top=None):
    """vm.container, where podman and mmdebstrap are here; else one FAIL
    line for `what` and None.  top: made anew, empty."""
    from vm import container
    ok, why = container.available()
    if not ok:
        record(what, False, why)
        return None
    if top:
        shutil.rmtree(top, ignore_errors=True)
        os.makedirs(top)
    return container
