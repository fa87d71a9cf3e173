"""The SQLite log keeps the promises every game log makes about resume tokens."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from server.log.contract import GameLog
from server.log.sqlite.store import Store
from tests.server.tokens import CHECKS


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
async def test_the_sqlite_log_keeps_the_token_promises(
    tmp_path: Path, check: Callable[[GameLog], Awaitable[None]]
) -> None:
    """Each promise of ``tests/server/tokens.py`` holds for the SQLite log."""
    store = Store(str(tmp_path / "t.db"))
    try:
        await check(store)
    finally:
        store.close()
