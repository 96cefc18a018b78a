# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""classroom/handout.py and labs/edition.py: the marked solution regions, what the student tree gets
instead, and that no solution text reaches it."""
import os

import pytest

import vm
from classroom import handout
from labs import lab

ONE = lab.by_number(1).folder

# The markers are spelt out at run time: a literal marker in this file
# would itself be stripped by make handout.
T, E, S = "TODO", "END TODO", "STUB:"
SAMPLE = ("def f(x):\n    # %s 1.1: double x\n    # %s raise NotImplementedError(\"1.1\")\n"
          "    y = x * 2\n    return y\n    # %s\n" % (T, S, E))
C_SAMPLE = ("static void g(void)\n{\n\t/* %s 4.1: a bug */\n\t/* %s return; */\n"
            "\tkfree(p);\n\t/* %s */\n}\n" % (T, S, E))


def test_strip_keeps_the_todo_and_the_stub():
    assert handout.strip(SAMPLE) == ('def f(x):\n    # %s 1.1: double x\n'
                                     '    raise NotImplementedError("1.1")\n'
                                     '    # %s\n' % (T, E))


def test_strip_c_comments():
    out = handout.strip(C_SAMPLE)
    assert "kfree" not in out and "\treturn;\n" in out and "/* %s 4.1: a bug */" % T in out


def test_regions_lists_solution_lines():
    assert handout.regions(SAMPLE) == [("1.1", ["    y = x * 2", "    return y"])]


@pytest.mark.parametrize("text, msg", [
    ("# %s\n" % E, r"x.py:1: END TODO without a TODO"),
    ("# %s 1.1: a\n# %s 1.2: b\n# %s\n" % (T, T, E),
     r"x.py:2: TODO 1.2 inside the region of TODO 1.1"),
    ("# %s 1.1: a\nx = 1\n" % T, r"x.py: TODO 1.1 has no END TODO"),
])
def test_bad_markers_are_one_line_errors(text, msg):
    with pytest.raises(vm.KtError, match=msg):
        handout.strip(text, "x.py")


def test_teacher_blocks_are_dropped():
    page = "Q1\n\n.. only:: teacher\n\n   The answer.\n\n   More.\n\nNext para\n"
    assert handout.strip_teacher(page) == "Q1\n\nNext para\n"


def exercise_files():
    return sorted({f for x in lab.load_all() for ex in x.exercises for f in ex["files"]})


def test_every_exercise_has_a_solution_region_with_its_id():
    for x in lab.load_all():
        for ex in x.exercises:
            ids = set()
            for f in ex["files"]:
                ids |= {i for i, _ in handout.regions(open(os.path.join(vm.REPO, f)).read(), f)}
            assert ex["id"] in ids, "%s: no TODO %s region in %s" % (x.folder, ex["id"],
                                                                     ex["files"])


def test_the_student_version_has_no_solution_line():
    """What make check also asserts on a real handout: every non-trivial
    line of a solution region is gone from the student's file."""
    for f in exercise_files():
        text = open(os.path.join(vm.REPO, f)).read()
        student = handout.student_text(f, text)
        stubs = {m.group("indent") + m.group("code") for m in map(handout.STUB.match,
                                                                  text.splitlines()) if m}
        for _, body in handout.regions(text, f):
            for line in body:
                if (len(line.strip()) > 3 and line not in stubs
                        and not line.strip().startswith(("#", "/*", "*"))):
                    assert line not in student.splitlines(), (f, line)


def test_exercise_ids_are_unique_across_labs():
    ids = [ex["id"] for x in lab.load_all() for ex in x.exercises]
    assert len(ids) == len(set(ids)) and len(ids) >= 12


def test_exercise_schema_errors(tmp_path):
    import shutil
    d = tmp_path / ONE
    shutil.copytree(os.path.join(vm.REPO, "labs", ONE), d)
    toml = d / "steps.toml"
    toml.write_text(toml.read_text().replace('step = "ex-helpers"', 'step = "ex-nope"', 1))
    with pytest.raises(vm.KtError, match=r"exercise 1.1: step 'ex-nope' is not a step"):
        lab.load_lab(ONE, str(tmp_path))


@pytest.mark.skipif(os.path.exists(os.path.join(vm.REPO, "labs", "HANDOUT")),
                    reason="a handout's README is already the students'")
def test_the_handout_readme_is_for_students():
    from classroom import handout as h
    text = open(os.path.join(vm.REPO, "README.md")).read()
    out = h.student_readme(text)
    assert "teacher" not in out.replace("your teacher", "").lower()
    assert "A classroom of machines" not in out and "make grade-class CLASS" not in out
    assert "make handout" not in out and "make dist" not in out
    assert "make submit" in out and "## The tools\n" in out and "## Licence\n" in out
    assert "Documentation/start.rst" in out and "Documentation/tools.rst" in out
    assert "## For kernel developers" not in out and "## For teachers" not in out
    from tests import page_commands as pc     # its commands say why they are not run
    assert pc.readme_problems(out) == []
    from labs import lab
    for one in lab.load_all():     # every lab and exercise, with time and difficulty
        assert "**%s** (%g h" % (one.title, one.spec["hours"]) in out
        for e in one.exercises:
            assert "exercise %s: %s (%s, %d min)" % (e["id"], e["title"], e["difficulty"],
                                                     e["minutes"]) in out
    with pytest.raises(vm.KtError, match="no '## For kernel developers' section"):
        h.student_readme("# x\n## Layout\n")
