#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make mutation`: do the offline tests notice when a pure module changes meaning?

A small mutator on Python's `ast` (no dependency): each mutant changes one
thing in one of the TARGETS --

  compare   ==/!=, </>=, <=/>, in/not in, is/is not  flipped
  const     an integer constant n -> n + 1 (0 -> 1, 1 -> 2, 0xfe -> 0xff)
  boolop    and <-> or
  return    `return X` -> `return None`
  not       `not X` -> `X`

-- in a scratch copy of the tracked files, then runs the module's tests
there (pytest -x).  A mutant is killed when they fail.  Prints the kill
rate per module and every survivor (file:line, what changed).

A line that ends in `# mutation: equivalent (why)` is not mutated: the
comment says why no test can tell the mutant from the original; a function
whose `def` line says `# mutation: skip (why)` is not mutated at all.

    python3 -m tests.mutation [--seed N] [--max N] [--seconds S] [MODULE...]
"""

import argparse
import ast
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, Iterator, List, Optional, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# module -> the offline tests that pin it
TARGETS: Dict[str, List[str]] = {
    "gdb-scripts/kasan/report.py": ["gdb-scripts/tests/test_report.py",
                                    "gdb-scripts/tests/test_decode_cli.py"],
    "gdb-scripts/kasan/report_format.py": ["gdb-scripts/tests/test_report.py",
                                           "gdb-scripts/tests/test_decode_cli.py"],
    "gdb-scripts/kasan/report_summary.py": ["gdb-scripts/tests/test_report.py"],
    "gdb-scripts/kasan/whyevents.py": ["gdb-scripts/tests/test_whyevents.py"],
    "gdb-scripts/kasan/tags.py": ["gdb-scripts/tests/test_tags.py"],
    "labs/points.py": ["tests/test_keys.py", "tests/test_class_scale.py"],
    "classroom/copies.py": ["tests/test_copies.py"],
    "vm/ktap.py": ["tests/test_ktap.py"],
    "labs/scenarios.py": ["tests/test_scenarios.py", "tests/test_labs.py"],
    "labs/lab.py": ["tests/test_labs.py"],
    "labs/mistakes.py": ["tests/test_mistakes.py"],
    "vm/metrics.py": ["tests/test_metrics.py"],
    "vm/variant.py": ["tests/test_vm.py"],
    "gdb-scripts/kasan/decode.py": ["gdb-scripts/tests/test_decode_cli.py"],
}
# Every lab's check.py, pinned by the generic grader tests, the known
# mistakes' (its detectors) and the lab's own.
for _d in sorted(os.listdir(os.path.join(REPO, "labs"))):
    if os.path.exists(os.path.join(REPO, "labs", _d, "check.py")):
        TARGETS["labs/%s/check.py" % _d] = [
            "tests/test_graders.py", "tests/test_exercises.py", "tests/test_mistakes.py"] + [
            "labs/%s/%s" % (_d, f) for f in sorted(os.listdir(os.path.join(REPO, "labs", _d)))
            if f.startswith("test_lab") and f.endswith(".py")]
FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
        ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.In: ast.NotIn, ast.NotIn: ast.In,
        ast.Is: ast.IsNot, ast.IsNot: ast.Is}
Mutant = Tuple[str, int, str, int]   # (file, line, description, index among the file's points)


def equivalent_lines(src: str) -> set:
    """Lines not to mutate: those marked `# mutation: equivalent (why)`, and
    every line of a function whose `def` line says `# mutation: skip (why)`
    (e.g. a check that runs only live, against a kernel)."""
    lines = src.splitlines()
    out = {n for n, line in enumerate(lines, 1) if "# mutation: equivalent" in line}
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.FunctionDef) and "# mutation: skip" in lines[node.lineno - 1]:
            out |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return out


class Points(ast.NodeVisitor):
    """Every mutation point of a module, in a stable order."""

    def __init__(self) -> None:
        self.points: List[Tuple[ast.AST, str, str]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        # Docstrings are not code; everything else in a function is.
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            if type(op) in FLIP:
                self.points.append((node, "compare:%d" % i, "%s -> %s" % (
                    type(op).__name__, FLIP[type(op)].__name__)))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if type(node.value) is int:
            self.points.append((node, "const", "%d -> %d" % (node.value, node.value + 1)))

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self.points.append((node, "boolop", "%s -> %s" % (
            type(node.op).__name__, "Or" if isinstance(node.op, ast.And) else "And")))
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None and not (isinstance(node.value, ast.Constant)
                                           and node.value.value is None):
            self.points.append((node, "return", "return X -> return None"))
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self.points.append((node, "not", "not X -> X"))
        self.generic_visit(node)


def points(src: str) -> List[Tuple[ast.AST, str, str]]:
    tree = ast.parse(src)
    v = Points()
    v.visit(tree)
    skip = equivalent_lines(src)
    return [p for p in v.points if getattr(p[0], "lineno", 0) not in skip]


def mutate(src: str, index: int) -> Tuple[str, int, str]:
    """The source with point `index` mutated: (new source, line, description)."""
    tree = ast.parse(src)
    v = Points()
    v.visit(tree)
    skip = equivalent_lines(src)
    pts = [p for p in v.points if getattr(p[0], "lineno", 0) not in skip]
    node, kind, desc = pts[index]
    line = getattr(node, "lineno", 0)

    class Swap(ast.NodeTransformer):
        def visit(self, n: ast.AST) -> Optional[ast.AST]:
            if n is not node:
                return super().visit(n)
            if kind.startswith("compare:"):
                i = int(kind.split(":")[1])
                assert isinstance(n, ast.Compare)
                n.ops[i] = FLIP[type(n.ops[i])]()
                return n
            if kind == "const":
                assert isinstance(n, ast.Constant)
                return ast.copy_location(ast.Constant(n.value + 1), n)
            if kind == "boolop":
                assert isinstance(n, ast.BoolOp)
                n.op = ast.Or() if isinstance(n.op, ast.And) else ast.And()
                return n
            if kind == "return":
                return ast.copy_location(ast.Return(ast.Constant(None)), n)
            if kind == "not":
                assert isinstance(n, ast.UnaryOp)
                return n.operand
            return n
    new = ast.fix_missing_locations(Swap().visit(tree))
    return ast.unparse(new), line, desc


def scratch_copy() -> str:
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True,
                           text=True).stdout.split()
    top = tempfile.mkdtemp(prefix="kt-mutation-")
    for f in files:
        src = os.path.join(REPO, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(top, f)), exist_ok=True)
            shutil.copy2(src, os.path.join(top, f))
    return top


def run_tests(top: str, tests: List[str], timeout: float) -> str:
    """killed, survived, or timeout (a mutant that hangs the tests is killed)."""
    env = dict(os.environ, PYTHONPATH=top + ":" + os.path.join(top, "gdb-scripts"),
               PYTHONDONTWRITEBYTECODE="1")
    try:
        p = subprocess.run(["/usr/bin/python3", "-m", "pytest", "-x", "-q", "-p",
                            "no:cacheprovider", *tests], cwd=top, env=env,
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if p.returncode == 0 else "killed"


def all_mutants(modules: List[str]) -> Iterator[Mutant]:
    for m in modules:
        src = open(os.path.join(REPO, m)).read()
        for i, (node, _, desc) in enumerate(points(src)):
            yield m, getattr(node, "lineno", 0), desc, i


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tests.mutation")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max", type=int, default=0, help="at most N mutants (0: all)")
    ap.add_argument("--seconds", type=float, default=1800, help="stop after S seconds")
    ap.add_argument("modules", nargs="*", help="default: every target (%s)" % ", ".join(TARGETS))
    a = ap.parse_args(argv)
    modules = a.modules or list(TARGETS)
    for m in modules:
        if m not in TARGETS:
            print("mutation: error: %s is not a target (%s)" % (m, ", ".join(TARGETS)))
            return 2
    mutants = list(all_mutants(modules))
    random.Random(a.seed).shuffle(mutants)
    if a.max:
        mutants = mutants[:a.max]
    top = scratch_copy()
    t0 = time.time()
    stats: Dict[str, List[int]] = {m: [0, 0] for m in modules}
    survivors = []
    try:
        if run_tests(top, sorted({t for m in modules for t in TARGETS[m]}), 300) != "survived":
            print("mutation: error: the tests fail on the unmutated tree")
            return 2
        for n, (m, line, desc, idx) in enumerate(mutants, 1):
            if time.time() - t0 > a.seconds:
                print("mutation: time bound reached after %d mutants" % (n - 1))
                break
            path = os.path.join(top, m)
            orig = open(path).read()
            new, line, desc = mutate(orig, idx)
            with open(path, "w") as f:
                f.write(new)
            try:
                res = run_tests(top, TARGETS[m], 120)
            finally:
                with open(path, "w") as f:
                    f.write(orig)
            stats[m][0] += 1
            if res == "survived":
                survivors.append("%s:%d: %s" % (m, line, desc))
            else:
                stats[m][1] += 1
            print("%-9s %s:%d %s" % (res, m, line, desc), flush=True)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    tried = sum(s[0] for s in stats.values())
    killed = sum(s[1] for s in stats.values())
    print()
    for m, (t, k) in stats.items():
        if t:
            print("%-34s %4d/%-4d killed (%.0f %%)" % (m, k, t, 100.0 * k / t))
    print("survivors:" if survivors else "survivors: none")
    for s in sorted(survivors):
        print("  " + s)
    print("mutation: %d/%d killed (%.1f %%) in %.0f s, seed %d" % (
        killed, tried, 100.0 * killed / tried if tried else 0, time.time() - t0, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
