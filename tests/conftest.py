"""What every test run says first."""

from __future__ import annotations

import os

from engine.compiled import state


def pytest_report_header() -> str:
    built = state()
    if built == "compiled" and os.environ.get("CAFE_PURE") == "1":
        built = "compiled, run as Python (CAFE_PURE=1)"
    return f"compiled modules (engine/compiled.py): {built}"
