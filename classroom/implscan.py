# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Does a handout's code implement a Python exercise?  (The leak test's
behavioural form: `python3 -m classroom.implscan DEST` prints what it finds.)

For every exercise whose file is Python, the functions its solution
region defines are called on the probe cases of the lab's check.py
(PROBES: {function: [args, ...]}); then every module-level function of
every other Python file of the tree at DEST that takes as many arguments
is called on the same cases.  One that answers them all as the solution
does is an implementation of the exercise: a leak.
"""

import ast
import importlib.util
import inspect
import json
import os
import signal
import sys
import time

from classroom import handout
from labs import lab as labdata

REPO = handout.REPO
SKIP = ("__main__.py", "conf.py", "conftest.py", "student_driver.py")


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def targets():
    """[(exercise id, function, cases, answers)] from the solution tree."""
    out = []
    for x in labdata.load_all():
        probes = getattr(load(x.path("check.py"), "check_%02d" % x.number), "PROBES", {})
        for ex in x.exercises:
            for rel in ex["files"]:
                if not rel.endswith(".py"):
                    continue
                text = open(os.path.join(REPO, rel)).read()
                owned = {ln.strip() for eid, body in handout.regions(text, rel)
                         if eid == ex["id"] for ln in body}
                sol = load(os.path.join(REPO, rel), "solution_" + ex["id"].replace(".", "_"))
                for node in ast.parse(text).body:
                    if isinstance(node, ast.FunctionDef) and node.name in probes and any(
                            ln.strip() in owned for ln in ast.get_source_segment(
                                text, node).splitlines()):
                        cases = probes[node.name]
                        out.append((ex["id"], node.name, cases,
                                    [getattr(sol, node.name)(*c) for c in cases]))
    return out


def candidates(dest):
    """Every module-level function of the Python files at dest but the
    students' own files and SKIP."""
    for root, dirs, files in os.walk(dest):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "build", "student", "__pycache__"))
        for f in sorted(files):
            if not f.endswith(".py") or f in SKIP:
                continue
            path = os.path.join(root, f)
            try:
                mod = load(path, "scan_%d" % abs(hash(path)))
            except BaseException:  # noqa: BLE001 -- a module that needs gdb, a kernel...
                continue
            for name, fn in list(vars(mod).items()):
                if inspect.isfunction(fn) and fn.__module__ == mod.__name__:
                    yield os.path.relpath(path, dest), name, fn


def arity(fn):
    try:
        ps = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in ps):
        return None
    return (len([p for p in ps if p.default is p.empty]), len(ps))


def same(fn, cases, answers, seconds=3):
    """Does fn answer every case as the solution does?  Called in a child
    of its own (a process group, no output, killed after `seconds`): a
    function of the project may start processes or never return."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setpgrp()
        os.close(r)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        ok = False
        try:
            ok = all(fn(*c) == a for c, a in zip(cases, answers))
        except BaseException:  # noqa: BLE001
            pass
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.close(w)
    end, out = time.time() + seconds, b""
    while time.time() < end:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.01)
    # the group, and the child itself: a child stuck before its setpgrp()
    # (a lock another thread held at the fork) is in no group of its own
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    out = os.read(r, 1)
    os.close(r)
    return out == b"1"


def scan(dest, want):
    """["FILE: FUNCTION implements exercise X (NAME)"] for `want`, the
    targets() of the solution tree."""
    found = []
    for rel, name, fn in candidates(dest):
        a = arity(fn)
        for ex_id, target, cases, answers in want:
            if a and a[0] <= len(cases[0]) <= a[1] and same(fn, cases, answers):
                found.append("%s: %s implements exercise %s (%s)" % (rel, name, ex_id, target))
    return found


def implementations(dest):
    """scan() of the tree at dest, run in a sandbox (vm/sandbox.py): it
    calls every function of that tree, which must not touch this machine."""
    from vm import sandbox
    want = json.dumps([list(t) for t in targets()])
    r = sandbox.run(["/usr/bin/python3", "-m", "classroom.implscan", "--inside", dest],
                    stdin=want.encode(), ro=[dest, REPO], timeout=600, mem=4 << 30,
                    env={"PYTHONPATH": "%s:%s/gdb-scripts" % (REPO, REPO)})
    try:
        return json.loads(r.out)
    except ValueError:
        return ["the scan did not finish (%s): %s" % (
            r.status, r.err.decode(errors="replace").strip().splitlines()[-1:])]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--inside"]:
        print(json.dumps(scan(os.path.abspath(sys.argv[2]), json.load(sys.stdin))))
    else:
        print("\n".join(implementations(os.path.abspath(sys.argv[1]))))
