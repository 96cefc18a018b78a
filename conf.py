# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
# Sphinx configuration of the kasan-tags site (`make site`).
# Debian's Sphinx 5.3 with the furo theme and sphinx-copybutton; offline.
import os

import vm

project = "kasan-tags"
author = "the kasan-tags authors"
copyright = ("2026, the kasan-tags authors (pages: CC-BY-SA-4.0; code: GPL-2.0-only); "
             "the v9 patches, cover letter and kernel excerpts: their authors, GPL-2.0-only "
             "(Sources and licences)")
extensions = ["sphinx_copybutton", "Documentation.tools.ktcite", "Documentation.tools.ktoutcome"]
# :src:, :v9: and :kt: citations (Documentation/tools/ktcite.py) resolve
# against these at build time; one that does not resolve fails `sphinx-build -W`.
kt_linux_tree = vm.pristine_tree()[0]
kt_v9_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "patches", "v9")
kt_repo = os.path.dirname(os.path.abspath(__file__))
# :outcome: sentences (Documentation/tools/ktoutcome.py) are checked against
# build/gen/checks.json (page_checks.py): the lab checks' names and the last
# grading's results; a check that does not exist or did not pass fails -W.
kt_checks_json = ""
html_theme = "furo"
html_title = "kasan-tags: software tag-based KASAN, live"
html_static_path = ["Documentation/_static"]
html_css_files = ["kasan-tags.css"]
highlight_language = "none"
root_doc = "index"
# Only rst sources of the site: generated pages live in build/gen/.
exclude_patterns = [
    "build/site", "build/check", "build/transcripts", ".git", ".ci", "README.md",
    "patches/v9/notes", "**/node_modules", ".pytest_cache",
    # snippets that pages include, not pages themselves
    "build/gen/sources", "build/gen/transcripts", "build/gen/bench.rst", "build/gen/pictures",
    "build/bench", "build/grade", "build/site-check", "build/site-teacher",
    "build/handout", "build/handout-check", "build/bench-class", "build/autograder*",
]
# Everything else under build/ is output (a bench's unpacked userland, the
# images' payloads, ...), never a page: only build/gen holds pages
_BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "build")
exclude_patterns += ["build/" + d for d in sorted(os.listdir(_BUILD)) if d != "gen"] \
    if os.path.isdir(_BUILD) else []
copybutton_selector = "div.highlight-console pre, div.highlight-shell pre"
copybutton_prompt_text = r"\$ |\(gdb\) "
copybutton_prompt_is_regexp = True
html_show_sourcelink = False
# No page's source in the site: a student edition's _sources would hold the
# teacher blocks (".. only:: teacher" is applied when pages are written).
html_copy_source = False
