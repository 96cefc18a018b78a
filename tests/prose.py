# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The prose a reader sees, as sentences: the pages (code and literal
blocks and comments left out), the patch notes, the READMEs, and every
text of the labs' steps.toml and mistakes*.toml and of the claim ledger.
Pure: tests/test_quotes.py and tests/test_quantities.py read it."""
import glob
import os
import re
import tomllib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def norm(text):
    return " ".join(text.replace("\\*", "*").split())


SKIP_BODY = re.compile(r"^(\s*)\.\. (?:code-block|literalinclude|include|raw|image|figure|"
                       r"toctree|math|highlight)::|^(\s*)\.\.(?: (?!\w[\w-]*::)|$)")


def rst_prose(text):
    """The page without code blocks, literal blocks and comments."""
    out, skip = [], None
    for ln in text.split("\n"):
        ind = len(ln) - len(ln.lstrip())
        if skip is not None:
            if ln.strip() and ind <= skip:
                skip = None
            else:
                out.append("")
                continue
        if SKIP_BODY.match(ln):
            skip = ind
            out.append("")
            continue
        if ln.rstrip().endswith("::") and not ln.strip().startswith(".. "):
            skip = ind
            ln = ln.rstrip()[:-1]
        out.append(ln)
    return "\n".join(out)


def md_prose(text):
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def toml_texts(path):
    """(where, text) of every string of a TOML file; a ledger row (source
    and claim) is one text, "SOURCE: CLAIM"."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out = []

    def walk(x, where):
        if isinstance(x, dict):
            if "source" in x and "claim" in x:
                out.append((where, "%s: %s" % (x["source"], x["claim"])))
                x = {k: v for k, v in x.items() if k not in ("source", "claim")}
            for k, v in x.items():
                walk(v, "%s.%s" % (where, k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, "%s[%d]" % (where, i))
        elif isinstance(x, str) and " " in x:
            out.append((where, x))
    walk(data, os.path.relpath(path, REPO))
    return out


def texts(repo=REPO):
    """(where, text) of everything a reader sees that can quote a source."""
    out = []
    pages = (glob.glob(os.path.join(repo, "Documentation", "*.rst")) +
             glob.glob(os.path.join(repo, "labs", "*", "*.rst")) +
             glob.glob(os.path.join(repo, "patches", "v9", "notes", "*.rst")) +
             [os.path.join(repo, "index.rst")])
    for p in sorted(pages):
        out.append((os.path.relpath(p, repo), rst_prose(open(p).read())))
    for p in (os.path.join(repo, "README.md"), os.path.join(repo, "labs", "README.md")):
        if os.path.exists(p):
            text = open(p).read()
            if os.path.exists(os.path.join(repo, "labs", "HANDOUT")):
                # a student tree's README lists the labs' objectives, which
                # are their steps.toml texts (read below, as a lab's)
                text = text.split("\n## The labs, in order\n")[0]
            out.append((os.path.relpath(p, repo), md_prose(text)))
    tomls = (glob.glob(os.path.join(repo, "labs", "*", "steps.toml")) +
             glob.glob(os.path.join(repo, "labs", "*", "mistakes*.toml")) +
             [os.path.join(repo, "Documentation", "claims.toml")])
    for p in sorted(tomls):
        out.extend(toml_texts(p))
    return out


PROTECT = re.compile(r'"[^"\n]*"|``[^`]*``|:\w+:`[^`]*`')


# A line that starts a list item: a sentence never runs from one item into the next
ITEM = re.compile(r"\n(?=[ \t]*(?:[-*+]|\d+\.|#\.)[ \t])")


def sentences(text):
    """The sentences of a text: paragraphs and list items flattened, split
    after . ! ? (never inside a quotation or a literal)."""
    for par in (item for p in re.split(r"\n\s*\n", text) for item in ITEM.split(p)):
        flat = norm(par)
        if not flat:
            continue
        keep = []

        def hide(m):
            keep.append(m.group(0))
            return "\x00%d\x00" % (len(keep) - 1)
        masked = PROTECT.sub(hide, flat)
        for s in re.split(r"(?<=[.!?])\)?\s+(?=[A-Z*(:`\x00\"])", masked):
            yield re.sub(r"\x00(\d+)\x00", lambda m: keep[int(m.group(1))], s)
