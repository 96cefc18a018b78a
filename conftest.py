"""pytest fixtures shared by tests/ and gdb-scripts/tests/: real serial logs."""
import lzma
import os

import pytest

# The import path is pyproject.toml's `pythonpath` (the checkout, gdb-scripts).
REPO = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(REPO, "gdb-scripts", "tests", "fixtures")


def load_fixture(name):
    path = os.path.join(FIXTURES, name + ".log.xz")
    if not os.path.exists(path):
        pytest.fail("missing fixture %s: run `make fixtures`" % path)
    with lzma.open(path, "rt") as f:
        return f.read()


@pytest.fixture(scope="session")
def swtags_log():
    return load_fixture("swtags")


@pytest.fixture(scope="session")
def generic_log():
    return load_fixture("generic")
