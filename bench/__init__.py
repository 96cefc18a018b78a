# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The benchmarks (`make bench`, `make bench-setup`, `make bench-decode`):
they print measured figures and assert nothing."""

import sys
from typing import Callable, Optional

import vm


def run_main(main: Callable[[], Optional[int]]) -> None:
    """A benchmark's entry point: its exit status, or one line for an
    expected failure (KtError) or Ctrl-C, never a traceback."""
    try:
        sys.exit(main() or 0)
    except vm.KtError as e:
        sys.exit("kasan-tags: error: %s" % e)
    except KeyboardInterrupt:
        sys.exit("kasan-tags: interrupted")
