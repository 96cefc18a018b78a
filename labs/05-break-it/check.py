# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Lab 5 grader: every experiment's outcome, as recorded in steps.toml.

One check_experiment() for all experiments (`check = "experiment"`): the expectations are data (regular
expressions the serial log or gdb transcript must or must not contain, the
KUnit cases that must fail, the KASAN reports each scenario must give).
The grader also boots the unpatched kernel with the same command line
(`control`) and requires that it does NOT satisfy them.
"""
import re

from kasan import report
from labs import scenarios
from labs.exercises import load_answers
from vm import ktap


OUTCOME_KEYS = ("serial_expect", "serial_absent", "gdb_expect", "kunit_fail", "scenarios")


def check_experiment(run, step):
    if not any(k in step for k in OUTCOME_KEYS):
        # a student's copy: the measured outcome is what exercise 5.x asks
        return [("the experiment's measured outcome", None,
                 "graded by your teacher (your copy does not say the outcome: you predict it)")]
    res = []
    for pat in step.get("serial_expect", []):
        res.append(("serial log shows /%s/" % pat, run.search(pat) is not None, "not found"))
    # An absent line is evidence only if the run captured something at all.
    captured = bool(run.serial.strip() or run.gdb.strip())
    for pat in step.get("serial_absent", []):
        res.append(("serial log has no /%s/" % pat,
                    captured and re.search(pat, run.serial, re.M) is None,
                    "found" if captured else "nothing was captured (no serial, no gdb)"))
    for pat in step.get("gdb_expect", []):
        res.append(("gdb shows /%s/" % pat, run.search(pat, "gdb") is not None, "not found"))
    if "kunit_fail" in step:
        # Cases that must fail; kunit_may_fail: cases whose outcome depends on
        # what happens to lie next to the test's object (recorded, tolerated).
        s = ktap.parse(run.serial).get("kasan")
        got = set(c.name for c in s.failed()) if s else None
        for case in sorted(got or ()):
            run.search(r"^(\[[ \d.]+\] )?\s*not ok \d+ (- )?%s\b" % re.escape(case))
        must, may = set(step["kunit_fail"]), set(step.get("kunit_may_fail", []))
        res.append(("KUnit kasan: %s fail%s" % (", ".join(sorted(must)), (
            " (tolerated: %s)" % ", ".join(sorted(may))) if may else ""),
            got is not None and must <= got <= must | may,
            "failed: %s" % (sorted(got) if got is not None else "no kasan suite")))
    segs = scenarios.segments(run.serial)
    for name, want in step.get("scenarios", {}).items():
        seg = segs.get(name)
        got = None if seg is None else scenarios.kinds(run.reports(name))
        label = ", ".join(want) or "no report"  # mutation: equivalent (label)
        res.append(("scenario %s: %s" % (name, label), got == want,
                    "got %s" % got))
    return res


# -- Exercises: predictions ---------------------------------------------------

OUTCOMES = ("silent", "dies-booting", "dies-at-bug", "misses-bugs", "same")


def reported(serial):
    """{scenario: number of KASAN reports inside its markers}."""
    return {s: len(report.parse_reports("\n".join(lines)))
            for s, lines in scenarios.segments(serial).items()}


def outcome(text, control):
    """What an experiment's boot did, measured from its serial log (and,
    for a boot that ends, from its control's serial log): one of OUTCOMES."""
    if "Booting Linux" not in text:
        return "silent"
    if "KT-INIT-START" not in text:
        return "dies-booting"
    if "KT-INIT-END" not in text:
        return "dies-at-bug"
    if control is None:
        return None
    mine, theirs = reported(text), reported(control)
    return "misses-bugs" if any(mine.get(s, 0) < n for s, n in theirs.items()) else "same"


def ex_prediction(run, _runs, ex):
    try:
        pred = load_answers(__file__, "predictions.toml").get(run.step)
    except (OSError, ValueError) as e:
        return [("predictions.toml is a TOML file", False, str(e))]
    if pred not in OUTCOMES:
        return [("a prediction for %s" % run.step, False,
                 "%r is not one of %s" % (pred, ", ".join(OUTCOMES)))]
    got = outcome(run.serial, run.control.serial if run.control else None)
    if got is None:
        return [("the control run, to compare with", False, "the control kernel did not run")]
    return [("%s: you predicted %s" % (run.step, pred), pred == got, "the boot: %s" % got)]


# -- Known mistakes (mistakes-teacher.toml, grader-only: a prediction's
# mistakes name wrong outcomes): each entry's `detect` calls contradicted
# with the outcome its misconception predicts.

def contradicted(run, _runs, value):
    """The student predicted VALUE for the run's experiment, and the boot
    did something else (classified as ex_prediction classifies it)."""
    pred = load_answers(__file__, "predictions.toml").get(run.step)
    got = outcome(run.serial, run.control.serial if run.control else None)
    return pred == value and got is not None and got != value
