"""kasan-decode as a command: output and exit status for good and bad input."""
import json
import lzma
import os
import subprocess

from conftest import FIXTURES

DECODE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "kasan-decode")


def run(args, data=b""):
    return subprocess.run([DECODE] + args, input=data,
                          capture_output=True, timeout=60)


def test_json_one_object_per_report():
    data = lzma.open(os.path.join(FIXTURES, "swtags.log.xz")).read()
    p = run(["--json", "-"], data)
    assert p.returncode == 0, p.stderr
    objs = [json.loads(ln) for ln in p.stdout.splitlines()]
    assert len(objs) > 300
    for key in ("title", "bug_type", "access", "size", "addr", "pointer_tag",
                "memory_tag", "function", "task", "pid", "cache", "object_size",
                "offset", "alloc_stack", "free_stack", "mode"):
        assert key in objs[0]


def test_human_summary():
    data = lzma.open(os.path.join(FIXTURES, "swtags.log.xz")).read()
    p = run(["-"], data)
    assert b"KASAN_TAG_INVALID" in p.stdout and p.returncode == 0


def test_exit_codes(tmp_path):
    assert run(["-"], b"").returncode == 1
    assert run(["-"], b"no reports here\n").returncode == 1
    p = run(["-"], os.urandom(4096))
    assert p.returncode == 2 and b"Traceback" not in p.stderr
    p = run([str(tmp_path / "missing.log")])
    assert p.returncode == 2 and p.stderr.count(b"\n") == 1
    p = run(["--vmlinux", str(tmp_path / "nope"), "-"], b"x")
    assert p.returncode == 2


def test_truncated_exit_3():
    data = lzma.open(os.path.join(FIXTURES, "swtags.log.xz")).read()
    cut = data[: data.index(b"Memory state around")]
    p = run(["-"], cut)
    assert p.returncode == 3 and b"truncated" in p.stderr
