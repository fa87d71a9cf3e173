"""What every test run says first; the compiled modules run as the server runs them; and a
failure's report is made with the garbage collector paused."""

from __future__ import annotations

import gc
from collections.abc import Generator
from typing import Any

import pytest

import compiled

compiled.use()  # before any test imports one of them: a fresh build, else the sources


def pytest_report_header() -> str:
    return f"compiled modules (compiled/__init__.py): {compiled.summary()}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport() -> Generator[None, Any, Any]:
    """Make each report with the cyclic garbage collector paused. pytest parses the source of each
    frame it shows (``ast.parse``); on CPython 3.11 a collection in the middle of that parse whose
    finalizer parses too (pytest's unraisable-exception hook formatting a ResourceWarning) makes
    it fail with "SystemError: AST constructor recursion depth mismatch" (python/cpython issue
    106905, fixed in later releases), and an xdist worker dies of it. Every style of traceback
    that shows source parses, so the style alone cannot avoid it; what the pause keeps back runs
    at the next collection."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if collecting:
            gc.enable()
