"""What every test run says first; and the compiled modules run as the server runs them."""

from __future__ import annotations

import compiled

compiled.use()  # before any test imports one of them: a fresh build, else the sources


def pytest_report_header() -> str:
    return f"compiled modules (compiled/__init__.py): {compiled.summary()}"
