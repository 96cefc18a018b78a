#!/usr/bin/python3
"""`make check`: every test of the project, one line per check.

    PASS name (seconds)
    FAIL name (seconds): why

and a last line "N passed, N failed".  Boots are shared: one boot per
variant runs the KUnit suite and every lab scenario.  Logs of every boot
are kept under build/check/.
"""

import inspect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

import vm
from labs import scenarios
from labs.lab import gdb_sections
from vm import ktap

REPO = vm.REPO
HANDOUT = os.path.exists(os.path.join(REPO, "labs", "HANDOUT"))

OUT = os.path.join(REPO, "build", "check")
PY = "/usr/bin/python3"
results = []


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


def check_tooling():
    """Offline unit tests of the project's own tools (pytest)."""
    dirs = [d for d in ("tests", "gdb-scripts/tests") if os.path.isdir(os.path.join(REPO, d))]
    t0 = time.time()
    p = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + dirs,
                       cwd=REPO, capture_output=True, text=True)
    out = p.stdout + p.stderr
    last = [ln for ln in out.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    summary = last[-1].strip("= ") if last else "no pytest summary"
    passed = sum(int(n) for n in re.findall(r"(\d+) passed", summary))
    failed = sum(int(n) for n in re.findall(r"(\d+) (?:failed|error)", summary))
    if p.returncode or failed or not passed:
        print(out[-4000:])
    record("tooling: pytest %s" % " ".join(dirs), p.returncode == 0 and passed > 0,
           summary, time.time() - t0)


def check_lint():
    """`make lint`: flake8, shellcheck, mypy (settings in setup.cfg, pyproject.toml)."""
    t0 = time.time()
    p = subprocess.run(["make", "-s", "lint"], cwd=REPO, capture_output=True, text=True)
    out = (p.stdout + p.stderr).strip().splitlines()
    record("lint: flake8, shellcheck, mypy", p.returncode == 0,
           "" if p.returncode == 0 else (out or ["make lint failed"])[-1], time.time() - t0,
           out[:20] if p.returncode else ())


def check_checkpatch():
    t0 = time.time()
    src, _ = vm.pristine_tree()
    files = [f for f in ("labs/module/kasan_lab.c", "labs/module/kasan_lab.h",
                         "labs/module/kasan_student.c", "labs/module/kasan_mystery.c",
                         "vm/init/init.c", "vm/init/tcpbench.c")
             if os.path.exists(os.path.join(REPO, f))]
    p = subprocess.run([os.path.join(src, "scripts/checkpatch.pl"), "--no-tree", "-q",
                        "-f"] + files,
                       cwd=REPO, capture_output=True, text=True)
    bad = [ln for ln in p.stdout.splitlines() if ln.startswith(("ERROR", "WARNING"))]
    record("checkpatch --no-tree: " + " ".join(files), p.returncode == 0 and not bad,
           "; ".join(bad[:3]), time.time() - t0, p.stdout.splitlines()[:20] if bad else ())


def check_variant(variant, mode):
    """One boot: the KASAN KUnit suite, then every lab scenario in order."""
    with open(os.path.join(REPO, "vm", "kunit-expected.toml"), "rb") as f:
        exp = tomllib.load(f)[variant]
    bdir, secs = timed(vm.build_kernel, variant)
    if isinstance(bdir, vm.KtError):
        record("kernel %s builds" % variant, False, str(bdir), secs)
        return
    record("kernel %s builds (or is reused)" % variant, True, bdir, secs)
    # Without KASAN the scenarios' bugs are real (a double free corrupts
    # the slab): `none` only boots and shows it has no kasan suite.
    names = list(scenarios.load_expected()) if mode else []
    os.makedirs(OUT, exist_ok=True)
    log = os.path.join(OUT, "%s.log" % variant)
    b, secs = timed(lambda: vm.boot(bdir, vm.scenario_cmdline(",".join(names)), 300, log,
                                    cache=True))
    if isinstance(b, vm.KtError):
        record("boot %s" % variant, False, str(b), secs)
        return
    record("boot %s reaches %s" % (variant, vm.END_MARK), b.ok,
           "" if b.ok else "%s; log %s" % (b.status, log), secs,
           () if b.ok else b.tail(30).splitlines())
    if b.ok and mode:
        # The same boot again (vm/qemu.py: ICOUNT, the run's seed).
        again, secs = timed(lambda: vm.boot(bdir, vm.scenario_cmdline(",".join(names)), 300,
                                            os.path.join(OUT, "%s.again.log" % variant),
                                            cache=False))
        diff = first_difference(b.text, again.text if isinstance(again, vm.Boot) else str(again))
        record("reproducible: the %s boot (KUnit suite, every scenario) twice, the same "
               "serial log byte for byte" % variant, not diff, diff, secs)
    if vm.run_seed() == vm.DEFAULT_SEED:
        # Chance as data: with the default seed the run is known, tags
        # included, and no case misses by a tag collision; another seed may
        # meet one, which the gate then reports as a chance miss.
        exp = dict(exp, chance_misses=[])
    ok, lines = ktap.judge(ktap.parse(b.text), exp)
    record("KUnit %s: %s" % (variant, lines[0]), ok, "", 0, lines[1:])
    if not b.ok or mode is None:
        return
    for name, errs in scenarios.check_log(b.text, mode, names):
        record("scenario %s on %s" % (name, variant), not errs, "; ".join(errs))


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


# The tags a scenario prints (kasan_lab.c: show_ptr(), "... tag=xx ...").
SCENARIO_TAG = re.compile(r"kasan_lab: \S+ .*\btag=([0-9a-f]{2})\b")


def check_reproducible(variant):
    """Determinism as the reader meets it: `make run SCENARIO=tags,uaf-realloc`
    twice prints the same bytes; another SEED prints other tags."""
    args = ["run", "SCENARIO=tags,uaf-realloc", "VARIANT=" + variant]
    seed = vm.run_seed()
    other = 12345 if seed != 12345 else 54321
    t0 = time.time()
    runs = [make_out(args, seed), make_out(args, seed), make_out(args, other)]
    secs = time.time() - t0
    failed = [r for r in runs if r[0]]
    if failed:
        record("reproducible: make run SCENARIO=tags,uaf-realloc VARIANT=%s" % variant, False,
               "exit %d: %s" % (failed[0][0], failed[0][2]), secs)
        return
    diff = first_difference(runs[0][1], runs[1][1])
    record("reproducible: make run SCENARIO=tags,uaf-realloc VARIANT=%s SEED=%d twice, the "
           "same output byte for byte" % (variant, seed), not diff, diff, secs)
    tags = [SCENARIO_TAG.findall(r[1]) for r in runs]
    record("reproducible: SEED=%d prints other tags than SEED=%d on %s" % (other, seed, variant),
           len(tags[0]) >= 3 and len(tags[2]) >= 3 and tags[0] != tags[2],
           "tags %s / %s" % (" ".join(tags[0][:8]), " ".join(tags[2][:8])))


def check_record():
    """make record keeps the run itself: its serial log is, byte for byte,
    what `make run` prints for the same scenario and seed; and a replay of
    a run that was not recorded is refused in one line."""
    t0 = time.time()
    rc, _, err = make_out(["record", "SCENARIO=uaf"])
    record("record: make record SCENARIO=uaf", rc == 0, err, time.time() - t0)
    if rc:
        return
    rdir, _, _ = vm.find_recording("swtags", "kunit.enable=0 " + vm.scenario_cmdline("uaf"))
    recorded = open(os.path.join(rdir, "serial.log"), errors="replace").read()
    recorded = recorded.split("\n", 2)[2].replace("\r\n", "\n")  # the two "# kt" lines
    rc, out, err = make_out(["run", "SCENARIO=uaf"])
    diff = first_difference(out, recorded) if rc == 0 else "make run: exit %d: %s" % (rc, err)
    record("record: the recording's serial log is make run's output, byte for byte",
           not diff, diff)
    other = 999999 if vm.run_seed() != 999999 else 999998
    t0 = time.time()
    try:
        rc, out, err = make_out(["replay", "SCENARIO=uaf"], seed=other)
    except subprocess.TimeoutExpired:
        rc, err = -1, "it started a replay instead of refusing"
    record("record: make replay of a run not recorded (SEED=%d) is refused in one line" % other,
           rc == 2 and err.startswith("kasan-tags: error: no recording of this run of swtags")
           and "SEED=%d" % other in err, err, time.time() - t0)


def check_decode():
    """kasan-decode --vmlinux on part of this run's swtags log: the same
    file:line as the tree's scripts/decode_stacktrace.sh for every frame of
    vmlinux that both resolve, and the lab module's frame on its source line."""
    from bench import decode as bdecode
    from tests.fixtures import _segment
    log = os.path.join(OUT, "swtags.log")
    bdir = vm.build_dir("swtags")
    if not os.path.exists(log):
        record("decode: vs decode_stacktrace.sh", False, "no %s (swtags did not boot)" % log)
        return
    lines = open(log, errors="replace").read().splitlines()
    part = os.path.join(OUT, "decode-part.log")
    with open(part, "w") as f:
        # the KUnit cases up to one ending near line 1200, whole
        end = max(i for i, ln in enumerate(lines[:1200]) if re.search(r"\bok \d+ ", ln))
        f.write("\n".join(lines[:end + 1] + _segment(lines, "uaf")) + "\n")
    t0 = time.time()
    try:
        _, _, script_out = bdecode.run_timed(bdecode.script_cmd(bdir, part), part)
        _, _, ours = bdecode.run_timed(bdecode.ours_cmd(bdir, part))
    except (vm.KtError, OSError) as e:
        record("decode: vs decode_stacktrace.sh", False, str(e), time.time() - t0)
        return
    n, bad = bdecode.compare(open(part).read().splitlines(), script_out, ours)
    record("decode: same file:line as decode_stacktrace.sh", n >= 50 and not bad,
           "%d frames compared, %d differ" % (n, len(bad)), time.time() - t0, bad[:5])
    frames = [f for ln in ours.splitlines() for f in json.loads(ln)["call_trace"]
              if json.loads(ln)["function"] == "lab_uaf" and f.startswith("lab_uaf+")]
    m = re.fullmatch(r"(\S+) \[kasan_lab\] kasan_lab\.c:(\d+)", frames[0] if frames else "")
    src = open(os.path.join(REPO, "labs", "module", "kasan_lab.c")).read().splitlines()
    line = src[int(m.group(2)) - 1].strip() if m and int(m.group(2)) <= len(src) else ""
    record("decode: the module frame of uaf is its bad read", "READ_ONCE(p[0])" in line,
           "%s -> %s" % (m.group(1), line) if m else "no symbolized lab_uaf frame: %s" % frames)


def live_session(variant, gdb_file, again=""):
    """Boot `variant` with kt_run=uaf under gdb-scripts/tests/GDB_FILE;
    (gdb transcript, its sections, the one report), or None (recorded).
    again: a second session's label (its own logs)."""
    from kasan import report as kreport
    bdir = vm.build_kernel(variant)
    os.makedirs(OUT, exist_ok=True)
    log = os.path.join(OUT, "gdb-%s%s.log" % (variant, again and "-" + again))
    t0 = time.time()
    b, g = vm.boot_gdb(bdir, os.path.join(REPO, "gdb-scripts", "tests", gdb_file),
                       "kunit.enable=0 " + vm.scenario_cmdline("uaf"), 180, log)
    secs = time.time() - t0
    sec = gdb_sections(g)
    reps = kreport.parse_reports(b.text)
    what = "gdb live: batch session on %s%s" % (variant, again and " (%s)" % again)
    if not b.ok or "done" not in sec or len(reps) != 1:
        record(what, False, "boot %s, %d reports, gdb sections %s; logs %s" % (
            b.status, len(reps), sorted(sec), log), secs, g.splitlines()[-15:])
        return None
    record(what, True, "", secs)
    return g, sec, reps[0]


def check_gdb_live():
    """kasan-tag/-shadow/-report in a live VM agree with the report it printed."""
    live = live_session("swtags", "live.gdb")
    if not live:
        return
    g, sec, r = live
    live2 = live_session("swtags", "live.gdb", "again")
    if live2:
        diff = first_difference(g, live2[0])
        record("reproducible: the same gdb session twice, the same transcript byte for byte",
               not diff, diff)
    kv, got = tag_fields(sec["kasan-tag"])
    record("gdb live: kasan-tag shows the report's tags %s/%s" % (
        r["pointer_tag"], r["memory_tag"]), got == (r["pointer_tag"], r["memory_tag"])
        and "FAILS" in kv.get("access", ""), "gdb said %s/%s" % got)
    rows = [ln for ln in sec["kasan-shadow"] if ln.startswith((" ", ">")) and ": " in ln]
    want = [("%s%s: %s" % (">" if x["buggy"] else " ", x["addr"], " ".join(x["bytes"])))
            for x in r["memory_state"]]
    record("gdb live: kasan-shadow rows equal the report's memory state",
           rows == want, "" if rows == want else "gdb %s vs report %s" % (rows, want))
    fn = sec["functions"][0] if sec["functions"] else ""
    record("gdb live: $kasan_tag/$kasan_untag", fn == "tag=%s untag=ff%s" % (
        r["pointer_tag"], r["addr"][2:]), fn)
    title = sec["kasan-report"][0] if sec["kasan-report"] else ""
    record("gdb live: kasan-report decodes lx-dmesg like the serial log",
           title == r["title"], "%r vs %r" % (title, r["title"]))
    errs = [ln for ln in sec["errors"] if ln.startswith("KT-GDB-ERROR")]
    clean = len(errs) == 7 and "Traceback" not in g and "Python Exception" not in g
    record("gdb live: bad input gives one-line errors", clean, "%d errors" % len(errs),
           0, () if clean else sec["errors"])
    hist = [ln for ln in errs if ln.startswith("KT-GDB-ERROR kasan-history")]
    record("gdb live: kasan-history outside a replay says how to start one",
           bool(hist) and "not a replay" in hist[0] and "make record" in hist[0],
           hist[0] if hist else "no kasan-history error")
    esr = sec["esr"]
    record("gdb live: kasan-esr decodes 0xf2000930 (write, 1 byte, recover)",
           any("write of 1 byte(s); recoverable" in ln for ln in esr) and
           any("not a KASAN brk" in ln for ln in esr), "; ".join(esr[:2]))


def check_gdb_live_hw():
    """kasan-tag, kasan-shadow and kasan-report on the hw-tags kernel: what
    they can show without shadow memory, against the report it printed."""
    live = live_session("hwtags", "live-hw.gdb")
    if not live:
        return
    g, sec, r = live
    kv, got = tag_fields(sec["kasan-tag"])
    mem_ok = got[1] == r["memory_tag"] or "not readable here" in kv.get("memory tag", "")
    record("gdb live hw: kasan-tag says hw_tags, the report's pointer tag %s, and the memory "
           "tag %s or that gdb cannot read it" % (r["pointer_tag"], r["memory_tag"]),
           "hw_tags" in kv.get("mode", "") and got[0] == r["pointer_tag"] and mem_ok,
           "gdb said mode %s, %s/%s" % (kv.get("mode", "").strip(), got[0], got[1]))
    err = " ".join(sec["kasan-shadow"])
    record("gdb live hw: kasan-shadow says there is no shadow, in one line",
           "KT-GDB-ERROR" in err and "no shadow memory" in err and "Traceback" not in g, err)
    err = " ".join(sec.get("kasan-history", []))
    record("gdb live hw: kasan-history says what it cannot do on hw-tags, in one line",
           "KT-GDB-ERROR" in err and "MTE tag storage" in err, err)
    title = sec["kasan-report"][0] if sec["kasan-report"] else ""
    record("gdb live hw: kasan-report decodes lx-dmesg like the serial log",
           title == r["title"], "%r vs %r" % (title, r["title"]))


def tag_fields(lines):
    """kasan-tag's "key: value" lines, and (pointer tag, memory tag) from
    them ("none" where a line is missing: a FAIL, never an IndexError)."""
    kv = dict(ln.split(":", 1) for ln in lines if ":" in ln)
    return kv, ((kv.get("pointer tag", "").split() or ["none"])[0],
                (kv.get("memory tag", "").split() or ["none"])[0])


def check_shell():
    """`make shell`: a busybox prompt in the tagged kernel, then back out."""
    bdir = vm.build_kernel("swtags")
    t0 = time.time()
    try:
        initrd = vm.build_initramfs(bdir, "shell", shell=True)
    except vm.KtError as e:
        record("shell: busybox prompt in the swtags kernel", False, str(e), time.time() - t0)
        return
    log = os.path.join(OUT, "shell.log")
    b = vm.boot(bdir, "kunit.enable=0 kt_shell=1", 120, log, initrd=initrd,
                shell_input="head -1 /proc/meminfo; echo KT-SHELL-$((6*7))\nexit\n")
    ok = b.ok and "MemTotal:" in b.text and "KT-SHELL-42" in b.text
    record("shell: prompt, /proc/meminfo, exit powers off", ok, "" if ok else
           "%s; log %s" % (b.status, log), time.time() - t0, () if ok else b.tail(15).splitlines())


def check_cleanup():
    """No orphan QEMU when the runner or gdb is killed; a hang ends at its timeout."""
    import threading
    bdir = vm.build_kernel("swtags")
    # 1. the runner killed with SIGKILL: its QEMU dies with it (PDEATHSIG)
    t0 = time.time()
    log = os.path.join(OUT, "cleanup-kill.log")
    # The log appears when QEMU starts (vm/qemu.py collect()); one left by an
    # earlier run would let the kill come while the runner's kbuild runs.
    if os.path.exists(log):
        os.unlink(log)
    runner = subprocess.Popen([PY, "-m", "vm", "boot", "--quiet",
                               "--timeout", "120", "--log", log], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Once the log exists the runner's only child is its VM.
    found = vm.wait_for(lambda: os.path.exists(log) and vm.descendants(runner.pid), 60)
    time.sleep(0.5)
    kids = vm.descendants(runner.pid)
    runner.kill()
    runner.wait()
    ok = bool(found and kids) and vm.wait_for(lambda: all(vm.gone(q) for q in kids), 5)
    record("cleanup: killing the runner kills its QEMU", ok, "children %s" % kids,
           time.time() - t0)
    # 2. a VM that never runs (halted for a gdb that never comes) hits its timeout
    t0 = time.time()
    b = vm.boot(bdir, "", 5, os.path.join(OUT, "cleanup-hang.log"), gdb_port=vm.free_port())
    record("cleanup: a hung boot is killed at its timeout", b.status == "timeout"
           and time.time() - t0 < 30, b.status, time.time() - t0)
    check_real_hang()
    # 3. gdb killed mid-session: the halted VM is stopped at once
    t0 = time.time()
    gfile = os.path.join(OUT, "cleanup-gdb-sleeps.gdb")
    with open(gfile, "w") as f:
        f.write("break start_kernel\ncontinue\nshell sleep 300\n")
    res, gdbs = {}, []
    th = threading.Thread(target=lambda: res.update(r=vm.boot_gdb(
        bdir, gfile, "", 200, os.path.join(OUT, "cleanup-gdb.log"), on_gdb=gdbs.append)))
    th.start()
    vm.wait_for(lambda: gdbs, 60)
    time.sleep(1)
    for g in gdbs:
        os.kill(g, signal.SIGKILL)
    th.join(60)
    ok = bool(gdbs) and not th.is_alive() and time.time() - t0 < 60
    record("cleanup: killing gdb stops its VM", ok, "gdb %s" % gdbs, time.time() - t0)


# A kernel that never reaches init: 6.1's kernel_init panics with "Requested
# init /kt-none failed" (init/main.c), and panic=0 (after the runner's
# panic=-1: the last value wins) makes panic() spin forever instead of
# rebooting (kernel/panic.c: its `for (i = 0; ; i += PANIC_TIMER_STEP)` loop).
HANG_CMDLINE = "panic=0 rdinit=/kt-none init=/kt-none"


def check_real_hang():
    """`make boot` of a guest that really hangs: killed by PID at TIMEOUT,
    its serial tail shown, one error line, no process left."""
    t0 = time.time()
    log = os.path.join(OUT, "cleanup-real-hang.out")
    with open(log, "w") as f:
        m = subprocess.Popen(["make", "-s", "-C", REPO, "boot", "TIMEOUT=15",
                              "CMDLINE=kunit.enable=0 " + HANG_CMDLINE], stdout=f,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        seen = set()
        while m.poll() is None and time.time() - t0 < 90:
            seen.update(q for q in vm.descendants(m.pid) if comm(q).startswith("qemu-system"))
            time.sleep(0.5)
        if m.poll() is None:
            os.killpg(m.pid, signal.SIGKILL)
        err = m.communicate()[1]
    out = open(log).read()
    last = ([ln for ln in err.splitlines() if ln.startswith("kasan-tags:")] or [""])[-1]
    ok = (m.returncode == 2 and "Requested init /kt-none failed" in out and seen
          and all(vm.gone(q) for q in seen)
          and re.match(r"kasan-tags: error: the guest did not finish in 15 s \(hung\?\)", last))
    record("cleanup: a kernel that never reaches init is killed at TIMEOUT, tail shown",
           bool(ok), "exit %s, qemu %s: %s" % (m.returncode, sorted(seen), last),
           time.time() - t0, () if ok else out.splitlines()[-10:])


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


# (target, make arguments): the interactive jobs, each with its VM running.
# `make shell` gets a CMD that keeps the guest busy; `make lab` gdb on a pipe.
SIGNAL_JOBS = (("shell", ["shell", "CMD=sleep 300"]), ("qemu-gdb", ["qemu-gdb"]),
               ("lab", ["lab", "N=1"]))


def check_signals():
    """SIGTERM to make (as `timeout` sends it) and SIGINT to its process
    group (Ctrl-C at a terminal): make exits and no process of it is left.
    gdb keeps its prompt on Ctrl-C, as gdb does: `make lab` then ends when
    its input ends (the user's `quit`)."""
    # As at a terminal, make must start with SIGINT at its default, also when
    # this check runs with it ignored (`make check &` in a non-interactive
    # shell): an ignored signal stays ignored across fork and exec.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for name, args in SIGNAL_JOBS:
        for sig in (signal.SIGTERM, signal.SIGINT):
            t0 = time.time()
            label = "signals: %s to make %s leaves no process" % (sig.name, name)
            log = open(os.path.join(OUT, "signal-%s-%s.log" % (name, sig.name)), "wb")
            m = subprocess.Popen(["make", "-s", "-C", REPO] + args, stdin=subprocess.PIPE,
                                 stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            qemu = vm.wait_for(lambda: any(comm(q).startswith("qemu-system")
                                           for q in vm.descendants(m.pid)), 120)
            time.sleep(2)
            kids = vm.descendants(m.pid)
            if sig == signal.SIGTERM:
                m.send_signal(sig)
            else:
                os.killpg(m.pid, sig)
                time.sleep(1)
                m.stdin.close()
            try:
                rc = m.wait(30)
            except subprocess.TimeoutExpired:
                rc = None
            vm.wait_for(lambda: all(vm.gone(k) for k in kids), 15)
            left = [k for k in kids if not vm.gone(k)]
            ok = qemu and rc is not None and not left
            record(label, ok, "" if ok else "qemu %s, make exit %s, left %s" % (
                qemu, rc, ["%d %s" % (k, comm(k)) for k in left]), time.time() - t0)
            for k in left + ([m.pid] if rc is None else []):
                try:
                    os.kill(k, signal.SIGKILL)
                except OSError:
                    pass
            if m.stdin and not m.stdin.closed:
                m.stdin.close()
            m.wait()
            log.close()


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def checkout_copy(dest):
    """This checkout's files (those make handout reads) in dest."""
    from labs import handout
    for rel in handout.tree_files():
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(REPO, rel), os.path.join(dest, rel))


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
    # user nobody can reach, never under this checkout: a checkout in a
    # private (0700) home directory is not reachable by another user.
    top = tempfile.mkdtemp(prefix="kt-classroom-")
    try:
        os.chmod(top, 0o755)
        t0 = time.time()
        archive = os.path.join(top, "classroom-kernels.tar.zst")
        p = subprocess.run(["make", "-s", "-C", REPO, "dist", "VARIANTS=swtags",
                            "DIST_FILE=" + archive], capture_output=True, text=True)
        record("classroom: make dist VARIANTS=swtags", p.returncode == 0,
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
            built = re.search(r"kt: building \S+ kernel", out)
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


def check_site():
    from tests import site_check
    t0 = time.time()
    ok, out = site_check.build()
    record("site: make site (sphinx-build -W)", ok, "" if ok else out[-1], time.time() - t0,
           () if ok else out)
    if not ok:
        return
    t0 = time.time()
    ok, out = site_check.build("teacher")
    record("site: make site EDITION=teacher (sphinx-build -W -t teacher)", ok,
           "" if ok else out[-1], time.time() - t0, () if ok else out)
    paths = site_check.machine_paths() + site_check.machine_paths(site_check.TEACHER)
    record("site: no page shows this machine's checkout or cache path", not paths,
           "%d pages" % len(paths), 0, ["%s: %s" % p for p in paths[:10]])
    bad = site_check.broken_links()
    record("site: internal links and anchors resolve", not bad, "%d broken" % len(bad), 0,
           bad[:10])
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
    p = subprocess.run([PY, "-m", "labs.grade", "--out", out], cwd=REPO,
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


def check_published_transcript(lab="03-report-decoding", name="serial"):
    """The reader's side of determinism: the command a page prints above a
    transcript, typed as printed, prints that transcript's lines again."""
    import shlex
    from labs import grade as labgrade
    from labs.lab import load_lab, split_transcript
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
    """The page is the test: every console command of the student pages,
    run exactly as printed, succeeds (tests/page_commands.py); blocks marked
    kt-manual (the whole build, the whole test, two-terminal pairs) are
    listed, not run."""
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
            done[command] = pc.run_command(command, env=kept_env())
        ok, why = done[command]
        if how == "fails":
            record("page command %s:%d (shows a failure, kt-fails): %s" % (page, line, command),
                   not ok, why if ok else "", time.time() - t0)
            continue
        record("page command %s:%d: %s" % (page, line, command), ok, "" if ok else why,
               time.time() - t0)


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
    text in it, its demonstrations GOOD, and 0 exercises done.  A generator:
    the student tree's make check runs beside the checks that follow
    (QEMU keeps one of two cores busy), and is collected at the end."""
    from labs import handout
    from vm import proc
    dest = os.path.join(REPO, "build", "handout-check")
    t0 = time.time()
    p = subprocess.run([PY, "-m", "labs.handout", "--force", dest], cwd=REPO,
                       capture_output=True, text=True)
    record("handout: make handout DEST=build/handout-check", p.returncode == 0,
           (p.stdout.strip().splitlines() or [p.stderr.strip()])[-1], time.time() - t0)
    if p.returncode:
        return
    found = handout.leaks(dest)
    record("handout: no solution text in the student tree", not found,
           "%d found" % len(found), 0, found[:10])
    t0 = time.time()
    env = dict(kept_env())
    out = os.path.join(OUT, "handout-check.out")
    with open(out, "w") as f:
        child = proc.spawn(["make", "-s", "check"], cwd=dest, env=env, stdout=f,
                           stderr=subprocess.STDOUT)
    yield
    child.wait()
    proc.forget(child)
    tail = open(out, errors="replace").read().strip().splitlines()
    record("handout: the student tree's make check (ran beside the others; output %s)"
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
    record("handout: untouched, it scores 0 on every exercise", ex["done"] == 0
           and ex["total"] == n_exercises, "%d/%d done" % (ex["done"], ex["total"]))


def check_grade_class():
    """make grade-class on two student trees: one untouched, one with
    exercise 1.3 solved and its lab's check.py tampered to pass everything.
    The class grading must say 0 and 1 exercises, ignore the tampering and
    write the summary.  A generator: it runs beside the other checks."""
    from labs import handout
    from vm import proc
    top = os.path.join(OUT, "class")
    shutil.rmtree(top, ignore_errors=True)
    trees = os.path.join(top, "trees")
    t0 = time.time()
    for name in ("ann", "bob"):
        handout.make_handout(os.path.join(trees, name))
    bob = os.path.join(trees, "bob")
    rel = "labs/01-tag-assignment/student/tagstop.gdb"
    shutil.copy(os.path.join(REPO, rel), os.path.join(bob, rel))
    with open(os.path.join(bob, "labs/01-tag-assignment/check.py"), "a") as f:
        f.write("\n\ndef ex_tag_helpers(run, runs):\n    return [('tampered', True, '')]\n")
    results = os.path.join(top, "results")
    env = dict(kept_env())
    log = os.path.join(top, "grade-class.out")
    with open(log, "w") as f:
        child = proc.spawn(["make", "-s", "-C", REPO, "grade-class", "CLASS=" + trees,
                            "OUT=" + results, "N=1"], env=env, stdout=f, stderr=subprocess.STDOUT)
    yield
    child.wait()
    proc.forget(child)
    done = {}
    for name in ("ann", "bob"):
        try:
            with open(os.path.join(results, name + ".json")) as f:
                done[name] = json.load(f)["exercises"]["done"]
        except (OSError, ValueError, KeyError):
            done[name] = None
    tail = open(log, errors="replace").read().strip().splitlines()
    record("grade-class: an untouched tree 0 exercises, a tree with 1.3 solved and a "
           "tampered check.py 1 (make grade-class CLASS=... N=1)",
           child.returncode == 0 and done == {"ann": 0, "bob": 1}, "exercises done %s" % done,
           time.time() - t0, [] if done == {"ann": 0, "bob": 1} else tail[-8:])
    record("grade-class: the summary (summary.csv, summary.html)",
           all(os.path.exists(os.path.join(results, f))
               for f in ("summary.csv", "summary.html")), results)


# Every check of `make check`, by name, in the order they run: `make check
# LIST=1` prints them, ONLY=a,b runs those, SKIP=a,b all but those.  A
# check that reads another's output (decode reads variant-swtags' log,
# transcript-again the transcripts grade writes) says so when run alone.
CHECKS = [
    ("pytest", check_tooling),
    ("lint", check_lint),
    ("checkpatch", check_checkpatch),
    # started here, collected last: it runs beside everything below
    ("handout", lambda: check_handout(n_exercises())),
    ("grade-class", check_grade_class),
    ("variant-swtags", lambda: check_variant("swtags", "sw_tags")),
    ("variant-generic", lambda: check_variant("generic", "generic")),
    ("variant-none", lambda: check_variant("none", None)),
    ("variant-hwtags", lambda: check_variant("hwtags", "hw_tags")),
    ("reproducible-swtags", lambda: check_reproducible("swtags")),
    ("reproducible-hwtags", lambda: check_reproducible("hwtags")),
    ("record", check_record),
    ("decode", check_decode),
    ("gdb-live", check_gdb_live),
    ("gdb-live-hw", check_gdb_live_hw),
    ("shell", check_shell),
    ("cleanup", check_cleanup),
    ("signals", check_signals),
    ("classroom", check_classroom),
    ("grade", check_grade),
    ("transcript-again", check_published_transcript),
    ("page-commands", check_page_commands),
    ("site", check_site),
]
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
    a = ap.parse_args(argv)
    vm.install_signal_handlers()
    t0 = time.time()
    try:
        checks = selected(a.only, a.skip)
        if a.list:
            print("\n".join(n for n, _ in checks))
            return 0
        vm.preflight()
    except vm.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    os.makedirs(OUT, exist_ok=True)
    beside = []
    for name, fn in checks:
        t1 = time.time()
        started = fn()
        if inspect.isgenerator(started):
            # a check that goes on beside the others until the end
            next(started, None)
            beside.append((name, started, t1))
            print("  [%s: started; goes on beside the checks below]" % name, flush=True)
            continue
        print("  [%s: %.0f s]" % (name, time.time() - t1), flush=True)
    for name, started, t1 in beside:
        for _ in started:
            pass
        print("  [%s: %.0f s, beside the others]" % (name, time.time() - t1), flush=True)
    return summary(t0)


def summary(t0):
    npass = sum(results)
    print("%d passed, %d failed  (%.0f s)" % (npass, len(results) - npass, time.time() - t0))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
