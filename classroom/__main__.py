# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The classroom's commands: `python3 -m classroom submit | grade-class |
grade-merge` (make submit, make grade-class, make grade-merge)."""

import argparse
import os
import sys
from typing import List, Optional

import vm
from classroom.gradeclass import grade_class, grade_merge, shard_of
from classroom.submit import ANSWERS, declared_files, submit
from vm.base import one_line_errors


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m classroom")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("submit")
    g = sub.add_parser("grade-class")
    g.add_argument("class_dir")
    g.add_argument("out_dir")
    g.add_argument("-n", "--lab", help="grade one lab only (its number)")
    g.add_argument("--jobs", default="1", help="students graded at once")
    g.add_argument("--shard", help="i/n: grade one slice of the class")
    m = sub.add_parser("grade-merge")
    m.add_argument("out_dir")
    a = ap.parse_args(argv)

    def go() -> None:
        if a.cmd == "submit":
            print("submit: %s (%d files declared by the exercises, and %s)" % (
                submit(), len(declared_files()) - 1, ANSWERS))
        elif a.cmd == "grade-merge":
            rows = grade_merge(a.out_dir)
            print("grade-merge: %d students in %s" % (
                len(rows), os.path.join(a.out_dir, "summary.{csv,json,html}")))
        else:
            if not a.jobs.isdigit():
                raise vm.KtError("JOBS must be a number (not %r)" % a.jobs)
            vm.install_signal_handlers()
            grade_class(a.class_dir, a.out_dir, a.lab, int(a.jobs), shard_of(a.shard))
    return one_line_errors(go)


if __name__ == "__main__":
    sys.exit(main())
