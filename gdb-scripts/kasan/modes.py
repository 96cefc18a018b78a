# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The KASAN modes, one row each: every other module reads its spellings
from here (tests/test_layout.py keeps the literals out of the others).

    name      the lab module's and this package's spelling: kasan_lab.c's
              `mode=` field, tags.Params.mode, expected.toml's tables
    kernel    6.1's spelling in reports and boot lines ("KernelAddressSanitizer
              initialized (sw-tags)", mm/kasan/sw_tags.c: kasan_init_sw_tags)
    config    the Kconfig symbol (lib/Kconfig.kasan)
    variant   the project's kernel built in this mode (vm/configs/VARIANT.config)
    tag_range the random tags of the mode in 6.1, or None: KASAN_TAG_MIN..
              KASAN_TAG_MAX of include/linux/kasan-tags.h -- 0x00..0xfd for
              sw-tags, 0xf0..0xfd for hw-tags (0xfe, 0xff reserved in both)
    repeat    hw-tags: the chance that a slot reused after GAP allocations
              keeps its tag, as labs/module measures it ({gap: p})
"""
from typing import Dict, NamedTuple, Optional, Tuple


class Mode(NamedTuple):
    name: str
    kernel: str
    config: str
    variant: str
    tag_range: Optional[Tuple[int, int]]


SW_TAGS = Mode("sw_tags", "sw-tags", "CONFIG_KASAN_SW_TAGS", "swtags", (0x00, 0xFD))
HW_TAGS = Mode("hw_tags", "hw-tags", "CONFIG_KASAN_HW_TAGS", "hwtags", (0xF0, 0xFD))
GENERIC = Mode("generic", "generic", "CONFIG_KASAN_GENERIC", "generic", None)
ALL = (SW_TAGS, GENERIC, HW_TAGS)
TAGGED = (SW_TAGS, HW_TAGS)
# the kernel without KASAN, as the tables name it
NONE_VARIANT = "none"
# hw-tags' tag repeat on reuse after GAP allocations (labs/scenarios.py's
# collision check and bench/collisions.py): 2/16 right away, 19/256 one apart
HW_REPEAT: Dict[int, float] = {0: 2 / 16, 1: 19 / 256}


def by_any(spelling: str) -> Optional[Mode]:
    """The mode any of its spellings names (sw_tags, sw-tags, swtags), or None."""
    for m in ALL:
        if spelling in (m.name, m.kernel, m.variant):
            return m
    return None
