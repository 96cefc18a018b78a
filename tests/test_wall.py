# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The sandbox's wall (vm/sandbox.py): the strongest one bwrap can build
here, a container's where a new /proc is refused, and one clear line where
none starts.  Pure: the probe is replaced; tests/check_container.py runs
the real sandbox tests in a container."""
import pytest

import vm
from vm import sandbox


@pytest.fixture
def probe(monkeypatch):
    said = {}
    monkeypatch.setattr(sandbox, "available", lambda: True)
    monkeypatch.setattr(sandbox, "_probe", lambda name: said.get(name, ""))
    monkeypatch.setattr(sandbox, "_WALL", [])
    monkeypatch.delenv("KASAN_TAGS_WALL", raising=False)
    return said


def test_the_full_wall_where_it_starts(probe, tmp_path):
    assert sandbox.wall() == "bwrap" and sandbox.wall_used() == "bwrap"
    assert "--proc" in sandbox.argv(str(tmp_path))


def test_a_container_that_refuses_a_new_proc_gets_the_outer_one(probe, tmp_path):
    probe["bwrap"] = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"
    assert sandbox.wall() == "bwrap-outer-proc"
    cmd = sandbox.argv(str(tmp_path))
    assert "--proc" not in cmd and cmd[cmd.index("/proc") - 1] == "--ro-bind"
    assert "--unshare-all" in cmd and "--uid" in cmd


def test_no_wall_is_one_clear_line_and_no_grading(probe):
    probe["bwrap"] = probe["bwrap-outer-proc"] = "bwrap: No permissions to creating new namespace"
    with pytest.raises(vm.KtError, match="the sandbox cannot start here") as e:
        sandbox.wall()
    assert "\n" not in str(e.value) and sandbox.wall_used() is None
    with pytest.raises(vm.KtError):
        sandbox.run(["/usr/bin/true"])


def test_a_wall_can_be_asked_for_and_a_wrong_name_is_refused(probe, monkeypatch):
    monkeypatch.setenv("KASAN_TAGS_WALL", "bwrap-outer-proc")
    assert sandbox.wall() == "bwrap-outer-proc"
    monkeypatch.setattr(sandbox, "_WALL", [])
    monkeypatch.setenv("KASAN_TAGS_WALL", "none")
    with pytest.raises(vm.KtError, match="not a wall"):
        sandbox.wall()


def test_make_grade_stops_in_one_line_where_no_wall_starts(probe, capsys, monkeypatch):
    """Before any step runs (no page of BADs, no silent 0)."""
    from labs import grade
    probe["bwrap"] = probe["bwrap-outer-proc"] = "bwrap: setting up uid map: Permission denied"
    monkeypatch.setattr(grade, "run_step", lambda *a, **k: pytest.fail("a step ran"))
    monkeypatch.setenv("SEED", "1")
    assert grade.main(["-n", "1"]) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("kasan-tags: error: the sandbox cannot start")
