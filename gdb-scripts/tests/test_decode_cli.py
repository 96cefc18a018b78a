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


FAKE_NM = """#!/bin/sh
echo "ffff800008010000 T lab_uaf"
echo "ffff800008020000 t kfree"
echo "garbage line"
"""
# echoes each address back as the line number, so the test sees the queries
FAKE_SYMBOLIZER = """#!/bin/sh
[ "$1" = --obj=vmlinux ] || exit 1
while read a; do
  case "$a" in
  0xffff800008020000) printf 'kfree\\n??:0:0\\n\\n' ;;
  *) printf 'f\\n/x/linux-source-6.1/mm/kasan/%s.c:12:7\\n\\n' "$a" ;;
  esac
done
"""


def fake_tools(tmp_path, monkeypatch, **tools):
    d = tmp_path / "bin"
    d.mkdir(parents=True)
    for name, text in tools.items():
        (d / name).write_text(text)
        (d / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(d))


def test_symbolize_glue(tmp_path, monkeypatch):
    from kasan import decode
    fake_tools(tmp_path, monkeypatch, **{"llvm-nm": FAKE_NM, "llvm-symbolizer": FAKE_SYMBOLIZER})
    frames = ["lab_uaf+0x10/0x40", "lab_uaf+0x0/0x40", "kfree+0x0/0x8",
              "other+0x4/0x8", "lab_uaf+0x8/0x40 [kasan_lab]"]
    assert decode.symbolize(frames, "vmlinux") == [
        # a return address points after the call: ask for off - 1
        "lab_uaf+0x10/0x40 mm/kasan/0xffff80000801000f.c:12",
        "lab_uaf+0x0/0x40 mm/kasan/0xffff800008010000.c:12",
        "kfree+0x0/0x8",                      # ?? stays unsymbolized
        "other+0x4/0x8",                      # not in nm's output
        "lab_uaf+0x8/0x40 [kasan_lab]"]       # a module frame: not in vmlinux
    assert decode.symbolize([], "vmlinux") == []


def test_symbolize_without_tools(tmp_path, monkeypatch):
    from kasan import decode
    fake_tools(tmp_path, monkeypatch)
    assert decode.symbolize(["lab_uaf+0x10/0x40"], "vmlinux") == ["lab_uaf+0x10/0x40"]
    tools = {"llvm-symbolizer": FAKE_SYMBOLIZER, "llvm-nm": "#!/bin/sh\nexit 0\n"}
    fake_tools(tmp_path / "x", monkeypatch, **tools)
    assert decode.symbolize(["lab_uaf+0x10/0x40"], "vmlinux") == ["lab_uaf+0x10/0x40"]


def test_symbolize_tool_failures(tmp_path, monkeypatch):
    from kasan import decode
    frames = ["lab_uaf+0x10/0x40"]
    fake_tools(tmp_path / "a", monkeypatch, **{"llvm-symbolizer": FAKE_SYMBOLIZER})
    assert decode.symbolize(frames, "vmlinux") == frames          # no nm at all
    fake_tools(tmp_path / "b", monkeypatch, **{"llvm-nm": FAKE_NM,
                                               "llvm-symbolizer": "#!/nonexistent/sh\n"})
    assert decode.symbolize(frames, "vmlinux") == frames          # symbolizer cannot run
    fake_tools(tmp_path / "c", monkeypatch, **{"llvm-nm": "#!/nonexistent/sh\n",
                                               "llvm-symbolizer": FAKE_SYMBOLIZER})
    assert decode.symbolize(frames, "vmlinux") == frames          # nm cannot run
