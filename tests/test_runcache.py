# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Runs kept by their inputs (vm/runcache.py): what the key follows."""
import os

import vm
from vm import runcache


def test_the_key_follows_file_contents_not_names_or_ports(tmp_path, monkeypatch):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path / "c"))
    img, img2 = tmp_path / "Image", tmp_path / "Image2"
    img.write_bytes(b"kernel")
    img2.write_bytes(b"kernel")
    argv = [vm.MACHINES["virt"].binary, "-kernel", str(img), "-gdb", "tcp:127.0.0.1:1234",
            "-seed", "1"]
    k = runcache.key(argv)
    assert runcache.key([a.replace(str(img), str(img2)) for a in argv]) == k, "same content"
    assert runcache.key([a.replace("1234", "5678") for a in argv]) == k, "the port is left out"
    assert runcache.key([a.replace("-seed", "-seed").replace("1", "2") if a == "1" else a
                         for a in argv]) != k, "the seed is in"
    img.write_bytes(b"kernel, rebuilt")
    assert runcache.key(argv) != k, "a rebuilt kernel is another run"
    assert runcache.key(argv, ["gdb file A"]) != runcache.key(argv, ["gdb file B"])


def test_a_kept_run_is_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path))
    assert runcache.get("nothing") is None
    runcache.put("k1", b"serial\r\n", {"status": "ok"})
    assert runcache.get("k1") == (b"serial\r\n", {"status": "ok"})


def test_opt_in(monkeypatch):
    monkeypatch.delenv("KASAN_TAGS_RUNCACHE", raising=False)
    assert not runcache.enabled()
    monkeypatch.setenv("KASAN_TAGS_RUNCACHE", "1")
    assert runcache.enabled()


def test_only_deterministic_unrecorded_runs_are_kept():
    from vm.qemu import cacheable
    m = vm.MACHINES["virt"]
    assert cacheable(m.argv("Image", "initrd", "x", seed=1))
    assert not cacheable(m.realtime().argv("Image", "initrd", "x"))
    assert not cacheable(m.argv("Image", "initrd", "x", seed=1, rr=("record", "/r")))


def test_gdb_inputs_are_what_gdb_can_load(tmp_path):
    """A page, a stored run, a test of a lab, a grader's Python or a
    student's file does not turn kept gdb runs stale (a student's gdb file
    is named by content in vm/student_gdb.py's own key); a gdb file does."""
    from vm import runcache
    lab = tmp_path / "01-x"
    (lab / "runs").mkdir(parents=True)
    (lab / "student").mkdir()
    for name, text in (("a.gdb", "bt\n"), ("h.py", "x = 1\n"), ("index.rst", "t\n"),
                       ("test_lab01.py", "y = 1\n"), ("runs/s.serial.xz", "r"),
                       ("student/tagstop.gdb", "bt\n"), ("student/tagmath.py", "z = 1\n")):
        (lab / name).write_text(text)
    sfx = dict(runcache.GDB_INPUTS)["labs"]

    def sha():
        runcache._sha.clear()
        return runcache.tree_sha(str(tmp_path), sfx)
    before = sha()
    for name in ("index.rst", "test_lab01.py", "h.py", "runs/s.serial.xz",
                 "student/tagstop.gdb", "student/tagmath.py"):
        (lab / name).write_text("changed\n")
        assert sha() == before, name
    (lab / "a.gdb").write_text("bt 2\n")
    assert sha() != before


def test_gdb_runs_no_python_of_labs():
    """What makes GDB_INPUTS' labs part sound: no gdb file of labs/ runs
    Python or sources a file but a student's (keyed by content in
    vm/student_gdb.py), and no gdb command of gdb-scripts/ imports the
    graders' code (labs, classroom) -- so a grader's .py is no input of a
    gdb run.  (kasan-modsyms imports vm for module_dir: where the lab's
    module is, whose bytes the key holds in the initramfs.)  Each
    offending line is named."""
    import glob
    import re
    from vm.base import REPO
    bad = []
    for path in sorted(glob.glob(os.path.join(REPO, "labs", "**", "*.gdb"), recursive=True)):
        if "/student/" in path:
            continue
        for n, line in enumerate(open(path), 1):
            s = line.split("#", 1)[0].strip()
            if re.match(r"(python|pi|py)\b", s) or (
                    re.match(r"source\s", s) and "/student/" not in s):
                bad.append("%s:%d: %s" % (os.path.relpath(path, REPO), n, s))
    for path in sorted(glob.glob(os.path.join(REPO, "gdb-scripts", "**", "*.py"),
                                 recursive=True)):
        if "/tests/" in path:
            continue
        for n, line in enumerate(open(path), 1):
            if re.match(r"\s*(from|import)\s+(labs|classroom|tests)\b", line):
                bad.append("%s:%d: %s" % (os.path.relpath(path, REPO), n, line.strip()))
    assert not bad, bad
