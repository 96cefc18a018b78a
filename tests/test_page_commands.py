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
