# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Terms before use (tests/terms.py): every page defines each checked term
at its first use; a page that uses one bare first is caught."""
from tests import terms


def test_every_page_links_a_term_at_its_first_use():
    assert terms.problems() == []


def test_a_bare_first_use_is_caught_and_literals_do_not_count():
    t = ["brk", "ESR"]
    assert terms.first_uses("The brk fires. Then :term:`brk` again.\n", t) == {"brk": False}
    assert terms.first_uses("A :term:`brk`, then brk.\n", t) == {"brk": True}
    assert terms.first_uses("``brk #0x900`` and :term:`brk`.\n", t) == {"brk": True}
    assert terms.first_uses("Lab 2: brk\n==========\n\nThe :term:`ESR`.\n", t) == {"ESR": True}
    assert terms.first_uses(".. code-block:: text\n\n   brk\n\nNo term.\n", t) == {}
