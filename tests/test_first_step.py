# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make`'s live proof (labs/grade.py first_step): lab 1's first shown step
prints its kept transcript, or `make` fails and says where they part.  The
run is replaced here (make check's transcripts-kept runs every step live)."""
import os

import pytest

from labs import grade, transcripts


@pytest.fixture
def fake_run(tmp_path, monkeypatch):
    monkeypatch.setattr(transcripts, "TRANSCRIPTS", str(tmp_path))
    out = {}

    def run_step(folder, step, runs, **_):
        path = transcripts.transcript_path(folder, step["name"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(out["text"](open(transcripts.stored_path(folder, step["name"])).read()))
    monkeypatch.setattr(grade, "run_step", run_step)
    return out


def test_the_kept_transcript_byte_for_byte_passes(fake_run, capsys):
    fake_run["text"] = lambda kept: kept
    assert grade.first_step() == 0
    assert "byte for byte" in capsys.readouterr().out


def test_another_transcript_fails_and_says_where(fake_run, capsys):
    fake_run["text"] = lambda kept: kept.replace("0x", "0y", 1)
    assert grade.first_step() == 1
    out = capsys.readouterr().out
    assert "another transcript than the site's" in out and "line" in out
