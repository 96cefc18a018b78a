# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What a reader is told to type (tests/typed.py finds it), read and typed
into the tool they type it into (issue 51, method 2).
`python3 -m tests.typed_eval` prints the inventory.

Each expression found is one of:
  - evaluated: its names are all known inputs (INPUTS, POINTERS), so it is
    typed into each tool of where it stands (gdb-multiarch with `set
    architecture aarch64`, /usr/bin/python3), narrowed by its syntax (a
    cast or a `$` is gdb's, `//` or `**` Python's), and compared with its
    value on paper (exact integers, a cast truncating), with the value the
    text states for it ("``E`` = ``V``") and, for a shadow formula, with
    the kernel's map (gdb-scripts/kasan/tags.py).  A pointer is a tagged
    one, as kasan_report's x0, unless the text says its tag was reset;
  - live, by a rule (COMMANDS, live_reason): it reads a register, a
    convenience variable, the target's memory or a value of the code it
    stands in, which no kernel here has.  Its constant parts are typed in
    all the same: `0xff << 56` is 0 in gdb wherever it stands.
A CONFIG_ option that INPUTS does not know is neither: the test fails.
"""
import ast
import json
import os
import re
import subprocess
import sys
from typing import Dict, List, NamedTuple, Optional, Tuple

from kasan import tags
from kasan.modes import SW_TAGS
from tests.typed import CAST, TOKEN, Typed, typed_texts
from vm.gdb import GDB

PYTHON = "/usr/bin/python3"
MASK64 = (1 << 64) - 1
OFFSET = 0xEFFFFFC000000000         # the swtags kernel's CONFIG_KASAN_SHADOW_OFFSET
ADDR = 0x05FFFF8000B9B200           # a tagged pointer, as kasan_report's x0 holds one
POINTERS = ("addr", "address", "ptr", "pointer")
# A pointer is the tagged ADDR, unless the text says its tag was reset first
UNTAGGED = re.compile(r"tag (?:set|reset) to 0xff|untagged|with the tag (?:reset|cleared)", re.I)
INPUTS = {"CONFIG_KASAN_SHADOW_OFFSET": OFFSET}

# The first word of a gdb command that acts on a target: why it needs a kernel
COMMANDS = [
    (r"x|examine", "reads the target's memory"),
    (r"break|tbreak|hbreak|watch|rwatch|awatch|delete|condition",
     "sets or clears a stop on the target"),
    (r"continue|finish|step|stepi|si|next|nexti|ni|until|advance|jump|reverse-\w+",
     "runs the target"),
    (r"bt|backtrace|frame|info|disassemble", "reads the stopped target"),
    (r"monitor|maint|maintenance", "talks to QEMU's gdb stub"),
    (r"source(?=\s+\S+\.(?:gdb|py)\b)", "runs a file of commands on the target"),
    (r"kasan-(?!decode)[\w-]+|lx-[\w-]+", "a command of gdb-scripts/ or the kernel's "
     "scripts/gdb: it reads a kernel (its memory, its build tree or a replay)"),
    (r"add-symbol-file|symbol-file", "loads a kernel's symbols"),
]
# (Words that are also English or names -- run, start, list, file, target,
# record -- are not taken for commands when they stand alone; kasan-decode
# is a shell command, on a log.)
# a command word, its /FMT, then nothing or an argument (not an operator: `x + 1`)
COMMAND = re.compile(r"^(?:%s)(?:/\w+)?(?=$|\s+(?![-+*/%%|&^<>=]\s))" % "|".join(
    c for c, _ in COMMANDS))
PRINT = re.compile(r"^(?:p|print|output|call|inspect)(?:/\w+)?\s+(?![-+*/%|&^<>=!]=?\s)(.+)$")
PRINTF = re.compile(r'^printf\s+"(?:[^"\\]|\\.)*"\s*,\s*(.+)$')
SET = re.compile(r"^set\s+(?:var(?:iable)?\s+)?\$\w+\s*=\s*(.+)$")
REGISTER = re.compile(r"^(?:x\d+|w\d+|pc|sp|lr|fp|cpsr)$")


def width(ctype: str) -> Tuple[int, bool]:
    """(bits, signed) of a C type a cast names."""
    t = ctype.split()
    if ctype.endswith("*"):
        return 64, False
    signed = "unsigned" not in t and not any(w.startswith("u") and w[1:].isdigit() for w in t)
    for w in t:
        if w[1:].isdigit():
            return int(w[1:]), signed
    if "char" in t:
        return 8, signed
    if "short" in t:
        return 16, signed
    if "long" in t or "size_t" in t or "uintptr_t" in t:
        return 64, signed
    return 32, signed


def to_python(expr: str) -> Tuple[str, List[str]]:
    """A C/gdb expression as Python source: a cast `(T)x` becomes
    `_cast_N(x)` (N: its index in the list returned), `$v` `_gdb_v`, `->` `.`."""
    casts: List[str] = []
    while True:
        m = CAST.search(expr)
        if not m:
            break
        rest, i = expr[m.end():].lstrip(), 0
        if rest.startswith("("):
            depth = 0
            for i, ch in enumerate(rest):
                depth += {"(": 1, ")": -1}.get(ch, 0)
                if depth == 0:
                    break
            i += 1
        else:
            t = re.match(r"~*\s*" + TOKEN, rest)
            i = t.end() if t else 0
        casts.append(" ".join(m.group(1).split()))
        expr = "%s_cast_%d(%s)%s" % (expr[:m.start()], len(casts) - 1, rest[:i], rest[i:])
    return expr.replace("->", ".").replace("$", "_gdb_"), casts


class Parsed(NamedTuple):
    tree: ast.expr
    source: str               # the Python form the tree was parsed from
    casts: List[str]


# What reads as an expression but is not one: a name with dashes
# (kmalloc-128), a path (tests/check.py, i/n), a flag or a command line
# (--cold-ci, make -j), a percentage (~260% overhead)
NOT_EXPR = re.compile(r"^[A-Za-z_][\w.]*(?:-[\w.]+)+$|^[\w.~$<>*-]*(?:/[\w.~$<>*@-]*)+$|"
                      r"^-|^\S+\s+--?[A-Za-z]|\d%")
NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Attribute,
         ast.Subscript, ast.Call, ast.Load, ast.USub, ast.UAdd, ast.Invert) + \
    tuple(BINARY_OPS := (ast.Add, ast.Sub, ast.Mult, ast.Mod, ast.LShift, ast.RShift, ast.BitOr,
                         ast.BitAnd, ast.BitXor, ast.FloorDiv, ast.Pow, ast.Div))


def parse(expr: str) -> Optional[Parsed]:
    """An arithmetic expression with an operator, or None (a name, a
    number, a path, a phrase)."""
    if NOT_EXPR.search(expr):
        return None
    src, casts = to_python(expr)
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError:
        return None
    if any(not isinstance(n, NODES) or isinstance(n, ast.Constant) and
           not isinstance(n.value, int) for n in ast.walk(tree)):
        return None
    if not any(isinstance(n, ast.BinOp) or isinstance(n, ast.UnaryOp) and
               isinstance(n.op, ast.Invert) for n in ast.walk(tree)):
        return None         # a name, a number, an offset (+128)
    return Parsed(tree.body, src, casts)


def cast_call(n: ast.AST) -> Optional[int]:
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
            n.func.id.startswith("_cast_") and len(n.args) == 1:
        return int(n.func.id[len("_cast_"):])
    return None


def names(tree: ast.AST) -> List[str]:
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                   and not n.id.startswith("_cast_")})


BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
          ast.Mult: lambda a, b: a * b, ast.Mod: lambda a, b: a % b,
          ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
          ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
          ast.BitXor: lambda a, b: a ^ b, ast.FloorDiv: lambda a, b: a // b,
          ast.Pow: lambda a, b: a ** b,
          ast.Div: lambda a, b: (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)}


def paper(n: ast.AST, env: Dict[str, int], casts: List[str]) -> int:
    """The value on paper: exact integers, a cast truncating to its type.
    KeyError when it names something env does not hold."""
    if isinstance(n, ast.Constant) and isinstance(n.value, int):
        return n.value
    if isinstance(n, ast.Name) and n.id in env:
        return env[n.id]
    if isinstance(n, ast.BinOp) and type(n.op) in BINARY:
        return BINARY[type(n.op)](paper(n.left, env, casts), paper(n.right, env, casts))
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.Invert, ast.UAdd)):
        v = paper(n.operand, env, casts)
        return {ast.USub: -v, ast.Invert: ~v, ast.UAdd: v}[type(n.op)]
    c = cast_call(n)
    if c is not None:
        bits, signed = width(casts[c])
        v = paper(n.args[0], env, casts) & ((1 << bits) - 1)      # type: ignore[attr-defined]
        return v - (1 << bits) if signed and v >> (bits - 1) else v
    raise KeyError(ast.dump(n))


def live_reason(p: Parsed) -> Optional[str]:
    """Why the expression needs a live kernel, or None if every name is an input."""
    for n in ast.walk(p.tree):
        if isinstance(n, ast.Call) and cast_call(n) is None:
            return "calls a function"
        if isinstance(n, (ast.Attribute, ast.Subscript)):
            return "reads a field or an element of the code's data"
    for name in names(p.tree):
        bare = name[len("_gdb_"):] if name.startswith("_gdb_") else name
        if REGISTER.match(bare):
            return "reads a register of the stopped CPU (%s)" % bare
        if name.startswith("_gdb_"):
            return "reads a convenience variable a command before it set on the target ($%s)" % bare
        if name.startswith("CONFIG_") and name not in INPUTS:
            continue
        if name not in INPUTS and name not in POINTERS:
            return ("names %s, a value of the code it stands in (a symbol, a variable, "
                    "an argument), not a number the text gives" % name)
    return None


def constant_parts(p: Parsed) -> List[ast.AST]:
    """The largest operations of the tree that name nothing."""
    out: List[ast.AST] = []

    def visit(n):
        if isinstance(n, (ast.BinOp, ast.UnaryOp)) or cast_call(n) is not None:
            try:
                paper(n, {}, p.casts)
                if isinstance(n, (ast.BinOp, ast.UnaryOp)):
                    out.append(n)
                    return
            except KeyError:
                pass
        for c in ast.iter_child_nodes(n):
            visit(c)
    visit(p.tree)
    return out


def as_written(p: Parsed, n: ast.AST) -> str:
    """The C/gdb text of a node of the Python form: casts put back."""
    seg = ast.get_source_segment(p.source, n) or ""
    while "_cast_" in seg:
        seg = re.sub(r"_cast_(\d+)\(", lambda m: "(%s)(" % p.casts[int(m.group(1))], seg, 1)
    return seg.replace("_gdb_", "$")


def syntax_tools(expr: str) -> Tuple[str, ...]:
    if CAST.search(expr) or "$" in expr or "->" in expr:
        return ("gdb",)
    if re.search(r"//|\*\*|\.bit_length|\b(?:and|or|not|True|False)\b", expr):
        return ("python",)
    return ("gdb", "python")


def expressions(t: Typed) -> Tuple[List[str], Optional[str]]:
    """The expressions a typed text holds, and why it needs a target if it does."""
    s = t.text
    m = PRINT.match(s) or SET.match(s)
    if m:
        return [m.group(1)], None
    m = PRINTF.match(s)
    if m:
        args, depth, cur = [], 0, ""
        for ch in m.group(1):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                args.append(cur)
                cur = ""
            else:
                cur += ch
        return [a.strip() for a in args + [cur]], None
    m = COMMAND.match(s)
    if m:
        word = m.group(0).split("/")[0]
        why = next(r for c, r in COMMANDS if re.match("(?:%s)(?![\\w-])" % c, s))
        return [], "gdb `%s` %s" % (word, why)
    return [s], None


# -- typing it in ----------------------------------------------------------

class Check(NamedTuple):
    typed: Typed
    expr: str                 # what is typed, inputs put in
    tools: Tuple[str, ...]
    want: int                 # its value on paper
    refs: List[Tuple[str, int]]   # what else it must equal: (what, value)


def inputs_for(t: Typed, used: List[str]) -> Dict[str, int]:
    ptr = tags.untag(ADDR) if UNTAGGED.search(t.context) else ADDR
    env = dict(INPUTS)
    env.update({n: ptr for n in POINTERS if n in used})
    return env


def put_in(expr: str, env: Dict[str, int]) -> str:
    for name, v in env.items():
        expr = re.sub(r"(?<![\w$.>])%s(?![\w(])" % re.escape(name), "0x%x" % v, expr)
    return expr


def plan(items: List[Typed]) -> Tuple[List[Check], List[Tuple[Typed, str]], List[str]]:
    """(what to type and check, what needs a kernel and why, what is wrong
    before anything is typed)."""
    checks: List[Check] = []
    live: List[Tuple[Typed, str]] = []
    wrong: List[str] = []
    for t in items:
        exprs, why = expressions(t)
        if why:
            live.append((t, why))
        for e in exprs:
            p = parse(e)
            if p is None:
                continue
            tools = tuple(x for x in t.tools if x in syntax_tools(e))
            if not tools:
                wrong.append("%s: `%s` is written for %s, and stands where one types into %s" % (
                    t.where, e, "/".join(syntax_tools(e)), "/".join(t.tools)))
                continue
            unknown = [n for n in names(p.tree) if n.startswith("CONFIG_") and n not in INPUTS]
            if unknown:
                wrong.append("%s: `%s` names %s, whose value INPUTS does not know" % (
                    t.where, e, ", ".join(unknown)))
                continue
            reason = live_reason(p)
            if reason:
                live.append((t, reason))
                for n in constant_parts(p):
                    part = as_written(p, n)
                    checks.append(Check(t, part, tools, paper(n, {}, p.casts), []))
                continue
            env = inputs_for(t, names(p.tree))
            refs = [("the value the text states", t.stated)] if t.stated is not None else []
            if "CONFIG_KASAN_SHADOW_OFFSET" in names(p.tree):
                refs.append(("the kernel's map of 0x%x" % env.get("addr", env.get(
                    "address", ADDR)), tags.mem_to_shadow(
                    tags.untag(ADDR), tags.Params(SW_TAGS.name, OFFSET))))
            checks.append(Check(t, put_in(e, env), tools, paper(p.tree, env, p.casts), refs))
    return checks, live, wrong


GDB_SCRIPT = r'''
python
import json
out = []
for e in json.load(open(%r)):
    try:
        out.append(gdb.execute('printf "%%lx\\n", ' + e, to_string=True).strip())
    except gdb.error as x:
        out.append("error: %%s" %% x)
print("KT-TYPED " + json.dumps(out))
end
'''
PY_SCRIPT = r'''
import json, sys
out = []
for e in json.load(open(sys.argv[1])):
    try:
        v = eval(e, {"__builtins__": {}})
        out.append(hex(v) if isinstance(v, int) else "not an integer: %r" % (v,))
    except Exception as x:
        out.append("error: %s: %s" % (type(x).__name__, x))
print("KT-TYPED " + json.dumps(out))
'''


def type_in(tool: str, exprs: List[str], tmp: str) -> List[str]:
    """What the tool prints for each expression (gdb: its last line, and a
    warning before it; Python: hex() of the value)."""
    data = os.path.join(tmp, "typed-%s.json" % tool)
    json.dump(exprs, open(data, "w"))
    if tool == "gdb":
        script = os.path.join(tmp, "typed.gdb")
        open(script, "w").write(GDB_SCRIPT % data)
        cmd = [GDB, "-q", "-batch", "-nx", "-ex", "set architecture aarch64", "-x", script]
    else:
        cmd = [PYTHON, "-I", "-c", PY_SCRIPT, data]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("KT-TYPED ")), None)
    if line is None:
        raise RuntimeError("%s printed no result: %s" % (tool, p.stderr[-2000:]))
    return json.loads(line[len("KT-TYPED "):])


def value_of(tool: str, printed: str) -> Optional[int]:
    last = printed.strip().splitlines()[-1] if printed.strip() else ""
    try:
        return int(last, 16)
    except ValueError:
        return None


def findings(checks: List[Check], tools: Tuple[str, ...], tmp: str) -> List[str]:
    """What the tools and the references say against each check."""
    bad = []
    for c in checks:
        for what, v in c.refs:
            if v != c.want:
                bad.append("%s: `%s` is 0x%x on paper, %s is 0x%x" % (
                    c.typed.where, c.typed.text, c.want, what, v))
    for tool in tools:
        mine = [c for c in checks if tool in c.tools]
        for c, printed in zip(mine, type_in(tool, [c.expr for c in mine], tmp)):
            got = value_of(tool, printed)
            want = c.want & MASK64 if tool == "gdb" else c.want
            if got != want:
                bad.append("%s: `%s` typed into %s gives %s, on paper 0x%x" % (
                    c.typed.where, c.expr, tool, " / ".join(printed.splitlines()) or "nothing",
                    want))
    return bad


def inventory(items: List[Typed]) -> List[str]:
    checks, live, wrong = plan(items)
    out = ["typed and checked (%s): %s: %s" % ("/".join(c.tools), c.typed.where, c.expr)
           for c in checks]
    out += ["needs a kernel: %s: `%s`: %s" % (t.where, t.text, why) for t, why in live]
    return out + ["WRONG: " + w for w in wrong]


if __name__ == "__main__":
    sys.stdout.write("\n".join(inventory(typed_texts())) + "\n")
