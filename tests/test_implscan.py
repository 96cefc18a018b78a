# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The leak test's behavioural form (classroom/implscan.py): a function of a
handout that answers an exercise's probes as its solution does is found,
whatever its name; one that is wrong, or the stubs, are not."""
from classroom import implscan
from tests.graderlib import solution_only

PLANTED = '''
def back(s, o):
    return ((s - o) << 4) & ((1 << 64) - 1)


def almost(s, o):
    return (s - o) << 3


def esr(w, size, r):
    if size < 1 or size > 1 << 15 or size & (size - 1):
        return None
    return 0xF2000900 | (0x20 if r else 0) | (0x10 if w else 0) | (size.bit_length() - 1)


def hangs(a, b):
    while True:
        pass
'''


@solution_only
def test_a_planted_implementation_is_found(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "helpers.py").write_text(PLANTED)
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "mine.py").write_text(PLANTED)   # a student's own file: not scanned
    found = implscan.scan(str(tmp_path), implscan.targets())
    assert sorted(found) == ["tools/helpers.py: back implements exercise 1.2 (shadow_to_mem)",
                             "tools/helpers.py: esr implements exercise 2.1 (kasan_esr)"], found


@solution_only
def test_every_python_exercise_has_probes():
    ids = {t[0] for t in implscan.targets()}
    assert {"1.1", "1.2", "2.1"} <= ids


def test_a_child_stuck_before_its_own_group_is_killed(monkeypatch):
    # as a child that a lock held at the fork stops before setpgrp(): the
    # timeout must still end it, and the scan go on
    import time
    monkeypatch.setattr(implscan.os, "setpgrp", lambda: time.sleep(60))
    t0 = time.time()
    assert implscan.same(lambda: 1, [()], [1], seconds=1) is False
    assert time.time() - t0 < 10
