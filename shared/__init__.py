# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What labs/, bench/ and the site share without importing each other:
text tables (tables.py) and the parser of a scenario run's serial log
(scenario_log.py).  It imports only the kasan package (gdb-scripts/)."""
