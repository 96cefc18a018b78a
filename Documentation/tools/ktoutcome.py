# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The :outcome: role: a sentence that says what a run shows, bound to the
grader check that asserts it, checked when the site is built.

    :outcome:`the default kernel reaches kasan_tag_mismatch <02:outline:kasan_tag_mismatch>`

The target is LAB:STEP:NAME -- LAB a lab's number (``2``, ``02``, ``lab02``)
or folder, STEP a graded step of its steps.toml, NAME a piece of the name
of a check that step's check function returns (the first element of its
(name, ok, why) tuples).  The text renders as it is, followed by a small
marker linking to the step on the checks page (build/gen/checks.rst, by
page_checks.py), the check's name and verdict on hover.

A build warning, so `sphinx-build -W` (`make site`) fails, when:
  - LAB or STEP does not exist, or the step is not graded;
  - no check of that step is named like NAME: the names are the ones the
    check returns on the lab's stored real run (labs/NN/runs/);
  - the last grading on this machine (make check, make transcripts or
    make grade; page_checks.py says where each is read) graded the step
    and the named check is not among its results, or did not pass.
When no grading on this machine covers the step (a fresh clone without
kernels), the text renders with "not yet checked on this machine".
The pure part (`parse_target`, `verdict`) is tested without Sphinx
(tests/test_outcome.py, which also plants pages in a scratch Sphinx build).
What the role shares with page_checks.py -- the target, a step's anchor on
the checks page, the HIDDEN error -- is outcome_target.py's: the two import
it, not each other.
"""

import json
import os
import re
from typing import Any, Dict, List, Optional, Tuple

from docutils import nodes
from sphinx.util import logging

from Documentation.tools.outcome_target import HIDDEN, LABS, anchor, parse_target

logger = logging.getLogger(__name__)
CHECKS_DOC = "build/gen/checks"
EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
UNCHECKED = "not yet checked on this machine"


def verdict(data: Dict[str, Any], lab: str, step: str,
            want: str) -> Tuple[str, List[str], str]:
    """(state, the matching names, message) of one bound outcome against
    page_checks' data.  state: "good" (passed in the last grading),
    "unchecked" (no grading of the step here), "error" (the message says
    why: the build must fail)."""
    k = "%s/%s" % (lab, step)
    names = data.get("names", {})
    if k not in names:
        why = data.get("errors", {}).get(k)
        if why == HIDDEN:
            return "unchecked", [], why
        if why:
            return "error", [], "the check of %s could not be run on its stored run: %s" % (
                k, why)
        steps = sorted(s.split("/", 1)[1] for s in names if s.startswith(lab + "/"))
        return "error", [], "%s has no graded step %r (graded: %s)" % (
            lab, step, ", ".join(steps) or "none")
    match = [n for n in names[k] if want in n]
    if not match:
        return "error", [], "no check of %s is named like %r; its checks: %s" % (
            k, want, "; ".join(names[k]))
    res = data.get("results", {}).get(k)
    if res is None:
        return "unchecked", match, UNCHECKED
    live = {n: ok for n, ok in res["checks"].items() if want in n}
    if not live:
        return "error", match, "no check named like %r in the last grading of %s (%s, %s)" % (
            want, k, res["source"], res["date"])
    bad = sorted(n for n, ok in live.items() if not ok)
    if bad:
        return "error", sorted(live), "did not pass in the last grading of %s (%s, %s): %s" % (
            k, res["source"], res["date"], "; ".join(bad))
    return "good", sorted(live), "GOOD in the grading of %s (%s, seed %s)" % (
        res["date"], res["source"], res["seed"])


def checks_path(env: Any) -> str:
    return env.config.kt_checks_json or os.path.join(env.srcdir, CHECKS_DOC + ".json")


_CACHE: Dict[str, Tuple[float, Optional[Dict[str, Any]]]] = {}


def _data(env: Any) -> Optional[Dict[str, Any]]:
    path = checks_path(env)
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return None
    if path in _CACHE and _CACHE[path][0] == mtime:
        return _CACHE[path][1]
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = None
    _CACHE[path] = (mtime, data)
    return data


def _digest(env: Any) -> str:
    import hashlib
    try:
        with open(checks_path(env), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


def _outdated(app: Any, env: Any, added: Any, changed: Any, removed: Any) -> List[str]:
    """Sphinx reads again only the pages that changed: when the checks or
    their results changed, every page with an outcome is read again, so
    that its roles are checked against the new ones (and warn again)."""
    digest = _digest(env)
    if getattr(env, "kt_checks_digest", None) == digest:
        return []
    env.kt_checks_digest = digest
    return sorted(getattr(env, "kt_outcome_docs", set()) & set(env.found_docs))


def _purge(app: Any, env: Any, docname: str) -> None:
    getattr(env, "kt_outcome_docs", set()).discard(docname)


def _merge(app: Any, env: Any, docnames: Any, other: Any) -> None:
    if not hasattr(env, "kt_outcome_docs"):
        env.kt_outcome_docs = set()
    env.kt_outcome_docs |= getattr(other, "kt_outcome_docs", set()) & set(docnames)


def outcome_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                 options: Optional[Dict[str, Any]] = None,
                 content: Optional[List[str]] = None) -> Tuple[List[Any], List[Any]]:
    env = inliner.document.settings.env
    if not hasattr(env, "kt_outcome_docs"):
        env.kt_outcome_docs = set()
    env.kt_outcome_docs.add(env.docname)
    m = EXPLICIT.match(text)
    shown, target = (m.group(1), m.group(2)) if m else (None, text)
    try:
        lab, step, want = parse_target(target, env.config.kt_labs_dir or LABS)
    except ValueError as e:
        return _fail(env, lineno, rawtext, str(e), shown or target)
    data = _data(env)
    if data is None:
        return _fail(env, lineno, rawtext, "no check catalogue %s (make site writes it: "
                     "Documentation/tools/page_checks.py)" % (
                         env.config.kt_checks_json or CHECKS_DOC + ".json"), shown or target)
    state, names, msg = verdict(data, lab, step, want)
    if state == "error":
        return _fail(env, lineno, rawtext, msg, shown or target)
    out: List[Any] = [nodes.inline(shown or want, shown or want)]
    title = "make grade, lab %s, step %s: %s -- %s" % (lab[:2], step, " / ".join(names), msg)
    try:
        uri = env.app.builder.get_relative_uri(env.docname, CHECKS_DOC) + "#" + anchor(lab, step)
    except Exception:  # noqa: BLE001 -- a builder without pages (e.g. linkcheck)
        uri = ""
    ref = nodes.reference(rawtext, "", refuri=uri, reftitle=title,
                          classes=["kt-outcome", "kt-outcome-" + state])
    ref += nodes.Text("\u2713" if state == "good" else "(%s)" % UNCHECKED)
    out.append(nodes.superscript("", "", ref))
    return out, []


def _fail(env: Any, lineno: int, rawtext: str, msg: str,
          shown: str) -> Tuple[List[Any], List[Any]]:
    logger.warning("outcome %s is not checked: %s", rawtext, msg,
                   location=(env.docname, lineno))
    return [nodes.inline(shown, shown)], []


def setup(app: Any) -> Dict[str, Any]:
    app.add_config_value("kt_checks_json", "", "env")
    app.add_config_value("kt_labs_dir", "", "env")
    app.add_role("outcome", outcome_role)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"parallel_read_safe": True, "version": "1"}
