# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check: the kernels and what runs on them -- the tooling checks
(pytest, lint, checkpatch), each variant's KUnit+scenario boot, byte-for-byte
reproducibility, record/replay, the decoder, live gdb sessions, make shell."""

import json
import os
import re
import subprocess
import time
import tomllib

import vm
from labs import scenarios
from labs.lab import gdb_sections
from vm import ktap
from tests.checklib import (COMMANDS, OUT, PY, REPO, TEST_PARTS, first_difference, make_out,
                            record, timed)


def check_tooling():
    """Offline unit tests of the project's own tools (pytest)."""
    dirs = [d for d in ("tests", "gdb-scripts/tests", "labs") if os.path.isdir(os.path.join(REPO, d))]
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
    ok = p.returncode == 0 and passed > 0
    record("tooling: pytest %s" % " ".join(dirs), ok, summary, time.time() - t0)
    COMMANDS[TEST_PARTS[0]] = (ok, "" if ok else summary)


def check_lint():
    """`make lint`: flake8, shellcheck, mypy (settings in setup.cfg, pyproject.toml)."""
    t0 = time.time()
    p = subprocess.run(["make", "-s", "lint"], cwd=REPO, capture_output=True, text=True)
    out = (p.stdout + p.stderr).strip().splitlines()
    record("lint: flake8, shellcheck, mypy", p.returncode == 0,
           "" if p.returncode == 0 else (out or ["make lint failed"])[-1], time.time() - t0,
           out[:20] if p.returncode else ())
    COMMANDS[TEST_PARTS[1]] = (p.returncode == 0, "" if p.returncode == 0 else "make lint failed")


def check_checkpatch():
    t0 = time.time()
    src, _ = vm.pristine_tree()
    files = [f for f in ("labs/module/kasan_lab.c", "labs/module/kasan_lab.h",
                         "labs/module/kasan_student.c", "labs/module/kasan_mystery.c",
                         "labs/module/qfq_student.h",
                         "vm/init/init.c", "vm/init/tcpbench.c", "vm/init/qfq_lmax.c")
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
        exp = dict(exp, chance_misses=exp.get("seed1_misses", []))
    ok, lines = ktap.judge(ktap.parse(b.text), exp)
    record("KUnit %s: %s" % (variant, lines[0]), ok, "", 0, lines[1:])
    if not b.ok or mode is None:
        return
    for name, errs in scenarios.check_log(b.text, mode, names):
        record("scenario %s on %s" % (name, variant), not errs,
               "; ".join(errs) if errs is not None else "the teacher's row, not in this copy")


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
    object_stacks_are_the_report_s("gdb live", sec, r)
    fn = sec["functions"][0] if sec["functions"] else ""
    record("gdb live: $kasan_tag/$kasan_untag", fn == "tag=%s untag=ff%s" % (
        r["pointer_tag"], r["addr"][2:]), fn)
    title = sec["kasan-report"][0] if sec["kasan-report"] else ""
    record("gdb live: kasan-report decodes lx-dmesg like the serial log",
           title == r["title"], "%r vs %r" % (title, r["title"]))
    errs = [ln for ln in sec["errors"] if ln.startswith("KT-GDB-ERROR")]
    clean = len(errs) == 8 and "Traceback" not in g and "Python Exception" not in g
    record("gdb live: bad input gives one-line errors", clean, "%d errors" % len(errs),
           0, () if clean else sec["errors"])
    hist = [ln for ln in errs if ln.startswith("KT-GDB-ERROR kasan-history")]
    record("gdb live: kasan-history outside a replay says how to start one",
           bool(hist) and "not a replay" in hist[0] and "make record" in hist[0],
           hist[0] if hist else "no kasan-history error")
    why_ = [ln for ln in errs if ln.startswith("KT-GDB-ERROR kasan-why")]
    record("gdb live: kasan-why outside a replay says so in one line",
           bool(why_) and "not a replay" in why_[0] and "make record" in why_[0],
           why_[0] if why_ else "no kasan-why error")
    esr = sec["esr"]
    record("gdb live: kasan-esr decodes 0xf2000930 (write, 1 byte, recover)",
           any("write of 1 byte(s); recoverable" in ln for ln in esr) and
           any("not a KASAN brk" in ln for ln in esr), "; ".join(esr[:2]))


def object_stacks_are_the_report_s(what, sec, r):
    """kasan-object at kasan_report: the report's cache and object, and its
    allocation and free stacks (stack ring or metadata, stack depot)."""
    from kasan import objinfo
    lines = sec.get("kasan-object", [])
    head = next((ln for ln in lines if ln.startswith("kasan-object ")), "")
    record("%s: kasan-object names the report's cache %s and object %s" % (
        what, r["cache"], r["object"]), ("cache %s," % r["cache"]) in head and
        ("object 0x%s " % r["object"]) in head, head or "no kasan-object line")
    st = objinfo.printed_stacks(lines)
    for k in ("alloc", "free"):
        record("%s: kasan-object's %s stack is the report's (%d frames)" % (
            what, k, len(r[k + "_stack"])), objinfo.same_stack(st.get(k, []), r[k + "_stack"]),
            "kasan-object: %s" % (st.get(k, [])[:6] or "none"))


def check_gdb_live_generic():
    """kasan-object on the generic kernel: the object's alloc/free meta,
    through the stack depot, against the report it printed."""
    live = live_session("generic", "live-generic.gdb")
    if live:
        object_stacks_are_the_report_s("gdb live generic", live[1], live[2])


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
    object_stacks_are_the_report_s("gdb live hw", sec, r)
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


def check_kernel_code():
    """What the built kernels are, measured without booting them: the .text of
    each mode's vmlinux (llvm-size) and, disassembled (llvm-objdump -d), the
    KASAN brk sites and the calls to outlined checks.  The default swtags
    kernel must have no brk #0x9xx in the whole vmlinux -- not only in the lab
    module lab 2 counts -- and swtags-brk must have them.  The figures go to
    build/check/kernel-code.json, which the claim ledger page reads."""
    from Documentation.tools import page_claims
    out, t0 = {}, time.time()
    for v in ("none", "generic", "swtags", "hwtags", "swtags-brk"):
        bdir, secs = timed(vm.build_kernel, v)
        if isinstance(bdir, vm.KtError):
            record("kernel-code: kernel %s builds (or is reused)" % v, False, str(bdir), secs)
            continue
        out[v] = page_claims.measure_vmlinux(vm.vmlinux(bdir),
                                             disassemble=v in ("swtags", "swtags-brk"))
    sw, brk = out.get("swtags", {}), out.get("swtags-brk", {})
    record("kernel-code: the swtags vmlinux has no brk #0x9xx and calls outlined checks "
           "(hwasan-inline-all-checks=0)",
           sw.get("brk_9xx") == 0 and sw.get("check_calls", 0) > 0, str(sw), time.time() - t0)
    record("kernel-code: the swtags-brk vmlinux has brk #0x9xx and no outlined check calls",
           brk.get("brk_9xx", 0) > 0 and brk.get("check_calls") == 0, str(brk))
    text = {v: m.get("text") for v, m in out.items()}
    record("kernel-code: inline generic KASAN has the largest .text of none/generic/swtags",
           None not in (text.get("none"), text.get("generic"), text.get("swtags")) and
           text["generic"] > text["swtags"] > text["none"], str(text))
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "kernel-code.json"), "w") as f:
        json.dump({"variants": out}, f, indent=1, sort_keys=True)
