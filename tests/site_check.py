# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Site checks for `make check`: Sphinx -W build, internal links, a real browser."""
import glob
import html.parser
import os
import re
import shutil
import subprocess
import urllib.parse

from labs import lab as labdata
from labs.grade import output_path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITE = os.path.join(REPO, "build", "site")
SHOTS = os.path.join(REPO, "build", "site-check")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]


TEACHER = os.path.join(REPO, "build", "site-teacher")


def build(edition="student"):
    """(ok, message): gensite + sphinx-build -W, as `make site [EDITION=teacher]` does."""
    p = subprocess.run(["make", "-s", "site", "EDITION=" + edition], cwd=REPO,
                       capture_output=True, text=True, timeout=900)
    out = (p.stdout + p.stderr).strip()
    return p.returncode == 0, out.splitlines()[-12:]


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for k in ("href", "src"):
            if a.get(k):
                self.links.append(a[k])


def parse(path, cache={}):
    if path not in cache:
        p = Links()
        p.feed(open(path, errors="replace").read())
        cache[path] = p
    return cache[path]


def broken_links():
    """Every relative href/src of every page exists, with its #anchor."""
    bad = []
    for page in glob.glob(os.path.join(SITE, "**", "*.html"), recursive=True):
        for link in parse(page).links:
            u = urllib.parse.urlparse(link)
            if u.scheme or link.startswith(("mailto:", "//")):
                continue
            target = page if not u.path else os.path.normpath(
                os.path.join(os.path.dirname(page), urllib.parse.unquote(u.path)))
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if not os.path.exists(target):
                bad.append("%s -> %s" % (os.path.relpath(page, SITE), link))
            elif u.fragment and target.endswith(".html") and \
                    u.fragment not in parse(target).ids:
                bad.append("%s -> %s (no such anchor)" % (os.path.relpath(page, SITE), link))
    return bad


def chromium(page, shot, site=SITE):
    exe = shutil.which("chromium")
    if not exe:
        raise RuntimeError("chromium is not installed (apt package chromium; make deps)")
    url = "file://" + os.path.join(site, page)
    profile = os.path.join(SHOTS, "profile")
    os.makedirs(SHOTS, exist_ok=True)
    dom = subprocess.run([exe] + CHROME_FLAGS + ["--user-data-dir=" + profile,
                                                 "--dump-dom", url],
                         capture_output=True, text=True, timeout=120).stdout
    subprocess.run([exe] + CHROME_FLAGS + ["--user-data-dir=" + profile,
                                           "--screenshot=" + os.path.join(SHOTS, shot),
                                           "--window-size=1200,1600", url],
                   capture_output=True, timeout=120)
    return dom


def transcript_shown(dom, lab, step, pattern):
    """A value that only the run knows (matched in the captured transcript
    file) is rendered inside a kt-transcript container of the page."""
    name = "browser: lab %s shows the captured %s transcript" % (lab[:2].lstrip("0"), step)
    path = os.path.join(REPO, "build", "transcripts", lab, step + ".txt")
    m = re.search(pattern, open(path).read()) if os.path.exists(path) else None
    if not m:
        return (name, False, "no /%s/ in %s" % (pattern, path))
    boxes = re.findall(r'<div class="[^"]*kt-transcript.*?</pre>', dom, re.S)
    return (name, any(m.group(0) in b for b in boxes),
            "%r not inside any of %d kt-transcript blocks" % (m.group(0), len(boxes)))


def machine_paths(site=None, needles=None):
    """Pages that show this machine's checkout or cache path: [(page, path)]."""
    import vm
    needles = needles or [REPO, vm.cache_root()]
    bad = []
    for page in sorted(glob.glob(os.path.join(site or SITE, "**", "*.html"), recursive=True)):
        text = open(page, errors="replace").read()
        bad += [(os.path.relpath(page, site or SITE), n) for n in needles if n in text]
    return bad


# What a rendered site may hold: pages, their static files, the search
# index; never a page's source (_sources) or Sphinx's doctrees.
SITE_KINDS = (".html", ".css", ".js", ".svg", ".png", ".inv", ".buildinfo", ".woff", ".woff2",
              ".ttf", ".eot", ".gif", ".ico")


def site_extras(site=None):
    """Files of the site that are not of SITE_KINDS, or lie under _sources/
    or .doctrees/ (where a student edition would show the teacher's text)."""
    root = site or SITE
    out = []
    for d, _, files in os.walk(root):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            if rel.split(os.sep)[0] in ("_sources", ".doctrees") or \
                    not f.endswith(SITE_KINDS):
                out.append(rel)
    return sorted(out)


def tag_map_shown(dom):
    """Lab 3's page holds an inline SVG tag map with the tags of the
    uaf-realloc report of the run make grade captured."""
    from kasan import report
    from labs import scenarios
    name = "browser: lab 3 shows the tag map of the captured uaf-realloc report"
    log = output_path(labdata.by_number(3).folder, "reports")
    if not os.path.exists(log):
        return (name, False, "no %s (make grade N=3)" % log)
    reps = report.parse_reports("\n".join(scenarios.segments(open(log).read()).get(
        "uaf-realloc", [])))
    if not reps:
        return (name, False, "no uaf-realloc report in %s" % log)
    want = "pointer tag %s, memory tag %s" % (reps[0]["pointer_tag"], reps[0]["memory_tag"])
    svgs = re.findall(r'<svg[^>]*kt-picture.*?</svg>', dom, re.S)
    return (name, any(want in x for x in svgs), "%r in none of %d pictures" % (want, len(svgs)))


def edition_checks():
    """The student edition shows no exercise's answer in any form
    tests/leaks.py knows, a planted answer is found, and the teacher
    edition renders what its teacher blocks say (the sentences looked for)."""
    from tests import leaks
    found, counts = leaks.check(SITE, TEACHER)
    what = ", ".join("%d %s" % (n, k) for k, n in counts.items())
    res = [("site: the student edition shows no answer (looked for: %s)" % what, not found,
            "; ".join("%s: %s %s: %s" % (p, e, form, where[:80]) for p, e, form, where
                      in found[:6]))]
    plant = leaks.planted(SITE)
    res.append(("site: an answer planted in a copy of a lab page is found", bool(plant),
                "the leak test found nothing"))
    res.append(("site: the teacher edition renders its teacher blocks",
                counts["teacher sentences"] >= 20,
                "%d teacher sentences rendered" % counts["teacher sentences"]))
    return res


def merge_table_shown(dom):
    """The series index's posting-to-merge table: a row per patch, each with
    a lore link or an explicit "not found", and a v13 column."""
    table = re.search(r'<table[^>]*kt-merge.*?</table>', dom, re.S)
    rows = re.findall(r"<tr.*?</tr>", table.group(0), re.S)[1:] if table else []
    good = [r for r in rows if ('href="https://lore.kernel.org/r/' in r or "not found" in r)
            and "/25" in r]
    return ("browser: posting-to-merge table, 20 rows with a source each",
            len(rows) == 20 and len(good) == 20, "%d rows, %d with sources" % (len(rows), len(good)))


def dom_checks():
    """[(name, ok, why)] on the DOM Chromium rendered from disk."""
    res = []
    d = chromium("index.html", "index.png")
    res.append(("browser: index title", "<title>kasan-tags" in d, re.findall(r"<title>.*?</title>", d)[:1]))
    d = chromium("build/gen/series/index.html", "series.png")
    table = re.search(r'<table[^>]*kt-series.*?</table>', d, re.S)
    rows = re.findall(r"<tr", table.group(0)) if table else []
    res.append(("browser: series table has 20 patch rows", len(rows) == 21,
                "%d rows incl. header" % len(rows)))
    res.append(("browser: 9 verbatim, 11 descendants",
                d.count(">verbatim<") == 9 and d.count(">descendant<") == 11, ""))
    res.append(merge_table_shown(d))
    d = chromium("build/gen/series/16.html", "patch16.png")
    res.append(("browser: patch 16 has a highlighted diff",
                "highlight-diff" in d and '<span class="gi">' in d and "kt-verbatim" in d, ""))
    d = chromium("build/gen/series/17.html", "patch17.png")
    res.append(("browser: patch 17 is labelled a 6.1 descendant",
                "kt-missing" in d and "6.1 descendant, not the v9 text" in d, ""))
    d = chromium("build/gen/series/07.html", "patch07.png")
    res.append(("browser: patch 07 shows its Message-Id, archive link and diffstat",
                "Message-Id" in d and 'href="https://lore.kernel.org/r/1324a622035e' in d
                and "What the posting changed" in d, ""))
    lab1, lab3 = (labdata.by_number(n).folder for n in (1, 3))
    d = chromium("labs/%s/index.html" % lab1, "lab1.png")
    res.append(transcript_shown(d, lab1, "slab", r"Value returned is \$\d+ = \d+"))
    d = chromium("labs/%s/index.html" % lab3, "lab3.png")
    res.append(tag_map_shown(d))
    search = os.path.join(SITE, "searchindex.js")
    idx = open(search).read() if os.path.exists(search) else ""
    res.append(("site: search index covers the lab pages",
                "kasan_random_tag" in idx and "labs/%s/index" % lab1 in idx, ""))
    return res
