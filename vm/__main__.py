"""`python3 -m vm ...`: the pipeline's command line (vm/cli.py)."""
import sys

from vm.cli import main

sys.exit(main())
