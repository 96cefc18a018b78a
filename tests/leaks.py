# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The student site's leak test: no exercise's answer on a student page, in
any form this module knows.  The answers are read from the solution tree,
never typed here:

  pair     a TOML answer `key = value` of an exercise's solution region
           (student/*.toml), or of a lab's grader-only file (answers.toml:
           each table's function/kind or its scenario's cause/fix).  Its
           context is the key -- or, where the same key answers in several
           files (lab 3's bug, cause...), the file's or table's own name.
  line     a code line of a solution region (.py, .gdb, .c).
  rare     an answer value that appears nowhere in a student tree but in
           the answers (lab 3's mystery functions): seen at all, it leaked.
  teacher  a sentence of a page's `.. only:: teacher` block.
  formula  an expression of a solution line (two operators or more, a name
           among its operands), in prose, a code line or a picture's label:
           names, spacing, parentheses and the way a power of two is
           written (<< 4, * 16, x 16; >> 4, / 16, // 16) do not matter.
           A line marked `# kt-public` computes what the glossary defines
           (a pointer's tag, untagging), and the pages that reproduce the
           kernel's own code (the series and its 6.1 lineage), which the
           exercises send the student to read, are not searched for it.

The forms a pair leaks in, on the text of a rendered page: the TOML line
itself; or its context and value in one table row, one line of a code
block, or one sentence -- unless that unit also names another value the
same question allows (an enumeration of the choices, as an exercise's
statement gives).  Pure: tests/test_leaks.py plants each form."""
import glob
import html
import html.parser
import os
import re
import tomllib

from classroom import handout
from labs import lab as labdata

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIR = re.compile(r'^\s*([\w.-]+)\s*=\s*("?)([^"#]*)\2\s*(?:#.*)?$')


# ------------------------------------------------------------ the answers

def toml_pairs(text):
    """[(key, value)] of `key = value` lines (value unquoted, as text)."""
    return [(m.group(1), m.group(3).strip()) for m in map(PAIR.match, text.splitlines()) if m]


def exercise_answers(repo=REPO):
    """{(kind, ...)} of every exercise's solution regions (pair, line) and
    choice sets {context-free key: values} for the enumeration rule."""
    pairs, lines = [], []
    for x in labdata.load_all(os.path.join(repo, "labs")):
        for ex in x.exercises:
            for rel in ex["files"]:
                text = open(os.path.join(repo, rel), errors="replace").read()
                for eid, body in handout.regions(text, rel):
                    if eid != ex["id"]:
                        continue
                    if rel.endswith(".toml"):
                        stem = os.path.splitext(os.path.basename(rel))[0]
                        pairs += [(ex["id"], stem, k, v) for k, v in toml_pairs("\n".join(body))]
                    else:
                        if rel.endswith(".patch"):
                            # a diff's answer is the code it adds, without its '+'
                            body = [ln[1:] for ln in body
                                    if ln.startswith("+") and not ln.startswith("+++")]
                        lines += [(ex["id"], ln.strip()) for ln in body
                                  if len(ln.strip()) > 12 and not ln.strip().startswith(
                                      ("#", "/*", "*", "//"))]
        for rel in x.spec.get("grader_only", []):
            if rel.endswith(".toml"):
                pairs += grader_pairs(x, rel)
    return pairs, lines


def grader_pairs(x, rel):
    """A grader-only TOML: [[site]] function/kind rows and [scenario] tables."""
    with open(x.path(rel), "rb") as f:
        data = tomllib.load(f)
    out = []
    for name, val in data.items():
        rows = val if isinstance(val, list) else [val]
        for row in rows:
            if not isinstance(row, dict):
                continue
            label = row.get("function") or name
            out += [("%d grader" % x.number, label, k, str(v)) for k, v in row.items()
                    if k not in ("function", "why", "exercise") and isinstance(v, str)]
    return out


def contexts(pairs):
    """[(exercise, context, key, value, other choices)]: a key that answers in one
    file is its own context, and the file's other values are the choices (lab
    5's outcomes); a key that repeats (bug, cause) takes the file's name, and
    its values in the other files are the choices.  A grader-only row is
    named by its own label (the function it classifies)."""
    files_of, by_key, by_stem = {}, {}, {}
    for _, stem, k, v in pairs:
        files_of.setdefault(k, set()).add(stem)
        by_key.setdefault(k, set()).add(v)
        by_stem.setdefault(stem, set()).add(v)
    out = []
    for eid, stem, k, v in pairs:
        if len(files_of[k]) > 1 or eid.endswith("grader"):
            out.append((eid, stem, k, v, by_key[k] - {v}))
        else:
            out.append((eid, k, k, v, by_stem[stem] - {v}))
    return out


def teacher_sentences(repo=REPO):
    """[(page, sentence)] of the teacher blocks of the pages (labs/*/*.rst,
    Documentation/*.rst): plain sentences of 8 words or more (no markup,
    which renders otherwise), that the student's text of the page lacks."""
    out = []
    for page in sorted(glob.glob(os.path.join(repo, "labs", "*", "*.rst")) +
                       glob.glob(os.path.join(repo, "Documentation", "*.rst"))):
        text = open(page).read()
        kept = norm(handout.strip_teacher(text))
        for block in teacher_blocks(text):
            prose = " ".join(ln for ln in block.splitlines() if not ln.startswith((".. ", ":")))
            for sent in sentences(prose):
                sent = re.sub(r"\s+\d+\.$", "", re.sub(r"^\d+\.\s+", "", sent))
                if len(sent.split()) >= 8 and not re.search(r":\w+:`|[|<>\\]|\]_|`_", sent) \
                        and norm(sent) not in kept:
                    out.append((os.path.relpath(page, repo), sent))
    return out


def norm(text):
    """Words only, lower case: text as rendered and as written compare equal."""
    return " ".join(re.findall(r"\w+", text.lower()))


def teacher_blocks(text):
    blocks, cur, indent = [], None, 0
    for ln in text.splitlines():
        m = handout.TEACHER.match(ln)
        if m:
            cur, indent = [], len(m.group("indent"))
            blocks.append(cur)
            continue
        if cur is not None:
            if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
                cur = None
            else:
                cur.append(ln.strip())
    return ["\n".join(b) for b in blocks]


# ------------------------------------------------------------ a page's text

class Units(html.parser.HTMLParser):
    """The text of a page in units: each table row, each line of a <pre>,
    each sentence of the rest."""
    BLOCK = {"p", "li", "dd", "dt", "h1", "h2", "h3", "h4", "figcaption", "div", "td", "th"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.units, self.buf, self.pre, self.row = [], [], 0, None
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag == "pre":
            self.flush()
            self.pre += 1
        elif tag == "tr":
            self.flush()
            self.row = []
        elif tag in self.BLOCK and self.row is None and not self.pre:
            self.flush()

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        elif tag == "pre":
            self.units += "".join(self.buf).splitlines()
            self.buf, self.pre = [], self.pre - 1
        elif tag == "tr" and self.row is not None:
            if "".join(self.buf).strip():
                self.row.append("".join(self.buf))
            self.units.append(" | ".join(x.strip() for x in self.row))
            self.buf, self.row = [], None
        elif tag in ("td", "th") and self.row is not None:
            self.row.append("".join(self.buf))
            self.buf = []
        elif tag in self.BLOCK and self.row is None and not self.pre:
            self.flush()

    def handle_data(self, data):
        if not self.skip:
            self.buf.append(data)

    def flush(self):
        text = " ".join("".join(self.buf).split())
        self.buf = []
        if text:
            self.units += sentences(text)


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.;:!?])\s+(?=[A-Z(`*])", " ".join(text.split()))
            if s.strip()]


def units(page_html):
    p = Units()
    p.feed(page_html)
    p.flush()
    return [u for u in p.units if u.strip()]


# ------------------------------------------------------------ the test

def word(text, w):
    """w in text as a whole token (names have -, _ and . inside them)."""
    return re.search(r"(?<![\w.-])%s(?![\w-])" % re.escape(w), text) is not None


def distinctive(val):
    """A value that is a term of its own (dies-at-bug, use-after-free,
    kmalloc-256, mystery_table_fill), not a word of any sentence."""
    return len(val) >= 5 and re.search(r"[-_0-9]", val) is not None


def pair_leaks(us, facts, common=frozenset()):
    """The TOML line anywhere; context and value in one unit, for a value
    that is distinctive or not common on the site (COMMON: in many units)."""
    found = []
    for eid, ctx, key, val, others in facts:
        if not val or len(val) < 3 or val in ("true", "false"):
            continue
        near = distinctive(val) or val not in common
        for u in us:
            # TOML quotes a string: `cache=kmalloc-128` in a log is no TOML line
            quoted = "%s" if re.fullmatch(r"-?\d+", val) else '"%s"'
            if re.search(r"(?<![\w.-])%s\s*=\s*%s(?![\w-])" % (
                    re.escape(key), quoted % re.escape(val)), u):
                found.append((eid, "%s = %s" % (key, val), u))
            elif near and word(u, ctx) and word(u, val) and not any(word(u, o) for o in others):
                found.append((eid, "%s ... %s" % (ctx, val), u))
    return found


def common_words(pages_units, values, limit=6):
    """The values found in more than LIMIT units of the whole site."""
    return frozenset(v for v in values
                     if sum(word(u, v) for us in pages_units for u in us) > limit)


def line_leaks(us, lines):
    norm = {" ".join(u.split()) for u in us}
    return [(eid, "code", ln) for eid, ln in lines if " ".join(ln.split()) in norm]


def rare_values(pairs, student_texts):
    """Values of the answers (names of 6+ characters) no student file says."""
    vals = {v for _, _, _, v in pairs if re.fullmatch(r"[A-Za-z_][\w.-]{5,}", v)}
    return {v for v in vals if not any(v in t for t in student_texts)}


def student_tree_texts(repo=REPO):
    """What a student tree holds: each file as make handout writes it."""
    out = []
    left = set(handout.solution_only())
    for rel in handout.tree_files():
        if rel in left or rel.startswith(("build/",)) or "/runs/" in rel:
            continue
        try:
            text = open(os.path.join(repo, rel), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        out.append(handout.student_text(rel, text))
    return out


# ------------------------------------------------------------ formulas

TOKEN = re.compile(r"0x[0-9a-fA-F]+|\d+|[A-Za-z_][\w.]*\(?|<<|>>|//|\*\*|[-+*/&|^~()%<>\u2212\u00d7\u00f7]")
OPERATORS = {"+", "-", "*", "/", "&", "|", "^", "%"}


def number(t):
    return int(t, 16) if t[:2] in ("0x", "0X") else int(t, 10)


def formula_tokens(text):
    """text as a formula's tokens: every name X (F when called), numbers
    in decimal (a power of two as S and its exponent), one
    spelling per operator, a shift by a number as * or / its power of two,
    no parentheses."""
    raw = TOKEN.findall(text.replace("\u2212", "-").replace("\u00d7", "*").replace("\u00f7", "/"))
    out = []
    for i, t in enumerate(raw):
        if t in ("(", ")"):
            continue
        if t in ("<<", ">>") and i + 1 < len(raw) and re.fullmatch(r"0x[0-9a-fA-F]+|\d+", raw[i + 1]):
            out += ["*" if t == "<<" else "/", "S%d" % number(raw[i + 1])]
            raw[i + 1] = ""
        elif t == "//":
            out.append("/")
        elif re.fullmatch(r"0x[0-9a-fA-F]+|\d+", t):
            n = number(t)
            out.append("S%d" % (n.bit_length() - 1) if n > 1 and n & (n - 1) == 0 else str(n))
        elif t:
            out.append(("F" if t.endswith("(") else "X") if re.match(r"[A-Za-z_]", t) else t)
    return out


def formulas(lines):
    """[(exercise, expression, tokens)] of the solution lines' expressions
    with two operators or more and a name among their operands."""
    import ast
    out = []
    for eid, ln in lines:
        if re.search(r"#\s*kt-public", ln):
            continue
        src = re.sub(r"^(return|if|while|elif)\s+|:$|;$", "", ln.strip())
        src = src.split("=", 1)[1] if re.match(r"[\w.\[\]]+\s*=[^=]", src) else src
        try:
            tree = ast.parse(src.strip(), mode="eval")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            ops = [n for n in ast.walk(node) if isinstance(n, (ast.BinOp, ast.BoolOp))]
            names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
            if isinstance(node, ast.BinOp) and len(ops) >= 2 and names:
                expr = ast.unparse(node)
                out.append((eid, expr, formula_tokens(expr)))
    return out


def contains(seq, sub):
    n = len(sub)
    return any(seq[i:i + n] == sub for i in range(len(seq) - n + 1))


def formula_leaks(us, forms):
    """[(exercise, "formula", expression)] of the forms some unit states."""
    found = []
    for eid, expr, toks in forms:
        if any(contains(formula_tokens(u), toks) for u in us):
            found.append((eid, "formula", expr))
    return found


# pages of the kernel's own text: the v9 patches and their 6.1 descendants
KERNEL_TEXT = (os.path.join("build", "gen", "series") + os.sep,
               os.path.join("build", "gen", "lineage") + os.sep)


def svg_labels(page_html):
    """Each <text> of the page's pictures, a unit of its own."""
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", page_html)]


def site_leaks(site, pairs, lines, rare, teacher):
    """[(page, exercise, form, where)] of every leak on the student site."""
    facts = contexts(pairs)
    pages = []
    for page in sorted(glob.glob(os.path.join(site, "**", "*.html"), recursive=True)):
        rel = os.path.relpath(page, site)
        if not rel.startswith(("_", "genindex", "search")):
            text = open(page, errors="replace").read()
            pages.append((rel, text, units(text)))
    common = common_words([us for _, _, us in pages], {f[3] for f in facts})
    found = []
    forms = formulas(lines)
    for rel, text, us in pages:
        found += [(rel,) + f for f in pair_leaks(us, facts, common) + line_leaks(us, lines)]
        if not rel.startswith(KERNEL_TEXT):
            found += [(rel,) + f for f in formula_leaks(us + svg_labels(text), forms)]
        plain = html.unescape(re.sub(r"<[^>]+>", " ", text))
        found += [(rel, "answer", "rare value", v) for v in sorted(rare) if word(plain, v)]
        joined = norm(" ".join(us))
        found += [(rel, "teacher", src, s) for src, s in teacher if norm(s) in joined]
        # a folded block (<details>) hides nothing: its text is on the page
        found += [(rel, "folded", "a <details> block", m) for m in re.findall(
            r"<details[^>]*>\s*<summary>([^<]{0,60})", text)]
    return found


def site_text(site):
    """Words of every page of SITE, joined (norm)."""
    return " ".join(norm(" ".join(units(open(p, errors="replace").read())))
                    for p in glob.glob(os.path.join(site, "**", "*.html"), recursive=True))


def answers(teacher_site, repo=REPO):
    """(pairs, code lines, rare values, teacher sentences) to look for.  A
    code line any student file also has (a stub's own line) is no answer; a
    teacher sentence counts if the teacher edition TEACHER_SITE renders it
    (else no page could show it in that form)."""
    pairs, lines = exercise_answers(repo)
    texts = student_tree_texts(repo)
    lines = [(e, ln) for e, ln in lines if not any(ln in t for t in texts)]
    shown = site_text(teacher_site)
    teacher = [(p, t) for p, t in teacher_sentences(repo) if norm(t) in shown]
    return pairs, lines, rare_values(pairs, texts), teacher


def check(site, teacher_site, repo=REPO):
    """(leaks on the student site SITE, what was looked for: {form: count})."""
    pairs, lines, rare, teacher = answers(teacher_site, repo)
    counts = {"answer pairs": len(pairs), "code lines": len(lines), "rare values": len(rare),
              "teacher sentences": len(teacher)}
    return site_leaks(site, pairs, lines, rare, teacher), counts


def planted(site, repo=REPO):
    """A copy of one real student page with one real answer line planted:
    the leaks found on it (make check asserts there is one)."""
    import shutil
    import tempfile
    pairs, _ = exercise_answers(repo)
    eid, stem, k, v = next(p for p in pairs if distinctive(p[3]))
    src = next(iter(sorted(glob.glob(os.path.join(site, "labs", "*", "index.html")))))
    tmp = tempfile.mkdtemp(prefix="kt-leak-")
    try:
        text = open(src, errors="replace").read()
        with open(os.path.join(tmp, "page.html"), "w") as f:
            f.write(text.replace("</body>", '<pre>%s = "%s"\n</pre></body>' % (k, v)))
        return site_leaks(tmp, pairs, [], set(), [])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
