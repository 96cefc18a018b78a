# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Runs inside the sandbox (vm/sandbox.py), never in the grader: loads the
student's Python file and calls its functions with the grader's inputs.

stdin:  {"file": "/sandbox/student/tagmath.py",
         "calls": [["tag_of", [args...]], ...]}
stdout: {"load": null or "ErrorType: message",
         "results": [["value", v] | ["error", "ErrorType: message"], ...]}

or, for a student's data file (an answers TOML, a gdb file's text):

stdin:  {"file": "/sandbox/student/predictions.toml", "read": "toml" or "text"}
stdout: {"load": null or "ErrorType: message", "data": the parsed TOML or the text}

Only the standard library: the sandbox shows it this file, the student's
file and nothing of the project.  What the student's code prints goes to
stderr, so that stdout holds this answer alone; each call has 2 s.
"""

import importlib.util
import json
import os
import signal
import sys

CALL_SECONDS = 2


class CallTimeout(Exception):
    pass


def on_alarm(_sig, _frame):
    raise CallTimeout("the call took more than %d s" % CALL_SECONDS)


def plain(v):
    """A value as JSON data: None, bool, int, float, str, and lists and
    str-keyed dicts of those; anything else as its type's name (the grader
    compares data only)."""
    if v is None or type(v) in (bool, int, float, str):
        return v
    for t in (str, float, int):     # a subclass: its plain value
        if isinstance(v, t):
            return t(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v[:10000]]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {str(k): plain(x) for k, x in list(v.items())[:1000]}
    return {"type": type(v).__name__}


def why(e):
    return ("%s: %s" % (type(e).__name__, e))[:300]


def read(req):
    """A data file: parsed (TOML) or as text; never run."""
    res = {"load": None, "data": None}
    try:
        with open(req["file"], "rb") as f:
            raw = f.read()
        if req["read"] == "toml":
            import tomllib
            res["data"] = plain(tomllib.loads(raw.decode()))
        else:
            res["data"] = raw.decode(errors="replace")
    except BaseException as e:  # noqa: BLE001 -- a file that is no TOML, ...
        res["load"] = why(e)
    return res


def main():
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    req = json.load(sys.stdin)
    if req.get("read"):
        json.dump(read(req), out)
        out.flush()
        return
    res = {"load": None, "results": []}
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.alarm(CALL_SECONDS * 5)
        spec = importlib.util.spec_from_file_location("student", req["file"])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        signal.alarm(0)
    except BaseException as e:  # noqa: BLE001 -- the student's file may do anything
        signal.alarm(0)
        res["load"] = why(e)
    else:
        for name, args in req["calls"]:
            try:
                signal.alarm(CALL_SECONDS)
                v = plain(getattr(mod, name)(*args))
                signal.alarm(0)
                res["results"].append(["value", v])
            except BaseException as e:  # noqa: BLE001
                signal.alarm(0)
                res["results"].append(["error", why(e)])
    json.dump(res, out)
    out.flush()


if __name__ == "__main__":
    main()
