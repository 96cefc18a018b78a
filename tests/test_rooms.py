# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The house's rooms, read from the code itself: who imports whom.

    vm/          the machine: kernels, QEMU, gdb, the sandbox
    labs/        the course: lab folders, module, the engine of one tree
    classroom/   the class: handout, submit, grade-class, the graders
    gdb-scripts/kasan, shared/, bench/, Documentation/tools, tests/

No import circle anywhere (a function's own `import` counts: it is the
same dependency, only later), the course never imports the classroom, the
machine imports neither, and no module but a test is over 500 lines.
Pure helpers first (they are tested on planted trees), then the rules.
"""
import ast
import os
import re
import subprocess
from typing import Dict, List, Set

import pytest

from conftest import REPO

MAX_LINES = 500
# Which room may not import which (room = the module name's first part)
FORBIDDEN = {"vm": {"labs", "classroom", "bench", "Documentation", "tests"},
             "labs": {"classroom", "bench", "Documentation", "tests"},
             "kasan": {"labs", "classroom", "bench", "Documentation", "tests"},
             "shared": {"vm", "labs", "classroom", "bench", "Documentation", "tests"},
             "classroom": {"Documentation", "tests", "bench"}}


def module_name(rel: str) -> str:
    """The import name of a file: gdb-scripts/kasan/tags.py is kasan.tags
    (gdb-scripts/ is on the import path), labs/lab.py is labs.lab and a
    package's __init__.py is the package."""
    if rel.startswith("gdb-scripts/"):
        rel = rel[len("gdb-scripts/"):]
    parts = rel[:-len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(text: str, name: str, is_package: bool, known: Set[str]) -> Set[str]:
    """Every module name an import statement of the text names, at any
    depth, relative ones resolved.  `from a import b` names a.b when that
    is a module of `known`, else a (b is a name of a's namespace)."""
    out: Set[str] = set()
    here = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = here[:len(here) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            subs = {base + "." + a.name for a in node.names}
            out |= subs & known
            if subs - known:
                out.add(base)
    return out


def graph(files: Dict[str, str]) -> Dict[str, Set[str]]:
    """{module: the project's modules it imports} of {relative path: text}."""
    names = {module_name(rel): rel for rel in files}
    out: Dict[str, Set[str]] = {}
    for mod, rel in names.items():
        deps = set()
        for imp in imports_of(files[rel], mod, rel.endswith("__init__.py"), set(names)):
            # the longest known module the name starts with (a.b.func -> a.b)
            parts = imp.split(".")
            while parts and ".".join(parts) not in names:
                parts.pop()
            if parts and ".".join(parts) != mod:
                deps.add(".".join(parts))
        out[mod] = deps
    return out


def dangling(files: Dict[str, str]) -> List[str]:
    """'file: from PKG import NAME' for each import from a package of the
    project that names neither a module of it nor a name its __init__.py
    defines: a module that moved, still imported where it was (inside a
    function it fails only when that function runs)."""
    names = {module_name(rel): rel for rel in files}
    out = []
    for rel, text in files.items():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ImportFrom) or node.level or node.module not in names:
                continue
            init = files[names[node.module]]
            if not names[node.module].endswith("__init__.py"):
                continue
            for a in node.names:
                if node.module + "." + a.name in names:
                    continue
                if not re.search(r"^(def|class) %s\b|^%s\s*=|\bimport .*\b%s\b" % (
                        (re.escape(a.name),) * 3), init, re.M):
                    out.append("%s: from %s import %s" % (rel, node.module, a.name))
    return sorted(out)


def circles(g: Dict[str, Set[str]]) -> List[List[str]]:
    """The import circles of a graph: its strongly connected components of
    more than one module (Tarjan's algorithm, iterative), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[List[str]] = []
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def room_breaches(g: Dict[str, Set[str]]) -> List[str]:
    """'a -> b' for each import across a wall of FORBIDDEN."""
    return sorted("%s -> %s" % (m, d) for m, deps in g.items() for d in deps
                  if d.split(".")[0] in FORBIDDEN.get(m.split(".")[0], ())
                  and not is_test(m.replace(".", "/") + ".py"))


def is_test(rel: str) -> bool:
    base = os.path.basename(rel)
    return (base.startswith(("test_", "check_")) or base == "conftest.py"
            or rel.startswith("tests/"))


def project_files() -> Dict[str, str]:
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                          "*.py"], cwd=REPO, capture_output=True, text=True).stdout.split()
    return {f: open(os.path.join(REPO, f)).read() for f in out
            if os.path.exists(os.path.join(REPO, f))}


# -- the helpers, on planted trees --------------------------------------------

def test_a_planted_circle_is_found():
    files = {"labs/a.py": "from labs import b\n", "labs/b.py": "def f():\n    import labs.c\n",
             "labs/c.py": "from labs.a import x\n", "labs/d.py": "import labs.a\n"}
    assert circles(graph(files)) == [["labs.a", "labs.b", "labs.c"]]
    files["labs/c.py"] = "import os\n"
    assert circles(graph(files)) == []


def test_relative_and_package_imports_resolve():
    files = {"classroom/__init__.py": "", "classroom/x.py": "from . import y\n",
             "classroom/y.py": "from .x import f\n", "gdb-scripts/kasan/t.py": "import labs.lab\n",
             "labs/lab.py": "", "labs/test_x.py": "import classroom.x\n"}
    g = graph(files)
    assert g["classroom.x"] == {"classroom.y"} and g["classroom.y"] == {"classroom.x"}
    assert circles(g) == [["classroom.x", "classroom.y"]]
    assert room_breaches(g) == ["kasan.t -> labs.lab"]   # a test may cross


def test_an_import_of_a_module_that_moved_is_found():
    files = {"labs/__init__.py": "", "labs/lab.py": "", "classroom/__init__.py": "",
             "classroom/implscan.py": "", "vm/__init__.py": "from vm.base import KtError\n",
             "vm/base.py": "", "tests/t.py": "def f():\n    from labs import implscan\n"
             "    from classroom import implscan\n    from labs import lab\n"
             "    from vm import KtError, nothing\n"}
    assert dangling(files) == ["tests/t.py: from labs import implscan",
                               "tests/t.py: from vm import nothing"]


def test_the_course_importing_the_classroom_is_a_breach():
    g = graph({"labs/grade.py": "def f():\n    from classroom import secret\n",
               "classroom/secret.py": "from labs import student\n", "labs/student.py": ""})
    assert room_breaches(g) == ["labs.grade -> classroom.secret"]


# -- the rules, on this checkout ----------------------------------------------

@pytest.fixture(scope="module")
def project():
    files = project_files()
    return files, graph(files)


def test_no_import_circle(project):
    assert circles(project[1]) == []


def test_every_import_of_the_project_names_what_exists(project):
    assert dangling(project[0]) == []


def test_no_import_across_a_wall(project):
    assert room_breaches(project[1]) == []


def test_the_classroom_is_outside_the_course(project):
    files, _ = project
    names = ("handout", "autograder", "bench_class", "implscan", "classroom", "gradeclass")
    assert not [f for f in files if f.startswith("labs/") and f.count("/") == 1
                and os.path.basename(f)[:-3] in names]
    assert os.path.isdir(os.path.join(REPO, "classroom", "ci"))


def test_no_module_but_a_test_over_500_lines(project):
    files, _ = project
    big = {f: t.count("\n") for f, t in files.items()
           if not is_test(f) and t.count("\n") > MAX_LINES}
    assert not big, big


def test_the_readme_is_a_door_not_a_wall():
    """At most 150 lines: what this is, the two commands, a path for each
    reader; the detail lives on the site's pages."""
    with open(os.path.join(REPO, "README.md")) as f:
        n = sum(1 for _ in f)
    assert n <= 150, "README.md has %d lines (at most 150: move the detail to a page)" % n
