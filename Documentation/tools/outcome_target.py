# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What the :outcome: role and the checks page share: a target and a step's anchor.

An outcome sentence names its check as LAB:STEP:NAME (`parse_target`);
page_checks.py computes, per LAB/STEP (`key`), the checks' names and the
last grading's results, and writes the checks page with one anchor per
step (`anchor`); ktoutcome.py, the role, reads those and links its marker
to that anchor.  A step whose stored run a student's copy leaves out has
the error HIDDEN instead of names.  Neither Sphinx nor the labs are
imported here: both sides import this module, and it imports neither.
"""

import os
import re
from typing import List, Tuple

LABS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "labs")

# The error of a step whose stored run a student's copy leaves out
# (labs/edition.py hidden_steps): its outcomes are "not checked here"
HIDDEN = "not in a student's copy (its run is the exercise's answer or the student's own)"


def lab_folders(labs: str = LABS) -> List[str]:
    return sorted(d for d in os.listdir(labs) if re.match(r"^\d\d-", d)
                  and os.path.isdir(os.path.join(labs, d)))


def parse_target(text: str, labs: str = LABS) -> Tuple[str, str, str]:
    """'LAB:STEP:NAME' -> (lab folder, step, name piece); ValueError saying why."""
    parts = [p.strip() for p in " ".join(text.split()).split(":", 2)]
    if len(parts) != 3 or not all(parts):
        raise ValueError("outcome target %r is not LAB:STEP:CHECK" % text)
    lab, step, want = parts
    m = re.match(r"^(?:lab)?0*(\d+)(?:-.*)?$", lab)
    folders = lab_folders(labs)
    hit = [d for d in folders if m and int(d[:2]) == int(m.group(1))]
    if not hit or (len(lab) > 2 and "-" in lab and lab not in folders):
        raise ValueError("no lab %r (labs: %s)" % (lab, ", ".join(folders)))
    return hit[0], step, want


def key(lab: str, step: str) -> str:
    """The catalogue's key of a step: LAB/STEP."""
    return "%s/%s" % (lab, step)


def anchor(lab: str, step: str) -> str:
    """The checks page's label of a step (also the role's link target)."""
    return "kt-check-%s-%s" % (lab[:2], re.sub(r"[^a-z0-9]+", "-", step.lower()))
