# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every sentence about our own code or runs is checked against them
(issue 51, method 3).

A sentence a reader sees (tests/prose.py: the pages, the patch notes, the
READMEs, the labs' TOML texts, the claim ledger) that says what this
project's own code or a run of it does -- it names a scenario of
labs/module/kasan_lab.c or one of its functions, the lab module, an
experiment, a lab step ("step 2"), a captured, stored or recorded run (or
"this run", "the ``uaf`` run"), or ``make grade``/``run``/``lab``/``record``
-- and says it with a
quantifier ("always", "never", "ever", "none", "twice", "every time",
every/each/all/any or a count of runs, boots, reports, draws, tries,
allocations, frees, writes, records, stops, calls or sites) must be bound to
what bounds it:

  - a ``:kt:`` citation of the line of this checkout that bounds it
    (Documentation/tools/ktcite.py; it must resolve, checked here too,
    and hold no backslash, which reST would eat), or
  - an ``:outcome:`` role: a check of labs/grading.json asserts it on a run
    (tests/test_outcome.py checks the target), or
  - a listed reason (ALLOWED, empty now) why it needs no binding.

On the tooling pages (all but a lab's or a patch's: Documentation/, the
root page, the READMEs, the claim ledger) the net is wider: a sentence is
about our code when it also names a file of the checkout, a make target,
or the grader, the sandbox, the proxy, the handout, the checkout or the
project; and "nothing", "only", "every" and "all" count as quantifiers
too.  A README is markdown: it writes the role the same way, and the test
resolves it the same way.

Else rewrite it to say only what holds.  A sentence about the 6.1 kernel or
the v9 patches that carries a ``:src:`` or ``:v9:`` citation is bound by it,
if each clause with a quantifier names the kernel (a citation, "6.1",
"v9", "the kernel", "the runtime") and not our code.  Quantifiers
inside ``literals``, roles and "quotations" do not count (``none`` is a
variant); a table's row is a sentence like any other.
"""
import os
import re

import pytest

from Documentation.tools import ktcite
from tests.prose import REPO, sentences, texts

MODULE = open(REPO + "/labs/module/kasan_lab.c").read()
SCENARIOS = re.findall(r'^\t\{ "([\w-]+)", lab_', MODULE, re.M)
FUNCTIONS = sorted(set(re.findall(r"^static (?:__\w+ |noinline )*\w+ \*?(\w+)\(", MODULE, re.M)))

NUM = r"(?<!lab )(?<!step )(?<!patch )(?<![\d.])\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+)"
EVENT = (r"(?:runs?|boots?|times|reports?|draws?|tries|retries|allocations?|frees?|writes?|"
         r"accesses|access|records?|stops?|calls?|sites?)")
QUANT = re.compile(r"\b(?:always|never|ever|none|twice|every time|each time|"
                   r"(?:every|each|all(?: the)?|any) %s)\b|%s %s\b" % (EVENT, NUM, EVENT), re.I)
HIDE = re.compile(r'``[^`]*``|:\w+:`[^`]*`|`[^`]*`|"[^"]*"')
ABOUT = re.compile(
    r"``(?:%s)``|``(?:%s)(?:\(\))?``|\b(?:lab|our|this|the) module\b|\bscenarios?\b|"
    r"\bmake (?:grade|run|lab|record)(?![\w-])|\bexperiments?\b|"
    r"\b(?:this|that|captured|stored|recorded|``[\w-]+``) (?:run|boot)s?\b|"
    r"``exp-|\b[Ss]tep \d\b|"
    r"\bkasan_lab\b|patches/experiments"
    % ("|".join(map(re.escape, SCENARIOS)), "|".join(FUNCTIONS)))
# The tooling pages (every text but a lab's and a patch's: the site's
# Documentation/ pages, the root page, the READMEs, the claim ledger) are
# about our own code as a whole: there a sentence is about it when it also
# names a file of the checkout, a make target, a check, or the grader, the
# sandbox, the proxy, the handout, the checkout or the project, and the
# quantifiers are also "always", "never", "nothing", "only", "every", "all".
ROOMS = r"(?:vm|tests|classroom|labs|bench|gdb-scripts|Documentation(?!/dev-tools)|shared|\.ci|patches)/"
ABOUT_TOOLS = re.compile(
    ABOUT.pattern + r"|``%s[^`]*``|`%s[^`]*`|``make [\w-]+|`make [\w-]+|\bmake [a-z][\w-]+\b|"
    r"\bthe (?:grader|graders|sandbox|sandboxes|proxy|handout|preflight|checkout|project)\b"
    % (ROOMS, ROOMS), re.I)
QUANT_TOOLS = re.compile(QUANT.pattern + r"|\b(?:nothing|every|all)\b|(?<![-\w])only\b", re.I)
LAB_OR_PATCH = re.compile(r"^(?:labs/\d\d-|patches/)")
OURS = re.compile(r":(?:kt|outcome):`")
KERNEL = re.compile(r":(?:src|v9):`")
KT = re.compile(r":kt:`([^`]*)`")
CLAUSE = re.compile(r";|:\s|,\s(?=so\b|and\b|but\b|which\b|where\b)")
KERNEL_WORDS = re.compile(r":(?:src|v9):`|\b6\.1\b|\bv9\b|\bthe (?:kernel|runtime)\b")

# Sentences that need no binding (a piece of the sentence: why).  Empty:
# each that was here is bound by a :kt: now, or says what holds; an entry
# must say why no line or check can bind it.
ALLOWED: dict = {}


def quantified(sentence, quant=QUANT):
    """The quantifiers of a sentence, outside literals, roles and quotations."""
    return [m.group(0) for m in quant.finditer(HIDE.sub(" ", sentence))]


def clauses_with_quantifier(sentence, quant=QUANT):
    """Its clauses (split outside literals, roles and quotations) with a quantifier."""
    keep = []

    def hide(m):
        keep.append(m.group(0))
        return "\x00%d\x00" % (len(keep) - 1)
    masked = HIDE.sub(hide, sentence)
    clauses = [re.sub(r"\x00(\d+)\x00", lambda m: keep[int(m.group(1))], c)
               for c in CLAUSE.split(masked)]
    return [c for c in clauses if quantified(c, quant)]


def unbound(sentence, tooling=False):
    """Why the sentence needs a binding, or None.  tooling: it stands on
    a tooling page (the wider net above)."""
    quant, about = (QUANT_TOOLS, ABOUT_TOOLS) if tooling else (QUANT, ABOUT)
    if not quantified(sentence, quant) or not about.search(sentence):
        return None
    if OURS.search(sentence):
        return None
    if any(k in sentence for k in ALLOWED):
        return None
    if KERNEL.search(sentence) and all(KERNEL_WORDS.search(c) and not about.search(c)
                                       for c in clauses_with_quantifier(sentence, quant)):
        return None
    return "%s about our code or a run, with no :kt: or :outcome:" % (
        "/".join(quantified(sentence, quant)))


def findings(pieces):
    out = []
    for where, text in pieces:
        tooling = not LAB_OR_PATCH.match(where)
        for s in sentences(text):
            why = unbound(s, tooling)
            if why:
                out.append("%s: %s: %s" % (where, why, s[:300]))
    return out


def test_every_quantified_sentence_about_our_code_is_bound():
    bad = findings(texts())
    assert not bad, "\n".join(["bind these to a line (:kt:) or a check (:outcome:), "
                               "or say only what holds:"] + bad)


def kt_problems(pieces):
    """Why each :kt: citation of the texts does not resolve as Sphinx reads it."""
    bad = []
    for where, text in pieces:
        for target in KT.findall(text):
            if "\\" in target:        # reST unescapes a role's text: Sphinx would not see it
                bad.append("%s: :kt:`%s`: a backslash is an escape in reST" % (where, target))
            try:
                ktcite.resolve_kt(REPO, target)
            except ktcite.CiteError as e:
                bad.append("%s: :kt:`%s`: %s" % (where, target, e))
    return bad


def test_kt_citations_resolve():
    bad = kt_problems(texts())
    assert not bad, "\n".join(bad)


def test_a_planted_kt_with_a_backslash_fails():
    bad = kt_problems([("p.rst", ':kt:`tests/test_rooms.py:t.count("\\n")`')])
    assert len(bad) == 1 and "backslash" in bad[0]


@pytest.mark.skipif(os.path.exists(os.path.join(REPO, "labs", "HANDOUT")),
                    reason="a student tree has its own README and no teacher text")
def test_allowed_entries_are_used():
    seen = " ".join(s for _, t in texts() for s in sentences(t))
    assert [k for k in ALLOWED if k not in seen] == []


@pytest.mark.parametrize("text, bad", [
    ("The ``uaf`` scenario always reports twice.", True),
    ("The uaf scenario always reports twice.", True),
    ("The ``uaf`` scenario reports twice "
     "(:kt:`labs/module/kasan_lab.c:static void lab_uaf(`).", False),
    (":outcome:`The five reports appear <03:reports:five reports>`, one per scenario.", False),
    ("In 6.1 the runtime never writes a short granule "
     "(:src:`mm/kasan/shadow.c:kasan_poison(`), so lab 4's ``oob-in-granule`` is missed.", False),
    ("``lab_uaf_realloc()`` frees and allocates again (:src:`mm/slub.c:kfree`), "
     "so the access always meets another tag.", True),
    ("The grader reads the stored run.", False),
    ("Build the ``none`` variant for the scenario.", False),
])
def test_detector(text, bad):
    assert bool(unbound(text)) == bad, text


@pytest.mark.parametrize("text, bad", [
    ("``make check`` runs every job.", True),
    ("The sandbox never sees the answers.", True),
    ("``vm/proc.py`` kills only its own children.", True),
    ("``make check`` runs every job (:kt:`tests/check.py:def main(argv=None):`).", False),
    ("Every student runs the labs.", False),              # names none of our code
    ("It is licensed GPL-2.0-only (``vm/qemu.py``).", False),   # a licence's name
    ("Linux 6.1 checks every access (:src:`mm/kasan/sw_tags.c:kasan_check_range`).", False),
])
def test_detector_on_a_tooling_page(text, bad):
    assert bool(unbound(text, tooling=True)) == bad, text


def test_a_planted_tooling_page_fails_and_a_lab_page_keeps_the_narrow_net():
    said = "The grader only reads the declared files."
    assert len(findings([("Documentation/planted.rst", said)])) == 1
    assert findings([("labs/09-planted/index.rst", said)]) == []


def test_a_planted_page_fails(tmp_path):
    page = "Lab 9\n=====\n\nThe uaf scenario always reports twice. It is short.\n"
    found = findings([("labs/09-planted/index.rst", page)])
    assert len(found) == 1 and "always" in found[0] and "labs/09-planted" in found[0]


def test_a_kt_citation_that_drifted_fails():
    with pytest.raises(ktcite.CiteError, match="no line contains"):
        ktcite.resolve_kt(REPO, "labs/module/kasan_lab.c:if (++same_tag == 9999)")
    with pytest.raises(ktcite.CiteError, match="not a file of this checkout"):
        ktcite.resolve_kt(REPO, "labs/module/nope.c:x")
