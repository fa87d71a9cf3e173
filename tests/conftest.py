"""What every test run says first; the compiled modules run as the server runs them; the tests are
collected, and a failure's report made, with the garbage collector paused; no property test has a
deadline; and each test leaves logging as it found it."""

from __future__ import annotations

import gc
from collections.abc import Generator
from typing import Any

import pytest
import structlog
from hypothesis import settings

import compiled

compiled.use()  # before any test imports one of them: a fresh build, else the sources

# A property test's example that runs over Hypothesis' deadline (200 ms) fails it, however right
# its answer: a timed test, which these shared machines fail now and then (a schema test took
# 264 ms once under a full run, 5 ms after). The speed of things is measured in bench/.
settings.register_profile("cafe", deadline=None)
settings.load_profile("cafe")

# Collecting imports every test module, and what that makes lives as long as the run: the cyclic
# collector's passes while they loaded found nothing to free and took a quarter of the collection's
# CPU (2.8 s against 2.0 s a process). It is on again once the tests are collected, with what the
# collection made frozen out of its passes.
gc.disable()


def pytest_collection_finish() -> None:
    gc.freeze()
    gc.enable()


def pytest_report_header() -> str:
    return f"compiled modules (compiled/__init__.py): {compiled.summary()}"


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Generator[None, None, None]:
    """structlog's configuration after each test as before it: a test that runs a command's
    ``main`` in this process (``cafe-bot``'s sets up its logging on the stderr of that moment, the
    test's captured one) would leave every later test of the worker logging to a closed file."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


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


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own, to see what it made of the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` a test's ``xdist_group`` reaches pytest-xdist's scheduler only as
    a suffix of its node id (``...::test_x@browser``), which pytest-xdist 3.8 writes to pytest's
    ``Item._nodeid``; pytest 9.2 keeps the id in ``Item._id``, so the suffix was lost and every test
    of a group ran on any worker. Here the suffix is written where pytest keeps it (once
    pytest-xdist does so itself, it is there already), and a run whose ids do not carry their
    groups stops with this error instead of spreading a group."""
    if not getattr(config.option, "loadgroup", False):  # set on pytest-xdist's workers alone
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        names = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks}
        if not names:
            continue
        suffix = "@" + "_".join(sorted(names))  # as pytest-xdist names a test of several groups
        node_id = getattr(item, "_id", None)
        if not item.nodeid.endswith(suffix) and hasattr(node_id, "parse"):
            item._id = type(node_id).parse(item.nodeid + suffix)
        if not item.nodeid.endswith(suffix):
            raise pytest.UsageError(
                f"{item.nodeid}: its xdist_group is not in its node id, so pytest-xdist would not keep"
                " the group on one worker (tests/conftest.py: pytest_collection_modifyitems)"
            )
