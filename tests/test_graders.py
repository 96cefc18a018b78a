# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every lab check on the outputs of real runs (labs/*/runs/, stored by
`make fixtures` after `make grade`): GOOD on the run as captured, BAD on a
copy altered in the one value the check is about (each lab's ALTER table,
labs/NN-name/test_labNN.py), and BAD on empty input.  A grader that cannot
fail is caught here; a graded step without a stored run fails here."""
import re

import pytest

from labs import lab
from labs.grade import Run
from tests.graderlib import HANDOUT, LABS, grade, load, needs_run, table

ALTER = table("ALTER")


def captured():
    """(lab, step, {kind: text}) of every stored graded step (a table step apart:
    its lab's own tests grade its table.json)."""
    out = []
    for x in LABS.values():
        for s in x.steps:
            if not s.get("checks", True) or s["name"] in ("decode", "table"):
                continue
            data = {k: load(x.folder, s["name"], k) for k in ("serial", "gdb")}
            if data["serial"] is not None:
                out.append((x.folder, s["name"], data))
    return out


def test_every_graded_step_has_a_stored_run():
    """`make fixtures` stores each graded step's run in its lab's runs/."""
    from labs.edition import hidden_steps
    left_out = {(x.folder, s) for x in LABS.values() for s in hidden_steps(x)} \
        if HANDOUT else set()   # a student tree leaves out the runs of such steps
    missing = ["%s/%s" % (x.folder, s["name"]) for x in LABS.values() for s in x.steps
               if s.get("checks", True) and load(x.folder, s["name"], "serial") is None
               and load(x.folder, s["name"], "json") is None
               and (x.folder, s["name"]) not in left_out]
    assert not missing, "no stored run (make grade N=..., then make fixtures): " + \
        ", ".join(missing)


def test_every_lab_with_graded_steps_has_alterations():
    """A lab's checks are proven able to fail by its ALTER table."""
    altered = {row[0] for row in ALTER}
    graded = {x.folder for x in LABS.values() if any(
        s.get("checks", True) and s["name"] not in ("decode", "table") for s in x.steps)}
    assert graded <= altered, sorted(graded - altered)


@pytest.mark.parametrize("folder,step,data", captured(), ids=lambda v: v if isinstance(
    v, str) else "")
def test_real_run_is_good_and_empty_is_bad(folder, step, data):
    res = grade(folder, step, data)
    assert res and all(ok for _, ok, _ in res), [r for r in res if not r[1]]
    empty = grade(folder, step, {"serial": "", "gdb": ""})
    assert empty and not all(ok for _, ok, _ in empty), empty


@pytest.mark.parametrize("folder,step,kind,pattern,repl", ALTER,
                         ids=["%s-%s-%d" % (a[0][:2], a[1], i) for i, a in enumerate(ALTER)])
def test_altered_run_is_bad(folder, step, kind, pattern, repl):
    data = {k: load(folder, step, k) for k in ("serial", "gdb")}
    src = "serial" if kind == "host" else kind
    needs_run(data[src], "%s/%s" % (folder, step))
    assert data[src] is not None, "no stored %s of %s/%s" % (kind, folder, step)
    new, n = re.subn(pattern, repl, data[src], flags=re.M)
    assert n >= 1, "the alteration /%s/ does not apply" % pattern
    data[src] = new
    res = grade(folder, step, data)
    assert not all(ok for _, ok, _ in res), "altered %s still GOOD" % pattern


def test_control_is_evidence_only_when_it_ran_to_its_end():
    from labs.grade import control_differs
    ctl = Run("05-x", "x", "<cache>/build/x")
    ctl.paths = ["ctl.log"]
    bad, good = [("a", False, "")], [("a", True, "")]
    for status in ("timeout", "exit", "panic"):
        ctl.status = status
        ok, why = control_differs(ctl, bad)
        assert not ok and "did not reach its end (%s)" % status in why
    ctl.serial = "[ 0.0] Linux version 6.1\n"  # a gdb step that stopped the booted VM itself
    ctl.status = "exit"
    assert control_differs(ctl, bad) == (True, "")
    ctl.status = "timeout"
    assert not control_differs(ctl, bad)[0]
    ctl.serial, ctl.status = "", "ok"
    assert control_differs(ctl, bad) == (True, "")
    assert control_differs(ctl, good) == (False, "the control kernel shows the same outcome")


def test_host_step_header_names_its_kernels():
    from labs.grade import transcript_header
    host = transcript_header({"name": "t", "host": ["x"]}, "$ x", "swtags, generic", "6.1", 7)
    assert host[1] == ("# kernel: Linux 6.1, host step; kernels: swtags, generic; captured "
                       "by `make transcripts`")
    boot = transcript_header({"name": "b", "filter": "BUG"}, "$ make boot", "generic", "6.1",
                             7, ["labs/x/student/y.gdb"])
    assert boot[1].startswith("# kernel: Linux 6.1, variant generic;")
    assert boot[2].startswith("# seed: 7 ")
    assert boot[3] == "# shown: the lines matching /BUG/"
    assert boot[4].startswith("# student: this step runs the student's code (labs/x/student/")


def test_limit_keeps_the_head_and_tail_and_counts_the_rest():
    from labs.grade import excerpt, transcript_header
    body = "\n".join("line %d" % i for i in range(100))
    out = excerpt(body, 16).splitlines()
    assert out[:16] == ["line %d" % i for i in range(16)]
    assert out[16] == "[... 81 lines left out ...]" and out[17:] == ["line 97", "line 98", "line 99"]
    short = "\n".join("line %d" % i for i in range(20))
    assert excerpt(short, 16) == short  # leaving out one line would not shorten it
    hdr = transcript_header({"name": "b", "filter": "BUG", "limit": 16}, "$ x", "v", "6.1", 1)
    assert hdr[4] == "# shown: the first 16 lines and the last 3"


def test_live_gdb_tag_fields_never_crash():
    from tests.check_kernels import tag_fields
    assert tag_fields(["pointer tag: 35", "memory tag:  fe  0xfe KASAN_TAG_INVALID"])[1] == (
        "35", "fe")
    assert tag_fields(["pointer tag: 35"])[1] == ("35", "none")
    assert tag_fields([])[1] == ("none", "none")


def test_site_check_wants_the_runs_value_in_a_transcript_block(tmp_path, monkeypatch):
    from tests import site_check
    d = tmp_path / "build" / "transcripts" / "01-x"
    d.mkdir(parents=True)
    (d / "s.txt").write_text("# command: x\nValue returned is $1 = 77\n")
    monkeypatch.setattr(site_check, "REPO", str(tmp_path))
    good = '<div class="kt-transcript docutils container"><pre>Value returned is $1 = 77</pre>'
    assert site_check.transcript_shown(good, "01-x", "s", r"Value returned is \$\d+ = \d+")[1]
    prose = '<p>Value returned is $1 = 77</p><div class="kt-transcript"><pre>other</pre>'
    assert not site_check.transcript_shown(prose, "01-x", "s", r"Value returned is \$\d+ = \d+")[1]
    assert not site_check.transcript_shown(good, "01-x", "t", r"x")[1]


def test_machine_paths_are_found(tmp_path):
    from tests import site_check
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "p.html").write_text("<pre>/home/me/kasan-tags/labs/x</pre>")
    (tmp_path / "q.html").write_text("<pre>labs/x</pre>")
    assert site_check.machine_paths(str(tmp_path), ["/home/me/kasan-tags"]) == [
        ("a/p.html", "/home/me/kasan-tags")]


def without_section(gdb, name):
    out, skip = [], False
    for ln in gdb.splitlines():
        if ln.startswith("KT-GDB "):
            skip = ln[7:].strip() == name
        if not skip:
            out.append(ln)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("folder,step,data", [c for c in captured() if c[2]["gdb"]],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_each_missing_gdb_section_is_bad_not_a_crash(folder, step, data):
    sections = lab.gdb_sections(data["gdb"])
    assert sections
    for name in sections:
        res = grade(folder, step, dict(data, gdb=without_section(data["gdb"], name)))
        # called directly: an exception here fails the test
        if not all(ok for _, ok, _ in res):
            continue
        # a section no check reads is allowed only if it is not the only one
        assert len(sections) > 1, (step, name)


@pytest.mark.parametrize("folder,step,data", captured(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_cut_runs_never_crash(folder, step, data):
    for frac in (0.25, 0.5, 0.9):
        cut = {k: (v[: int(len(v) * frac)] if v else v) for k, v in data.items()}
        res = grade(folder, step, cut)
        assert all(len(r) == 3 for r in res)


def test_a_crashing_check_is_one_bad_line():
    from labs.grade import safe

    def broken(run, step):
        return None.group(1)
    assert safe(broken)(None, {}) == [("the check ran", False,
                                       "AttributeError: 'NoneType' object has no attribute "
                                       "'group'")]


def named(res):
    return {n: ok for n, ok, _ in res}


def test_a_site_with_page_sources_or_doctrees_is_refused(tmp_path):
    from tests import site_check
    for rel in ("index.html", "_static/a.css", "searchindex.js", "objects.inv"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert site_check.site_extras(str(tmp_path)) == []
    for rel in ("_sources/labs/x.rst.txt", ".doctrees/labs/x.doctree", "notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert site_check.site_extras(str(tmp_path)) == [
        ".doctrees/labs/x.doctree", "_sources/labs/x.rst.txt", "notes.txt"]
