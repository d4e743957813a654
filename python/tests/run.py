"""Runs the package's tests with pytest (ctest's python_package tests):
status 77, which ctest counts as skipped, with a message when this
interpreter lacks numpy or pytest."""

import sys

for module, package in (("numpy", "python3-numpy"), ("pytest", "python3-pytest")):
    try:
        __import__(module)
    except ImportError:
        print("skipped: %s has no %s (on Debian: apt-get install %s, or configure with -DTCGEN_PYTHON=...)"
              % (sys.executable, module, package))
        sys.exit(77)

import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider"] + sys.argv[1:]))
