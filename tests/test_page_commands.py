# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The page is the test (tests/page_commands.py): which lines are commands,
and a planted broken command fails."""
from labs.lab import by_number
from tests import page_commands as pc

PAGE = """Intro

.. code-block:: console

   $ make run SCENARIO=uaf   # a comment
   (gdb) source x.gdb
   $ make boot

.. code-block:: console
   :class: kt-manual

   $ make qemu-gdb

.. only:: teacher

   .. code-block:: console

      $ make answer

text
"""


def test_console_commands_of_a_page():
    assert pc.console_commands(PAGE) == [
        (5, "make run SCENARIO=uaf", False), (7, "make boot", False),
        (12, "make qemu-gdb", True)]


def test_every_student_page_is_read():
    pages = pc.student_pages()
    assert "index.rst" in pages and "labs/%s/index.rst" % by_number(1).folder in pages
    assert any(c == "make lab N=1" for _, _, c, _ in pc.page_commands())


def test_a_planted_broken_command_fails_and_a_good_one_passes(tmp_path):
    ok, why = pc.run_command("make -s -f /dev/null no-such-target", cwd=str(tmp_path))
    assert not ok and why.startswith("exit 2")
    assert pc.run_command("true", cwd=str(tmp_path)) == (True, "exit 0: ")


def test_no_student_page_prints_a_placeholder_command():
    bad = [(p, n, c) for p, n, c, manual in pc.page_commands()
           if not manual and ("..." in c or "[" in c or "BUILD" in c)]
    assert bad == []


README = """# x

<!-- kt-manual: two terminals -->
```sh
make qemu-gdb     # terminal 1
make gdb
```

```sh
$ make site       # a comment
# a comment line
make run SCENARIO=a,b \\
    SEED=2
```

```text
make lab N=1      # in a text block: not a command
```
"""


def test_readme_commands_and_their_marker():
    assert pc.readme_commands(README) == [
        (5, "make qemu-gdb", True), (6, "make gdb", True),
        (10, "make site", False), (12, "make run SCENARIO=a,b SEED=2", False)]
    assert pc.readme_problems(README) == []


def test_a_readme_block_that_cannot_run_and_says_not_why_fails():
    for marker in ("", "<!-- kt-manual: -->\n", "<!-- kt-manual: why -->\n\n"):
        text = "# x\n\n%s```sh\nmake lab N=1\n```\n" % marker
        bad = pc.readme_problems(text)
        assert bad and all(b.startswith("README.md:") for b in bad), (marker, bad)
    assert "interactive" in " ".join(pc.readme_problems("```sh\nmake lab N=1\n```\n"))
    assert pc.readme_problems("<!-- kt-manual: a prompt -->\n```sh\nmake lab N=1\n```\n") == []
    assert "must name its language" in pc.readme_problems("```\nmake site\n```\n")[0]


def test_cannot_run_knows_the_whole_run_the_prompts_and_placeholders():
    for c in ("make", "make check", "make check ONLY=site", ".ci/run", "make lab N=1",
              "make deps && make lab N=1", "make qemu-gdb", "make grade-class CLASS=c OUT=o",
              "make decode LOG=<file>", "make bench"):
        assert pc.cannot_run(c), c
    for c in ("make check LIST=1", "make site", "make test", "make grade N=1",
              "make run SCENARIO=tags SEED=12345", "make site EDITION=teacher"):
        assert pc.cannot_run(c) is None, c


def test_the_readme_is_its_own_test():
    """Every command of README.md is run by make check or its block says
    why not; its runnable ones are among the page commands."""
    import os
    with open(os.path.join(pc.REPO, pc.README)) as f:
        text = f.read()
    assert pc.readme_problems(text) == []
    assert [c for p, _, c, _ in pc.page_commands() if p == pc.README] == \
        [c for _, c, _ in pc.readme_commands(text)]
