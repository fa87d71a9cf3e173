"""What every test run says first."""

from __future__ import annotations

from engine.compiled import summary


def pytest_report_header() -> str:
    return f"compiled modules (engine/compiled.py): {summary()}"
