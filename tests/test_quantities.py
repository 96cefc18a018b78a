# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""One name per quantity (issue 51, method 5).

Documentation/quantities.toml lists the measured and quoted quantities the
pages name -- overheads as a ratio or a percent, shares of memory, tag
counts, the gap of the collision scenario and its repeat rates -- each
with the one name the pages use, and the names that would be wrong or
ambiguous for it.  The lint reads every sentence a reader sees (pages,
patch notes, READMEs, hints and TOML text, the claim ledger, and the names
of the checks the checks page lists) and flags a wrong name outside a
quotation: calling the cover letter's ratio 105/40 "+260%", or a slot
reused with one allocation in between "one draw apart".  The table is
checked too: every name and spelling it gives says its value.
"""
import json
import os
import re
import tomllib

from tests.prose import REPO, sentences, texts

TABLE = os.path.join(REPO, "Documentation", "quantities.toml")
KINDS = {"ratio", "share", "rate", "count"}


def load(path=TABLE):
    with open(path, "rb") as f:
        return tomllib.load(f)["quantity"]


def unquoted(sentence):
    """The sentence without its quotations: a source's own words may name
    a quantity its own way."""
    return re.sub(r'"[^"]*"', '""', sentence)


def check_names(repo=REPO):
    """(where, name) of each check of the last grading: the checks page
    lists them, and the pages' :outcome: roles name them."""
    path = os.path.join(repo, "labs", "grading.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        data = json.load(f)
    rows = data if isinstance(data, list) else data.get("checks", data.get("results", []))
    return [("labs/grading.json", r["check"]) for r in rows if isinstance(r, dict) and "check" in r]


def wrong_names(items, table):
    """(where, quantity, the name used, why) of each wrong name."""
    bad = []
    for where, text in items:
        for s in sentences(text):
            bare = unquoted(s)
            for q in table:
                for w in q.get("wrong", []):
                    if w.get("context") and not re.search(w["context"], s):
                        continue
                    for m in re.finditer(w["re"], bare):
                        bad.append((where, q["id"], m.group(0), w["why"]))
    return bad


def said_value(name, kind):
    """The value a name says, as the kind reads it, and how many digits it
    gives (None when the name has no figure): "+162.5%" of a ratio is
    2.625, "1/16" 0.0625, "1 in 127" 1/127, "2.6 times" 2.6."""
    m = re.search(r"([+-]?\d+(?:\.\d+)?)\s?%", name)
    if m:
        p = float(m.group(1))
        return (1 + p / 100 if kind == "ratio" else p / 100), len(m.group(1).partition(".")[2]) + 2
    m = re.search(r"(\d+)\s*(?:/|(?:times? )?in )\s*(\d+)", name)
    if m:
        return int(m.group(1)) / int(m.group(2)), None
    m = re.search(r"x\s?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)(?: times|$| \w)", name)
    if m:
        num = m.group(1) or m.group(2)
        return float(num), len(num.partition(".")[2])
    return None


def says(name, q):
    """Does a name say the quantity's value (exactly, or rounded to the
    digits it shows)?"""
    got = said_value(name, q["kind"])
    if got is None:
        return True
    v, digits = got
    want = q["value"]
    if digits is None:
        return abs(v - want) < 1e-9
    return abs(v - want) <= 0.5 * 10 ** -digits * (1 + 1e-9) or round(want, digits) == v


def table_problems(table):
    out = []
    ids = [q.get("id") for q in table]
    if len(ids) != len(set(ids)):
        out.append("an id is used twice")
    for q in table:
        for key in ("id", "what", "kind", "value", "name"):
            if key not in q:
                out.append("%s: no %s" % (q.get("id"), key))
        if q.get("kind") not in KINDS:
            out.append("%s: kind %r is not one of %s" % (q.get("id"), q.get("kind"), sorted(KINDS)))
        for name in [q.get("name", "")] + q.get("also", []):
            if "kind" in q and "value" in q and not says(name, q):
                out.append("%s: %r does not say %s" % (q["id"], name, q["value"]))
        for w in q.get("wrong", []):
            if not w.get("why") or not w.get("re"):
                out.append("%s: a wrong name without re or why" % q["id"])
                continue
            re.compile(w["re"])
            for name in [q["name"]] + q.get("also", []):
                if re.search(w["re"], name):
                    out.append("%s: its own name %r matches a wrong one" % (q["id"], name))
    return out


# --- tests --------------------------------------------------------------------------

def test_the_table_is_whole_and_says_its_values():
    table = load()
    assert not table_problems(table)
    assert {"cover-slab-generic", "tag-gap-1", "swtags-tag-count"} <= {q["id"] for q in table}


def test_a_planted_table_row_that_misnames_its_value_fails():
    row = {"id": "x", "what": "105 against 40 kB", "kind": "ratio", "value": 2.625,
           "name": "+260%", "also": ["2.6 times", "3.6 times"],
           "wrong": [{"re": "2.6 times", "why": "planted"}]}
    assert table_problems([row]) == ["x: '+260%' does not say 2.625",
                                     "x: '3.6 times' does not say 2.625",
                                     "x: its own name '2.6 times' matches a wrong one"]
    assert says("+162.5%", row) and says("+163%", row) and says("2.62", row)
    assert says("1/16", {"kind": "share", "value": 0.0625})
    assert not says("1/16", {"kind": "share", "value": 0.125})
    assert says("1 in 127", {"kind": "rate", "value": 1 / 127})


def test_a_planted_ratio_called_an_overhead_fails():
    """The ledger's old slab row: the cover letter's ratio as "+260%"."""
    fake = [("Documentation/fake.rst",
             "Generic KASAN grows the slab by +260% in 2018.\n\n"
             'The cover letter says "~105 kb (~260% overhead) for generic KASAN", that is '
             "+162.5%, or 2.6 times the clean kernel's.\n\n"
             "A slot reused one draw apart keeps its tag 1 in 254 times, with one "
             "allocation in between.\n")]
    bad = wrong_names(fake, load())
    assert [(q, used) for _, q, used, _ in bad] == [
        ("cover-slab-generic", "+260%"), ("tag-gap-1", "one draw apart"),
        ("swtags-repeat-gap1", "1 in 254")]


def test_no_text_names_a_quantity_wrongly():
    items = texts() + check_names()
    assert len(items) > 100
    bad = wrong_names(items, load())
    assert not bad, "\n".join("%s: %s called %r: %s" % b for b in bad)


def test_the_ledger_as_rendered_names_no_quantity_wrongly():
    """The claim ledger's table is computed (page_claims.py): its measured
    and note columns are read as the page shows them."""
    from Documentation.tools import page_claims
    rows = page_claims.evaluate()
    items = [("claims table, " + r["id"], "%s. %s." % (r["measured"], r["note"])) for r in rows]
    bad = wrong_names(items, load())
    assert not bad, "\n".join("%s: %s called %r: %s" % b for b in bad)
    planted = [("claims table, planted", "generic +347% (claimed +260%, +87 points).")]
    assert [b[2] for b in wrong_names(planted, load())] == ["+260%"]


def test_the_checks_are_read():
    """The lint sees the check names (the checks page and :outcome:)."""
    assert check_names()
