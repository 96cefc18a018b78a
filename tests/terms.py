# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Each term of the glossary (Documentation/glossary.rst) is defined before
its first use on each page: the first time a page's prose says it, it is a
:term: link (which shows the definition), or the page says it only after
such a link.  Pure: tests/test_terms.py runs it on the pages."""
import glob
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Terms that are names or common words too: checked only where they are a
# word of their own (brk, ESR, TBI, MTE, KUnit).
CHECKED = ("brk", "ESR", "TBI", "MTE", "KUnit", "granule", "shadow memory", "HWASan",
           "stack depot", "redzone", "SLAB_TYPESAFE_BY_RCU", "replay_break")
# Terms that are identifiers, written as literals (``SLAB_TYPESAFE_BY_RCU``):
# a literal of the term alone is a use of it too
LITERAL = ("SLAB_TYPESAFE_BY_RCU", "replay_break")


def glossary(repo=REPO):
    text = open(os.path.join(repo, "Documentation", "glossary.rst")).read()
    return re.findall(r"^   (\S.*)$", text, re.M)


def prose(text):
    """The page without what is not prose: literals, code blocks, directives'
    bodies that are code, role targets and comments."""
    out, skip = [], None
    for ln in text.split("\n"):   # not splitlines(): line numbers stay the file's
        if skip is not None:
            if ln.strip() and len(ln) - len(ln.lstrip()) <= skip:
                skip = None
            else:
                out.append("")
                continue
        m = re.match(r"^(\s*)\.\. (code-block|literalinclude|include|raw|image|figure|"
                     r"toctree|list-table|glossary)::|^(\s*)\.\. \S", ln)
        if m or ln.rstrip().endswith("::") and not ln.strip().startswith(".. "):
            skip = len(ln) - len(ln.lstrip())
            out.append("" if m else ln)
            continue
        out.append(ln)
    for i in range(len(out) - 1):     # a section title: no links there
        if re.fullmatch(r"([=\-~^])\1{2,}", out[i + 1].strip()) and out[i].strip():
            out[i] = ""
    text = "\n".join(out)

    def blank(m):   # keeps the line breaks inside, so line numbers stay
        return " " + "\n" * m.group(0).count("\n")
    text = re.sub(r":(?!term:)\w+:`[^`]*`", blank, text)   # other roles: their text is a name
    text = re.sub(r"\*\*[^*]+\*\*|\*[^*\s][^*]*\*", blank, text)  # emphasis holds no link
    return re.sub(r"``[^`]*``", blank, text)                  # literals


def first_uses(text, terms):
    """{term: True if its first use is a :term: link} for the terms a page uses."""
    for t in LITERAL:
        text = text.replace("``%s``" % t, t)
    body = prose(text)
    out = {}
    for t in terms:
        link = re.search(r":term:`(?:[^`<]*<)?%s>?`" % re.escape(t), body, re.I)
        bare = re.search(r"(?<![\w`<-])%s(?![\w>-])" % re.escape(t),
                         re.sub(r":term:`[^`]*`", lambda m: "_" * len(m.group(0)), body))
        if bare or link:
            out[t] = bool(link) and (not bare or link.start() < bare.start())
    return out


def pages(repo=REPO):
    return sorted(glob.glob(os.path.join(repo, "labs", "*", "*.rst")) +
                  [os.path.join(repo, "Documentation", p) for p in (
                      "start.rst", "overview.rst", "tools.rst", "teacher.rst", "contributing.rst")]
                  + [os.path.join(repo, "index.rst")])


def problems(repo=REPO):
    terms = [t for t in glossary(repo) if t in CHECKED]
    bad = []
    for page in pages(repo):
        for t, ok in first_uses(open(page).read(), terms).items():
            if not ok:
                bad.append("%s: %r is used before a :term: link defines it"
                           % (os.path.relpath(page, repo), t))
    return bad
