# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What a reader is told to type, found in what they read (issue 51,
method 2); tests/typed_eval.py reads each and types it into its tool,
tests/test_formulas.py runs both.

Found, in every text a student or a teacher reads:
  - a page (labs/*/*.rst, Documentation/*.rst, index.rst): each
    ``literal`` outside a role (a role cites a source, it is not typed;
    two literals joined by an operator are one), each line after a
    ``(gdb)`` or ``>>>`` prompt, and each bare expression of its prose;
  - a text of the labs' TOML (the hints of mistakes*.toml, the texts of
    steps.toml): each `literal` and each bare expression;
  - the handout's files (labs/*/student/* and every exercise's `files`)
    and the gdb files a page shows (labs/*/*.gdb): their comments, a
    Python file's docstrings, and each line of a gdb file (the pages say
    "type its lines one at a time").
A bare expression counts when it has a shift or bitwise operator and a
number: prose writes "x0-x7" and "7 / 5", a formula writes `|` and `<<`.
Where it stands says which tools it is typed into (tools_of): a gdb
file's or a gdb exercise's text gdb-multiarch, a Python one's
/usr/bin/python3, a page either.
"""
import ast
import glob
import os
import re
import tokenize
import tomllib
from typing import Dict, List, NamedTuple, Optional, Tuple

from tests.prose import REPO, rst_prose

# (C) type of a cast: width in bits, signed
CAST = re.compile(r"\(\s*((?:(?:unsigned|signed|const|long|short|char|int|void|u8|u16|u32|u64|"
                  r"s8|s16|s32|s64|size_t|uintptr_t)\b\s*)+\**)\s*\)")
TOKEN = r"(?:0x[0-9a-fA-F]+|\d+|\$?[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*|\[\d+\])*)"
ATOM = r"(?:%s\s*)?[(~]*\s*%s\s*\)*" % (CAST.pattern, TOKEN)
OP = r"(?:<<|>>|\||&|\^|\+|-|\*|/|%)"
BARE = re.compile(r"(?:\b(?:p|print|output)/[a-z]+\s+)?%s(?:\s*%s\s*%s)+" % (ATOM, OP, ATOM))
STRONG = re.compile(r"<<|>>|\||&|\^|~")
NUMBER = re.compile(r"(?<![\w$])(?:0x[0-9a-fA-F]+|\d+)(?![\w.])")
STATED = re.compile(r"^\s*(?:``|`)?\s*(?:=|==|is|gives|equals)\s*(?:``|`)?(0x[0-9a-fA-F]+|\d+)\b")
ROLE = re.compile(r":[\w-]+:`[^`]*`")
LITERAL_RST = re.compile(r"``(.+?)``", re.S)
LITERAL_MD = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
PROMPT = re.compile(r"^\s*(\(gdb\)|>>>)\s+(.+)$", re.M)


class Typed(NamedTuple):
    where: str                # the file, and the text in it
    text: str                 # what the reader types, as written
    tools: Tuple[str, ...]    # where they type it, by where it stands
    context: str              # the paragraph it stands in
    stated: Optional[int]     # the value the text gives it, if any


# -- finding ---------------------------------------------------------------

def balanced(s: str) -> str:
    """The span without the parentheses of the prose around it."""
    s = s.strip()
    while s.count("(") > s.count(")") and s.startswith("("):
        s = s[1:].strip()
    while s.count(")") > s.count("(") and s.endswith(")"):
        s = s[:-1].strip()
    return s


def stated_after(text: str, end: int) -> Optional[int]:
    m = STATED.match(text[end:end + 60])
    return int(m.group(1), 0) if m else None


def from_text(where: str, text: str, tools: Tuple[str, ...], literal: "re.Pattern[str]",
              bare: bool = True) -> List[Typed]:
    """Literals and bare expressions of a text, paragraph by paragraph."""
    out = []
    text = re.sub(r"([-+|&*<>])``\s+``", r"\1 ", text)     # ``a +`` ``b``: one literal
    for par in re.split(r"\n\s*\n", text):
        flat = " ".join(par.split())
        masked = ROLE.sub(lambda m: " " * len(m.group(0)), flat)
        for m in literal.finditer(masked):
            out.append(Typed(where, m.group(1).strip(), tools, flat, stated_after(masked, m.end())))
        if not bare:
            continue
        prose = literal.sub(lambda m: " " * len(m.group(0)), masked)
        for m in BARE.finditer(prose):
            s = balanced(m.group(0))
            if STRONG.search(s) and NUMBER.search(s):
                out.append(Typed(where, s, tools, flat, stated_after(prose, m.end())))
    return out


def exercise_files(repo: str) -> Dict[str, List[str]]:
    """{exercise id: its files (paths from labs/)} of every steps.toml."""
    out = {}
    for p in glob.glob(os.path.join(repo, "labs", "*", "steps.toml")):
        for ex in tomllib.load(open(p, "rb")).get("exercise", []):
            out[ex["id"]] = ex.get("files", [])
    return out


def tools_of(files: List[str]) -> Tuple[str, ...]:
    kinds = {os.path.splitext(f)[1] for f in files}
    if kinds == {".gdb"}:
        return ("gdb",)
    if kinds == {".py"}:
        return ("python",)
    return ("gdb", "python")


# Keys of steps.toml that are data for a program, not text for a reader
MACHINE_KEYS = {"filter", "cmdline", "sources", "serial_expect", "serial_absent", "gdb_expect",
                "scenarios", "reports", "files", "check", "checks", "gdb", "id", "kernel"}


def toml_pieces(repo: str, path: str, files: Dict[str, List[str]]) -> List[Typed]:
    rel = os.path.relpath(path, repo)
    data = tomllib.load(open(path, "rb"))
    out: List[Typed] = []

    def walk(x, where, tools):
        if isinstance(x, dict):
            if "exercise" in x and isinstance(x["exercise"], str):     # a mistake
                tools = tools_of(files.get(x["exercise"], []))
            elif isinstance(x.get("files"), list):                     # an exercise
                tools = tools_of(x["files"])
            for k, v in x.items():
                if k not in MACHINE_KEYS:
                    walk(v, "%s.%s" % (where, k), tools)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, "%s[%d]" % (where, i), tools)
        elif isinstance(x, str) and " " in x:
            out.extend(from_text(where, x, tools, LITERAL_MD))
    walk(data, rel, ("gdb", "python"))
    return out


def comments(path: str) -> str:
    """The comments of a file (and a Python file's docstrings), as text."""
    src = open(path, errors="replace").read()
    if path.endswith(".py"):
        out = [tok.string.lstrip("#") for tok in tokenize.generate_tokens(iter(
            src.splitlines(True)).__next__) if tok.type == tokenize.COMMENT]
        out += [ast.get_docstring(n) or "" for n in ast.walk(ast.parse(src))
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))]
        return "\n\n".join(out)
    mark = "//" if path.endswith((".c", ".h")) else "#"
    lines = [ln.strip() for ln in src.splitlines()]
    return "\n".join(ln.lstrip(mark + "* /") if ln.startswith((mark, "/*", "*")) else ""
                     for ln in lines)


def typed_texts(repo: str = REPO) -> List[Typed]:
    """Everything a reader is told to type (above)."""
    out: List[Typed] = []
    files = exercise_files(repo)
    pages = (glob.glob(os.path.join(repo, "labs", "*", "*.rst")) +
             glob.glob(os.path.join(repo, "Documentation", "*.rst")) +
             [os.path.join(repo, "index.rst")])
    for p in sorted(pages):
        rel, text = os.path.relpath(p, repo), open(p).read()
        out.extend(from_text(rel, text, ("gdb", "python"), LITERAL_RST, bare=False))
        out.extend(t for t in from_text(rel, rst_prose(text), ("gdb", "python"), LITERAL_RST)
                   if not any(t.text == u.text and t.context == u.context for u in out))
        for m in PROMPT.finditer(text):
            out.append(Typed(rel, m.group(2).strip(), ("gdb",) if m.group(1) == "(gdb)"
                             else ("python",), m.group(0), None))
    tomls = (glob.glob(os.path.join(repo, "labs", "*", "mistakes*.toml")) +
             glob.glob(os.path.join(repo, "labs", "*", "steps.toml")))
    for p in sorted(tomls):
        out.extend(toml_pieces(repo, p, files))
    handout = set(glob.glob(os.path.join(repo, "labs", "*", "student", "*")) +
                  glob.glob(os.path.join(repo, "labs", "*", "*.gdb")) +
                  [os.path.join(repo, "labs", f) for fs in files.values() for f in fs])
    for p in sorted(f for f in handout if os.path.isfile(f)):
        tools = tools_of([p]) if p.endswith((".gdb", ".py")) else ("gdb", "python")
        out.extend(from_text(os.path.relpath(p, repo), comments(p), tools, LITERAL_MD))
        if p.endswith(".gdb"):
            out.extend(gdb_lines(os.path.relpath(p, repo), open(p).read()))
    return out


def gdb_lines(where: str, text: str) -> List[Typed]:
    """The commands of a gdb file, one a line (not its comments, nor its
    python ... end blocks); an `if`'s or a `while`'s condition as a print."""
    out, python = [], False
    for ln in text.splitlines():
        ln = ln.split("#")[0].strip() if not ln.lstrip().startswith("printf") else ln.strip()
        if python or ln == "python":
            python = ln != "end"
            continue
        ln = re.sub(r"^(?:if|while)\s+", "print ", ln)
        if ln:
            out.append(Typed(where, ln, ("gdb",), ln, None))
    return out
