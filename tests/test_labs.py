# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""labs/: the steps' schema, the scenario table, and what each mistake says."""
import os
import re
import shutil

import pytest

import vm
from labs import lab, scenarios

ONE = lab.by_number(1).folder

LABS = os.path.join(vm.REPO, "labs")


def test_every_lab_loads():
    labs = lab.load_all()
    assert [x.number for x in labs] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    for x in labs:
        for step in x.steps:
            assert step.get("checks", True) is False or callable(
                getattr(x.module, lab.check_name(step)))


@pytest.fixture
def scratch(tmp_path):
    """A copy of lab 1's folder to break."""
    d = tmp_path / ONE
    shutil.copytree(os.path.join(LABS, ONE), d)
    return tmp_path, d


def test_misspelt_key_names_the_file(scratch):
    root, d = scratch
    toml = d / "steps.toml"
    toml.write_text(toml.read_text().replace('cmdline = "kunit', 'cmdlien = "kunit', 1))
    with pytest.raises(vm.KtError, match=fr"labs/{ONE}/steps.toml: step slab: "
                                         r"unknown key 'cmdlien'"):
        lab.load_lab(ONE, str(root))


def test_missing_check_function_names_check_py(scratch):
    root, d = scratch
    py = d / "check.py"
    py.write_text(py.read_text().replace("def check_reuse(", "def check_reused("))
    with pytest.raises(vm.KtError, match=fr"step reuse: labs/{ONE}/check.py has no "
                                         r"check_reuse\(\)"):
        lab.load_lab(ONE, str(root))


def test_checks_false_is_allowed_and_needs_no_function(scratch):
    root, d = scratch
    py = d / "check.py"
    py.write_text(py.read_text().replace("def check_reuse(", "def check_reused("))
    toml = d / "steps.toml"
    toml.write_text(toml.read_text().replace('name = "reuse"\n', 'name = "reuse"\nchecks = false\n'))
    assert lab.load_lab(ONE, str(root)).step("reuse")["checks"] is False


def test_unknown_placeholder_and_variant(scratch):
    root, d = scratch
    (d / "slab.gdb").write_text("echo {moddir:nope}\necho {kernel:swtags}\n")
    with pytest.raises(vm.KtError, match=r"slab.gdb\): \{moddir:nope\} names unknown variant "
                                         r"'nope'; and 1 more"):
        lab.load_lab(ONE, str(root))


def test_missing_gdb_file(scratch):
    root, d = scratch
    os.unlink(d / "pages.gdb")
    with pytest.raises(vm.KtError, match="step pages: gdb file pages.gdb does not exist"):
        lab.load_lab(ONE, str(root))


def test_serial_placeholder_must_be_an_earlier_step():
    errs = lab.placeholder_errors("x", "{serial:later} {serial:first} {repo}", ["first"])
    assert errs == ["x: {serial:later} is not an earlier step of this lab"]


def test_pages_include_only_transcripts_of_steps():
    """Every `.. include:: /build/gen/transcripts/LAB/STEP.rst` names a step."""
    for x in lab.load_all():
        page = open(x.path("index.rst")).read()
        names = {s["name"] for s in x.steps}
        for step in re.findall(r"transcripts/%s/([\w.-]+)\.rst" % x.folder, page):
            assert step in names, "%s includes transcript of no step %s" % (x.folder, step)


def test_scenario_table_equals_expected_toml():
    assert scenarios.expected_errors() == []


def test_scenario_missing_from_expected_names_the_file(tmp_path):
    toml = tmp_path / "expected.toml"
    text = open(scenarios.EXPECTED).read()
    toml.write_text(re.sub(r"\n\[krealloc\]\n.*?(?=\n\[)", "\n", text, flags=re.S))
    errs = scenarios.expected_errors(toml_path=str(toml))
    assert any("expected.toml: scenario 'krealloc' of kasan_lab.c has no entry" in e
               for e in errs), errs


def test_unknown_expected_key_and_check(tmp_path):
    toml = tmp_path / "expected.toml"
    toml.write_text(open(scenarios.EXPECTED).read().replace(
        'check = "tags"', 'check = "tag"\nsw_tags.report = []'))
    errs = scenarios.expected_errors(toml_path=str(toml))
    assert any("[tags] check 'tag' is not one of" in e for e in errs)
    assert any("[tags] unknown key sw_tags.report" in e for e in errs)


def test_gdb_sections():
    text = "noise\nKT-GDB first\na\nb\nKT-GDB  second \nc\n"
    assert lab.gdb_sections(text) == {"first": ["a", "b"], "second": ["c"]}
    assert lab.gdb_sections("no markers\n") == {}


def test_checker_takes_run_or_run_and_step(tmp_path):
    mod = type(os)("m")
    mod.check_a = lambda run: [("a", run, "")]
    mod.check_b = lambda run, step: [("b", step["name"], "")]
    x = lab.Lab("09-x", {"title": "t", "step": []}, mod)
    assert x.checker({"name": "a"})("R", {"name": "a"}) == [("a", "R", "")]
    assert x.checker({"name": "b"})("R", {"name": "b"}) == [("b", "b", "")]
    assert x.checker({"name": "z", "check": "b"})("R", {"name": "z"}) == [("b", "z", "")]
    assert x.number == 9 and x.path("f").endswith("labs/09-x/f")


def test_folders_need_a_number_and_steps(tmp_path):
    for d in ("01-a", "02-b", "x-c", "03"):
        (tmp_path / d).mkdir()
    (tmp_path / "01-a" / "steps.toml").write_text("")
    (tmp_path / "x-c" / "steps.toml").write_text("")
    assert lab.folders(str(tmp_path)) == ["01-a"]


def spec_errors(steps, module=None, **top):
    mod = module or type(os)("m")
    spec = dict({"title": "t", "step": steps, "hours": 1.0, "objectives": ["o"]}, **top)
    return lab.validate(ONE, spec, mod, LABS)


def test_step_shape_errors():
    mod = type(os)("m")
    mod.check_a = mod.check_b = lambda run: []
    assert spec_errors([{"name": "a"}, {"name": "b"}], mod) == []
    errs = spec_errors([{"name": "a"}, {"cmdline": "x"}, {"name": "a"}], mod)
    assert f"labs/{ONE}/steps.toml: step #2: has no name" in errs
    assert f"labs/{ONE}/steps.toml: step a: duplicate step name" in errs
    assert spec_errors([{"name": "a", "gdb": "slab.gdb", "host": ["x"]}], mod) == [
        f"labs/{ONE}/steps.toml: step a: has both gdb and host"]
    assert spec_errors([{"name": "a", "filter": "("}], mod)[0].startswith(
        f"labs/{ONE}/steps.toml: step a: filter is not a regex")
    assert spec_errors([{"name": "a", "timeout": "9"}], mod) == [
        f"labs/{ONE}/steps.toml: step a: timeout must be a int"]
    assert spec_errors([{"name": "a", "control": "nope"}], mod) == [
        f"labs/{ONE}/steps.toml: step a: control 'nope' is not a variant "
        "(vm/configs/)"]
    assert spec_errors([{"name": "a", "machine": "virt-mte-qemu7.2"}], mod) == []
    assert spec_errors([{"name": "a", "machine": "virt-mtee"}], mod)[0].startswith(
        f"labs/{ONE}/steps.toml: step a: machine 'virt-mtee' is not one of virt,")
    assert spec_errors([{"name": "a", "machine": "virt", "gdb": "slab.gdb"}], mod) == [
        f"labs/{ONE}/steps.toml: step a: machine is for plain boots only"]


def test_checks_false_excludes_check_and_control():
    for extra in ({"check": "a"}, {"control": "swtags"}):
        errs = spec_errors([dict({"name": "q", "checks": False}, **extra)])
        assert errs == [f"labs/{ONE}/steps.toml: step q: checks = false, "
                        "yet check/control is given"], extra
    assert spec_errors([{"name": "q", "checks": False}]) == []


def test_lab_keys():
    errs = lab.validate("01-x", {"titel": "t"}, type(os)("m"), LABS)
    assert "labs/01-x/steps.toml: unknown key 'titel' (known: exercise, grader_only, hours, objectives, " \
        "patches, picture, sources, step, title)" \
        in errs
    assert "labs/01-x/steps.toml: missing 'title'" in errs
    assert "labs/01-x/steps.toml: missing 'step'" in errs


def test_placeholder_messages_quote_the_placeholder():
    errs = lab.placeholder_errors("w", "{kernel:x} {moddir:nope} {vmlinux:swtags}", [])
    assert errs == ["w: unknown placeholder {kernel:x} (known: {bdir}, {vmlinux}, {moddir}, "
                    "{serial}, {repo})", "w: {moddir:nope} names unknown variant 'nope'"]


def test_the_kernels_the_labs_need_are_what_make_dist_archives():
    """Each step's variant and control, and placeholders' variants (lab 3
    reads {vmlinux:swtags}); not the bench or fixture kernels."""
    need = lab.needed_variants(lab.load_all())
    lab5 = {"exp-no-tbi", "exp-no-untag-phys", "exp-fixed-tag", "exp-no-brk-hook",
            "exp-no-redzone-tag"}
    lab6 = {"hwtags", "exp-hwtags-tag-dump"}
    lab9 = {"swtags-qfq", "exp-qfq-revert", "exp-qfq-revert-generic"}
    assert set(need) == {"swtags", "swtags-brk", "generic", "none", "ptrcmp"} | lab5 | lab6 | lab9


def test_picture_declarations_are_checked():
    spec = {"picture": [{"name": "p", "kind": "painting", "step": "nope"}, "x"]}
    errs = lab.picture_errors("t.toml", spec, ["slab"])
    assert "t.toml: picture p: kind must be one of " + ", ".join(lab.PICTURE_KINDS) in errs
    assert "t.toml: picture p: step 'nope' is not a step of this lab" in errs
    assert "t.toml: picture #2 is not a table" in errs
    assert lab.picture_errors("t.toml", {"picture": [
        {"name": "p", "kind": "tag_maps", "items": [["slab", "uaf", "c"]]}]}, ["slab"]) == []


def test_every_included_picture_is_declared_once():
    """A page includes /build/gen/pictures/NAME.rst only if some lab declares
    NAME (page_pictures.py draws only those), and no name is declared twice."""
    labs = lab.load_all()
    declared = [p["name"] for x in labs for p in x.spec.get("picture", [])]
    assert len(declared) == len(set(declared))
    included = set()
    for x in labs:
        for page in os.listdir(x.path()):
            if page.endswith(".rst"):
                included |= set(re.findall(r"/build/gen/pictures/([\w-]+)\.rst",
                                           open(x.path(page)).read()))
    assert included <= set(declared)
    if not os.path.exists(os.path.join(vm.REPO, "labs", "HANDOUT")):
        # a student tree's pages lack the teacher blocks, and their pictures
        assert included == set(declared)


def test_pictures_come_before_the_exercises():
    """A lab page shows its pictures before its Exercises, which may need them."""
    for x in lab.load_all():
        text = open(x.path("index.rst")).read()
        ex = re.search(r"^Exercises\n-+\n", text, re.M)
        for m in re.finditer(r"/build/gen/pictures/[\w-]+\.rst", text):
            assert ex is None or m.start() < ex.start(), (x.folder, m.group(0))


def test_the_start_page_and_the_teacher_plan_count_the_labs():
    """Documentation/start.rst says how many labs there are, in words: the
    number of lab folders."""
    words = ("zero one two three four five six seven eight nine ten eleven twelve").split()
    n = words[len(lab.load_all())]
    text = open(os.path.join(vm.REPO, "Documentation", "start.rst")).read()
    assert "In the %s labs listed below" % n in text
    if not os.path.exists(os.path.join(vm.REPO, "labs", "HANDOUT")):  # the teacher's plan
        assert "%s sessions of" % n.capitalize() in text
