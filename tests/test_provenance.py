# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""patches/v9/provenance.toml: the public record of the series, checked.

Each check of Documentation.tools.provenance is shown passing on the real
record and failing on a record broken in the way it guards against.
"""
import copy
import os
import subprocess
import tomllib

import pytest

from conftest import REPO
from Documentation.tools import patchlib, sitelib
from Documentation.tools import provenance as prov

V9 = os.path.join(REPO, "patches", "v9")


@pytest.fixture(scope="module")
def record():
    return prov.load(V9)


@pytest.fixture(scope="module")
def series():
    return sitelib.read_series()


@pytest.fixture(scope="module")
def seeds(series):
    return {r["num"]: patchlib.Patch(open(os.path.join(V9, r["file"])).read())
            for r in series if r["file"]}


def row(series, n):
    return next(r for r in series if r["num"] == n)


def test_the_record_has_no_problems(record, series, seeds):
    assert prov.problems(record, series, seeds) == []


def test_every_patch_has_an_id_or_says_why_not(record, series):
    for r in series:
        p = record["%02d" % r["num"]]
        assert (r["msgid"] is None) == (p["archived"] == "none"), r["num"]
    found = [r["num"] for r in series if r["msgid"]]
    assert found == [1, 3, 7, 8, 10, 11, 13, 20]


def test_archive_links_are_lore_r_links(series):
    r = row(series, 7)
    assert prov.lore(r["msgid"]) == (
        "https://lore.kernel.org/r/1324a622035ee2a6fecd1e729a62af22542d9f3e"
        ".1537542735.git.andreyknvl@google.com")
    assert prov.lore("<a+b=c@x>") == "https://lore.kernel.org/r/a+b=c@x"
    q = prov.lore_search("[PATCH v9 09/20] kasan: x", "20180921")
    assert q.startswith("https://lore.kernel.org/all/?q=") and "d%3A20180921..20180922" in q


def test_seed_message_id_header_must_equal_the_series(record, series, seeds):
    """The seeds carry no Message-Id header today; one that disagreed with
    patches/v9/series would be refused."""
    assert all(prov.header_msgid(p.headers) is None for p in seeds.values())
    bad = dict(seeds)
    p = copy.copy(seeds[1])
    p.headers = dict(p.headers, **{"Message-Id": "<0" * 1 + "f" * 39 + ">"})
    bad[1] = p
    assert any("Message-Id header" in x for x in prov.problems(record, series, bad))
    p.headers = dict(p.headers, **{"Message-Id": row(series, 1)["msgid"]})
    assert prov.problems(record, series, bad) == []


def test_the_reply_quotes_the_seeds_diffstat(record, seeds):
    """Patch 01's id comes from a reply's References; the same reply quotes
    the posting's diffstat, and it is the seed's."""
    assert record["01"]["archived"] == "reply"
    assert prov.stat_of(seeds[1].diffstat) == record["01"]["stat"]


@pytest.mark.parametrize("break_it, expect", [
    # two ids swapped between a seed and a missing patch
    (lambda rec, ser: ser.__setitem__(0, dict(ser[0], msgid=ser[2]["msgid"])) or
     ser.__setitem__(2, dict(ser[2], msgid=row(sitelib.read_series(), 1)["msgid"])),
     "evidence must be the posting itself"),
    # an id from another thread (another git-send-email run)
    (lambda rec, ser: ser.__setitem__(2, dict(ser[2], msgid=ser[2]["msgid"].replace(
        "1537542735", "1537383101"))), "not an id of this series' thread"),
    # an id for a patch said not to be archived
    (lambda rec, ser: rec["03"].__setitem__("archived", "none"), "but archived is"),
    # the archived subject of another patch
    (lambda rec, ser: rec["08"].__setitem__("subject", rec["07"]["subject"]),
     "archived subject"),
    # a posting dated after the next seed
    (lambda rec, ser: rec["03"].__setitem__("date", "Fri, 21 Sep 2018 17:13:27 +0200"),
     "dates out of order"),
    # a diffstat that does not add up
    (lambda rec, ser: rec["10"]["files"].__setitem__(0, ["include/linux/slab_def.h", 12]),
     "do not add up"),
    # a quoted diffstat that is not the seed's
    (lambda rec, ser: rec["01"].__setitem__("stat", dict(rec["01"]["stat"], insertions=64)),
     "differs from the seed's"),
    # the wrong v13 patch
    (lambda rec, ser: rec["08"].__setitem__("v13", 11), "needs v13_why"),
    (lambda rec, ser: rec["09"].__setitem__("v13", 10), "same v13 patch"),
    # a commit credited to the wrong v9 patch
    (lambda rec, ser: rec["merge"]["commit"][0].__setitem__("v9", 5), "is not v13's"),
    # a review without its message
    (lambda rec, ser: rec["10"]["reviews"][0].pop("message"), "lacks message"),
])
def test_each_check_fails_on_a_broken_record(record, series, seeds, break_it, expect):
    rec, ser = copy.deepcopy(record), copy.deepcopy(series)
    break_it(rec, ser)
    found = prov.problems(rec, ser, seeds)
    assert any(expect in x for x in found), found


def test_descendants_are_in_files_the_posting_touched(record):
    with open(os.path.join(V9, "missing.toml"), "rb") as f:
        missing = tomllib.load(f)
    renames = sitelib.lineage_data()["renames"]
    assert prov.unexplained_descendants(record, missing, renames) == []
    bad = copy.deepcopy(missing)
    del bad["11"]["descendants"][0]["beyond"]
    assert prov.unexplained_descendants(record, bad, renames) == [
        "11: arch/arm64/include/asm/processor.h is not a file the posting touched "
        "(or its 6.1 successor) and has no `beyond` reason"]


def tracked():
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                           check=True).stdout.decode().split("\0")
    out = {}
    for n in filter(None, names):
        try:
            out[n] = open(os.path.join(REPO, n), encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
    return out


@pytest.mark.skipif(not os.path.isdir(os.path.join(REPO, ".git")), reason="not a git checkout")
def test_no_text_of_a_missing_patch_is_tracked():
    """Every diff hunk in a tracked file belongs to a seed patch or to the
    project's own patches (patches/experiments/, patches/fixes/)."""
    files = tracked()
    assert "patches/v9/16-kasan-add-hooks-implementation-for-tag-based-mode.patch" in files
    assert prov.foreign_hunks(files) == []


def test_a_foreign_hunk_is_found():
    seed = open(os.path.join(V9, "16-kasan-add-hooks-implementation-for-tag-based-mode.patch")).read()
    quoted = "\n".join("   " + ln for ln in seed.split("\ndiff --git")[1].splitlines()[4:9])
    files = {"patches/v9/16.patch": seed, "notes.rst": "A quote:\n\n" + quoted + "\n"}
    assert prov.foreign_hunks(files) == []
    made_up = "x\n@@ -1,2 +1,2 @@\n-old line\n+a line of a patch the project lacks\n"
    files["notes.rst"] += made_up
    assert prov.foreign_hunks(files) == [
        "notes.rst: hunk @@ -1,2 +1,2 @@ is in no seed patch nor the project's own patches"]
    files["x.py"] = 'diff = "--- a/f\\n@@ -3 +3 @@\\n+x"\n'
    assert "inside a line" in prov.foreign_hunks(files)[-1]
    files["patches/experiments/07-mine.patch"] = made_up
    assert len(prov.foreign_hunks(files)) == 1
