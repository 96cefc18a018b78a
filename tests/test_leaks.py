# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The student site's leak test (tests/leaks.py): each form it knows is
planted in a page and found; the forms an exercise's statement needs (a
list of the choices) are not leaks."""
import pytest

from tests import leaks
from tests.graderlib import solution_only

PAIRS = [("5.1", "predictions", "no-tbi", "silent"),
         ("5.3", "predictions", "no-untag-phys", "dies-booting"),
         ("5.4", "predictions", "no-redzone-tag", "misses-bugs"),
         ("5.5", "predictions", "no-brk-hook", "dies-at-bug"),
         ("3.1", "mystery-a", "cause", "loop-bound"),
         ("3.2", "mystery-b", "cause", "use-after-release"),
         ("8 grader", "kset_find_obj", "kind", "identity")]
LINES = [("1.2", "return ((untag(addr) >> 4) + offset) & MASK64")]


def page(tmp_path, body, name="lab.html"):
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / name).write_text("<html><body>%s</body></html>" % body)
    return str(site)


def found(tmp_path, body, rare=(), teacher=()):
    return leaks.site_leaks(page(tmp_path, body), PAIRS, LINES, set(rare), list(teacher))


@pytest.mark.parametrize("body", [
    '<pre>no-tbi = "silent"\n</pre>',                                   # the TOML line
    '<pre>cause = "loop-bound"\n</pre>',                                # ... of a repeated key
    "<p>Predicted and measured: no-tbi stays silent.</p>",              # one sentence
    "<table><tr><td>no-tbi</td><td>silent</td></tr></table>",           # one table row
    "<pre>  no-brk-hook    dies-at-bug   (measured)\n</pre>",              # one code line
    "<p>mystery-a: the cause is loop-bound.</p>",                       # a repeated key: file
    "<table><tr><td>kset_find_obj</td><td>identity</td></tr></table>",  # a grader-only row
    "<pre>\treturn ((untag(addr) &gt;&gt; 4) + offset) &amp; MASK64\n</pre>",  # a code line
    "<details class=\"kt-reveal\"><summary>The outcome</summary><p>x</p></details>",  # folded
    "<p>The shadow is (untag(p) / 16 + off) &amp; MASK64 here.</p>",  # a formula in prose
    "<p>so: ((kasan_reset_tag(a) >> 0x4) + KASAN_SHADOW_OFFSET).</p>",  # ... other names
    "<svg><text x=\"1\">shadow = untag(ptr) \u00f7 16 + offset</text></svg>",  # a picture
])
def test_each_planted_form_is_found(tmp_path, body):
    assert found(tmp_path, body)


def test_rare_values_and_teacher_sentences_are_found(tmp_path):
    assert found(tmp_path, "<p>It faults in mystery_table_fill.</p>", rare={"mystery_table_fill"})
    s = "The tag of a freed object is the one the allocator drew at its last kmalloc call."
    assert found(tmp_path, "<p>%s</p>" % s, teacher=[("labs/x/index.rst", s)])


@pytest.mark.parametrize("body", [
    # the choices listed, as an exercise states them: not an answer
    "<p>For no-tbi, predict one of silent, dies-booting, dies-at-bug or misses-bugs.</p>",
    "<pre># cause: \"loop-bound\" a loop runs one element past its buffer\n</pre>",
    # the context and the value in different sentences or rows
    "<p>Run no-tbi first. Then see whether the log stays silent.</p>",
    "<table><tr><td>no-tbi</td><td>?</td></tr><tr><td>x</td><td>silent</td></tr></table>",
    # a value inside a longer name is not the value
    "<p>no-tbi and the silently ignored flag.</p>",
    # another formula of the same names: not the answer's
    "<p>The shadow is (addr &gt;&gt; 4) + offset, untagged.</p>",
    "<svg><text>untag(addr) - offset</text></svg>",
    # a log's key=value is no TOML line (TOML quotes strings)
    "<pre>kasan_lab: tags ptr size=128 cause=loop-bound\n</pre>",
])
def test_what_is_not_a_leak(tmp_path, body):
    assert found(tmp_path, body) == []


def test_units_split_rows_lines_and_sentences():
    us = leaks.units("<p>One. Two here.</p><table><tr><td>a</td><td>b</td></tr></table>"
                     "<pre>x = 1\ny = 2\n</pre><script>no-tbi silent</script>")
    assert us == ["One.", "Two here.", "a | b", "x = 1", "y = 2"]


def test_contexts_name_the_file_when_a_key_repeats():
    got = leaks.contexts(PAIRS)
    assert ("3.1", "mystery-a", "cause", "loop-bound", {"use-after-release"}) in got
    assert ("5.1", "no-tbi", "no-tbi", "silent", {"dies-booting", "misses-bugs", "dies-at-bug"}) \
        in got
    assert ("8 grader", "kset_find_obj", "kind", "identity", set()) in got


@solution_only
def test_the_answers_are_read_from_the_solution_tree():
    pairs, lines = leaks.exercise_answers()
    got = {(c, v) for _, c, _, v, _ in leaks.contexts(pairs)}
    assert ("no-tbi", "silent") in got and ("mystery-a", "loop-bound") in got
    assert ("kset_find_obj", "identity") in got
    assert any(eid == "1.2" for eid, _ in lines)
    assert len(leaks.teacher_sentences()) >= 10


def test_a_formula_the_glossary_defines_or_the_kernel_shows_is_no_leak(tmp_path):
    public = [("1.1", "addr = ptr | (0xFF << 56)  # kt-public: the glossary's untag")]
    body = "<p>Untagged: ptr | (0xff &lt;&lt; 56).</p>"
    assert leaks.site_leaks(page(tmp_path, body), [], public, set(), []) == []
    kernel = tmp_path / "site" / "build" / "gen" / "series"
    kernel.mkdir(parents=True)
    (kernel / "16.html").write_text("<pre>return (untag(addr) &gt;&gt; 4) + offset &amp; MASK64</pre>")
    assert leaks.site_leaks(str(tmp_path / "site"), [], [("1.2", "x = (untag(addr) >> 4) + off")],
                            set(), []) == []
