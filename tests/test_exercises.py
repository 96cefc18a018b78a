"""Every exercise check on stored real runs (tests/data/labs/): GOOD with the
solution tree's files; BAD with the handout's stubs (Python and TOML
exercises, whose answer is read at grading time); BAD on a run altered in
the one value the check compares (gdb and C exercises, whose answer is in
the run).  `make check` adds the live proof: a real handout scores 0."""
import os
import re
import shutil

import pytest

from conftest import REPO
from labs import handout, lab
from labs.grade import Run
from test_graders import load

LABS = {x.folder[:2]: x for x in lab.load_all()}
# A student tree (make handout) has stubs where the solutions were: the
# tests that need the solutions do not apply there.
solution_only = pytest.mark.skipif(os.path.exists(os.path.join(REPO, "labs", "HANDOUT")),
                                   reason="a student tree has no solutions")
EXERCISES = [(x.folder, ex) for x in LABS.values() for ex in x.exercises]
# Exercises whose answer is a file the check reads (the stub must be BAD).
READ_AT_GRADING = {"1.1", "1.2", "2.1", "3.1", "3.2", "3.3", "5.1", "5.2", "5.3", "5.4", "5.5", "8.1"}
# (exercise, step, kind, regex, replacement): each must turn the check BAD.
ALTER = [
    ("1.3", "ex-tagstop", "gdb", r"^(memory tag: )([0-9a-f]{2})$", r"\g<1>zz"),
    ("1.3", "ex-tagstop", "gdb", r"^(shadow: [0-9a-f]{2}) ", r"\1 00 "),
    ("1.3", "ex-tagstop", "serial", r"(uaf ptr name=p ptr=)[0-9a-f]{16}", r"\g<1>" + "0" * 16),
    ("2.2", "ex-handler", "gdb", r"^size: 1$", "size: 2"),
    ("2.2", "ex-handler", "gdb", r"^access: read$", "access: write"),
    ("2.2", "ex-handler", "gdb", r"^(pc: 0x[0-9a-f]+?)[0-9a-f]$", r"\g<1>9"),
    ("4.1", "ex-student-generic", "serial", r"BUG: KASAN: global-out-of-bounds", "BUG: nothing"),
    ("4.2", "ex-student-generic", "serial", r"KT-SCENARIO-END student-tags-only",
     "BUG: KASAN: use-after-free in student_tags_only+0x1/0x2 [kasan_student]\n"
     "Read of size 1 at addr ffffff8000000000 by task init/1\n"
     "KT-SCENARIO-END student-tags-only"),
    ("3.1", "mystery", "serial", r"Write of size 8", "Write of size 4"),
    ("3.2", "mystery", "serial", r"mystery_rec_put", "mystery_rec_drop"),
    ("3.3", "mystery", "serial", r"cache mystery_session", "cache kmalloc-128"),
    ("5.1", "no-tbi", "serial", r"\A", "[    0.000000] Booting Linux on physical CPU 0x0\n"),
    # the control reports nothing either: then fixed-tag missed nothing
    ("5.2", "fixed-tag", "control", r"BUG: KASAN", "BUG: nothing"),
    ("5.5", "no-brk-hook", "serial", r"\Z", "\nKT-INIT-START\nKT-INIT-END\n"),
    ("7.1", "ex-freed", "gdb", r"(kasan_lab\.c:)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1)),
    ("7.2", "ex-tagwrite", "gdb", r"(instruction count = )(\d+)",
     lambda m: m.group(1) + str(int(m.group(2)) - 1)),
    ("8.1", "table", "serial", r"^(\s*\d+\s+\S+\s+)kset_find_obj", r"\1other_fn"),
    ("8.2", "ex-student", "serial", r"at student_ptrcmp\+", "at other_fn+"),
]


def stored(folder, step):
    return {k: load(folder, step, k) for k in ("serial", "gdb", "control")}


def make_run(folder, step, data):
    r = Run(folder, step, "<cache>/build/x")
    r.serial, r.gdb = data.get("serial") or "", data.get("gdb") or ""
    if LABS[folder[:2]].step(step).get("host"):
        # a host step's output is stored as its serial log
        r.host, r.serial = r.serial, ""
    if data.get("control") is not None:
        r.control = Run(folder, step, "<cache>/build/x")
        r.control.serial = data["control"]
    return r


def runs_of(folder):
    x = LABS[folder[:2]]
    return {s["name"]: make_run(folder, s["name"], stored(folder, s["name"])) for s in x.steps
            if load(folder, s["name"], "serial") is not None}


@pytest.fixture(autouse=True)
def tree_constants(monkeypatch):
    """Exercise 2.1 reads the ESR constants from the graded kernel's tree;
    offline, 6.1's values (which kasan.tags pins) stand in."""
    from kasan import tags
    monkeypatch.setattr(LABS["02"].module, "tree_constants", lambda run: tags.ESR_CONSTANTS_6_1)


def grade(x, ex, data=None):
    runs = runs_of(x.folder)
    run = make_run(x.folder, ex["step"], data) if data else runs[ex["step"]]
    return x.exercise_checker(ex)(run, runs)


def test_at_least_twelve_exercises_in_five_labs():
    assert len(EXERCISES) >= 12 and {f[:2] for f, _ in EXERCISES} == set(LABS)


@solution_only
@pytest.mark.parametrize("folder,ex", EXERCISES, ids=[e["id"] for _, e in EXERCISES])
def test_solution_is_good(folder, ex):
    res = grade(LABS[folder[:2]], ex)
    assert res and all(ok for _, ok, _ in res), [r for r in res if not r[1]]


@solution_only
@pytest.mark.parametrize("folder,ex", [e for e in EXERCISES if e[1]["id"] in READ_AT_GRADING],
                         ids=sorted(READ_AT_GRADING, key=lambda i: [int(n) for n in i.split(".")]))
def test_handout_stub_is_bad(folder, ex, tmp_path):
    """The lab folder as the handout has it: solutions replaced by stubs."""
    shutil.copytree(os.path.join(REPO, "labs", folder), tmp_path / folder)
    for f in ex["files"]:
        rel = os.path.relpath(f, os.path.join("labs", folder))
        path = tmp_path / folder / rel
        path.write_text(handout.strip(path.read_text(), f))
    x = lab.load_lab(folder, str(tmp_path))
    if folder.startswith("02"):
        from kasan import tags
        x.module.tree_constants = lambda run: tags.ESR_CONSTANTS_6_1
    res = grade(x, ex)
    assert res and not all(ok for _, ok, _ in res), res


@pytest.mark.parametrize("ex_id,step,kind,pattern,repl", ALTER,
                         ids=["%s-%d" % (a[0], i) for i, a in enumerate(ALTER)])
def test_altered_run_is_bad(ex_id, step, kind, pattern, repl):
    folder, ex = next(e for e in EXERCISES if e[1]["id"] == ex_id)
    data = stored(folder, step)
    assert data[kind] is not None, "no stored %s of %s/%s" % (kind, folder, step)
    new, n = re.subn(pattern, repl, data[kind], count=0 if kind == "control" else 1,
                     flags=re.M)
    assert n >= 1, "the alteration /%s/ does not apply" % pattern
    data[kind] = new
    res = grade(LABS[folder[:2]], ex, data)
    assert not all(ok for _, ok, _ in res), "altered %s still GOOD" % pattern


def test_outcome_classes():
    outcome = LABS["05"].module.outcome
    for serial, want in (("", "silent"), ("Booting Linux", "dies-booting"),
                         ("Booting Linux\nKT-INIT-START", "dies-at-bug")):
        assert outcome(serial, None) == want
    ended = "Booting Linux\nKT-INIT-START\nKT-INIT-END"
    assert outcome(ended, None) is None  # a boot that ends needs its control
    assert outcome(ended, ended) == "same"


@solution_only
def test_lab8_table_shows_the_exercise_not_its_answer():
    """The student site shows sites.py's table: an exercise 8.1 site is
    printed as the exercise, never with the kind the student must find."""
    import importlib.util
    path = os.path.join(REPO, "labs", "08-pointer-compare", "sites.py")
    spec = importlib.util.spec_from_file_location("lab8_sites", path)
    sites = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sites)
    answers = LABS["08"].module.load("answers.toml")["site"]
    asked = [a for a in answers if a.get("exercise")]
    assert len(asked) == 3
    shown = sites.kinds()
    for a in asked:
        assert shown[a["function"]] == "exercise-8.1", a


def test_lab8_kinds_read_off_a_source_line():
    import importlib.util
    path = os.path.join(REPO, "labs", "08-pointer-compare", "sites.py")
    spec = importlib.util.spec_from_file_location("lab8_sites_rules", path)
    sites = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sites)
    assert sites.kind_of_line("\tlist_for_each_entry(k, &kset->list, entry) {") == "identity"
    assert sites.kind_of_line("\tif (task != stopper->thread)") == "identity"
    assert sites.kind_of_line("\tif (inode1 > inode2)") == "ordering"
    assert sites.kind_of_line("\tx = p->next;") == "unclassified", "-> is not a comparison"
    assert sites.kind_of_line("\ty = a << 2;") == "unclassified"
    assert sites.source_line("/nonexistent", "mm/x.c:0") == ""
