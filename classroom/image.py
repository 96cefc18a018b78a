# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`make image`: the course as OCI images, from Debian's packages only.

    base      vm/images/course.txt by mmdebstrap (vm/container.py), cached
              by the recipe's key
    student   base + the handout (no grader-only file, no secret) + every
              kernel the labs need (make dist, imported at the image's own
              cache path); its entry copies the handout into /course the
              first time, so a student's files live on the host:
                  docker run -it --rm -v "$PWD/kasan-work:/course" IMAGE
    grader    base + this checkout (its files, committed or not, with their
              list) + the kernels; the course secret comes at run time
              (KASAN_TAGS_COURSE_SECRET, a mounted file), never in a layer

Each flavour is a `podman build` layer on the base, tagged
kasan-tags-FLAVOUR:latest, and saved as build/images/kasan-tags-FLAVOUR.tar,
which `docker load` and `podman load` take.  The recipe prints each
image's size and build time.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

import vm
from classroom import handout
from vm import container
from vm.base import one_line_errors

REPO = vm.REPO
OUT = os.path.join(REPO, "build", "images")
FLAVOURS = ("student", "grader")
# Where the course lives in an image, and the student's own copy
OPT = "/opt/kasan-tags"
COURSE = "/course"

ENTER = """#!/bin/sh
# The image's entry: the first time, the handout (or the grader's tree) is
# copied into %(course)s, which a student mounts from their machine; then
# the command runs there (a shell by default).
set -eu
if [ -d %(opt)s/tree ] && [ -z "$(ls -A %(course)s 2>/dev/null)" ]; then
    mkdir -p %(course)s
    cp -a %(opt)s/tree/. %(course)s/
    echo "kasan-tags: your copy of the course is in %(course)s (kept on your machine)" >&2
fi
cd %(course)s
exec "$@"
""" % {"opt": OPT, "course": COURSE}

CONTAINERFILE = """FROM %(base)s
COPY payload %(opt)s
RUN chmod 755 %(opt)s/enter && cd %(opt)s/tree && \\
    HOME=/root make -s import FILE=%(opt)s/kernels.tar.zst && \\
    rm %(opt)s/kernels.tar.zst && HOME=/root make -s kernel >/dev/null
ENV HOME=/root KASAN_TAGS_IMAGE=%(flavour)s LANG=C.UTF-8
WORKDIR %(course)s
ENTRYPOINT ["%(opt)s/enter"]
CMD ["bash"]
"""


def _run(args: List[str], what: str, timeout: float = 3600) -> str:
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if p.returncode:
        raise vm.KtError("%s failed: %s" % (what, (p.stdout + p.stderr).strip()[-400:]))
    return p.stdout


def kernels(dest: str) -> str:
    """`make dist` of the kernels the labs need, into dest."""
    _run(["make", "-s", "-C", REPO, "dist", "DIST_FILE=" + dest], "make dist")
    return dest


def payload(flavour: str, top: str, dist: Optional[str] = None) -> str:
    """top/payload: the tree the flavour carries, its kernels (the archive
    `dist`, or a new make dist), its entry."""
    pay = os.path.join(top, "payload")
    shutil.rmtree(pay, ignore_errors=True)
    os.makedirs(pay)
    tree = os.path.join(pay, "tree")
    if flavour == "student":
        handout.make_handout(tree)
    else:
        # the checkout's files as they are (committed or not), with their
        # list: a tree without .git knows its own files (classroom/handout.py)
        names = handout.tree_files()
        for rel in names:
            os.makedirs(os.path.join(tree, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(os.path.join(REPO, rel), os.path.join(tree, rel))
        with open(os.path.join(tree, handout.TREE_FILES), "w") as f:
            f.write("".join(n + "\n" for n in names))
    archive = os.path.join(pay, "kernels.tar.zst")
    if not dist:
        kernels(archive)
    elif os.stat(dist).st_dev == os.stat(pay).st_dev:
        os.link(dist, archive)
    else:
        shutil.copy(dist, archive)
    with open(os.path.join(pay, "enter"), "w") as f:
        f.write(ENTER)
    return pay


def check_flavour(flavour: str) -> None:
    if flavour not in FLAVOURS:
        raise vm.KtError("FLAVOUR=%s: not an image (%s)" % (flavour, ", ".join(FLAVOURS)))


def image_id(tag: str) -> str:
    """The id of the image `tag` names in podman, or "" when it names none."""
    p = subprocess.run(container.PODMAN + ["image", "inspect", "--format", "{{.Id}}", tag],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else ""


def build(flavour: str, save: bool = True, dist: Optional[str] = None) -> Dict[str, object]:
    """Build one flavour: {tag, archive, seconds, bytes}; save=False keeps
    it in podman only (make check: no archive of a few GiB to write);
    dist: a make dist archive to carry (both flavours carry the same)."""
    check_flavour(flavour)
    t0 = time.time()
    base = container.image("course")
    top = tempfile.mkdtemp(prefix="kt-image-")
    try:
        payload(flavour, top, dist)
        with open(os.path.join(top, "Containerfile"), "w") as f:
            f.write(CONTAINERFILE % {"base": base, "opt": OPT, "course": COURSE,
                                     "flavour": flavour})
        tag = "localhost/kasan-tags-%s:latest" % flavour
        before = image_id(tag)
        _run(container.PODMAN + ["build", "--network", "none", "-t", tag, top],
             "podman build of the %s image" % flavour)
        if before and before != image_id(tag):
            # the image the tag named before, now nameless: a few GiB each
            # build would otherwise leave behind (a container using it keeps it)
            subprocess.run(container.PODMAN + ["rmi", before], capture_output=True)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    if not save:
        size = _run(container.PODMAN + ["image", "inspect", "--format", "{{.Size}}", tag],
                    "podman image inspect").strip()
        return {"tag": tag, "archive": "", "seconds": time.time() - t0,
                "bytes": int(size) if size.isdigit() else 0}
    os.makedirs(OUT, exist_ok=True)
    archive = os.path.join(OUT, "kasan-tags-%s.tar" % flavour)
    if os.path.exists(archive):
        os.unlink(archive)
    _run(container.PODMAN + ["save", "--format", "docker-archive", "-o", archive, tag],
         "podman save")
    return {"tag": tag, "archive": archive, "seconds": time.time() - t0,
            "bytes": os.path.getsize(archive)}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m classroom.image")
    ap.add_argument("flavours", nargs="*", default=list(FLAVOURS))
    a = ap.parse_args(argv)

    def go() -> None:
        for fl in a.flavours:
            check_flavour(fl)
        top = tempfile.mkdtemp(prefix="kt-image-dist-")
        try:
            dist = kernels(os.path.join(top, "kernels.tar.zst")) if len(a.flavours) > 1 else None
            for fl in a.flavours:
                r = build(fl, dist=dist)
                print("image: %s: %s, %.0f MiB, built in %.0f s (docker load -i %s)" % (
                    fl, r["tag"], int(r["bytes"]) / 2**20, r["seconds"],
                    os.path.relpath(str(r["archive"]), os.getcwd())), flush=True)
        finally:
            shutil.rmtree(top, ignore_errors=True)
    return one_line_errors(go)


if __name__ == "__main__":
    sys.exit(main())
