# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: student work is hostile.  A class of four lab-1 handouts is
graded by `make grade-class` and two of them by their own `make grade`:

  ann      untouched                               0 exercises
  bob      1.3 solved, lab 1's check.py tampered   1 (1.3): the tampering is ignored
  carol    1.3 hard-coded from SEED=1's run        0, "holds only for SEED=1"; but
                                                   1 in her own make grade SEED=1
  mallory  1.1-1.3 files that try to write outside the sandbox, read the
           grader-only reference, reach the network, import the project's
           reference modules, rewrite the result (at exit, through the
           result file, through the grader's objects), forge the grader's
           gdb sections, and run shell, Python and QEMU monitor commands
           from gdb                                0, and none of it happened

Every attempt leaves a canary file or a connection if it succeeds; the
check looks for all of them after each grading.
"""

import json
import lzma
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from labs.lab import by_number
from tests.checklib import OUT, REPO, kept_env, record

TOP = os.path.join(OUT, "sandbox")
# the host's temporary directory, which a sandbox hides behind its own /tmp
HOST_TMP_CANARY = os.path.join(tempfile.gettempdir(), "kasan-tags-PWNED-%d" % os.getpid())


def canaries(top):
    """The files an attack would leave, by where it writes them."""
    return [os.path.join(top, "canary-" + w) for w in
            ("py", "py-atexit", "gdb-shell", "gdb-python", "gdb-pipe", "qemu-monitor")] + \
        [os.path.join(REPO, "PWNED"), HOST_TMP_CANARY]


class Listener:
    """A TCP listener on the loopback: a connection means the network was
    reached."""

    def __init__(self):
        self.sock = socket.socket()
        # below the ephemeral range, where vm.qemu.free_port() picks the gdb
        # stubs' ports: never one a boot of another check is about to take
        for port in range(20000 + os.getpid() % 5000, 30000):
            try:
                self.sock.bind(("127.0.0.1", port))
                break
            except OSError:
                continue
        self.sock.listen(8)
        self.sock.settimeout(0.5)
        self.port, self.hits, self.stop = self.sock.getsockname()[1], 0, False
        self.th = threading.Thread(target=self._run, daemon=True)
        self.th.start()

    def _run(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.hits += 1
                c.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.th.join(2)
        self.sock.close()


def hostile_python(top, results, port):
    ref = os.path.join(REPO, "labs", by_number(1).folder, "reference.py")
    return '''"""Exercises 1.1 and 1.2, written by an attacker."""
import atexit, gc, os, socket, sys

for path in (%(c)r, %(pwned)r, %(tmp)r):
    try:
        open(path, "w").write("written by the student's Python")
    except OSError:
        pass
try:
    STOLEN = open(%(ref)r).read()
except OSError:
    STOLEN = None
try:
    socket.create_connection(("127.0.0.1", %(port)d), timeout=1).close()
except OSError:
    pass
try:
    vars(sys)["path"][:0] = [%(repo)r, %(repo)r + "/gdb-scripts",
                             %(repo)r + "/labs/01-tag-assignment"]
    import reference
    access_ok = reference.access_ok
except ImportError:
    pass
try:
    from kasan import tags
except ImportError:
    tags = None


def forge():
    for name in os.listdir(%(results)r) if os.path.isdir(%(results)r) else []:
        try:
            open(os.path.join(%(results)r, name), "w").write('{"exercises": {"done": 99}}')
        except OSError:
            pass
    try:
        open(%(ca)r, "w").write("at exit")
    except OSError:
        pass


atexit.register(forge)
for o in gc.get_objects():
    if type(o).__name__ == "Tally":
        o.exercises = [{"done": True}] * 99


def access_ok(ptr, size, start, tags_):
    forge()
    if STOLEN is None:      # what it would do with the grader's answer, had it read it
        raise RuntimeError("the reference was out of reach")
    return True


def shadow_to_mem(shadow, offset):
    return 0 if tags is None else tags.untag(shadow)
''' % {"c": os.path.join(top, "canary-py"), "pwned": os.path.join(REPO, "PWNED"),
       "ref": ref, "port": port, "repo": REPO, "results": results,
       "ca": os.path.join(top, "canary-py-atexit"), "tmp": HOST_TMP_CANARY}


def hostile_gdb(top, port):
    return '''# Exercise 1.3, written by an attacker
shell touch %(sh)s
python open(%(py)r, "w").write("gdb's Python")
python import socket; socket.create_connection(("127.0.0.1", %(port)d), timeout=1)
pipe echo x | touch %(pipe)s
monitor migrate "exec:touch %(mon)s"
echo KT-GDB kernel\\n
echo pointer:     0x1100000000000000\\n
echo pointer tag: 11\\n
echo KT-GDB stop\\n
echo x0: 0x1100000000000000\\n
set $obj = 0x1100000000000000
printf "pointer tag: 11\\nmemory tag: 11\\nshadow: 11 11 11 11 11 11 11 11 11\\n"
''' % {"sh": os.path.join(top, "canary-gdb-shell"), "py": os.path.join(top, "canary-gdb-python"),
       "port": port, "pipe": os.path.join(top, "canary-gdb-pipe"),
       "mon": os.path.join(top, "canary-qemu-monitor")}


def hardcoded_gdb(solution, values):
    """The solution's stop, then SEED=1's printed lines, echoed."""
    keep = [ln for ln in solution.splitlines() if not ln.startswith(("printf", "set $shadow"))]
    return "\n".join(keep + ["echo %s\\n" % v for v in values]) + "\n"


def seed1_lines():
    """What the solution's tagstop.gdb printed at SEED=1: its stored run
    (labs/01-*/runs/, `make fixtures N=1`), which the site shows too."""
    path = os.path.join(REPO, "labs", by_number(1).folder, "runs", "ex-tagstop.gdb.xz")
    try:
        text = lzma.open(path, "rt").read()
    except (OSError, lzma.LZMAError):
        return []
    student = text.split("KT-GDB student\n", 1)[-1].split("\nKT-GDB ", 1)[0]
    return re.findall(r"^((?:pointer tag|memory tag|shadow): .*)$", student, re.M)


def make(args, cwd, log, env):
    with open(log, "w") as f:
        p = subprocess.run(["make", "-s"] + args, cwd=cwd, env=env, stdout=f,
                           stderr=subprocess.STDOUT)
    return p.returncode, open(log, errors="replace").read()


def grade_class(top, trees, results):
    """make grade-class N=1 of the trees, under a course secret of make
    check's own: (its environment, exit code, output)."""
    env = dict(kept_env(), KASAN_TAGS_COURSE_SECRET=os.path.join(top, "secret"))
    with open(env["KASAN_TAGS_COURSE_SECRET"], "w") as f:
        f.write("a course secret for make check's class only (%s)\n" % os.path.basename(top))
    rc, out = make(["-C", REPO, "grade-class", "CLASS=" + trees, "OUT=" + results, "N=1"],
                   REPO, os.path.join(top, "grade-class.out"), env)
    return env, rc, out


SUMMARY = ("summary.csv", "summary.json", "summary.html")


def ex_points(ex_id):
    from labs.lab import load_all
    return next(e["points"] for x in load_all() for e in x.exercises if e["id"] == ex_id)


def summary_bytes(results):
    return {f: open(os.path.join(results, f), "rb").read() for f in SUMMARY
            if os.path.exists(os.path.join(results, f))}


def scale(trees, results, env):
    """The same class again with JOBS=2, then in two shards merged: the
    summary must be the same bytes (the kept runs make the second and third
    gradings fast; the orchestration is what is checked)."""
    t0 = time.time()
    first = summary_bytes(results)
    rc, out = make(["-C", REPO, "grade-class", "CLASS=" + trees, "OUT=" + results, "N=1",
                    "JOBS=2"], REPO, os.path.join(TOP, "grade-class-jobs2.out"), env)
    record("sandbox: grade-class JOBS=2 gives the same summary, byte for byte",
           rc == 0 and summary_bytes(results) == first, "exit %d" % rc, time.time() - t0,
           [] if rc == 0 else out.strip().splitlines()[-5:])
    t0 = time.time()
    for f in os.listdir(results):
        if f.endswith(".json") or f.startswith("summary."):
            os.unlink(os.path.join(results, f))
    rcs = [make(["-C", REPO, "grade-class", "CLASS=" + trees, "OUT=" + results, "N=1",
                 "SHARD=%d/2" % i], REPO, os.path.join(TOP, "shard%d.out" % i), env)[0]
           for i in (1, 2)]
    for f in SUMMARY:
        if os.path.exists(os.path.join(results, f)):
            os.unlink(os.path.join(results, f))
    rc, out = make(["grade-merge", "OUT=" + results], REPO, os.path.join(TOP, "merge.out"), env)
    record("sandbox: SHARD=1/2 and 2/2, then make grade-merge: the same summary, byte for byte",
           rcs == [0, 0] and rc == 0 and summary_bytes(results) == first,
           "exits %s, merge %d" % (rcs, rc), time.time() - t0)
    autograder_run(trees, env)


def autograder_run(trees, env):
    """The Gradescope zip as Gradescope runs it: `make autograder`'s zip
    extracted into a simulated /autograder/source, its run_autograder
    copied to /autograder and run there on bob's submission, on this
    Debian 12 machine (USERLAND=none: no userland to unpack; the kernels
    archive is a stand-in, this machine's cache has them; a base that is
    not Debian 12 is tests/check_gradescope.py's)."""
    import zipfile
    t0 = time.time()
    root = os.path.join(TOP, "autograder")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "submission"))
    lab1 = os.path.join("labs", by_number(1).folder, "student")
    shutil.copytree(os.path.join(trees, "bob", lab1), os.path.join(root, "submission", lab1))
    with open(os.path.join(root, "submission_metadata.json"), "w") as f:
        json.dump({"users": [{"email": "bob@example.edu"}]}, f)
    stand_in = os.path.join(TOP, "kernels-stand-in.tar.zst")
    with open(stand_in, "wb") as f:
        f.write(b"not used: this machine's cache has the kernels")
    zpath = os.path.join(TOP, "autograder.zip")
    rc, out = make(["-C", REPO, "autograder", "KERNELS=" + stand_in, "AUTOGRADER_ZIP=" + zpath,
                    "USERLAND=none"],
                   REPO, os.path.join(TOP, "autograder-zip.out"), env)
    from classroom import autograder
    try:
        names = autograder.unpack(zpath, root)
    except (OSError, zipfile.BadZipFile) as e:
        names = []
        out += str(e)
    record("sandbox: make autograder's zip is laid out as Gradescope extracts it (setup.sh, "
           "run_autograder and the checkout at its root)", rc == 0 and "setup.sh" in names
           and "run_autograder" in names and "Makefile" in names and "classroom/autograder.py"
           in names, "exit %d, %d files" % (rc, len(names)), time.time() - t0)
    t0 = time.time()
    p = subprocess.run([os.path.join(root, "run_autograder"), "-n", "1"], cwd=root,
                       env=dict({k: v for k, v in env.items() if k != "PYTHONPATH"},
                                AUTOGRADER_ROOT=root), capture_output=True, text=True)
    try:
        r = json.load(open(os.path.join(root, "results", "results.json")))
    except (OSError, ValueError):
        r = {}
    from tests.test_class_scale import valid
    tests = r.get("tests", [])
    ok = p.returncode == 0 and tests and valid(r) == [] and \
        any(t["visibility"] == "after_due_date" for t in tests) and \
        r.get("score") == ex_points("1.3")
    record("sandbox: run_autograder from the extracted zip on a simulated /autograder: "
           "results.json per Gradescope's spec, a hidden tier, bob's points", bool(ok),
           "score %s, %d tests, %s" % (
               r.get("score"), len(tests), valid(r) if r else (p.stdout + p.stderr)[-200:]),
           time.time() - t0)


def once(out, results):
    """The class's demonstrations ran once, in an untouched handout at
    SEED=1; each student's tree graded its exercises only."""
    lines = [ln for ln in out.splitlines() if "the demonstrations, once for the class" in ln]
    got = {}
    for name in ("ann", "bob", "carol", "mallory"):
        try:
            with open(os.path.join(results, name + ".json")) as f:
                r = json.load(f)
            got[name] = (r.get("exercises_only"), r["demonstrations"].get("seed"),
                         json.dumps([c for c in r["checks"] if not c["exercise"]]))
        except (OSError, ValueError, KeyError):
            got[name] = None
    same = len({g and g[2] for g in got.values()}) == 1
    record("sandbox: the demonstrations ran once for the class (an untouched handout, "
           "SEED=1); each student's tree graded its exercises only",
           len(lines) == 1 and same and all(g and g[:2] == (True, 1) for g in got.values()),
           "%s; exercises only, demonstrations' seed: %s" % (
               lines[0] if len(lines) == 1 else "%d lines" % len(lines),
               {n: g and g[:2] for n, g in got.items()}))


def check_sandbox():
    from classroom import handout
    t0 = time.time()
    shutil.rmtree(TOP, ignore_errors=True)
    trees, results = os.path.join(TOP, "trees"), os.path.join(TOP, "results")
    lab1 = os.path.join("labs", by_number(1).folder)
    values = seed1_lines()
    record("sandbox: SEED=1's lines of the solution's exercise 1.3", len(values) == 3,
           "; ".join(values))
    for name in ("ann", "bob", "carol", "mallory"):
        handout.make_handout(os.path.join(trees, name))
    sol = open(os.path.join(REPO, lab1, "student", "tagstop.gdb")).read()
    tagstop = os.path.join(lab1, "student", "tagstop.gdb")
    shutil.copy(os.path.join(REPO, tagstop), os.path.join(trees, "bob", tagstop))
    with open(os.path.join(trees, "bob", lab1, "check.py"), "a") as f:
        f.write("\n\ndef ex_tagstop(run, runs):\n    return [('tampered', True, '')]\n")
    with open(os.path.join(trees, "carol", tagstop), "w") as f:
        f.write(hardcoded_gdb(sol, values))
    net = Listener()
    try:
        with open(os.path.join(trees, "mallory", lab1, "student", "tagmath.py"), "w") as f:
            f.write(hostile_python(TOP, results, net.port))
        with open(os.path.join(trees, "mallory", tagstop), "w") as f:
            f.write(hostile_gdb(TOP, net.port))
        env, rc, out = grade_class(TOP, trees, results)
        got = {}
        for name in ("ann", "bob", "carol", "mallory"):
            try:
                with open(os.path.join(results, name + ".json")) as f:
                    got[name] = json.load(f)["exercises"]
            except (OSError, ValueError, KeyError):
                got[name] = None
        done = {n: g and g["done"] for n, g in got.items()}
        want = {"ann": 0, "bob": 1, "carol": 0, "mallory": 0}
        record("sandbox: grade-class of four students (untouched, 1.3 with a tampered "
               "check.py, 1.3 hard-coded from SEED=1, hostile)", rc == 0 and done == want,
               "exercises done %s" % done, time.time() - t0,
               [] if done == want else out.strip().splitlines()[-10:])
        record("sandbox: grade-class's summary (summary.csv, summary.json, summary.html)",
               all(os.path.exists(os.path.join(results, f)) for f in SUMMARY), results)
        pts = {n: g and sum(e["points"] for e in g["list"]) for n, g in got.items()}
        want_pts = {"ann": 0, "bob": ex_points("1.3"), "carol": 0, "mallory": 0}
        record("sandbox: points: untouched 0, 1.3 solved exactly 1.3's points", pts == want_pts,
               "points %s" % pts)
        once(out, results)
        scale(trees, results, env)
        why = next((e.get("why", "") for e in (got["carol"] or {}).get("list", [])
                    if e["id"] == "1.3"), "")
        record("sandbox: grade-class names the cause of carol's 1.3: it holds only for "
               "SEED=1", "SEED=1" in why, why or "no reason given")
        bad = [e for e in (got["mallory"] or {}).get("list", []) if not e["done"]]
        record("sandbox: mallory's three exercises are BAD, each with its reasons",
               len(bad) == 3, "%d BAD" % len(bad))
        left = [c for c in canaries(TOP) if os.path.exists(c)]
        record("sandbox: under grade-class no attack succeeded (no file outside the "
               "sandbox, no connection)", not left and net.hits == 0,
               "files %s, connections %d" % (left, net.hits))
        # the students' own make grade, in their trees: the same sandbox
        t1 = time.time()
        mine = os.path.join(TOP, "mallory-grade.json")
        rc, out = make(["grade", "N=1", "OUT=" + mine], os.path.join(trees, "mallory"),
                       os.path.join(TOP, "mallory-grade.out"), env)
        try:
            d = json.load(open(mine))["exercises"]["done"]
        except (OSError, ValueError, KeyError):
            d = None
        left = [c for c in canaries(TOP) if os.path.exists(c)]
        record("sandbox: mallory's own make grade: 0 exercises, no attack succeeded",
               d == 0 and not left and net.hits == 0,
               "done %s, files %s, connections %d" % (d, left, net.hits), time.time() - t1)
    finally:
        net.close()
    t1 = time.time()
    mine = os.path.join(TOP, "carol-grade.json")
    rc, out = make(["grade", "N=1", "SEED=1", "OUT=" + mine], os.path.join(trees, "carol"),
                   os.path.join(TOP, "carol-grade.out"), kept_env())
    try:
        ex = {e["id"]: e["done"] for e in json.load(open(mine))["exercises"]["list"]}
    except (OSError, ValueError, KeyError):
        ex = {}
    record("sandbox: carol's own make grade SEED=1 passes her hard-coded 1.3",
           ex.get("1.3") is True, "exercises %s" % ex, time.time() - t1)
    module_wall()


# A module whose C names a file of this machine: by #include, by .incbin
WALL_C = {"include": '#include "%s"\n',
          "incbin": 'asm(".section .rodata\\n.incbin \\"%s\\"\\n.previous\\n");\n',
          "control": '#include "inside.h"\n'}


def module_wall():
    """The lab module's compiler runs in the sandbox (vm/initramfs.py
    compile_module): a student's C that includes a file of this machine,
    by the preprocessor or the assembler, does not build, and the file's
    text is in no log; the same module including a file of its own
    directory builds (the control)."""
    import vm
    from vm.initramfs import compile_module
    t0 = time.time()
    bdir = vm.build_kernel(vm.DEFAULT_VARIANT)
    canary = os.path.join(TOP, "compiler-canary.h")
    with open(canary, "w") as f:
        f.write('static const char kt_leak[] = "KT-CANARY-THE-COMPILER-READ-IT";\n')
    got = {}
    for name, line in WALL_C.items():
        mdir = os.path.join(TOP, "wall-" + name)
        os.makedirs(mdir, exist_ok=True)
        with open(os.path.join(mdir, "Kbuild"), "w") as f:
            f.write("obj-m += wall.o\n")
        with open(os.path.join(mdir, "inside.h"), "w") as f:
            f.write("static const char kt_inside[] = \"inside\";\n")
        with open(os.path.join(mdir, "wall.c"), "w") as f:
            f.write("// SPDX-License-Identifier: GPL-2.0\n#include <linux/module.h>\n"
                    + (line % canary if "%s" in line else line)
                    + 'MODULE_LICENSE("GPL");\n')
        log = os.path.join(mdir, "build.log")
        try:
            compile_module(bdir, ["make", "-C", bdir, "M=" + mdir, "ARCH=arm64", "LLVM=1",
                                  "modules"], mdir, log)
            got[name] = "built"
        except vm.KtError:
            got[name] = "failed"
        if "KT-CANARY-THE-COMPILER" in open(log, errors="replace").read():
            got[name] += ", the canary in its log"
    record("sandbox: a module's C cannot read this machine's files (#include, .incbin: not "
           "built; the control including its own file: built)",
           got == {"include": "failed", "incbin": "failed", "control": "built"},
           "%s" % got, time.time() - t0)
