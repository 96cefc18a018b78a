# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The course secret, and the seeds it gives each student id.

The teacher keeps one secret per course ($KASAN_TAGS_COURSE_SECRET, or a
file in the cache, outside the checkout).  A student's seed and the hidden
seed the grader also tries are an HMAC of the id under it: a student can
reproduce their own seed's runs (student.toml) but not guess the hidden one.
"""

import hashlib
import hmac
import os
import secrets
from typing import Optional, Tuple

import vm
from labs.student import check_id

SECRET_ENV = "KASAN_TAGS_COURSE_SECRET"


def secret_path() -> str:
    """The course secret: $KASAN_TAGS_COURSE_SECRET, or a file in the cache
    (outside the checkout), made on first use; the teacher keeps it."""
    return os.environ.get(SECRET_ENV) or os.path.join(vm.cache_root(), "course-secret")


def course_secret() -> bytes:
    path = secret_path()
    if not os.path.exists(path):
        if os.environ.get(SECRET_ENV):
            raise vm.KtError("%s=%s: no such file" % (SECRET_ENV, path))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
        os.replace(path + ".tmp", path)
    with open(path, "rb") as f:
        data = f.read().strip()
    if len(data) < 16:
        raise vm.KtError("the course secret %s is too short (16 bytes at least)" % path)
    return data


def seeds_of(student_id: str, secret: Optional[bytes] = None) -> Tuple[int, int]:
    """(the student's seed, the hidden seed) of a student id: HMAC-SHA256
    of the id under the course secret; never 0 or 1 (1 is the site's)."""
    key = secret if secret is not None else course_secret()
    out = []
    for kind in ("seed", "hidden"):
        n = int(hmac.new(key, ("%s:%s" % (kind, check_id(student_id))).encode(),
                         hashlib.sha256).hexdigest()[:8], 16)
        out.append(n if n > 1 else n + 2)
    return out[0], out[1]


def student_toml(student_id: str, seed: int) -> str:
    return ("# Your student id and seed (make handout ID=...): `make grade` boots with\n"
            "# this seed; the site's transcripts use SEED=1.\n"
            "id = \"%s\"\nseed = %d\n" % (check_id(student_id), seed))
