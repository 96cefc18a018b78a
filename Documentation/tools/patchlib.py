# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Read the v9 mbox patches: headers, message, diffstat, files, hunks.

Pure functions over the patch text (tested in tests/test_series.py).
Also: the post-image of a file from its hunks (what patch 19 leaves of
kasan.rst).  Lineage is Documentation/tools/lineage.py.
"""

import re

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


class Patch:
    def __init__(self, text):
        self.text = text
        head, _, rest = text.partition("\n\n")
        self.headers = {}
        for line in head.splitlines():
            k, _, v = line.partition(": ")
            self.headers[k] = v
        msg, _, rest = rest.partition("\n---\n")
        self.message = msg.rstrip("\n")
        i = rest.find("diff --git ")
        self.diffstat = rest[:i].rstrip("\n") if i >= 0 else ""
        body = rest[i:] if i >= 0 else ""
        sig = body.rfind("\n-- \n")
        self.trailer = body[sig + 1:] if sig >= 0 else ""
        body = body[:sig + 1] if sig >= 0 else body
        self.files = [FileDiff(chunk) for chunk in re.split(r"(?m)^(?=diff --git )", body)
                      if chunk.startswith("diff --git ")]

    @property
    def subject(self):
        return re.sub(r"^\[PATCH[^\]]*\]\s*", "", self.headers.get("Subject", ""))

    @property
    def number(self):
        m = re.search(r"(\d+)/20\]", self.headers.get("Subject", ""))
        return int(m.group(1)) if m else None


class FileDiff:
    def __init__(self, text):
        self.text = text
        lines = text.splitlines()
        m = re.match(r"diff --git a/(\S+) b/(\S+)", lines[0])
        self.old, self.new = m.group(1), m.group(2)
        self.header, self.hunks, cur = [], [], None
        for line in lines:
            h = HUNK.match(line)
            if h:
                cur = Hunk(line, h)
                self.hunks.append(cur)
            elif cur is not None:
                cur.lines.append(line)
            else:
                self.header.append(line)
        self.created = any(ln.startswith("new file mode") for ln in self.header)
        self.deleted = any(ln.startswith("deleted file mode") for ln in self.header)

    @property
    def path(self):
        return self.new

    def added(self):
        return [ln[1:] for h in self.hunks for ln in h.lines if ln.startswith("+")]


class Hunk:
    def __init__(self, header, m):
        self.header = header
        self.old_start, self.old_len = int(m.group(1)), int(m.group(2) or 1)
        self.new_start, self.new_len = int(m.group(3)), int(m.group(4) or 1)
        self.section = m.group(5).strip()
        self.lines = []

    def post_image(self):
        """The new file's lines this hunk shows (context + added)."""
        return [ln[1:] for ln in self.lines if ln[:1] in (" ", "+") or ln == ""]


def post_image(fd):
    """The new file as far as the hunks show it: a list of segments
    {"start": n, "end": m, "lines": [...]} for shown stretches and
    {"start": n, "end": m or None, "lines": None} for gaps (end None: the
    rest of the file), so a page can say what is unknown instead of guessing."""
    out, nxt = [], 1
    for h in fd.hunks:
        if h.new_start > nxt:
            out.append({"start": nxt, "end": h.new_start - 1, "lines": None})
        img = h.post_image()
        out.append({"start": h.new_start, "end": h.new_start + len(img) - 1, "lines": img})
        nxt = h.new_start + len(img)
    if not fd.hunks or trailing_context(fd.hunks[-1]) >= 3:
        out.append({"start": nxt, "end": None, "lines": None})
    # else: diff shows 3 lines of context after a change unless the file
    # ends first, so a last hunk with fewer ends at the end of the file.
    return out


def trailing_context(h):
    """How many unchanged lines close a hunk."""
    n = 0
    for ln in reversed(h.lines):
        if ln.startswith(" ") or ln == "":
            n += 1
        else:
            break
    return n


def normalise(line):
    return " ".join(line.split())
