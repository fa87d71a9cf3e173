"""Finished games' analyses in the SQLite log (a :class:`server.log.contract.AnalysisTable`): one
row a game, written once."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any


class Analyses:
    """The ``analyses`` table; every call is one committed statement."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    async def analysis(self, game_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT analysis FROM analyses WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        found: dict[str, Any] = json.loads(row[0])
        return found

    async def analysis_saved(self, game_id: str, analysis: dict[str, Any]) -> bool:
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO analyses (game_id, version, made, analysis) VALUES (?, ?, ?, ?)",
            (game_id, int(analysis.get("version", 0)), time.time(), json.dumps(analysis)),
        )
        return cursor.rowcount == 1
