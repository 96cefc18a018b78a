# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""`python3 -m vm ...`: the pipeline's command line (vm/cli.py)."""
import sys

from vm.cli import main

sys.exit(main())
