# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""Kernel variants as data: every vm/configs/NAME.config is one.

Shared pieces live in vm/configs/fragments/ and are pulled in with
`# kt-include: other.config`; `# kt-patch: patches/.../NN-x.patch` names a
kernel patch the variant applies.  Pure functions over those files."""

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Tuple

from vm.base import REPO, VM, KtError

CONFIGS = os.path.join(VM, "configs")
# the sw-tags kernel, as gdb-scripts/kasan/modes.py names it too (vm imports no
# gdb-side package; tests/test_layout.py checks the two agree)
DEFAULT_VARIANT = "swtags"


@dataclass(frozen=True)
class Arch:
    """What a target architecture changes in the pipeline (`# kt-arch: NAME`
    in a variant; arm64 by default)."""
    kbuild: str          # make ARCH=
    base: str            # the base fragment in fragments/
    image: str           # the boot image in the build dir
    image_target: str    # its make target
    clang_target: str    # the init's --target
    lab_module: bool     # labs/module is built and loaded (arm64 only)


ARCHES = {
    "arm64": Arch("arm64", "base.config", "arch/arm64/boot/Image", "Image",
                  "aarch64-linux-gnu", True),
    # x86_64 kernels serve kasan-decode's x86 fixture (make fixtures) only
    "x86_64": Arch("x86_64", "base-x86_64.config", "arch/x86/boot/bzImage", "bzImage",
                   "x86_64-linux-gnu", False),
}


def directive(variant: str, name: str, default: str) -> str:
    """The value of `# kt-NAME: VALUE` in the variant's own file."""
    for line in open(os.path.join(CONFIGS, variant + ".config")):
        m = re.match(r"#\s*kt-%s:\s*(\S+)" % name, line)
        if m:
            return m.group(1)
    return default


def inherited_directive(variant: str, name: str, default: str) -> str:
    """The value of `# kt-NAME: VALUE` in the variant's fragments, included
    ones too (the last one in merge order wins)."""
    frags, _ = resolve_variant(variant)
    value = default
    for path in frags:
        for line in open(path):
            m = re.match(r"#\s*kt-%s:\s*(\S+)" % name, line)
            if m:
                value = m.group(1)
    return value


def lab_module_of(variant: str) -> bool:
    """Is labs/module built and loaded for this variant?  Its arch's rule,
    unless a fragment says `# kt-lab-module: none` (hwtags and what
    includes it: no shadow memory)."""
    return arch_of(variant).lab_module and \
        inherited_directive(variant, "lab-module", "yes") != "none"


def arch_of(variant: str) -> Arch:
    name = directive(variant, "arch", "arm64")
    if name not in ARCHES:
        raise KtError("%s: unknown arch %r (known: %s)" % (variant, name, ", ".join(ARCHES)))
    return ARCHES[name]


def variants() -> List[str]:
    return sorted(f[:-7] for f in os.listdir(CONFIGS) if f.endswith(".config"))


def resolve_variant(name: str) -> Tuple[List[str], List[str]]:
    """Return (fragment paths in merge order, patch paths) of a variant."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name or "") or \
            not os.path.exists(os.path.join(CONFIGS, name + ".config")):
        raise KtError("unknown variant %r; known: %s" % (name, ", ".join(variants())))
    frags = [os.path.join(CONFIGS, "fragments", arch_of(name).base)]
    patches: List[str] = []

    def visit(path: str) -> None:
        for line in open(path):
            m = re.match(r"#\s*kt-include:\s*(\S+)", line)
            if m:
                # a variant, or a shared piece from vm/configs/fragments/
                inc = os.path.join(CONFIGS, m.group(1))
                if not os.path.exists(inc):
                    inc = os.path.join(CONFIGS, "fragments", m.group(1))
                if not os.path.exists(inc):
                    raise KtError("%s includes missing %s" % (path, m.group(1)))
                visit(inc)
            m = re.match(r"#\s*kt-patch:\s*(\S+)", line)
            if m:
                p = os.path.join(REPO, m.group(1))
                if not os.path.exists(p):
                    raise KtError("%s names missing patch %s" % (path, m.group(1)))
                patches.append(p)
        if path not in frags:
            frags.append(path)
    visit(os.path.join(CONFIGS, name + ".config"))
    return frags, patches


def fragment_options(paths: List[str]) -> Dict[str, str]:
    """{CONFIG_X: value} that the fragments ask for ('n' for 'is not set')."""
    want = {}
    for path in paths:
        for line in open(path):
            line = line.strip()
            m = re.fullmatch(r"(CONFIG_\w+)=(.*)", line)
            if m:
                want[m.group(1)] = m.group(2)
            m = re.fullmatch(r"# (CONFIG_\w+) is not set", line)
            if m:
                want[m.group(1)] = "n"
    return want


def config_mismatches(want: Dict[str, str],
                      dotconfig_text: str) -> List[Tuple[str, str, str]]:
    """(option, wanted, got) for every wanted option .config does not have."""
    have = {}
    for line in dotconfig_text.splitlines():
        m = re.fullmatch(r"(CONFIG_\w+)=(.*)", line)
        if m:
            have[m.group(1)] = m.group(2)
    bad = []
    for k, v in want.items():
        got = have.get(k, "n")
        if got != v:
            bad.append((k, v, got))
    return bad
