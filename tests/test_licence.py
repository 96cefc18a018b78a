# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every file's licence and copyright are known (README: Licence).

`reuse lint` (Debian's reuse, installed by make deps) on the checkout; the
same on a copy of it with a file planted that says nothing, which it must
name; and the licence texts in what the project hands on: a student tree
(make handout) and a kernel archive (make dist)."""
import os
import re
import shutil
import subprocess

import pytest

import vm
from classroom import handout
from vm import dist, kbuild

REPO = vm.REPO
LICENSES = sorted(os.listdir(os.path.join(REPO, "LICENSES")))
# The two lines a code file starts with; spelt in two parts, so that this
# file's own header is the only one reuse reads in it.
TAG = "SPDX-" + "License-Identifier: GPL-2.0-only"
OWNER = "SPDX-" + "FileCopyrightText: 2026 The kasan-tags authors"


def reuse():
    exe = shutil.which("reuse")
    if not exe:
        pytest.fail("reuse is not installed (Debian package reuse); run `make deps`",
                    pytrace=False)
    return exe


def lint(root):
    """(ok, the files reuse names as lacking something, its output)."""
    p = subprocess.run([reuse(), "--root", str(root), "lint"], cwd=str(root),
                       capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    named = set()
    for ln in out.split("# SUMMARY")[0].splitlines():
        if ln.startswith("* "):
            path = ln[2:].strip()
            named.add(os.path.relpath(path, str(root)) if os.path.isabs(path) else path)
    return p.returncode == 0, named, out


def copy_tree(dest, files=None):
    """The checkout's files (as make handout takes them: tracked, or new and
    not ignored) copied to dest, which is no git repository: reuse lints
    every file there."""
    for rel in files or handout.tree_files():
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(REPO, rel), os.path.join(dest, rel))


def test_reuse_lint_passes_on_the_checkout():
    ok, named, out = lint(REPO)
    assert ok, ("reuse lint: %d file(s) without licence or copyright: %s -- give a code file "
                "the two SPDX lines, a data file a .reuse/dep5 pattern (README: Licence)\n%s"
                % (len(named), ", ".join(sorted(named)), out))


def test_a_missing_reuse_is_one_line_naming_make_deps(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match=r"^reuse is not installed .*run `make deps`$"):
        reuse()


def test_a_file_added_without_licence_fails_naming_it(tmp_path):
    """A copy of the checkout, then three new files: a Python file with no
    header must be named; one with the two lines, and a stored run (a
    .reuse/dep5 pattern covers runs/), must not."""
    tree = tmp_path / "tree"
    copy_tree(str(tree))
    assert (tree / ".reuse" / "dep5").exists() and (tree / "LICENSES" / LICENSES[0]).exists()
    _, before, _ = lint(tree)
    (tree / "labs" / "planted.py").write_text('"""A new helper, no licence said."""\nX = 1\n')
    (tree / "labs" / "planted_ok.py").write_text("# %s\n# %s\nX = 1\n" % (TAG, OWNER))
    run = next((tree / "labs").glob("*/runs")) / "planted.serial.xz"
    run.write_bytes(b"\xfd7zXZ\x00 not really xz")
    ok, named, out = lint(tree)
    assert not ok and "labs/planted.py" in named, out
    assert "labs/planted_ok.py" not in named and os.path.relpath(str(run), str(tree)) not in named
    assert named - before == {"labs/planted.py"}, out


def test_the_licence_texts_are_the_ones_the_metadata_uses():
    """LICENSES/ holds a text for each licence used and no other (reuse lint
    says both), and the code's header is GPL-2.0-only."""
    assert LICENSES == ["CC-BY-SA-4.0.txt", "GPL-2.0-only.txt", "LGPL-2.1-or-later.txt"]
    gpl = open(os.path.join(REPO, "LICENSES", "GPL-2.0-only.txt")).read()
    assert "GNU GENERAL PUBLIC LICENSE" in gpl and "Version 2, June 1991" in gpl
    assert "Attribution-ShareAlike 4.0 International" in \
        open(os.path.join(REPO, "LICENSES", "CC-BY-SA-4.0.txt")).read()
    head = open(os.path.join(REPO, "Makefile")).read().splitlines()[:2]
    assert head == ["# " + TAG, "# " + OWNER]


def test_citation_cff_is_a_cff_1_2_0_record():
    """The keys CFF 1.2.0 requires, the authors as an entity, a licence
    whose text is in LICENSES/ (checked without a YAML library)."""
    text = open(os.path.join(REPO, "CITATION.cff")).read()
    keys = dict(re.findall(r"^([a-z-]+):\s*(.*)$", text, re.M))
    assert keys.get("cff-version") == "1.2.0"
    assert {"message", "title", "authors"} <= set(keys)
    assert re.search(r"^authors:\n  - name: The kasan-tags authors$", text, re.M)
    assert keys["license"] + ".txt" in LICENSES


@pytest.mark.skipif(os.path.exists(os.path.join(REPO, handout.MARKER)),
                    reason="a student tree makes no handout")
def test_a_handout_carries_the_licences_and_stays_covered(tmp_path, monkeypatch):
    """make handout (the mystery module faked: no kernel is built): the
    student tree has LICENSES/, .reuse/dep5, COPYING and the README's
    Licence section, and reuse names no file there that it does not name
    here -- not the shipped module, not the answers make submit creates."""
    def fake_ship(dest):
        out = os.path.join(dest, "labs", "module", "shipped", "swtags-k", "kasan_mystery.ko")
        os.makedirs(os.path.dirname(out))
        open(out, "wb").write(b"\x7fELF not really a module")
        return out
    monkeypatch.setattr(handout, "ship_mystery", fake_ship)
    dest = tmp_path / "student"
    handout.make_handout(str(dest))
    for name in LICENSES:
        assert (dest / "LICENSES" / name).read_bytes() == \
            open(os.path.join(REPO, "LICENSES", name), "rb").read()
    assert (dest / ".reuse" / "dep5").read_text() == \
        open(os.path.join(REPO, ".reuse", "dep5")).read()
    assert (dest / "COPYING").exists()
    assert "\n## Licence\n" in (dest / "README.md").read_text()
    (dest / "answers.md").write_text("# Lab 1\n\nMy answers.\n")
    _, here, _ = lint(REPO)
    _, there, out = lint(dest)
    assert there <= here, out


def test_a_kernel_archive_carries_the_licences(fake, tmp_path):
    """make dist on a fake swtags build: COPYING and every licence text are
    in the archive, byte for byte."""
    bdir = kbuild.build_kernel("swtags")
    kbuild.write_manifest(bdir, kbuild.outputs("swtags"))
    archive = str(tmp_path / "k.tar.zst")
    dist.main_dist(archive, ["swtags"])
    names = subprocess.run(["tar", "-tf", archive], capture_output=True, text=True,
                           check=True).stdout.split()
    want = ["COPYING"] + ["LICENSES/" + n for n in LICENSES]
    assert set(want) <= set(names), names
    x = tmp_path / "x"
    x.mkdir()
    subprocess.run(["tar", "-xf", archive, "-C", str(x)] + want, check=True)
    for rel in want:
        assert (x / rel).read_bytes() == open(os.path.join(REPO, rel), "rb").read(), rel
