# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every name a reader is given resolves (issue 51, method 1).

The texts a reader sees -- the pages (Documentation/*.rst, labs/*/*.rst,
the series notes patches/v9/notes/*.rst, index.rst, README.md,
labs/README.md), the text of every labs/*/steps.toml and mistakes*.toml
(hints, titles, ...), and the help of the gdb commands (the docstrings of
gdb-scripts/kasan/cmd_*.py) -- name files, options and targets.  Each must
exist:

  a path of the checkout      (vm/qemu.py, labs/module/kasan_lab.c, patches/...)
                              in the checkout (a page by its :doc: name); a
                              lab's student/ files relative to its folder;
                              build/ and a handout's shipped module are made
                              (MADE); the wrong names of PENDING are reported
  a path of the 6.1 tree      (mm/kasan/common.c) in the extracted 6.1 tree,
                              or named by the seed patches (v9's files: their
                              diffs and the cover letter's diffstat) or created
                              by a patch of patches/experiments/
  a patch file name           (02-no-tbi.patch) under patches/
  a file name, bare           (traps.c, esr.py) a file of the checkout or the 6.1
                              tree, a name in the seeds, or a file the project's
                              code makes or reads (a string of its code:
                              answers.md, summary.csv), or in EXAMPLES
  a CONFIG_ option            defined by a Kconfig of the 6.1 tree, a seed
                              patch or patches/experiments/, or in HISTORICAL
  a `make TARGET`             a target of the Makefile
  "the glossary's 'X'"        an entry of Documentation/glossary.rst

The helpers are pure (text in, names out; names in, the unresolved out);
the tests run them on the tree and on planted texts.
"""
import ast
import fnmatch
import functools
import glob
import os
import re
import tomllib

import pytest

from conftest import REPO

V9 = os.path.join(REPO, "patches", "v9")
EXPERIMENTS = os.path.join(REPO, "patches", "experiments")

# The first component of a path of the 6.1 tree (Documentation/ is the
# checkout's first, then the tree's).
KERNEL_TOP = ("arch", "block", "certs", "crypto", "drivers", "fs", "include", "init",
              "io_uring", "ipc", "kernel", "lib", "mm", "net", "rust", "samples", "scripts",
              "security", "sound", "tools", "usr", "virt", "Documentation")
# Paths that are made, not kept: what make writes under build/, and the
# mystery module a handout ships built (vm/initramfs.py: shipped_module()).
MADE = ("build/", "labs/module/shipped/")
# Bare file names that name no file on purpose, each with its reason.
EXAMPLES = {"x.py": "labs/README.md: a student file's name in an example call",
            "REUSE.toml": "sources.rst: what `reuse convert-dep5` would write, not done"}
# Wrong names this test found that are left to another change, each with
# why; test_pending_names_are_still_wrong fails once one is fixed.
PENDING = {}
# Options a text may name that no Kconfig here defines, each with its reason
# (none today: every option the texts name is 6.1's, and v9's KASAN_GENERIC
# and KASAN_SW_TAGS kept their names).
HISTORICAL = {}
# The words that follow "make" in English prose: not a target.
ENGLISH = frozenset(
    "a an and any are as at do each every for in inside is it its more no of on one prints "
    "room sense so some such sure target that the their them then these this those to two "
    "up use what which with your".split())
# Where a name is a placeholder, not a name: NN-name, NAME, <name>, X.Y, ...
PLACEHOLDER = re.compile(r"NN-name|NN|NAME|VARIANT|X\.Y|\bX\b|\bID\b|<[^>]*>|\.\.\.")
# An option the text names as a placeholder (an error message's CONFIG_X).
PLACEHOLDER_OPTION = re.compile(r"CONFIG_(?:X|NAME|FOO)$")


# -- pure: the names of a text ---------------------------------------------------

def path_pattern(tops):
    return re.compile(r"(?<![\w./:~$@<-])(/?)((?:%s)/[\w.*+-]*(?:/[\w.*+-]*)*)"
                      % "|".join(re.escape(t) for t in sorted(tops, key=len, reverse=True)))


def paths(text, tops):
    """The paths of `text` whose first component is one of `tops` (trailing
    punctuation and a :line suffix left off).  An absolute path is the
    host's (/usr/bin/python3), unless its top is the checkout's: then it is
    a page's path from the site's root (/labs/01-tag-assignment/index)."""
    text = re.sub(r"<[^</>\n]{1,40}>", "*", text)      # <build dir>: a placeholder
    out = []
    for m in path_pattern(tops).finditer(text):
        p = m.group(2).rstrip(".,;:)")
        top = p.split("/")[0]
        if m.group(1) and top in KERNEL_TOP and top != "Documentation":
            continue
        if text.startswith(": ", m.end(2)) and "." not in p.split("/")[-1]:
            continue                            # "mm/slub: ...", a subject's prefix
        if not p.endswith("/.") and top in tops:
            out.append(p)
    return out


FILE = re.compile(r"(?<![\w/.@:~$=-])([A-Za-z_][\w.-]*\.(?:c|h|S|py|gdb|toml|sh|config|rst|md|"
                  r"json|txt|cpp|ko|xz|svg|csv|yml|slurm))\b(?![\w/-])")
CONFIG = re.compile(r"\bCONFIG_[A-Z0-9_]*[A-Z0-9](?:_\*)?")
PATCH = re.compile(r"(?<![\w/.-])([\w.-]+\.patch)\b(?!\.)")
MAKE = re.compile(r"(?<![\w/.-])make\s+(?:-s\s+)?(?:[A-Z][A-Z0-9_]*=\S*\s+)*"
                  r"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\b(?![=/.])")
GLOSSARY_REF = re.compile(r"glossary's ['\"\u2018\u201c]([^'\"\u2019\u201d]+)['\"\u2019\u201d]")


def names(text, tops):
    """{kind: [names]} of one text: path, file, config, patch, make, glossary."""
    return {"path": paths(text, tops), "file": FILE.findall(text),
            "config": CONFIG.findall(text),
            "patch": PATCH.findall(text),
            "make": [t for t in MAKE.findall(text) if t not in ENGLISH],
            "glossary": GLOSSARY_REF.findall(text)}


# -- pure: the texts of a file ---------------------------------------------------

def toml_strings(value):
    """Every string of a parsed TOML document (the hints, titles, questions)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in toml_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in toml_strings(v)]
    return []


def docstrings(source):
    """The module's, classes' and functions' docstrings (gdb's help is the
    command class's docstring)."""
    tree = ast.parse(source)
    nodes = [tree] + [n for n in ast.walk(tree) if isinstance(
        n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
    return [d for d in (ast.get_docstring(n) for n in nodes) if d]


# -- pure: what a name resolves to ------------------------------------------------

def kconfig_options(text):
    """The options a Kconfig text (or a patch of one) defines."""
    return set(re.findall(r"^[+ ]?\s*(?:menu)?config\s+([A-Z0-9_]+)\s*$", text, re.M))


def patch_paths(text):
    """The files a patch or a diffstat names (a/..., b/..., ` path | 12 +-`)."""
    out = set(re.findall(r"^(?:\+\+\+|---) [ab]/(\S+)", text, re.M))
    out |= set(re.findall(r"^diff --git a/(\S+) b/(?:\S+)", text, re.M))
    out |= set(re.findall(r"^ ([\w./-]+/[\w.-]+)\s+\|\s+\d+", text, re.M))
    return out


def resolve_path(path, where, exists, kernel, v9_paths):
    """Why `path` (named in the text at `where`) does not resolve, or None.
    exists(p): a checkout path exists; kernel: a function (p -> bool) for
    the 6.1 tree, or None when it is not extracted."""
    glob_path = PLACEHOLDER.sub("*", path).rstrip("/")
    if glob_path.startswith(MADE):
        return None
    lab = re.match(r"labs/[^/]+/", where)
    cands = [glob_path] + ([lab.group(0) + glob_path] if lab else [])
    if glob_path.startswith("student"):
        cands.append("labs/*/" + glob_path)      # a lab's own, named from outside it
    for cand in cands:
        if exists(cand) or exists(cand + ".rst"):    # a page, as :doc: names it
            return None
    top = glob_path.split("/")[0]
    if top not in KERNEL_TOP:
        return "not in the checkout"
    if glob_path in v9_paths or any(p.startswith(glob_path + "/") for p in v9_paths):
        return None
    if kernel is None:
        return None if top != "Documentation" else "not in the checkout"
    return None if kernel(glob_path) else "neither in the checkout nor in the 6.1 tree " \
        "nor named by a seed patch or an experiment"


def resolve_file(name, basenames, known):
    """Why a bare file name does not resolve, or None.  basenames: of the
    checkout and the tree; known(name): the seeds or the code name it."""
    if name in EXAMPLES or name in basenames or known(name):
        return None
    pattern = PLACEHOLDER.sub("*", name)
    if pattern != name and (any(fnmatch.fnmatch(b, pattern) for b in basenames) or all(
            known(piece) for piece in pattern.split("*") if piece)):
        return None                     # ID.json: the code writes name + ".json"
    return "no such file, and neither the seeds nor the project's code name it"


def unresolved(found, where, exists, kernel, v9_paths, options, targets, patches, terms,
               basenames=frozenset(), known=lambda name: False):
    """[(where, kind, name, why)] of one text's names that do not resolve.
    options: the CONFIG_ names defined (None: unknown, the tree is missing)."""
    bad = []
    for f in found["file"]:
        why = resolve_file(f, basenames, known)
        if why and kernel is not None:      # without the tree, it may be the tree's
            bad.append((where, "file", f, why))
    for p in found["path"]:
        why = resolve_path(p, where, exists, kernel, v9_paths)
        if why:
            bad.append((where, "path", p, why))
    for c in found["config"]:
        name = c[len("CONFIG_"):]
        if c in HISTORICAL or PLACEHOLDER_OPTION.match(c) or options is None:
            continue
        ok = (any(o.startswith(name[:-1]) for o in options) if name.endswith("*")
              else name in options)
        if not ok:
            bad.append((where, "config", c, "no Kconfig defines it"))
    for p in found["patch"]:
        if p not in patches and not PLACEHOLDER.search(p):
            bad.append((where, "patch", p, "no such file under patches/"))
    for t in found["make"]:
        if t not in targets:
            bad.append((where, "make", "make " + t, "not a target of the Makefile"))
    for g in found["glossary"]:
        if g.lower() not in terms:
            bad.append((where, "glossary", g, "no such entry in Documentation/glossary.rst"))
    return bad


def makefile_targets(text):
    """The targets of a Makefile's rules (a .PHONY name with no rule is none)."""
    out = set()
    for m in re.finditer(r"^([\w%-][\w.% -]*?)\s*:(?![=])", text, re.M):
        out.update(m.group(1).split())
    return out


# -- the tree ----------------------------------------------------------------------

def reader_texts(repo=REPO):
    """[(where, text)]: every text a reader sees, and the files pages show
    (literalinclude, the labs' gdb files, the students' files)."""
    out = []
    pages = (glob.glob(os.path.join(repo, "Documentation", "*.rst"))
             + glob.glob(os.path.join(repo, "labs", "*", "*.rst"))
             + glob.glob(os.path.join(repo, "patches", "v9", "notes", "*.rst"))
             + [os.path.join(repo, f) for f in ("index.rst", "README.md", "labs/README.md")])
    for path in sorted(pages):
        out.append((os.path.relpath(path, repo), open(path).read()))
    for path in sorted(glob.glob(os.path.join(repo, "labs", "*", "steps.toml"))
                       + glob.glob(os.path.join(repo, "labs", "*", "mistakes*.toml"))):
        with open(path, "rb") as f:
            strings = toml_strings(tomllib.load(f))
        out.append((os.path.relpath(path, repo), "\n".join(strings)))
    for path in sorted(glob.glob(os.path.join(repo, "gdb-scripts", "kasan", "cmd_*.py"))):
        out.append((os.path.relpath(path, repo), "\n".join(docstrings(open(path).read()))))
    shown = set(glob.glob(os.path.join(repo, "labs", "*", "*.gdb"))
                + glob.glob(os.path.join(repo, "labs", "*", "student", "*")))
    for _, text in list(out):             # the files a page shows whole
        shown.update(os.path.join(repo, f) for f in re.findall(
            r"^\s*\.\. literalinclude:: /((?!build/)\S+)", text, re.M))
    for path in sorted(shown):
        out.append((os.path.relpath(path, repo), open(path, errors="replace").read()))
    return out


def kernel_tree():
    """The extracted 6.1 tree, or None: it is not extracted here (a unit
    test does not extract it; vm.pristine_tree() does)."""
    from vm import cache
    try:
        top = os.path.join(cache.cache_root(), "src", cache.tarball_sha(cache.tarball())[:16])
    except Exception:  # noqa: BLE001 -- no tarball: no tree
        return None
    found = glob.glob(os.path.join(top, "linux-source*"))
    return found[0] if os.path.exists(os.path.join(top, ".kt-extracted")) and found else None


def exists_in(root):
    def exists(p):
        return bool(glob.glob(os.path.join(root, p))) if "*" in p else \
            os.path.exists(os.path.join(root, p))
    return exists


@functools.lru_cache(maxsize=None)
def seed_texts():
    """The text of the seed patches and the project's experiments."""
    return [open(p, errors="replace").read() for p in
            sorted(glob.glob(os.path.join(V9, "*.patch")) + [os.path.join(V9, "00-cover-letter.txt")]
                   + glob.glob(os.path.join(EXPERIMENTS, "*.patch")))]


@functools.lru_cache(maxsize=None)
def kernel_options(tree):
    out = set()
    for text in seed_texts():
        out |= kconfig_options(text)
    for root, _, files in os.walk(tree):
        for f in files:
            if f.startswith("Kconfig"):
                out |= kconfig_options(open(os.path.join(root, f), errors="replace").read())
    return out


def basenames(root, skip=("build", ".git")):
    out = set()
    for _, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        out.update(files)
    return out


@functools.lru_cache(maxsize=None)
def code_text(repo=REPO):
    """The project's code (not its tests): a file name it spells is one it
    makes or reads."""
    out = []
    for root, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in ("build", ".git", "tests")]
        for f in files:
            if f.endswith((".py", ".sh")) and not f.startswith("test_") or f in (
                    "Makefile", "deps", "run"):
                out.append(open(os.path.join(root, f), errors="replace").read())
    return "\n".join(out)


def context(tree):
    """What the names of every text are resolved against."""
    seeds = "\n".join(seed_texts())
    v9_paths = set()
    for text in seed_texts():
        v9_paths |= patch_paths(text)
    patches = {os.path.basename(p) for p in glob.glob(os.path.join(REPO, "patches", "**",
                                                                   "*.patch"), recursive=True)}
    glossary = open(os.path.join(REPO, "Documentation", "glossary.rst")).read()
    return dict(exists=exists_in(REPO), kernel=exists_in(tree) if tree else None,
                v9_paths=v9_paths, options=kernel_options(tree) if tree else None,
                targets=makefile_targets(open(os.path.join(REPO, "Makefile")).read()),
                patches=patches,
                terms={t.lower() for t in re.findall(r"^   (\S.*)$", glossary, re.M)},
                basenames=basenames(REPO) | (basenames(tree) if tree else set()),
                known=lambda name: name in seeds or name in code_text())


def tops(repo=REPO):
    return tuple(d for d in os.listdir(repo) if os.path.isdir(os.path.join(repo, d))
                 and not d.startswith((".", "_"))) + KERNEL_TOP


def problems(texts, ctx, top):
    return [b for where, text in texts for b in unresolved(names(text, top), where, **ctx)]


# -- the tests -----------------------------------------------------------------------

def test_the_extractor_finds_each_kind():
    text = ("See ``vm/qemu.py`` and labs/module/kasan_lab.c:12, then 6.1's "
            "mm/kasan/common.c:362-368 and CONFIG_KASAN_SW_TAGS=y; apply "
            "02-no-tbi.patch, run ``make grade N=1`` or make lab; make the value "
            "larger. The glossary's 'match-all tag'. https://x.org/mm/kasan/a.c; "
            "6.1's traps.c, OUT=result.json. Subject: [PATCH] mm/slub: dump tags")
    got = names(text, ("vm", "labs", "mm"))
    assert got == {"path": ["vm/qemu.py", "labs/module/kasan_lab.c", "mm/kasan/common.c"],
                   "file": ["traps.c"],
                   "config": ["CONFIG_KASAN_SW_TAGS"], "patch": ["02-no-tbi.patch"],
                   "make": ["grade", "lab"], "glossary": ["match-all tag"]}


def test_planted_names_fail():
    """A text naming what does not exist is caught, kind by kind."""
    ctx = dict(exists=exists_in(REPO), kernel=lambda p: p == "mm/kasan/common.c",
               v9_paths={"mm/kasan/khwasan.c"}, options={"KASAN", "KASAN_SW_TAGS"},
               targets={"grade", "lab"}, patches={"02-no-tbi.patch"}, terms={"tag"},
               basenames={"common.c", "test_lab01.py"},
               known=lambda n: n in 'open(student + ".json")')
    planted = ("``vm/nosuch.py`` and vm/qemu.py, mm/kasan/nosuch.c, mm/kasan/common.c, "
               "mm/kasan/khwasan.c, CONFIG_KASAN_NOSUCH, CONFIG_KASAN_SW_TAGS, "
               "CONFIG_KASAN_*, 99-nosuch.patch, `make nosuch`, make grade N=2, the "
               "glossary's 'nosuch', common.c, nosuch.c, test_labNN.py, ID.json, ID.txt")
    bad = problems([("Documentation/x.rst", planted)], ctx, tops())
    assert sorted(b[2] for b in bad) == sorted([
        "vm/nosuch.py", "mm/kasan/nosuch.c", "CONFIG_KASAN_NOSUCH", "99-nosuch.patch",
        "make nosuch", "nosuch", "nosuch.c", "ID.txt"])


def test_a_lab_names_its_own_files_relative_to_its_folder():
    ctx = dict(exists=exists_in(REPO), kernel=None, v9_paths=set(), options=None,
               targets=set(), patches=set(), terms=set())
    lab = os.path.relpath(glob.glob(os.path.join(REPO, "labs", "01-*", "index.rst"))[0], REPO)
    text = "Edit student/tagmath.py, then student/nosuch.py"
    top = tops() + ("student",)
    assert [b[2] for b in problems([(lab, text)], ctx, top)] == ["student/nosuch.py"]


def test_makefile_targets_are_read_from_its_rules():
    got = makefile_targets(".PHONY: all lab grade\nall: deps\n\t@x\nlab grade:\nV := 1\nW ?= 2\n")
    assert got == {"all", "lab", "grade"}


def test_every_text_is_read():
    where = {w for w, _ in reader_texts()}
    for must in ("README.md", "labs/README.md", "index.rst", "Documentation/glossary.rst",
                 "labs/01-tag-assignment/mistakes.toml", "gdb-scripts/kasan/cmd_tags.py"):
        assert must in where, must


def left_out():
    """In a student tree (labs/HANDOUT), the files its handout left out
    (classroom/handout.py: solution_only), which the pages it keeps may
    name; in this checkout, none."""
    if not os.path.exists(os.path.join(REPO, "labs", "HANDOUT")):
        return set()
    from classroom import handout
    return set(handout.solution_only())


def test_pending_names_are_still_wrong():
    """A PENDING entry goes when its name is fixed."""
    found = {(w, n) for w, _, n, _ in problems(reader_texts(), context(None), tops())}
    assert set(PENDING) <= found, set(PENDING) - found


def test_every_name_a_reader_sees_resolves():
    tree = kernel_tree()
    gone = left_out()
    bad = [b for b in problems(reader_texts(), context(tree), tops() + ("student",))
           if (b[0], b[2]) not in PENDING and b[2] not in gone]
    assert not bad, "\n".join("%s: %s %s: %s" % b for b in bad)
    if tree is None:
        pytest.skip("the 6.1 tree is not extracted here (make kernel extracts it): paths, "
                    "file names and CONFIG_ options that may be the tree's were not checked; "
                    "the checkout's names and the make targets were")
