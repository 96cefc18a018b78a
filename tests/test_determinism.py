# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Seeds as data (vm/qemu.py), transcripts' headers (labs/lab.py), and
make check's selection of checks and its pool of jobs (tests/check.py)."""
import json
import os
import re
import shutil

import pytest

import vm
from labs.lab import split_transcript
from tests import check, checklib
from vm import qemu


def test_the_default_seed_is_fixed_and_seed_takes_a_number(monkeypatch):
    monkeypatch.delenv("SEED", raising=False)
    assert qemu.run_seed() == qemu.DEFAULT_SEED
    monkeypatch.setenv("SEED", "12345")
    assert qemu.run_seed() == 12345


@pytest.mark.parametrize("bad", ["-1", "1.5", "abc", "4294967296", "0x10"])
def test_a_bad_seed_is_one_line(monkeypatch, bad):
    monkeypatch.setenv("SEED", bad)
    with pytest.raises(vm.KtError, match=r"^SEED must be a number from 0 to 4294967295"):
        qemu.run_seed()


def test_seed_random_draws_once_and_keeps_it(monkeypatch, capsys):
    monkeypatch.setenv("SEED", "random")
    n = qemu.run_seed()
    assert 0 <= n <= qemu.SEED_MAX
    assert qemu.run_seed() == n, "every later boot of the run uses the drawn seed"
    assert "SEED=random drew SEED=%d" % n in capsys.readouterr().err


def test_every_machine_is_deterministic_with_a_seed():
    for name, m in qemu.MACHINES.items():
        argv = m.argv("Image", "initrd", "console=ttyAMA0", seed=7)
        assert "-icount" in argv, name
        assert argv[argv.index("-seed") + 1] == "7", name
        assert argv[argv.index("-append") + 1].endswith(" kt_seed=7"), name
        assert qemu.seed_of(argv) == "7"


def test_realtime_drops_icount_and_seed():
    argv = qemu.MACHINES["virt"].realtime().argv("Image", "initrd", "x")
    assert "-icount" not in argv and "-seed" not in argv
    assert qemu.seed_of(argv).startswith("none")


def test_a_transcript_header_is_only_its_known_keys():
    text = ("# command: $ make boot\n# kernel: Linux 6.1\n# seed: 1 (x)\n"
            "# kasan: pass:47 fail:0 skip:8 total:55\nok 1 kasan\n")
    hdr, body = split_transcript(text)
    assert hdr == ["command: $ make boot", "kernel: Linux 6.1", "seed: 1 (x)"]
    assert body == ["# kasan: pass:47 fail:0 skip:8 total:55", "ok 1 kasan"]


def test_the_pool_counts_each_jobs_lines_and_a_crash(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(check, "JOBS_DIR", str(tmp_path))
    monkeypatch.setattr(check, "TIMES", str(tmp_path / "times.json"))
    mark = tmp_path / "a-done"
    scripts = {
        "a": "sleep 0.5; echo 'PASS a one (0.1 s)'; echo 'PASS a two'; touch %s" % mark,
        # b reads what a wrote: it must start after a ended, even with 2 slots
        "b": "test -e %s && echo 'PASS b' || echo 'FAIL b: ran before a'" % mark,
        "c": "echo 'FAIL c (0.0 s): wrong'; echo '    detail'; exit 1",
        "d": "echo 'Traceback'; exit 3"}
    rc = check.pool(list(scripts), 2, 0, argv_of=lambda n: ["sh", "-c", scripts[n]],
                    order={"b": ("a",)})
    out = capsys.readouterr().out
    assert rc == 1
    assert out.rstrip().splitlines()[-1].startswith("3 passed, 2 failed")
    assert "FAIL d: the check ended with exit 3 and no result line" in out
    assert "FAIL b" not in out and "    detail" in out
    assert set(json.loads((tmp_path / "times.json").read_text())) == set(scripts)
    rc = check.pool(["a"], 1, 0, argv_of=lambda n: ["sh", "-c", "echo 'PASS a'"])
    assert rc == 0


def test_the_longest_chain_starts_first():
    after = {"site": ["grade"], "page": ["site"], "grade": [], "pytest": []}
    last = {"grade": 50, "site": 30, "page": 20, "pytest": 90}
    names = list(after)
    assert check.chain("grade", names, after, last) == 100
    assert sorted(names, key=lambda n: -check.chain(n, names, after, last))[:2] == \
        ["grade", "pytest"]
    # never timed on this machine (a new cache): the longest chain of jobs
    # still starts first -- grade's, before the checks listed above it
    names = ["pytest", "page", "site", "grade"]
    assert sorted(names, key=lambda n: -check.chain(n, names, after, {}))[0] == "grade"


def test_check_times_are_the_machines(monkeypatch, tmp_path):
    """How long each check took is kept in the cache, beside the job cache,
    where a new clone on this machine finds it."""
    from tests import jobcache
    monkeypatch.setenv("KASAN_TAGS_CACHE", str(tmp_path))
    assert check.times_path().startswith(jobcache.folder())
    check.save_times({"grade": 12.0})
    assert check.load_times() == {"grade": 12.0}


def test_jobs_must_be_a_small_number(monkeypatch):
    for bad in ("abc", "0", "9", "-1"):
        monkeypatch.setenv("JOBS", bad)
        with pytest.raises(vm.KtError, match="JOBS=%s: give a number" % re.escape(bad)):
            check.parallel_jobs()
    monkeypatch.setenv("JOBS", "1")
    assert check.parallel_jobs() == 1


def test_check_selection():
    names = [n for n, _ in check.selected("", "", handout=False)]
    assert names == [n for n, _ in check.CHECKS]
    assert [n for n, _ in check.selected("lint,pytest", "", handout=False)] == ["pytest", "lint"]
    assert "site" not in [n for n, _ in check.selected("", "site", handout=False)]
    with pytest.raises(vm.KtError, match="no check named nope"):
        check.selected("nope", "", handout=False)
    assert [n for n, _ in check.selected("", "", handout=True)] == \
        ["pytest", "lint", "checkpatch", "grade-student"]


def test_first_difference_names_the_line():
    assert checklib.first_difference("a\nb\n", "a\nb\n") == ""
    assert checklib.first_difference("a\nb", "a\nc").startswith("line 2 of 2/2: 'b' / 'c'")
    assert checklib.first_difference("a", "a\nb").startswith("line 2 of 1/2")


def test_a_long_transcript_is_cut_around_the_lines_the_check_reads():
    from Documentation.tools import page_labs as pl
    lines = ["l%d" % i for i in range(200)]
    marks = [i == 100 for i in range(200)]
    out, om, ncut = pl.cut_lines(lines, marks)
    assert out[:pl.HEAD] == lines[:pl.HEAD] and out[-pl.TAIL:] == lines[-pl.TAIL:]
    assert out[pl.HEAD] == "[... %d lines left out ...]" % (98 - pl.HEAD)
    assert out[pl.HEAD + 1:pl.HEAD + 6] == ["l98", "l99", "l100", "l101", "l102"]
    assert om[out.index("l100")] and sum(om) == 1
    assert ncut == 200 - pl.HEAD - pl.TAIL - 5
    assert len(out) == len(om) == 200 - ncut + 2
    # nothing read: the first lines and the last
    out, om, ncut = pl.cut_lines(lines, [False] * 200)
    assert out[-pl.TAIL - 1] == "[... %d lines left out ...]" % ncut and not any(om)
    assert len(out) == pl.MAX_LINES + 1
    short = lines[:pl.MAX_LINES]
    assert pl.cut_lines(short, [True] * len(short)) == (short, [True] * len(short), 0)


def test_a_long_transcript_line_is_wrapped_and_counted():
    from Documentation.tools import page_labs
    lines, n = page_labs.wrap_lines(["x" * (2 * page_labs.WIDTH + 5), "short"])
    assert n == 1 and lines[-1] == "short"
    assert all(len(ln) <= page_labs.WIDTH + len(page_labs.CONT) for ln in lines)
    assert "".join(ln.replace(page_labs.CONT, "") for ln in lines[:-1]) == "x" * (2 * page_labs.WIDTH + 5)


def test_a_console_session_lets_an_idle_guest_sleep():
    m = qemu.MACHINES["virt"]
    argv = m.argv("Image", "initrd", "x", interactive=True, seed=1)
    assert argv[argv.index("-icount") + 1] == "shift=0,sleep=on"
    argv = m.argv("Image", "initrd", "x", interactive=True, seed=1, rr=("replay", "/r"))
    assert argv[argv.index("-icount") + 1].startswith("shift=0,sleep=off,rr=replay")


def test_the_student_sees_no_marker_and_no_note():
    from Documentation.tools import page_labs
    gdb = "# teach\n## our note\nbreak x\necho KT-GDB name\\n\n  echo KT-GDB b\\n\nbt\n"
    assert page_labs.shown_gdb(gdb) == "# teach\nbreak x\nbt\n"
    out, n = page_labs.without_markers(["KT-GDB name", "#0 foo ()", "KT-GDB next", "x"])
    assert out == ["#0 foo ()", "x"] and n == 2


def test_highlights_follow_what_the_check_read(tmp_path, monkeypatch):
    """The page highlights the lines a step's check read: Run notes the gdb
    sections and scenarios it was asked for; the marks survive wrapping."""
    from Documentation.tools import page_labs
    from labs import grade, transcripts
    r = grade.Run("01-x", "s", "<cache>/build/x")
    r.gdb = "KT-GDB a\nline a1\nKT-GDB b\nline b1\n"
    r.serial = ("KT-SCENARIO-BEGIN uaf\nkasan_lab: uaf ptr name=p tag=35\nother\n"
                "KT-SCENARIO-END uaf\n")
    assert r.sections()["b"] == ["line b1"]
    r.lab_lines("uaf")
    assert r.read_lines() == ["kasan_lab: uaf ptr name=p tag=35", "line b1"]
    lines, n, marks = page_labs.wrap_lines(["x" * (page_labs.WIDTH + 3), "y"], [True, False])
    assert n == 1 and marks == [True, True, False]
    monkeypatch.setattr(transcripts, "TRANSCRIPTS", str(tmp_path))
    (tmp_path / "01-x").mkdir()
    (tmp_path / "01-x" / "s.read.json").write_text('["line b1"]')
    assert page_labs.read_marks("01-x", "s", ["line a1", " line b1"]) == [False, True]
    assert page_labs.read_marks("01-x", "t", ["line a1"]) == [False]


def test_initramfs_entries_get_one_mtime():
    """Every entry of a newc archive, regular files included, ends with the
    one mtime (6.1's gen_init_cpio -t leaves files' own)."""
    from vm.initramfs import one_mtime

    def entry(name, body, mtime):
        n = name.encode() + b"\0"
        head = b"070701" + b"".join(b"%08X" % v for v in (
            721, 0o100644, 0, 0, 1, mtime, len(body), 0, 0, 0, 0, len(n), 0))
        rec = head + n
        rec += b"\0" * (-len(rec) % 4) + body
        return rec + b"\0" * (-len(rec) % 4)
    arch = entry("init", b"abcde", 0x5F000000) + entry("m.ko", b"xy", 0x60000000) + \
        entry("TRAILER!!!", b"", 0)
    out = one_mtime(arch, 0)
    assert len(out) == len(arch) and out.count(b"%08X" % 0x5F000000) == 0
    assert out.count(b"%08X" % 0x60000000) == 0 and b"abcde" in out and b"xy" in out
    assert one_mtime(out, 0) == out


def test_a_module_build_is_skipped_only_while_its_inputs_are_the_same(tmp_path):
    """vm/initramfs.py skips kbuild when the stamp says the same inputs and
    the modules are there; a changed source, flag or kernel, or a missing
    module, builds again."""
    from vm.initramfs import module_inputs, up_to_date
    bdir, mdir = tmp_path / "obj", tmp_path / "module"
    bdir.mkdir()
    mdir.mkdir()
    for f in (".config", "Module.symvers"):
        (bdir / f).write_text("x")
    (mdir / "kasan_lab.c").write_text("int a;")
    (mdir / "kasan_lab.o").write_text("built")
    inputs = module_inputs(str(bdir), str(mdir), "")
    assert "kasan_lab.c " in inputs and "kasan_lab.o" not in inputs
    stamp = tmp_path / "module" / "kt-module.stamp"
    assert not up_to_date(str(stamp), inputs, str(mdir))       # never built
    (mdir / "kasan_lab.ko").write_text("ko")
    stamp.write_text(inputs + "built kasan_lab.ko\n")
    assert module_inputs(str(bdir), str(mdir), "") == inputs   # the stamp is no input
    assert up_to_date(str(stamp), inputs, str(mdir))
    assert not up_to_date(str(stamp), module_inputs(str(bdir), str(mdir), "-fplugin=x"),
                          str(mdir))
    (mdir / "kasan_lab.c").write_text("int b;")
    assert not up_to_date(str(stamp), module_inputs(str(bdir), str(mdir), ""), str(mdir))
    (mdir / "kasan_lab.c").write_text("int a;")
    os.utime(bdir / "Module.symvers", ns=(1, 1))                # a rebuilt kernel
    assert not up_to_date(str(stamp), module_inputs(str(bdir), str(mdir), ""), str(mdir))
    os.unlink(mdir / "kasan_lab.ko")
    assert not up_to_date(str(stamp), inputs, str(mdir))


def test_kernels_are_built_base_first():
    """make check builds the kernels before its jobs, a variant before the
    ones that add a patch to it (ccache then serves their common files)."""
    order = check.kernel_order(["exp-no-brk-hook", "swtags-brk", "exp-hwtags-tag-dump",
                                "hwtags", "exp-no-tbi", "swtags"])
    assert order.index("swtags") < order.index("exp-no-tbi")
    assert order.index("swtags-brk") < order.index("exp-no-brk-hook")
    assert order.index("hwtags") < order.index("exp-hwtags-tag-dump")


def test_a_module_rebuild_starts_from_its_sources_alone(tmp_path, monkeypatch):
    """A source synced from another tree keeps that tree's older time, so
    kbuild would keep the .o of the last tree's source: a rebuild removes
    what the last build left before kbuild runs (vm/initramfs.py)."""
    from vm import initramfs
    bdir, mdir, src = tmp_path / "obj", tmp_path / "obj" / "kt" / "module", tmp_path / "labs"
    mdir.mkdir(parents=True)
    (src / "module").mkdir(parents=True)
    for f in (".config", "Module.symvers"):
        (bdir / f).write_text("x")
    seen = []

    def rsync(argv, logfile=None):
        for f in os.listdir(argv[-2]):
            shutil.copy2(os.path.join(argv[-2], f), os.path.join(argv[-1], f))

    def kbuild(bdir, cmd, mdir_, blog):
        """What kbuild finds, then its products."""
        seen.append(sorted(os.listdir(mdir)))
        (mdir / "kasan_lab.o").write_text("built from " + (mdir / "kasan_lab.c").read_text())
        (mdir / "kasan_lab.ko").write_text("ko")

    monkeypatch.setattr(initramfs, "REPO", str(tmp_path))
    monkeypatch.setattr(initramfs, "run", rsync)
    monkeypatch.setattr(initramfs, "compile_module", kbuild)
    monkeypatch.setattr(initramfs, "kernel_info", lambda b: {"variant": "swtags"})
    monkeypatch.setattr(initramfs, "module_dir", lambda b: str(mdir))
    monkeypatch.setattr(initramfs, "extra_kcflags", lambda b: "")
    monkeypatch.setattr(initramfs, "use_shipped", lambda b, m: None)
    (src / "module" / "kasan_lab.c").write_text("int planted;")
    initramfs.build_module(str(bdir))
    (src / "module" / "kasan_lab.c").write_text("int solution;")
    os.utime(src / "module" / "kasan_lab.c", ns=(1, 1))         # older than the .o
    initramfs.build_module(str(bdir))
    assert "kasan_lab.o" not in seen[-1] and "kasan_lab.ko" not in seen[-1], seen
    assert (mdir / "kasan_lab.o").read_text() == "built from int solution;"
    initramfs.build_module(str(bdir))                              # up to date: no kbuild
    assert len(seen) == 2


def test_a_kernel_s_build_identity_is_pinned_and_keyed(tmp_path, monkeypatch):
    """The version line a build writes (KBUILD_BUILD_TIMESTAMP, _USER,
    _HOST) comes from vm/configs/build-identity.toml, not the machine, and
    is part of the kernel's cache key; a garbled file is one error."""
    from vm import kbuild
    args = kbuild.identity_args("swtags")
    assert [a.split("=")[0] for a in args] == ["KBUILD_BUILD_TIMESTAMP", "KBUILD_BUILD_USER",
                                               "KBUILD_BUILD_HOST"]
    assert kbuild.identity_args("no-such-variant")[0].endswith("2026")   # the default
    key = kbuild.build_key("swtags")
    other = tmp_path / "id.toml"
    other.write_text('user = "u"\nhost = "h"\n[timestamp]\ndefault = "Thu Jan  1 00:00:00 UTC 2026"\n')
    monkeypatch.setattr(kbuild, "IDENTITY", str(other))
    assert kbuild.build_key("swtags") != key
    other.write_text("user = \n")
    with pytest.raises(vm.KtError, match="build-identity.toml"):
        kbuild.identity_args("swtags")
