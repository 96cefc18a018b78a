# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Every "the source says" quotes it (issue 51, method 4).

A sentence a reader sees -- a page, a patch note, the README, a hint or
another text field of the labs' TOML, a row of the claim ledger -- that
names a source (the v9 cover letter and its changelog, a v9 patch, its
subject or commit message, the LWN article, a file of the 6.1 tree) and
says what it says must carry the source's words: a quotation in "...",
found verbatim (blanks squeezed; "..." inside a quotation skips words) in
the source it is attributed to (a citation right after it, else the
nearest source named before it in the sentence).  A :v9: or :src: citation is a quotation too: a plain citation
of a line.  A claim with neither fails, unless it says what the source
does not say.  Quotations of sources the checkout does not hold (QEMU,
later commits) are listed in EXTERNAL with where they are from.  An
absolute about history ("never published", "the first ...") must say what
bounds it: what was read or found.
"""
import glob
import os
import re
import tomllib

import pytest

from Documentation.tools import ktcite
from tests.prose import REPO, norm, sentences, texts
from vm import cache

V9 = os.path.join(REPO, "patches", "v9")
SEEDS = os.environ.get("KT_SEEDS", os.path.join(REPO, "..", "shared", "seeds"))
ARTICLE = "000-article.md"          # the LWN article: a seed, not in the checkout

# Quotations of public sources the checkout does not hold: the words, and
# where they are from (the page names the source beside each).
EXTERNAL = {
    "Our IMPDEF choice for GCR_EL1.RRND==1 is to continue to use the deterministic algorithm":
        "QEMU 10.0 target/arm/tcg/mte_helper.c, HELPER(irg)",
    "target/arm: Fix physical address resolution for MTE":
        "QEMU commit title; qemu-devel 20230114031213.2970349-1-richard.henderson@linaro.org",
    "target/arm: Use probe_access_full for MTE": "QEMU commit b8967ddf, its title",
    "kasan: allow enabling stack tagging for tag-based mode":
        "Linux commit of 2020 (stack tagging), its subject",
    "HWASAN short granules are disabled. Supporting those will require more kernel changes":
        "the same commit's message",
}

# --- what names a source, and what says that it speaks ----------------------
# (pattern, source); the first pattern that matches a span wins it.  A
# source is "cover", "article", "patch:NN", "subject:NN", "tree:PATH" (a
# file of the 6.1 tree) or "external" (":?" when a note's own patch is
# named outside the notes).
MENTIONS = [
    (r"\bv1[0-3]\b(?:'s)? (?:cover letter|changelog)|\bQEMU[\w. ]*'s (?:``[^`]+``|source|"
     r"comment|fix)|\bthe fix\b|\b(?:upstream |the )?commit\b(?! message)", "external"),
    (r"\bv9's ``kasan\.rst``|\bv9's kasan\.rst", "patch:19"),
    (r"\b(?:v9 )?cover[- ]letter\b|\b(?:the |RFC )?v\d(?:'s)? changelog\b|\bthe changelog\b|"
     r"\bRFC v\d\b|\bv[1-8]\b(?=(?:'s)?\s*\")|\bv9 (?:patch )?series\b", "cover"),
    (r"\bLWN\b|\bthe article\b|\bCorbet\b", "article"),
    (r"\b(?:[Ii]ts|[Tt]he) subject\b", "subject:self"),
    (r"\b(?:[Ii]ts|[Tt]he|this patch's) commit message\b|\b[Tt]his patch\b|\bthe diff\b",
     "patch:self"),
    (r":ref:`patch (\d\d) <patch-\d\d>`|/build/gen/series/(\d\d)\b|"
     r"\b(?:v9 |seed )?[Pp]atch (\d\d)\b(?!/)", "patch:N"),
    (r"``(?:Documentation/dev-tools/)?kasan\.rst``|\bkasan\.rst\b",
     "tree:Documentation/dev-tools/kasan.rst"),
    (r"``lib/Kconfig\.kasan``|\blib/Kconfig\.kasan\b|\b[Tt]he Kconfig\b|\bKconfig's\b",
     "tree:lib/Kconfig.kasan"),
    (r"\b6\.1's ``([\w./-]+\.[\w]+)``", "tree:N"),
    (r":v9:`(\d\d):", "patch:N"),          # a citation names its source too
    (r":src:`([^:`]+):", "tree:N"),
]
MENTION_RE = [(re.compile(p), s) for p, s in MENTIONS]
# A source speaks when a verb of saying follows its name within a few words
# ("the cover letter names", "its subject and the v8 changelog say").
# (A verb, not a noun: "the letter's collision estimate" does not speak.)
VERB = (r"(?:says|say|said|writes|wrote|puts it|calls|names|lists|listed|estimates|"
        r"describes|explains|answers|gives|states|reads|quotes|mentions|adds|"
        r"promises|claims|warns|repeats|spends|shows|show|suggests|argues)")
SPEAKS = re.compile(r"^(?:'s)?(?:\s+(?!(?:that|which|where|who|lab|labs|page|pages|project|"
                    r"we|you)\b)[\w.`'/\"-]+){0,5}?\s+%s\b" % VERB)
ACCORDING = re.compile(r"\baccording to\s+$|\bin (?:its|their) words\b")
# What a source does not say cannot be quoted.
NEGATIVE = re.compile(r"\b(?:does not|do not|did not|doesn't|says nothing|nothing in|"
                      r"not among|neither|is not in|are not in)\b")
# Absolutes about history, and what bounds one.
ABSOLUTE = re.compile(
    r"(?i)\bnever (?:been )?(?:published|merged|posted|released|upstreamed|made public)\b|"
    r"\b(?:was|were) the first (?:to|of)\b|\bthe first (?:mode|version|posting|release|"
    r"implementation|public)\b|\bfirst (?:published|posted|merged|released|proposed)\b")
BOUND = re.compile(r"\b(?:found|find|read|searched|as far as|not established|sources read|"
                   r"archive|record|does not (?:say|show|name|link|include)|"
                   r"do not (?:say|show))\b")


# --- mentions, quotations -------------------------------------------------------

def quotations(sentence):
    """(offset, words) of each "..." of a sentence that is not inside a
    literal or a role (its own ``...`` marks dropped)."""
    masked = re.sub(r"``[^`]*``|:\w+:`[^`]*`", lambda m: "_" * len(m.group(0)), sentence)
    return [(m.start(), sentence[m.start() + 1:m.end() - 1].replace("``", ""))
            for m in re.finditer(r'"([^"]+)"', masked)]


def citations(sentence):
    """(role, target) of each :v9: and :src: of a sentence."""
    return re.findall(r":(v9|src):`([^`]+)`", sentence)


def mentions(sentence, page_patch=None):
    """(offset, source) of each source a sentence names, in order."""
    taken, out = [], []
    for rx, src in MENTION_RE:
        for m in rx.finditer(sentence):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            name = src
            if src.endswith(":N"):
                name = src[:-1] + next(g for g in m.groups() if g)
            elif src.endswith(":self"):
                name = src[:-4] + page_patch if page_patch else src[:-5] + ":?"
            out.append((m.start(), name))
    return sorted(out)


def attributions(sentence, named):
    """(words, [sources]) of each quotation.  The first source is the one
    it is attributed to: a citation right after it, else the nearest named
    before it, else one named just after it ("..." (its ``kasan.rst``)).
    The others may hold the words too: those named since the previous
    quotation (else the previous quotation's)."""
    out, group, last = [], [], 0
    for off, words in quotations(sentence):
        end = sentence.index('"', off + 1) + 1
        after = [s for o, s in named if end <= o <= end + 40]
        cited = [s for o, s in named if end <= o <= end + 3
                 and sentence.startswith((":v9:", ":src:"), o)]
        here = [s for o, s in named if last <= o < off]
        before = [s for o, s in named if o < off]
        first = cited[0] if cited else before[-1] if before else after[0] if after else None
        group = here or group
        out.append((words, [first] + [s for s in group if s != first] if first else []))
        last = end
    return out


def speakers(sentence, named):
    """The sources that speak in a sentence, each with whether it is said
    not to say something: a verb of saying within a few words after its
    name (no new subject between), or "according to" before it."""
    out = []
    for off, src in named:
        m = next(rx.match(sentence, off) for rx, _ in MENTION_RE if rx.match(sentence, off))
        said = SPEAKS.match(sentence[m.end():m.end() + 80])
        if said or ACCORDING.search(sentence[:off]):
            out.append((src, bool(said and NEGATIVE.search(said.group(0)))))
    return out


def is_claim(sentence, named):
    return bool(named) and bool(quotations(sentence) or speakers(sentence, named))


def found(words, source):
    """Are the quoted words in the source (blanks squeezed, the first
    letter's case free, "..." skipping words, in order)?"""
    pos, src = 0, norm(source)
    for piece in re.split(r"\s*(?:\.\.\.|…)\s*", norm(words).rstrip(".,;:")):
        if not piece:
            continue
        hits = [src.find(p, pos) for p in {piece, piece[0].swapcase() + piece[1:]}]
        hits = [h for h in hits if h >= 0]
        if not hits:
            return False
        pos = min(hits) + len(piece)
    return True


def page_patch(where):
    m = re.match(r"patches/v9/notes/(\d\d)\.rst", where)
    return m.group(1) if m else None


def claims(items):
    """(where, sentence, named sources) of each sentence that says what a
    source says."""
    for where, text in items:
        for s in sentences(text):
            named = mentions(s, page_patch(where))
            if is_claim(s, named):
                yield where, s, named


def unquoted(items):
    """(where, sentence, why) of each source that speaks in a sentence with
    none of its words quoted: no quotation attributed to it, no :v9: or
    :src: citation (for a patch or a 6.1 file), no ``literal`` (for a
    source the checkout does not hold).  Saying what it does not say needs
    no quotation."""
    bad = []
    for where, s, named in claims(items):
        quoted = {group[0] for _, group in attributions(s, named) if group}
        for src, negative in speakers(s, named):
            if negative or src in quoted or \
                    citations(s) and src.startswith(("patch", "tree")) or \
                    src == "external" and "``" in s:
                continue
            bad.append((where, s, "says what %s says, and quotes nothing" % src))
            break
    return bad


def unquoted_rows(rows):
    """The claim ledger's rows whose source is a text (the cover letter,
    the article, a 6.1 file named as its source) and whose claim quotes
    nothing of it."""
    return [r["id"] for r in rows
            if any(src != "external" for _, src in mentions(r["source"]))
            and not quotations(r["claim"])]


def misquoted(items, read):
    """(where, sentence, why) of each quotation not in its source.
    read(source) -> its text, None when this machine does not have it (not
    checked), False when the checkout holds no such source."""
    bad = []
    for where, s, named in claims(items):
        for words, srcs in attributions(s, named):
            if not srcs:
                continue                    # attributed to no source
            if "external" in srcs or words in EXTERNAL:
                if words not in EXTERNAL:
                    bad.append((where, s, "%r: a source the checkout does not hold; list it "
                                "in EXTERNAL with where it is from" % words))
                continue
            got = [read(src) for src in srcs]
            if any(g and found(words, g) for g in got) or any(g is None for g in got):
                continue
            if all(g is False for g in got):
                bad.append((where, s, "%r: %s is not a source the checkout holds" % (
                    words, " or ".join(srcs))))
            else:
                bad.append((where, s, "%r is not in %s" % (words, " or ".join(
                    src for src, g in zip(srcs, got) if g is not False))))
    return bad


def absolutes(items):
    """(where, sentence) of each absolute about history with no bound."""
    return [(where, s) for where, text in items for s in sentences(text)
            if ABSOLUTE.search(s) and not BOUND.search(s)]


# --- the sources ----------------------------------------------------------------

def tree():
    """The extracted 6.1 tree, if this machine has one (never extracts)."""
    for d in sorted(glob.glob(os.path.join(cache.cache_root(), "src", "*", "linux-source-6.1"))):
        if os.path.exists(os.path.join(os.path.dirname(d), ".kt-extracted")):
            return d
    return None


def diff_sides(text):
    """A patch as received, plus its pre- and post-image without the diff's
    markers, so that a quotation across lines of a file is found."""
    pre, post = [], []
    for ln in text.split("\n"):
        if ln[:1] in ("+", "-") and not ln.startswith(("+++", "---")):
            (post if ln[0] == "+" else pre).append(ln[1:])
        else:
            body = ln[1:] if ln.startswith(" ") else ln
            pre.append(body)
            post.append(body)
    return "\n".join([text, "\x00", "\n".join(pre), "\x00", "\n".join(post)])


def subject(n):
    """Patch n's subject, from the cover letter's shortlog (series)."""
    with open(os.path.join(V9, "series")) as f:
        for ln in f:
            if ln.startswith("%s " % n):
                return ln.split(" | ", 1)[1]
    return False


def reader(linux=None, seeds=SEEDS):
    """read(source) for misquoted(): the checkout's sources, the article if
    the seeds are there, the 6.1 files if the tree is."""
    def read(src):
        kind, _, arg = src.partition(":")
        if kind == "cover":
            return open(os.path.join(V9, "00-cover-letter.txt")).read()
        if kind == "subject":
            return subject(arg) if arg != "?" else False
        if kind == "patch":
            p = glob.glob(os.path.join(V9, "%s-*.patch" % arg)) if arg != "?" else []
            return diff_sides(open(p[0]).read()) if p else False
        if kind == "article":
            p = os.path.join(seeds, ARTICLE)
            return re.sub(r"^> ", "", open(p).read(), flags=re.M) if os.path.exists(p) else None
        if kind == "tree":
            if linux is None:
                return None
            p = os.path.join(linux, arg)
            return open(p, errors="replace").read() if os.path.isfile(p) else False
        return False
    return read


# --- tests ------------------------------------------------------------------------

def test_the_patterns_find_claims_quotations_and_sources():
    s = ('The cover letter says "1/256 probability", and the LWN article "a small '
         'possibility"; patch 16 (:v9:`16:x. y`) and :ref:`patch 05 <patch-05>`.')
    assert list(sentences(s + " Next one.")) == [s, "Next one."]
    assert [w for _, w in quotations(s)] == ["1/256 probability", "a small possibility"]
    assert [src for _, src in mentions(s)] == ["cover", "article", "patch:16", "patch:16",
                                               "patch:05"]
    assert citations(s) == [("v9", "16:x. y")]
    assert [g for _, g in attributions(s, mentions(s))] == [["cover"], ["article"]]
    assert mentions("Its subject says so; the commit message too.", "13") == [
        (0, "subject:13"), (21, "patch:13")]
    assert [src for _, src in mentions("v9's ``kasan.rst`` and 6.1's ``kasan.rst``")] == [
        "patch:19", "tree:Documentation/dev-tools/kasan.rst"]
    for s, claim in (("The cover letter names two sources.", True),
                     ("Its subject and the v8 changelog say it moves it.", True),
                     ("The cover letter's three kinds, and two this run adds:", False),
                     ("The series pages call them seeds, beside the cover letter.", False)):
        assert is_claim(s, mentions(s, "10")) is claim, s
    assert found("tag match ... slightly less", "a tag match for\n   an access (even slightly less")
    assert not found("slightly less ... tag match", "a tag match, slightly less")
    assert found("Stack instrumentation", "3. stack instrumentation is not")


def test_a_planted_false_quote_fails():
    """A page that says the cover letter says words it does not."""
    fake = [("Documentation/fake.rst",
             'Fake\n====\n\nThe cover letter says that tags "cost nothing at all".\n\n'
             'The cover letter says "1/256\n   probability of a tag match".\n')]
    bad = misquoted(fake, reader())
    assert [(w, why) for w, _, why in bad] == [
        ("Documentation/fake.rst", "'cost nothing at all' is not in cover")]
    bad = misquoted([("x.rst", 'Patch 17 says "brk".')], reader())
    assert bad and "patch:17 is not a source the checkout holds" in bad[0][2]
    bad = misquoted([("x.rst", 'QEMU\'s fix says "it is all fine".')], reader())
    assert bad and "list it in EXTERNAL" in bad[0][2]


def test_a_planted_claim_with_nothing_quoted_fails():
    fake = [("labs/09-fake/index.rst", "The LWN article says that tags are free.\n\n"
                                       "The cover letter does not say how tags are drawn.\n"),
            ("labs/09-fake/mistakes.toml:.hints[0]",
             "Patch 17 says which immediate; see its commit message.")]
    assert [(w, why) for w, _, why in unquoted(fake)] == [
        ("labs/09-fake/index.rst", "says what article says, and quotes nothing"),
        ("labs/09-fake/mistakes.toml:.hints[0]", "says what patch:17 says, and quotes nothing")]


def test_a_planted_absolute_about_history_fails():
    fake = [("x.rst", "The pass was never published. The pass was the first to do it.\n\n"
                      "The cover letter does not link the pass, and no copy was found.")]
    assert [s for _, s in absolutes(fake)] == [
        "The pass was never published.", "The pass was the first to do it."]


def report(bad):
    return "\n".join("%s: %s\n    %s" % (w, why, s[:300]) for w, s, why in bad)


@pytest.fixture(scope="module")
def findings():
    items = texts()
    assert len(list(claims(items))) > 40
    return misquoted(items, reader(tree()))


def test_every_claim_about_a_source_quotes_it():
    bad = unquoted(texts())
    assert not bad, report(bad)
    with open(os.path.join(REPO, "Documentation", "claims.toml"), "rb") as f:
        rows = tomllib.load(f)["claim"]
    assert not unquoted_rows(rows), "ledger rows whose claim quotes nothing of its source"
    assert unquoted_rows([{"id": "planted", "source": "v9 cover letter, Benchmarks",
                           "claim": "boot time: 1.7 s clean"}]) == ["planted"]


def test_every_quotation_of_the_checkout_s_sources_is_in_them(findings):
    """The cover letter, its changelog, the seed patches and their subjects,
    and EXTERNAL's list (the article and 6.1 have tests of their own)."""
    bad = [b for b in findings if not re.search(r"\b(?:article|tree:)", b[2])]
    assert not bad, report(bad)


def test_every_quotation_of_the_lwn_article_is_in_it(findings):
    if not os.path.exists(os.path.join(SEEDS, ARTICLE)):
        pytest.skip("the LWN article is a seed outside the checkout (%s; KT_SEEDS)" % SEEDS)
    bad = [b for b in findings if re.search(r"\barticle\b", b[2])]
    assert not bad, report(bad)


def test_every_quotation_of_the_6_1_tree_is_in_it(findings):
    if not tree():
        pytest.skip("no extracted 6.1 tree under %s (make kernel extracts it)" % cache.cache_root())
    bad = [b for b in findings if "tree:" in b[2]]
    assert not bad, report(bad)


def test_every_v9_citation_resolves_in_its_seed():
    """:v9: is a quotation of one line; make check's site build resolves it
    too, make test here."""
    bad = []
    for where, text in texts():
        for _, target in re.findall(r":(v9):`([^`]+)`", text):
            try:
                ktcite.resolve_v9(V9, norm(target))
            except ktcite.CiteError as e:
                bad.append("%s: %s" % (where, e))
    assert not bad, "\n".join(bad)


def test_every_external_quotation_is_on_a_page():
    """EXTERNAL lists only what some page quotes."""
    quoted = {w for _, s, _ in claims(texts()) for _, w in quotations(s)}
    assert set(EXTERNAL) <= quoted, set(EXTERNAL) - quoted


def test_absolutes_about_history_are_bounded_by_a_source():
    bad = absolutes(texts())
    assert not bad, "\n".join("%s: %s" % b for b in bad)
