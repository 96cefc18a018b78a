# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What the :outcome: role (ktoutcome.py) checks a page's outcome sentence
against, computed before Sphinx runs:

  build/gen/checks.json   {"names": {"LAB/STEP": [check name, ...]},
                           "errors": {"LAB/STEP": why no names},
                           "results": {"LAB/STEP": {"source", "date", "seed",
                                                    "checks": {name: ok}}}}
  build/gen/checks.rst    the page the role's marker links to: per bound
                          step, its checks and what the last grading said

The names are the checks' own: each graded step's check function of
labs/NN/check.py, run on the lab's stored real run (labs/NN/runs/, as
tests/test_graders.py runs it, read here the same way without importing
tests/), returns (name, ok, why) tuples.  The
results are those of the last grading on this machine: `make check`'s
(build/check/grade.json), `make transcripts`' (build/transcripts/grade.json)
and `make grade`'s (build/grade/results*.json); for each step the newest
file that graded it.  No file at all (a fresh clone without kernels): no
results, and the role says "not yet checked on this machine".  The target
syntax, a step's key and its anchor on the checks page are
outcome_target.py's, which the role imports too."""

import glob
import json
import lzma
import os
import re
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Tuple

from Documentation.tools.outcome_target import HIDDEN, anchor, key, parse_target
from vm import REPO

RESULT_FILES = ("build/check/grade.json", "build/transcripts/grade.json",
                "build/grade/results*.json")
# The pages whose sentences the role binds (the site's own rst sources).
PAGES = ("index.rst", "Documentation/*.rst", "labs/*/*.rst", "patches/v9/notes/*.rst")
ROLE = re.compile(r":outcome:`(?:[^`<]*<)?([^`>]+)>?`", re.S)


# -- the names, from the stored runs -----------------------------------------

def load_stored(x: Any, step: str, kind: str) -> Optional[str]:
    """The stored KIND (serial, gdb, control, json) of lab X's STEP, or None."""
    path = x.path("runs", "%s.%s.xz" % (step, kind))
    if not os.path.exists(path):
        return None
    with lzma.open(path, "rt") as f:
        return f.read()


def stored_names() -> Tuple[Dict[str, List[str]], Dict[str, str]]:
    """({LAB/STEP: [names]}, {LAB/STEP: error}) of every graded step with a
    stored run: its check run on that run, offline."""
    from labs import lab as labdata
    from labs import edition
    names: Dict[str, List[str]] = {}
    errors: Dict[str, str] = {}
    student = os.path.exists(os.path.join(REPO, "labs", "HANDOUT"))
    for x in labdata.load_all():
        hidden = edition.hidden_steps(x) if student else []
        for s in x.steps:
            if not s.get("checks", True):
                continue
            if s["name"] in hidden:
                errors[key(x.folder, s["name"])] = HIDDEN
                continue
            data = {k: load_stored(x, s["name"], k) for k in ("serial", "gdb", "control", "json")}
            if data["serial"] is None and data["json"] is None:
                errors[key(x.folder, s["name"])] = "no stored run in %s/runs/" % x.folder
                continue
            try:
                res = grade_stored(x, s, data)
            except Exception as e:  # noqa: BLE001 -- reported per step, not a crash
                errors[key(x.folder, s["name"])] = "%s: %s" % (type(e).__name__, e)
                continue
            names[key(x.folder, s["name"])] = [str(r[0]) for r in res]
    return names, errors


def grade_stored(x: Any, s: Dict[str, Any], data: Dict[str, Any]) -> List[Any]:
    """The step's check on its stored run (a Run made as the offline grader
    tests make it); a step whose check reads a file next to its log (a
    table step's table.json) gets it in a scratch dir."""
    from labs.grade import Run
    run = Run(x.folder, s["name"], "<cache>/build/x")
    run.serial, run.gdb = data.get("serial") or "", data.get("gdb") or ""
    if s.get("host"):
        run.host, run.serial = run.serial, ""
    if data.get("control") is not None:
        run.control = Run(x.folder, s["name"], "<cache>/build/x")
        run.control.serial = data["control"]
    with tempfile.TemporaryDirectory(prefix="kt-checks-") as tmp:
        run.paths = [os.path.join(tmp, s["name"] + ".serial.log")]
        if data.get("json") is not None:
            with open(os.path.join(tmp, s["name"] + ".json"), "w") as f:
                f.write(data["json"])
        return list(x.checker(s)(run, s))


# -- the results of the last grading -----------------------------------------

def result_files(repo: str = REPO) -> List[str]:
    """This machine's gradings, else the one `make transcripts` kept
    (labs/grading.json: the captured runs the site shows were graded)."""
    out: List[str] = []
    for pat in RESULT_FILES:
        out += sorted(glob.glob(os.path.join(repo, pat)))
    kept = os.path.join(repo, "labs", "grading.json")
    return out or ([kept] if os.path.exists(kept) else [])


def last_results(files: Iterable[str], repo: str = REPO) -> Dict[str, Dict[str, Any]]:
    """{LAB/STEP: {source, date, seed, checks: {name: ok}}}: for each step,
    the demonstration checks of the newest file that graded it.  A file
    that is not a grading's JSON is skipped."""
    import datetime
    out: Dict[str, Dict[str, Any]] = {}
    stamp: Dict[str, float] = {}
    for path in files:
        try:
            with open(path) as f:
                data = json.load(f)
            mtime = os.path.getmtime(path)
            checks = data["checks"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        mine: Dict[str, Dict[str, bool]] = {}
        for c in checks:
            if not isinstance(c, dict) or c.get("exercise") or "lab" not in c:
                continue
            mine.setdefault(key(c["lab"], c["step"]), {})[str(c["check"])] = bool(c["ok"])
        for k, got in mine.items():
            if k in stamp and stamp[k] >= mtime:
                continue
            stamp[k] = mtime
            out[k] = {"source": os.path.relpath(path, repo), "seed": data.get("seed"),
                      "date": datetime.datetime.fromtimestamp(mtime).strftime("%Y-%m-%d"),
                      "checks": got}
    return out


# -- the outcomes the pages bind ----------------------------------------------

def bound_targets(repo: str = REPO) -> List[Tuple[str, str]]:
    """[(page, target)] of every :outcome: role of the site's pages."""
    out = []
    for pat in PAGES:
        for path in sorted(glob.glob(os.path.join(repo, pat))):
            for m in ROLE.finditer(open(path).read()):
                out.append((os.path.relpath(path, repo), " ".join(m.group(1).split())))
    return out


def checks_page(data: Dict[str, Any], targets: List[Tuple[str, str]],
                resolve: Any) -> str:
    """build/gen/checks.rst: per step some page binds, the bound checks and
    the last grading's verdict on each."""
    out = [":orphan:\n\n.. This page is generated by Documentation/tools/page_checks.py; the\n"
           "   outcome markers and the claim ledger link to it.\n\n",
           "The checks behind the pages' outcomes\n",
           "=====================================\n\n",
           "A sentence of these pages that says what a run shows is bound to the grader "
           "check that asserts it (the ``:outcome:`` role, "
           "``Documentation/tools/ktoutcome.py``): ``make site`` fails when the check does "
           "not exist in the lab's ``check.py``, or did not pass in the last grading on "
           "the machine that built the site. Per step, the checks the pages name, "
           "and that grading's verdict:\n\n"]
    steps: Dict[Tuple[str, str], List[Tuple[str, str]]] = {}
    for page, target in targets:
        try:
            lab, step, want = resolve(target)
        except ValueError:
            continue
        steps.setdefault((lab, step), []).append((page, want))
    for (lab, step), uses in sorted(steps.items()):
        k = key(lab, step)
        res = data.get("results", {}).get(k)
        out.append(".. _%s:\n\n" % anchor(lab, step))
        title = "Lab %s, step ``%s``" % (lab[:2].lstrip("0"), step)
        out.append("%s\n%s\n\n" % (title, "-" * len(title)))
        out.append("Graded by ``check_%s`` in ``labs/%s/check.py``; %s.\n\n" % (
            step.replace("-", "_"), lab, "last graded %s (``%s``, seed %s)" % (
                res["date"], res["source"], res["seed"]) if res else
            "not yet graded on this machine"))
        for page, want in sorted(set(uses)):
            for name in [n for n in data.get("names", {}).get(k, []) if want in n]:
                verdict = ("not yet checked" if not res else
                           "GOOD" if res["checks"].get(name) else
                           "BAD" if name in res["checks"] else "not in that grading")
                out.append("* %s -- %s (bound on ``%s``)\n" % (
                    name.replace("`", "'").replace("*", "\\*"), verdict, page))
        out.append("\n")
    if not steps:
        out.append("No page binds an outcome yet.\n")
    return "".join(out)


def write_pages(names: Optional[Dict[str, List[str]]] = None) -> Dict[str, Any]:
    """Compute checks.json and checks.rst into build/gen/; returns the data."""
    from Documentation.tools.sitelib import write
    errors: Dict[str, str] = {}
    if names is None:
        names, errors = stored_names()
    data = {"names": names, "errors": errors, "results": last_results(result_files())}
    write("checks.json", json.dumps(data, indent=1, sort_keys=True) + "\n")
    write("checks.rst", checks_page(data, bound_targets(), parse_target))
    return data
