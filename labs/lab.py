# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""A lab as declared data: labs/NN-name/steps.toml, checked against a schema.

    title    = "Lab 1: tag assignment"           the page and grader title
    patches  = [8, 9, 16]                         v9 patches the lab is about
    sources  = ["mm/kasan/sw_tags.c:u8 kasan_random_tag(void)", ...]
                                                  6.1 lines the page links to
    [[step]]                                      one boot, gdb session or host command
    name = "slab"  ...                            (STEP_KEYS below)
    [[exercise]]                                  the student's work, graded on a step's run
    id = "1.1"  step = "ex-helpers"  ...          (EXERCISE_KEYS below)

Every mistake is one KtError naming the file and the step: an unknown key,
a missing gdb file, an unknown variant or placeholder, a step that names no
check function in check.py and does not say `checks = false`.
"""

import importlib.util
import inspect
import os
import re
import tomllib
from types import ModuleType
from typing import Any, Callable, Dict, List, Tuple

from vm import DEFAULT_VARIANT, MACHINES, KtError, variants


HERE = os.path.dirname(os.path.abspath(__file__))
LAB_KEYS = {"title": str, "patches": list, "sources": list, "step": list, "exercise": list,
            "hours": float,         # the student's time for the lab, all of it (start page)
            "objectives": list,     # what the student can do after it (start page)
            "picture": list,        # pictures its pages include (PICTURE_KEYS below)
            "grader_only": list}    # files (in the folder) a handout leaves out, grade-class puts back
EXERCISE_KEYS: Dict[str, Any] = {
    "id": str,              # "LAB.N", e.g. "1.2": the TODO marker of its solution regions
    "title": str,           # one line: what the student does
    "step": str,            # the step whose run grades it (run before, as every step)
    "check": str,           # ex_<check>(run, runs[, exercise]) of check.py: [(name, ok, why)]
    "files": list,          # the files the student edits (relative to the checkout)
    "difficulty": str,      # easy, moderate or hard (the start page; 6.S081's scale)
    "minutes": int,         # about how long it takes a student
    "points": int,          # what it is worth; partial credit: the share of its checks GOOD
    "key": list,            # the checks that carry its point (name prefixes): one BAD, 0 points
    "sites": list,          # optional (lab 8): the sites the exercise names, masked in the table
    "prediction": bool,     # optional: its step's outcome is the answer (no stored run in a handout)
}
EXERCISE_OPTIONAL = ("sites", "prediction", "key")
DIFFICULTIES = ("easy", "moderate", "hard")
PICTURE_KEYS: Dict[str, Any] = {
    "name": str,            # the page includes /build/gen/pictures/NAME.rst (unique in labs/)
    "kind": str,            # what is drawn (PICTURE_KINDS; Documentation/tools/page_pictures.py)
    "step": str,            # the step whose captured run it is drawn from
    "steps": list,          # or several (kind brk: the brk step, then the outlined one)
    "items": list,          # kind tag_maps: [[step, scenario, caption], ...]
    "links": dict,          # kind anatomy: {part: "N" (lab N's page) or "N#anchor" or "#anchor"}
}
PICTURE_KINDS = ("pointer", "shadow", "tag_maps", "brk", "anatomy", "outcomes", "timeline")
STEP_KEYS: Dict[str, Any] = {
    "name": str,            # unique in the lab; the transcript is build/transcripts/LAB/NAME.txt
    "variant": str,         # kernel to boot (vm/configs/VARIANT.config); default swtags
    "cmdline": str,         # kernel command line; default "kunit.enable=0"
    "gdb": str,             # gdb command file in the lab folder, run in batch on the halted VM
    "host": list,           # or: a command run on the host (argv, placeholders expanded)
    "timeout": int,         # seconds for the boot and gdb (default 240)
    "filter": str,          # regex: the transcript shows only matching lines
    "limit": int,           # the transcript shows the first LIMIT lines and the last 3
    "hint": str,            # what `make lab` prints before gdb starts
    "check": str,           # grade with check_<check> of check.py (default: the step's name)
    "checks": bool,         # false: a demonstration, not graded
    "control": str,         # lab 5: the same boot on this variant must NOT pass the check
    "machine": str,         # another QEMU machine than the variant's (vm/qemu.py MACHINES)
    "may_die": bool,        # a predicted crash is an outcome, not a failed boot
    "replay": bool,         # a gdb step on a replay (vm/record.py): gdb can run it backwards
    "class_seed": bool,     # what exercises read of it no seed moves: a class runs it once,
                            # at SEED=1 (labs/seeds.py: class_seed_step; make check's data-seeds)
    "busybox": bool,        # boot with the shell initramfs (busybox, vm/init/*.sh: kt_sh=)
    "ok_exit": list,        # host step: exit codes that count as success (default [0])
    # lab 5's expectations, read by its check function
    "gdb_expect": list, "serial_expect": list, "serial_absent": list,
    "kunit_fail": list, "kunit_may_fail": list, "scenarios": dict,
}
# What a step is when steps.toml does not say: load_lab() fills these in,
# so no reader of a step re-applies a default.
STEP_DEFAULTS: Dict[str, Any] = {"variant": DEFAULT_VARIANT, "cmdline": "kunit.enable=0",
                                 "timeout": 240, "checks": True}
PLACEHOLDER = re.compile(r"\{(\w+)(?::([\w.-]*))?\}")
# {bdir:V} {vmlinux:V} {moddir:V}: files of variant V's build; {serial:STEP}:
# the log an earlier step saved; {repo}: the checkout.
PLACEHOLDERS = {"bdir": "variant", "vmlinux": "variant", "moddir": "variant",
                "serial": "step", "repo": None}


class Lab:
    """One lab folder, validated: its spec, steps and check functions."""

    def __init__(self, folder: str, spec: Dict[str, Any], module: ModuleType):
        self.folder, self.spec, self.module = folder, spec, module
        self.title: str = spec["title"]
        self.steps: List[Dict[str, Any]] = spec["step"]
        self.number = int(folder[:2])

    def path(self, *parts: str) -> str:
        return os.path.join(HERE, self.folder, *parts)

    def step(self, name: str) -> Dict[str, Any]:
        for s in self.steps:
            if s["name"] == name:
                return s
        raise KtError("lab %s has no step %r; steps: %s" % (
            self.folder, name, ", ".join(s["name"] for s in self.steps)))

    @property
    def exercises(self) -> List[Dict[str, Any]]:
        return list(self.spec.get("exercise", []))

    def exercise_checker(self, ex: Dict[str, Any]) -> Callable[..., List[Tuple[str, bool, str]]]:
        """ex_<check>(run, runs[, exercise]) of check.py, as a function of (run, runs)."""
        fn: Callable[..., List[Tuple[str, bool, str]]] = getattr(
            self.module, "ex_" + ex["check"].replace("-", "_"))
        if len(inspect.signature(fn).parameters) == 3:
            return lambda run, runs: fn(run, runs, ex)
        return fn

    def checker(self, step: Dict[str, Any]) -> Callable[..., List[Tuple[str, bool, str]]]:
        """check_<name>(run[, step]) of check.py, as a function of (run, step)."""
        fn: Callable[..., List[Tuple[str, bool, str]]] = getattr(self.module, check_name(step))
        if len(inspect.signature(fn).parameters) == 2:
            return fn
        return lambda run, _step: fn(run)


def gdb_sections(text: str) -> Dict[str, List[str]]:
    """{name: [lines]} of a gdb transcript split at `echo KT-GDB name` marks."""
    out: Dict[str, List[str]] = {}
    cur = None
    for line in text.splitlines():
        if line.startswith("KT-GDB "):
            cur = line[7:].strip()
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out


FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) \(.*?\)(?: at (\S+))?\s*$")


def backtrace(lines: List[str]) -> List[Tuple[str, str]]:
    """[(function, file:line or "")] of the frames of a gdb `bt`."""
    return [(m.group(1), m.group(2) or "") for m in map(FRAME.match, lines) if m]


# A transcript (build/transcripts/LAB/STEP.txt): "# KEY: value" lines, then
# the output.  Only these keys are header lines: an output line that starts
# with "# " (KUnit's "# kasan: pass:...") stays output.
TRANSCRIPT_KEYS = ("command", "kernel", "seed", "shown", "student")
TRANSCRIPT_HEADER = re.compile(r"^# (%s): " % "|".join(TRANSCRIPT_KEYS))


def split_transcript(text: str) -> Tuple[List[str], List[str]]:
    """(header lines without their "# ", output lines) of a transcript."""
    lines = text.rstrip("\n").split("\n")
    n = 0
    while n < len(lines) and TRANSCRIPT_HEADER.match(lines[n]):
        n += 1
    return [ln[2:] for ln in lines[:n]], lines[n:]


def check_name(step: Dict[str, Any]) -> str:
    return "check_" + step.get("check", step["name"]).replace("-", "_")


def folders(root: str = HERE) -> List[str]:
    return sorted(d for d in os.listdir(root) if re.match(r"\d\d-", d)
                  and os.path.exists(os.path.join(root, d, "steps.toml")))


def _type_errors(where: str, data: Dict[str, Any], schema: Dict[str, Any]) -> List[str]:
    errs = []
    for k, v in data.items():
        if k not in schema:
            errs.append("%s: unknown key %r (known: %s)" % (where, k, ", ".join(sorted(schema))))
        elif not isinstance(v, schema[k]):
            errs.append("%s: %s must be a %s" % (where, k, schema[k].__name__))
    return errs


def placeholder_errors(where: str, text: str, earlier: List[str]) -> List[str]:
    """Unknown placeholders, unknown variants, serial logs of no earlier step."""
    errs = []
    for m in PLACEHOLDER.finditer(text):
        kind, arg = m.group(1), m.group(2)
        if kind not in PLACEHOLDERS:
            errs.append("%s: unknown placeholder %s (known: %s)" % (
                where, m.group(0), ", ".join("{%s}" % k for k in PLACEHOLDERS)))
        elif PLACEHOLDERS[kind] == "variant" and arg not in variants():
            errs.append("%s: %s names unknown variant %r" % (where, m.group(0), arg))
        elif PLACEHOLDERS[kind] == "step" and arg not in earlier:
            errs.append("%s: %s is not an earlier step of this lab" % (where, m.group(0)))
    return errs


def validate(folder: str, spec: Dict[str, Any], module: ModuleType, root: str) -> List[str]:
    """Every schema error of one lab, each naming the file and the step."""
    toml = os.path.join("labs", folder, "steps.toml")
    errs = _type_errors(toml, spec, LAB_KEYS)
    for k in ("title", "step", "hours", "objectives"):
        if k not in spec:
            errs.append("%s: missing %r" % (toml, k))
    names: List[str] = []
    for i, step in enumerate(spec.get("step", [])):
        name = step.get("name") if isinstance(step, dict) else None
        where = "%s: step %s" % (toml, name or "#%d" % (i + 1))
        if not isinstance(step, dict) or not isinstance(name, str):
            errs.append("%s: has no name" % where)
            continue
        errs += _type_errors(where, step, STEP_KEYS)
        if name in names:
            errs.append("%s: duplicate step name" % where)
        kinds = [k for k in ("gdb", "host") if k in step]
        if len(kinds) > 1:
            errs.append("%s: has both gdb and host" % where)
        for k in ("variant", "control"):
            if k in step and step[k] not in variants():
                errs.append("%s: %s %r is not a variant (vm/configs/)" % (where, k, step[k]))
        if "machine" in step and step["machine"] not in MACHINES:
            errs.append("%s: machine %r is not one of %s (vm/qemu.py)"
                        % (where, step["machine"], ", ".join(MACHINES)))
        if "machine" in step and ("gdb" in step or "host" in step):
            errs.append("%s: machine is for plain boots only" % where)
        if "filter" in step:
            try:
                re.compile(step["filter"])
            except re.error as e:
                errs.append("%s: filter is not a regex: %s" % (where, e))
        if isinstance(step.get("gdb"), str):
            gpath = os.path.join(root, folder, step["gdb"])
            if not os.path.exists(gpath):
                errs.append("%s: gdb file %s does not exist" % (where, step["gdb"]))
            else:
                errs += placeholder_errors("%s (%s)" % (where, step["gdb"]),
                                           open(gpath).read(), names)
        if isinstance(step.get("host"), list):
            errs += placeholder_errors(where, " ".join(map(str, step["host"])), names)
        graded = step.get("checks", True)
        fn = check_name(step)
        if graded and not callable(getattr(module, fn, None)):
            errs.append("%s: labs/%s/check.py has no %s() (or say checks = false)"
                        % (where, folder, fn))
        if not graded and ("check" in step or "control" in step):
            errs.append("%s: checks = false, yet check/control is given" % where)
        names.append(name)
    errs += exercise_errors(toml, folder, spec, module, names)
    errs += picture_errors(toml, spec, names)
    return errs


def picture_errors(toml: str, spec: Dict[str, Any], steps: List[str]) -> List[str]:
    """Every picture has a name, a known kind, and names steps of the lab."""
    errs: List[str] = []
    for i, pic in enumerate(spec.get("picture", [])):
        if not isinstance(pic, dict):
            errs.append("%s: picture #%d is not a table" % (toml, i + 1))
            continue
        where = "%s: picture %s" % (toml, pic.get("name", "#%d" % (i + 1)))
        errs += _type_errors(where, pic, PICTURE_KEYS)
        if not isinstance(pic.get("name"), str):
            errs.append("%s: missing 'name'" % where)
        if pic.get("kind") not in PICTURE_KINDS:
            errs.append("%s: kind must be one of %s" % (where, ", ".join(PICTURE_KINDS)))
        named = [pic["step"]] if isinstance(pic.get("step"), str) else []
        named += [s for s in pic.get("steps", []) if isinstance(s, str)]
        named += [it[0] for it in pic.get("items", []) if isinstance(it, list) and it]
        errs += ["%s: step %r is not a step of this lab" % (where, s)
                 for s in named if s not in steps]
    return errs


def exercise_errors(toml: str, folder: str, spec: Dict[str, Any], module: ModuleType,
                    steps: List[str]) -> List[str]:
    """Every exercise names a step of the lab, a check function, files that
    exist, and an id "N.k" unique in the lab, N being the lab's number."""
    errs: List[str] = []
    ids: List[str] = []
    repo = os.path.dirname(HERE)
    for i, ex in enumerate(spec.get("exercise", [])):
        if not isinstance(ex, dict):
            errs.append("%s: exercise #%d is not a table" % (toml, i + 1))
            continue
        where = "%s: exercise %s" % (toml, ex.get("id", "#%d" % (i + 1)))
        bad = _type_errors(where, ex, EXERCISE_KEYS) + [
            "%s: missing %r" % (where, k) for k in EXERCISE_KEYS
            if k not in ex and k not in EXERCISE_OPTIONAL]
        errs += bad
        if bad:
            continue
        if not re.fullmatch(r"%d\.\d+" % int(folder[:2]), ex["id"]) or ex["id"] in ids:
            errs.append("%s: id must be %d.N and unique in the lab" % (where, int(folder[:2])))
        ids.append(ex["id"])
        if ex["difficulty"] not in DIFFICULTIES:
            errs.append("%s: difficulty must be one of %s" % (where, ", ".join(DIFFICULTIES)))
        if ex["step"] not in steps:
            errs.append("%s: step %r is not a step of this lab" % (where, ex["step"]))
        fn = "ex_" + ex["check"].replace("-", "_")
        if not callable(getattr(module, fn, None)):
            errs.append("%s: labs/%s/check.py has no %s()" % (where, folder, fn))
        for f in ex["files"]:
            if not os.path.exists(os.path.join(repo, f)):
                errs.append("%s: file %s does not exist" % (where, f))
    return errs


def load_lab(folder: str, root: str = HERE) -> Lab:
    """Read and validate labs/FOLDER; KtError with every problem found."""
    toml = os.path.join(root, folder, "steps.toml")
    try:
        with open(toml, "rb") as f:
            spec = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise KtError("labs/%s/steps.toml: %s" % (folder, e))
    modpath = os.path.join(root, folder, "check.py")
    if not os.path.exists(modpath):
        raise KtError("labs/%s has no check.py" % folder)
    s = importlib.util.spec_from_file_location("check_" + folder.replace("-", "_"), modpath)
    assert s and s.loader  # mutation: equivalent (an assert for mypy; never false)
    module = importlib.util.module_from_spec(s)
    s.loader.exec_module(module)
    errs = validate(folder, spec, module, root)
    if errs:
        raise KtError(errs[0] + ("; and %d more" % (len(errs) - 1) if len(errs) > 1 else ""))
    for step in spec["step"]:
        for k, v in STEP_DEFAULTS.items():
            step.setdefault(k, v)
    return Lab(folder, spec, module)


def load_all(root: str = HERE) -> List[Lab]:
    return [load_lab(d, root) for d in folders(root)]


def by_number(n: int, root: str = HERE) -> Lab:
    """Lab N (its folder starts with NN-): how code outside labs/ names a lab."""
    for d in folders(root):
        if int(d[:2]) == n:
            return load_lab(d, root)
    raise KtError("no lab %d under labs/ (labs: %s)" % (n, ", ".join(folders(root))))


def needed_variants(labs: List[Lab]) -> List[str]:
    """Every kernel the labs boot or read: each step's variant (default
    swtags) and control, and the V of {bdir:V}-style placeholders in its
    host command and gdb file (what `make dist` archives for a class)."""
    out = set()
    for lab in labs:
        for st in lab.steps:
            out.add(st["variant"])
            if "control" in st:
                out.add(st["control"])
            texts = [" ".join(st.get("host", []))]
            if "gdb" in st:
                with open(lab.path(st["gdb"])) as f:
                    texts.append(f.read())
            for text in texts:
                for m in PLACEHOLDER.finditer(text):
                    if PLACEHOLDERS.get(m.group(1)) == "variant" and m.group(2):
                        out.add(m.group(2))
    return sorted(out)
