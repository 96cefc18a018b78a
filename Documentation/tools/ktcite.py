# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Sphinx roles that cite the sources, checked when the site is built.

    :src:`mm/kasan/sw_tags.c:u8 kasan_random_tag(void)`
        a line of the installed 6.1 tree: the file, then text the line
        contains (``ANCHOR >> TEXT``: the first line with TEXT from the
        line with ANCHOR on, for a statement that recurs in the file).
        Renders as ``mm/kasan/sw_tags.c:63``, linked to that line, with
        the line itself on hover.
    :v9:`16:#define KASAN_KMALLOC_FREE      KASAN_TAG_INVALID`
        a line of a seed patch of the v9 series: the patch number, then text
        the line contains.  Renders as ``v9 16/20, line 306``, linked to the
        patch's page, with the line on hover.
    :kt:`labs/module/kasan_lab.c:if (++same_tag == 8)`
        a line of this checkout (the project's own code: a lab module, an
        experiment's patch, a grader), in the same form as :src:.  Renders
        as ``labs/module/kasan_lab.c:537``, with the line on hover: what a
        page says our code always or never does is bound to the line that
        bounds it (tests/test_quantifiers.py).

A citation that does not resolve -- no such file, no such patch among the
seeds, no line containing the text -- is a build warning, so
`sphinx-build -W` (`make site`) fails: a citation cannot drift silently.
Pure helpers (`find_line`, `parse_target`) are tested without Sphinx.
"""

import os
import re
from typing import Any, Dict, List, Optional, Tuple

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)
ELIXIR = "https://elixir.bootlin.com/linux/v%s/source/%s#L%d"


class CiteError(Exception):
    """A citation that does not resolve; the message says why."""


def parse_target(text: str) -> Tuple[str, str]:
    """'where:fragment' -> (where, fragment); the fragment may hold colons."""
    where, sep, fragment = text.partition(":")
    if not sep or not where.strip() or not fragment.strip():
        raise CiteError("citation %r is not WHERE:TEXT" % text)
    return where.strip(), fragment.strip()


def squeeze(text: str) -> str:
    """Runs of blanks as one space: reST turns the tabs of a citation into
    spaces, so a citation matches the line whatever its indentation."""
    return " ".join(text.split())


AFTER = " >> "


def find_line(lines: List[str], fragment: str) -> int:
    """1-based number of the first line containing fragment (blanks squeezed).

    'ANCHOR >> TEXT' is the first line containing TEXT at or after the first
    line containing ANCHOR: a statement that recurs in the file is cited in
    the function that does it (``static int kasan_handler( >>
    arm64_skip_faulting_instruction``), not at its first occurrence."""
    start = 0
    if AFTER in fragment:
        anchor, fragment = fragment.rsplit(AFTER, 1)
        start = find_line(lines, anchor) - 1
    want = squeeze(fragment)
    for i, line in enumerate(lines[start:], start + 1):
        if want in squeeze(line):
            return i
    raise CiteError("no line contains %r%s" % (fragment, " after line %d" % start if start else ""))


def tree_version(tree: str) -> str:
    mk = open(os.path.join(tree, "Makefile")).read()
    return ".".join(re.search(r"^%s = (\S*)" % k, mk, re.M).group(1)  # type: ignore[union-attr]
                    for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL"))


def resolve_src(tree: str, text: str, what: str = "the installed tree") -> Tuple[str, int, str]:
    path, fragment = parse_target(text)
    full = os.path.normpath(os.path.join(tree, path))
    if not full.startswith(os.path.normpath(tree) + os.sep) or not os.path.isfile(full):
        raise CiteError("%s is not a file of %s" % (path, what))
    lines = open(full, errors="replace").read().splitlines()
    n = find_line(lines, fragment)
    return path, n, lines[n - 1].strip()


def seed_files(v9: str) -> Dict[int, str]:
    """{patch number: file} of the seed patches, from patches/v9/series."""
    out = {}
    for line in open(os.path.join(v9, "series")):
        m = re.match(r"^(\d\d) (\S+) ", line)
        if m and m.group(2) != "-":
            out[int(m.group(1))] = m.group(2)
    return out


def resolve_kt(repo: str, text: str) -> Tuple[str, int, str]:
    """A line of this checkout: (path, line number, the line)."""
    return resolve_src(repo, text, "this checkout")


def resolve_v9(v9: str, text: str) -> Tuple[int, int, str]:
    num, fragment = parse_target(text)
    seeds = seed_files(v9)
    if not num.isdigit() or int(num) not in seeds:
        raise CiteError("patch %s is not among the seeds (%s)" % (
            num, ", ".join("%02d" % n for n in sorted(seeds))))
    lines = open(os.path.join(v9, seeds[int(num)]), errors="replace").read().splitlines()
    n = find_line(lines, fragment)
    return int(num), n, lines[n - 1].strip()


def _config(inliner: Any) -> Tuple[Any, Any]:
    env = inliner.document.settings.env
    return env, env.config


def _fail(inliner: Any, lineno: int, rawtext: str, msg: str) -> Tuple[List[Any], List[Any]]:
    env, _ = _config(inliner)
    logger.warning("citation %s does not resolve: %s", rawtext, msg,
                   location=(env.docname, lineno))
    return [nodes.literal(rawtext, rawtext)], []


def _link(rawtext: str, uri: str, title: str, text: str,
          cls: str) -> Tuple[List[Any], List[Any]]:
    """The rendered citation: `text` as code, linked, the cited line on hover."""
    ref = nodes.reference(rawtext, "", refuri=uri, reftitle=title, classes=[cls])
    ref += nodes.literal(text=text)
    return [ref], []


def src_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: Optional[Dict[str, Any]] = None,
             content: Optional[List[str]] = None) -> Tuple[List[Any], List[Any]]:
    env, cfg = _config(inliner)
    try:
        path, n, line = resolve_src(cfg.kt_linux_tree, text)
    except (CiteError, OSError) as e:
        return _fail(inliner, lineno, rawtext, str(e))
    return _link(rawtext, ELIXIR % (cfg.kt_linux_version, path, n), "6.1: " + line,
                 "%s:%d" % (path, n), "kt-src")


def v9_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
            options: Optional[Dict[str, Any]] = None,
            content: Optional[List[str]] = None) -> Tuple[List[Any], List[Any]]:
    env, cfg = _config(inliner)
    try:
        num, n, line = resolve_v9(cfg.kt_v9_dir, text)
    except (CiteError, OSError) as e:
        return _fail(inliner, lineno, rawtext, str(e))
    uri = env.app.builder.get_relative_uri(env.docname, "build/gen/series/%02d" % num)
    return _link(rawtext, uri, "v9 patch %02d: %s" % (num, line),
                 "v9 %02d/20, line %d" % (num, n), "kt-v9")


def kt_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
            options: Optional[Dict[str, Any]] = None,
            content: Optional[List[str]] = None) -> Tuple[List[Any], List[Any]]:
    env, cfg = _config(inliner)
    try:
        path, n, line = resolve_kt(cfg.kt_repo or env.srcdir, text)
    except (CiteError, OSError) as e:
        return _fail(inliner, lineno, rawtext, str(e))
    shown = nodes.abbreviation(rawtext, "", explanation="this checkout: " + line,
                               classes=["kt-kt"])
    shown += nodes.literal(text="%s:%d" % (path, n))
    return [shown], []


def _version(app: Any, config: Any) -> None:
    if config.kt_linux_tree and not config.kt_linux_version:
        config.kt_linux_version = tree_version(config.kt_linux_tree)


def setup(app: Any) -> Dict[str, Any]:
    app.add_config_value("kt_linux_tree", "", "env")
    app.add_config_value("kt_linux_version", "", "env")
    app.add_config_value("kt_v9_dir", "", "env")
    app.add_config_value("kt_repo", "", "env")
    app.add_role("src", src_role)
    app.add_role("v9", v9_role)
    app.add_role("kt", kt_role)
    app.connect("config-inited", _version)
    return {"parallel_read_safe": True, "version": "1"}
