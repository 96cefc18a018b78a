# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""patches/v9: the seeds verbatim, the series file, the patch parser."""
import hashlib
import os
import re

from conftest import REPO
from Documentation.tools import patchlib, sitelib

V9 = os.path.join(REPO, "patches", "v9")
SEEDS = os.environ.get("KT_SEEDS", os.path.join(REPO, "..", "shared", "seeds"))


def test_series_has_20_in_order():
    rows = sitelib.read_series()
    assert [r["num"] for r in rows] == list(range(1, 21))
    assert [r["num"] for r in rows if r["file"]] == [1, 2, 4, 5, 6, 14, 16, 18, 19]
    cover = open(os.path.join(V9, "00-cover-letter.txt")).read()
    short = re.search(r"Andrey Konovalov \(20\):\n(.*?)\n\n", cover, re.S).group(1)
    assert [r["subject"] for r in rows] == [ln.strip() for ln in short.splitlines()]


def test_patches_are_the_seeds_byte_for_byte():
    for r in sitelib.read_series():
        if not r["file"]:
            continue
        data = open(os.path.join(V9, r["file"]), "rb").read()
        assert hashlib.sha256(data).hexdigest() == r["sha"], r["file"]
        seed = os.path.join(SEEDS, r["seed"])
        if os.path.isdir(SEEDS):
            assert open(seed, "rb").read() == data, r["file"]
        p = patchlib.Patch(data.decode())
        assert p.number == r["num"] and p.subject == r["subject"]


def test_cover_letter_verbatim():
    """Checked against the sha256 the series file records (always) and the
    seed itself (when ../shared/seeds is there)."""
    m = re.search(r"^# cover: (\S+) ([0-9a-f]{64}) (\S+)$",
                  open(os.path.join(V9, "series")).read(), re.M)
    assert m, "series records no cover letter checksum"
    data = open(os.path.join(V9, m.group(1)), "rb").read()
    assert hashlib.sha256(data).hexdigest() == m.group(2)
    if os.path.isdir(SEEDS):
        assert open(os.path.join(SEEDS, m.group(3)), "rb").read() == data


def test_every_patch_has_a_note_and_missing_ones_a_spec():
    import tomllib
    missing = tomllib.load(open(os.path.join(V9, "missing.toml"), "rb"))
    for r in sitelib.read_series():
        assert os.path.exists(os.path.join(V9, "notes", "%02d.rst" % r["num"]))
        assert (r["file"] is None) == ("%02d" % r["num"] in missing)


def test_post_image_matches_hunk_lengths():
    p19 = patchlib.Patch(open(os.path.join(V9, "19-kasan-update-documentation.patch")).read())
    fd = p19.files[0]
    shown = [s for s in patchlib.post_image(fd) if s["lines"] is not None]
    assert [len(s["lines"]) for s in shown] == [h.new_len for h in fd.hunks]
    segs = patchlib.post_image(fd)
    gaps = [s for s in segs if s["lines"] is None]
    assert gaps[0]["start"] == 1 and all(g["end"] is not None for g in gaps)
    # the last hunk ends with added lines, no context: the file ends there
    assert segs[-1]["lines"] is not None and patchlib.trailing_context(fd.hunks[-1]) == 0


def test_final_gap_only_after_full_trailing_context():
    diff = ("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n+new\n a\n b\n c\n")
    fd = patchlib.FileDiff(diff)
    assert patchlib.post_image(fd)[-1] == {"start": 5, "end": None, "lines": None}
    fd = patchlib.FileDiff(diff.replace(" c\n", "+d\n"))
    assert patchlib.post_image(fd)[-1]["lines"] is not None


def test_file_headers():
    p = patchlib.Patch(open(os.path.join(V9, "14-kasan-split-out-generic-report-c-from-report-c.patch")).read())
    created = [f.path for f in p.files if f.created]
    assert created == ["mm/kasan/generic_report.c", "mm/kasan/tags_report.c"]
