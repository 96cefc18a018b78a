# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The class summary a teacher reads: summary.csv, summary.json and
summary.html, a row per student, written from the students' JSON alone
(classroom/gradeclass.py writes those)."""

import csv
import html
import json
import os
from typing import Dict, List

from classroom import copies
from labs.points import points_of


def exercise_ids(rows: List[Dict]) -> List[str]:
    return sorted({e["id"] for r in rows for e in r["result"]["exercises"]["list"]},
                  key=lambda i: tuple(int(x) for x in i.split(".")))


def reasons(res: Dict, ex_id: str) -> List[str]:
    """The BAD lines of one exercise: its checks that failed, at each seed."""
    out = ["%s%s: %s" % ("[hidden seed] " if c.get("seed") == "hidden" else "", c["check"],
                         c["why"]) for c in res.get("checks", [])
           if c.get("exercise") == ex_id and c["ok"] is False]
    e = next((e for e in res["exercises"]["list"] if e["id"] == ex_id), {})
    known = ["known mistake (labs/*/mistakes.toml): %s" % m for m in e.get("mistakes", [])]
    return ([e["why"]] if e.get("why") else []) + known + out


def hints_seen(claimed: Dict) -> List[str]:
    """The hints the student's own tree showed (submission.toml's "hints":
    EX:MISTAKE:LEVEL, each level meaning hints 1..LEVEL), as EX:MISTAKE:N
    for every hint N shown."""
    out = []
    for item in str(claimed.get("hints", "")).split():
        ex, _, rest = item.partition(":")
        mistake, _, level = rest.rpartition(":")
        if ex and mistake and level.isdigit():
            out += ["%s:%s:%d" % (ex, mistake, n) for n in range(1, int(level) + 1)]
    return out


def summary(rows: List[Dict], out_dir: str) -> None:
    """summary.csv, summary.json and summary.html: a row per student (sorted
    by id), the points per lab and per exercise, the seed, the answers.
    A function of the students' JSON only: the same class gives the same
    bytes whatever JOBS or SHARD graded it."""
    rows = sorted(rows, key=lambda r: r["student"])
    ids = exercise_ids(rows)
    labs = sorted({i.split(".")[0] for i in ids}, key=int)
    head = ["student", "seed", "points", "max points", "exercises done", "exercises",
            "demonstrations", "hints seen", "hints", "claimed id", "same work as"] + [
                "lab %s" % x for x in labs] + ids + ["answers"]
    table = []
    for r in rows:
        res = r["result"]
        pts = res.get("points") or points_of(res["exercises"]["list"])
        by_id = {e["id"]: e for e in res["exercises"]["list"]}
        demo = res.get("demonstrations", {"good": 0, "total": 0})
        ans = r["student"] + ".answers.md"
        table.append([r["student"], res.get("seed", ""), pts["earned"], pts["max"],
                      res["exercises"]["done"], res["exercises"]["total"],
                      "%d/%d" % (demo["good"], demo["total"]),
                      len(hints_seen(res.get("claimed", {}))),
                      " ".join(hints_seen(res.get("claimed", {}))),
                      copies.claimed_other(r["student"], res.get("claimed", {})),
                      copies.describe(res.get("copies", {}), ids)]
                     + [pts["labs"].get(x, {}).get("earned", 0) for x in labs]
                     + [by_id[i]["points"] if i in by_id else "" for i in ids]
                     + [ans if os.path.exists(os.path.join(out_dir, ans)) else ""])
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(head)
        w.writerows(table)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump({"columns": head, "rows": table}, f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, "summary.html"), "w") as f:
        f.write(summary_html(rows, head, table, ids))


SORT_JS = """
document.querySelectorAll('th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0], up = th.dataset.up !== '1';
    th.dataset.up = up ? '1' : '0';
    Array.from(body.rows).sort(function (a, b) {
      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;
      var n = parseFloat(x) - parseFloat(y);
      return (isNaN(n) ? x.localeCompare(y) : n) * (up ? 1 : -1);
    }).forEach(function (r) { body.appendChild(r); });
  });
});
"""


def summary_html(rows: List[Dict], head: List[str], table: List[List], ids: List[str]) -> str:
    """A page a teacher reads: sortable by any column (click its header),
    each exercise's BAD reasons one click away (its cell)."""
    def cell(v: object, extra: str = "") -> str:
        return "<td data-v=\"%s\">%s%s</td>" % (html.escape(str(v)), html.escape(str(v)), extra)
    out = []
    for r, row in zip(rows, table):
        cells = []
        for name, v in zip(head, row):
            if name in ids:
                why = reasons(r["result"], name)
                cells.append(cell(v, "<details><summary>why</summary><ul>%s</ul></details>" % (
                    "".join("<li>%s</li>" % html.escape(w) for w in why)) if why else ""))
            elif name == "answers" and v:
                cells.append("<td data-v=\"%s\"><a href=\"%s\">answers</a></td>" % (
                    html.escape(v), html.escape(v)))
            else:
                cells.append(cell(v))
        out.append("<tr>%s</tr>\n" % "".join(cells))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kasan-tags: class "
            "results</title><style>td,th{border:1px solid #999;padding:2px 6px}"
            "th{cursor:pointer}table{border-collapse:collapse}</style></head><body>\n"
            "<p>%d students. Click a column's header to sort by it; an exercise's cell opens "
            "the reasons it lost points.</p>\n<table>\n<thead><tr>%s</tr></thead>\n<tbody>\n"
            "%s</tbody></table>\n<script>%s</script>\n</body></html>\n" % (
                len(rows), "".join("<th>%s</th>" % html.escape(h) for h in head), "".join(out),
                SORT_JS))
