# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The wall between the grader and the student (vm/sandbox.py,
labs/exercises.py, vm/student_gdb.py), without a kernel: what student
Python can and cannot do, what crosses back, and the gdb proxy's filter."""
import json
import os

import pytest

from classroom import gradeclass, secret, submit
from labs import exercises
from labs import student as tree_student
from vm import sandbox, student_gdb

pytestmark = pytest.mark.skipif(not sandbox.available(), reason="make deps installs bubblewrap")


def student(tmp_path, text, name="mine.py"):
    d = tmp_path / "lab"
    (d / "student").mkdir(parents=True, exist_ok=True)
    (d / "student" / name).write_text(text)
    return exercises.StudentCode(str(d / "check.py"), name)


def test_answers_come_back_as_data(tmp_path):
    s = student(tmp_path, "def f(a, b):\n    print('noise')\n    return {'sum': a + b, 'l': [a]}\n")
    assert s.call("f", [(1, 2), (3, 4)]) == [("value", {"sum": 3, "l": [1]}),
                                             ("value", {"sum": 7, "l": [3]})]


def test_errors_timeouts_and_load_failures_are_reasons(tmp_path):
    s = student(tmp_path, "def f(x):\n    if x:\n        while True: pass\n    return 1 // x\n")
    got = s.call("f", [(0,), (1,)])
    assert got[0][0] == "error" and "ZeroDivisionError" in got[0][1]
    assert got[1][0] == "error" and "2 s" in got[1][1]
    bad = student(tmp_path, "raise SystemExit(3)\n", "bad.py")
    assert "did not load" in bad.call("f", [(1,)])[0][1]


def test_the_student_reaches_nothing(tmp_path):
    outside = tmp_path / "outside"
    secret = tmp_path / "secret.txt"
    secret.write_text("the grader's")
    s = student(tmp_path, '''
import os, socket
def probe(_):
    out = []
    try:
        open(%r, "w").write("x"); out.append("wrote")
    except OSError:
        pass
    try:
        open(%r).read(); out.append("read")
    except OSError:
        pass
    try:
        socket.create_connection(("127.0.0.1", 22), timeout=1); out.append("net")
    except OSError:
        pass
    try:
        import kasan.tags; out.append("imported")
    except ImportError:
        pass
    out.append("pid %%d" %% os.getpid())
    return out
''' % (str(outside), str(secret)))
    kind, got = s.call("probe", [(0,)])[0]
    assert kind == "value" and got[:-1] == [] and not outside.exists(), got
    assert int(got[-1].split()[1]) < 10     # its own PID namespace


def test_output_and_memory_are_limited():
    r = sandbox.run(["/usr/bin/python3", "-c", "print('x' * (64 << 20))"], out_limit=1 << 20)
    assert r.status == "output limit"
    r = sandbox.run(["/usr/bin/python3", "-c", "b = bytearray(3 << 30)"], mem=1 << 30)
    assert r.status != "ok" and b"MemoryError" in r.err


def test_compare_prints_hex_and_names_the_call(tmp_path):
    s = student(tmp_path, "def f(x):\n    return x + 1\n")
    name, ok, why = exercises.compare("f", s, "f", lambda x: x, [(0x10,)])
    assert not ok and why == "f(0x10) = 0x11, expected 0x10"


def test_the_proxy_turns_monitor_commands_into_unknown_ones():
    def rcmd(cmd):
        return b"qRcmd," + cmd.encode().hex().encode()
    assert student_gdb.filter_packet(rcmd("info replay")) == rcmd("info replay")
    assert student_gdb.filter_packet(rcmd("replay_break 123")) == rcmd("replay_break 123")
    for evil in ('migrate "exec:touch /x"', "quit", "savevm x", "dump-guest-memory /x"):
        assert student_gdb.filter_packet(rcmd(evil)) == rcmd(student_gdb.DENIED)
    out, left = student_gdb.Proxy._packets(b"+$" + rcmd("quit") + b"#00$m0,4#fd$q")
    assert out.startswith(b"+$qRcmd,") and b"$m0,4#fd" in out and left == b"$q"


def test_a_step_file_splits_at_its_trusted_line():
    part, trusted, names = student_gdb.split("source x\n# kt-trusted: obj\nkasan-tag $obj\n")
    assert part == "source x\n" and trusted == "\nkasan-tag $obj\n" and names == ["obj"]
    assert student_gdb.split("no line\n") is None
    assert student_gdb.neutral("KT-GDB kernel\nok\n") == "kt-gdb(student) kernel\nok\n"


def test_seeds_come_from_the_secret_and_the_id():
    a = secret.seeds_of("ann", b"s" * 32)
    assert a == secret.seeds_of("ann", b"s" * 32) != secret.seeds_of("bob", b"s" * 32)
    assert a != secret.seeds_of("ann", b"t" * 32) and a[0] != a[1] and 1 not in a
    with pytest.raises(Exception):
        secret.seeds_of("../ann", b"s" * 32)


def test_student_toml_and_the_submission_carry_the_id(tmp_path):
    (tmp_path / tree_student.STUDENT).write_text(secret.student_toml("ann", 1234))
    assert tree_student.read_student(str(tmp_path)) == {"id": "ann", "seed": 1234}
    out = submit.submit(str(tmp_path))
    got = gradeclass.claimed(out)
    assert got["id"] == "ann" and got["seed"] == 1234 and got["time"].endswith("Z")
    assert json.dumps(got) and os.path.exists(out)


def test_a_students_data_file_is_read_in_the_sandbox(tmp_path):
    d = tmp_path / "lab" / "student"
    d.mkdir(parents=True)
    (d / "a.toml").write_text('site = [{function = "f", kind = "identity"}]\n')
    (d / "bad.toml").write_text("not = toml = at all\n")
    (d / "x.gdb").write_text("# note\nbreak f\n")
    check = str(tmp_path / "lab" / "check.py")
    assert exercises.load_answers(check, "a.toml") == {"site": [{"function": "f",
                                                                 "kind": "identity"}]}
    with pytest.raises(ValueError, match="bad.toml"):
        exercises.load_answers(check, "bad.toml")
    with pytest.raises(ValueError, match="missing.toml"):
        exercises.load_answers(check, "missing.toml")
    assert exercises.student_text(check, "x.gdb") == "# note\nbreak f\n"
