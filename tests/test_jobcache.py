# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""make check's job cache (tests/jobcache.py): one changed input is a new
key; a job is shown from the cache only with every job it shares files with."""

import os

from tests import jobcache


def tree(tmp_path, text="a"):
    d = tmp_path / "tree"
    d.mkdir(exist_ok=True)
    (d / "f.txt").write_text(text)
    (d / "g.txt").write_text("g")
    return str(d)


def test_every_input_is_in_the_key(tmp_path):
    repo = tree(tmp_path)
    kdir = tmp_path / "k"
    kdir.mkdir()
    env = {"KASAN_TAGS_CACHE": "/c", "PATH": "/usr/bin", "TERM": "xterm"}
    base = jobcache.inputs(repo, ["f.txt", "g.txt"], [str(kdir)], env)
    assert jobcache.inputs(repo, ["g.txt", "f.txt"], [str(kdir)], env) == base
    # a variable that steers nothing is not an input
    assert jobcache.inputs(repo, ["f.txt", "g.txt"], [str(kdir)],
                           dict(env, TERM="dumb")) == base
    changed = [
        jobcache.inputs(repo, ["f.txt"], [str(kdir)], env),                  # a file fewer
        jobcache.inputs(repo, ["f.txt", "g.txt"], [], env),                  # a kernel fewer
        jobcache.inputs(repo, ["f.txt", "g.txt"], [str(kdir)],
                        dict(env, KASAN_TAGS_RUNCACHE="1")),                 # the environment
        jobcache.inputs(repo, ["f.txt", "g.txt"], [str(kdir)], dict(env, SEED="2")),
    ]
    (kdir / "vmlinux").write_text("built")                                   # a kernel built
    changed.append(jobcache.inputs(repo, ["f.txt", "g.txt"], [str(kdir)], env))
    tree(tmp_path, "b")                                                      # one byte
    changed.append(jobcache.inputs(repo, ["f.txt", "g.txt"], [str(kdir)], env))
    assert base not in changed and len(set(changed)) == len(changed)


def test_a_kept_job_is_read_back_only_on_its_inputs(tmp_path, monkeypatch):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path / "cache"))
    jobcache.store("d1" * 32, "lint", "PASS lint\n", {"make lint": [True, ""]}, 5.0)
    d = jobcache.load("d1" * 32, "lint")
    assert d and d["out"] == "PASS lint\n" and d["commands"] == {"make lint": [True, ""]}
    assert jobcache.load("d2" * 32, "lint") is None
    assert jobcache.load("d1" * 32, "pytest") is None
    assert os.listdir(jobcache.folder()) == [os.path.basename(jobcache.path("d1" * 32, "lint"))]


def test_fresh_runs_every_job(monkeypatch):
    monkeypatch.delenv("FRESH", raising=False)
    assert jobcache.enabled()
    monkeypatch.setenv("FRESH", "1")
    assert not jobcache.enabled()


def test_a_job_is_kept_only_with_those_it_shares_files_with():
    names = ["grade", "site", "transcripts-kept", "lint", "page-commands"]
    after = {"site": ["grade"], "transcripts-kept": ["grade"],
             "page-commands": ["lint", "site", "grade"]}
    # all hit: all shown from the cache
    assert jobcache.replayable(names, names, after) == sorted(names)
    # site missed: it runs, so grade (which writes what it reads) runs, and
    # so does everything else that reads grade's files
    assert jobcache.replayable(["grade", "transcripts-kept", "lint", "page-commands"],
                               names, after) == []
    # lint missed: page-commands reads it, and with it go grade and its readers
    assert jobcache.replayable(["grade", "site", "transcripts-kept", "page-commands"],
                               names, after) == []
    # a job that shares no file with the others, missed, takes nobody with it
    assert jobcache.replayable(names, names + ["shell"], after) == sorted(names)


def test_the_quick_tier_keeps_grade_without_the_slower_tiers_reader():
    """grade's readers include mistakes-live, of the slower tier: in a run
    of the quick tier alone, which does not run it, grade and the jobs
    around it stand when they are kept (make check a second time)."""
    from tests import check
    every = ["grade", "site", "kernel-code", "pytest", "lint", "page-commands", "together",
             "transcripts-kept", "transcript-again", "mistakes-live"]
    assert "mistakes-live" in check.SLOW and "grade" in check.AFTER["mistakes-live"]

    def kept(run, hits):
        after = {n: [d for d in check.AFTER.get(n, ()) if d in run] for n in run}
        return jobcache.replayable(hits, run, after)
    quick = check.this_run(every, whole=False)
    assert quick == every[:-1]
    # a quick run: mistakes-live never kept, the others all kept, all stand
    assert kept(quick, quick) == sorted(quick)
    # the whole run: grade waits for mistakes-live's own result
    assert "grade" not in kept(check.this_run(every, whole=True), quick)
