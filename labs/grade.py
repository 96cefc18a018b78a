#!/usr/bin/python3
"""`make grade [N=..]` and `make transcripts`: run the labs' steps, check them.

Each lab folder labs/NN-name/ has
  steps.toml   the steps: what to boot (variant, command line), the gdb
               command file to run in batch, or a host command
  check.py     check_<step>(run) functions returning [(name, ok, why)]
  *.gdb        the gdb command files
One runner for all labs: kt.boot / kt.boot_gdb (timeouts, PID cleanup).
Every step's output is saved as a transcript under build/transcripts/,
which the lab pages include; a failing check keeps the serial log and gdb
transcript under build/grade/ and says where.

    GOOD lab1 kmalloc: pointer top byte == shadow of every granule (12.3 s)
    BAD  lab2 brk: ... (reason)
    Score: 11/12
"""

import argparse
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(REPO, d) for d in ("vm", "labs", "gdb-scripts")]
import kt  # noqa: E402

TRANSCRIPTS = os.path.join(REPO, "build", "transcripts")
GRADE = os.path.join(REPO, "build", "grade")


def gdb_sections(text):
    """{name: [lines]} of a gdb transcript split at `echo KT-GDB name` marks."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("KT-GDB "):
            cur = line[7:].strip()
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out


class Run:
    """What one step produced: serial log, gdb transcript, host output."""

    def __init__(self, lab, step, bdir):
        self.lab, self.step, self.bdir = lab, step, bdir
        self.serial, self.gdb, self.host, self.status = "", "", "", "ok"
        self.paths = []

    def sections(self):
        return gdb_sections(self.gdb)

    def lab_serial(self, step):
        """Path of the serial log another step of this lab saved."""
        return os.path.join(GRADE, self.lab, step + ".serial.log")

    def lab_lines(self, scenario=None):
        from scenarios import events, segments
        text = self.serial
        if scenario:
            return events(segments(text).get(scenario, []), scenario)
        return text


def labs():
    return sorted(d for d in os.listdir(HERE)
                  if re.match(r"\d\d-", d) and os.path.exists(os.path.join(HERE, d, "steps.toml")))


def load_lab(d):
    with open(os.path.join(HERE, d, "steps.toml"), "rb") as f:
        spec = tomllib.load(f)
    modpath = os.path.join(HERE, d, "check.py")
    s = importlib.util.spec_from_file_location("check_" + d.replace("-", "_"), modpath)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    return spec, mod


def module_dir(bdir):
    return os.path.join(bdir, "kt", "module")


def expand(text, bdirs, runs, lab=""):
    """Placeholders in gdb files and host commands:
    {bdir:VARIANT} {moddir:VARIANT} {serial:STEP} {repo}."""
    def sub(m):
        kind, arg = m.group(1), m.group(2)
        if kind == "bdir":
            return bdirs(arg)
        if kind == "moddir":
            kt.build_module(bdirs(arg))  # kbuild: a no-op when up to date
            return module_dir(bdirs(arg))
        if kind == "serial":
            if arg in runs:
                return runs[arg].paths[0]
            path = os.path.join(GRADE, lab, arg + ".serial.log")
            if not os.path.exists(path):
                raise kt.KtError("step %s of %s has not run yet (no %s)" % (arg, lab, path))
            return path
        return REPO
    return re.sub(r"\{(bdir|moddir|serial|repo):?([\w.-]*)\}", sub, text)


def clean_paths(text, bdir):
    """Show kernel-tree paths relative to the tree, not this machine's cache."""
    try:
        src = os.path.realpath(os.path.join(bdir, "source"))
        text = text.replace(src + "/", "")
    except OSError:
        pass
    return text.replace(bdir + "/", "<build>/").replace(kt.cache_root() + "/", "<cache>/")


def run_step(lab, step, runs, variant=None, transcript=True):
    # KT_LAB_VARIANT runs every step on one kernel: a negative control
    # (lab 2's brk step on the default kernel must be graded BAD).
    variant = variant or os.environ.get("KT_LAB_VARIANT") or step.get("variant", "swtags")
    built = {}

    def bdirs(v):
        if v not in built:
            built[v] = kt.build_kernel(v)
        return built[v]
    bdir = bdirs(variant)
    run = Run(lab, step["name"], bdir)
    out = os.path.join(GRADE, lab)
    os.makedirs(out, exist_ok=True)
    serial = os.path.join(out, step["name"] + ("" if transcript else ".control")
                          + ".serial.log")
    timeout = step.get("timeout", 240)
    cmdline = step.get("cmdline", "kunit.enable=0")
    shown = []
    if "gdb" in step:
        src = os.path.join(HERE, lab, step["gdb"])
        gfile = os.path.join(out, step["name"] + ".gdb")
        with open(gfile, "w") as f:
            f.write(expand(open(src).read(), bdirs, runs, lab))
        b, g = kt.boot_gdb(bdir, gfile, cmdline, timeout, serial)
        run.serial, run.gdb, run.status = b.text, g, b.status
        run.paths = [serial, os.path.splitext(serial)[0] + ".gdb.txt"]
        shown = ["$ make lab N=%s STEP=%s   then (gdb) source labs/%s/%s" % (
            lab[:2].lstrip("0"), step["name"], lab, step["gdb"])]
        body = g
    elif "host" in step:
        argv = [expand(a, bdirs, runs, lab) for a in step["host"]]
        p = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=timeout)
        run.host = p.stdout + p.stderr
        run.status = "ok" if p.returncode in step.get("ok_exit", [0]) else "exit %d" % p.returncode
        run.paths = [serial]
        with open(serial, "w") as f:
            f.write(run.host)
        shown = ["$ " + " ".join(shlex.quote(clean_paths(a, bdir)) for a in argv)]
        body = run.host
    else:
        b = kt.boot(bdir, cmdline, timeout, serial)
        run.serial, run.status, run.paths = b.text, b.status, [serial]
        shown = ["$ make boot VARIANT=%s CMDLINE=%s" % (variant, shlex.quote(cmdline))]
        body = b.text
    if "filter" in step:
        pat = re.compile(step["filter"])
        body = "\n".join(ln for ln in body.splitlines() if pat.search(ln))
    if transcript:
        save_transcript(lab, step, shown, variant, bdir, clean_paths(body, bdir))
    return run


def save_transcript(lab, step, shown, variant, bdir, body):
    d = os.path.join(TRANSCRIPTS, lab)
    os.makedirs(d, exist_ok=True)
    try:
        rel = kt.kernel_release(bdir)
    except OSError:
        rel = "?"
    hdr = ["# command: %s" % shown[0],
           "# kernel: Linux %s, variant %s; captured %s by `make transcripts`" % (
               rel, variant, time.strftime("%Y-%m-%d"))]
    if step.get("filter"):
        hdr.append("# shown: the lines matching /%s/" % step["filter"])
    with open(os.path.join(d, step["name"] + ".txt"), "w") as f:
        f.write("\n".join(hdr + [body.rstrip("\n")]) + "\n")


def grade(selected, only_steps=None):
    score = total = 0
    t_all = time.time()
    for lab in selected:
        spec, mod = load_lab(lab)
        runs = {}
        for step in spec["step"]:
            if only_steps and step["name"] not in only_steps:
                continue
            t0 = time.time()
            try:
                run = run_step(lab, step, runs)
            except (kt.KtError, subprocess.TimeoutExpired, OSError) as e:
                total += 1
                print("BAD  %s %s: step failed to run: %s (%.1f s)" % (
                    lab[:2], step["name"], e, time.time() - t0), flush=True)
                continue
            runs[step["name"]] = run
            fn = getattr(mod, "check_" + step["name"].replace("-", "_"), None)
            generic = getattr(mod, "check_step", None)
            results = fn(run) if fn else generic(run, step) if generic else []
            if step.get("control") and generic:
                # The same boot on the unpatched kernel must NOT look like this.
                ctl = run_step(lab, step, runs, variant=step["control"], transcript=False)
                bad = [n for n, ok, _ in generic(ctl, step) if not ok]
                results.append(("differs from the unpatched %s kernel" % step["control"],
                                bool(bad), "the control kernel shows the same outcome"))
            if run.status == "timeout" or (run.status != "ok" and not step.get("may_die")):
                # A predicted crash is an outcome; a hang never is.
                results.insert(0, ("boot ends (end marker%s)" % (
                    " or the predicted crash" if step.get("may_die") else ""), False,
                    "%s; serial log tail:\n%s" % (run.status, "\n".join(
                        run.serial.splitlines()[-15:]))))
            secs = time.time() - t0
            for name, ok, why in results:
                total += 1
                score += bool(ok)
                print("%s %s %s: %s%s (%.1f s)" % (
                    "GOOD" if ok else "BAD ", lab[:2], step["name"], name,
                    "" if ok else " -- " + why, secs), flush=True)
                secs = 0.0
            if not all(ok for _, ok, _ in results):
                print("     logs kept: %s" % " ".join(run.paths), flush=True)
    print("Score: %d/%d  (%.0f s)" % (score, total, time.time() - t_all))
    return score == total and total > 0


def interactive(lab, step_name):
    """`make lab N=.. [STEP=..]`: QEMU halted in the background, gdb here."""
    spec, _ = load_lab(lab)
    steps = [s for s in spec["step"] if "gdb" in s]
    step = next((s for s in steps if s["name"] == step_name), None) if step_name else steps[0]
    if step is None:
        raise kt.KtError("lab %s has no gdb step %r; steps: %s" % (
            lab, step_name, ", ".join(s["name"] for s in steps)))
    bdir = kt.build_kernel(step.get("variant", "swtags"))
    initrd = kt.build_initramfs(bdir)
    port = kt.free_port()
    serial = os.path.join(GRADE, lab, step["name"] + ".interactive.log")
    os.makedirs(os.path.dirname(serial), exist_ok=True)
    full = (kt.BASE_CMDLINE + " " + step.get("cmdline", "kunit.enable=0")).strip()
    with open(serial, "wb") as log:
        q = kt.spawn(kt.qemu_cmd(bdir, initrd, full, gdb_port=port), stdin=subprocess.DEVNULL,
                     stdout=log, stderr=subprocess.STDOUT)
    try:
        if not kt.wait_port(port, time.time() + 20):
            raise kt.KtError("QEMU did not open its gdb stub; see %s" % serial)
        gfile = os.path.join(HERE, lab, step["gdb"])
        hint = "%s, step %s. The kernel is halted at its first instruction." % (
            spec["title"], step["name"])
        print("kt: %s\nkt: serial console: tail -f %s\nkt: hint: %s\n"
              "kt: run the whole step with:  source %s\nkt: quit gdb to stop QEMU." % (
                  hint, serial, step.get("hint", ""), os.path.relpath(gfile, os.getcwd())))
        return kt.interactive(kt.gdb_cmd(bdir, port))
    finally:
        kt.reap(q)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="labs/grade.py")
    ap.add_argument("-n", "--lab", help="lab number (e.g. 2)")
    ap.add_argument("--step", action="append")
    ap.add_argument("--interactive", action="store_true", help="`make lab`: gdb on a halted VM")
    a = ap.parse_args(argv)
    sel = labs()
    if a.lab:
        sel = [d for d in sel if d[:2] == "%02d" % int(a.lab)] if a.lab.isdigit() else []
        if not sel:
            print("kasan-tags: error: no lab %s; labs: %s" % (a.lab, ", ".join(labs())))
            return 2
    try:
        if a.interactive:
            if len(sel) != 1:
                print("kasan-tags: error: make lab needs N=<lab number>; labs: %s"
                      % ", ".join(labs()))
                return 2
            return interactive(sel[0], (a.step or [None])[0])
        return 0 if grade(sel, a.step) else 1
    except kt.KtError as e:
        print("kasan-tags: error: %s" % e)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
