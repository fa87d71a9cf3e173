"""Finished games' analyses in PostgreSQL (a :class:`server.log.contract.AnalysisTable`): one row a
game, written once."""

from __future__ import annotations

import time
from typing import Any

from psycopg.types.json import Jsonb

from server.log.postgres.records import Records


class PostgresAnalyses:
    """The ``analyses`` table; PostgreSQL out of reach is ``StoreUnavailable``."""

    def __init__(self, records: Records) -> None:
        self.records = records

    async def analysis(self, game_id: str) -> dict[str, Any] | None:
        async with self.records.connection() as conn:
            row = await (
                await conn.execute("SELECT analysis FROM analyses WHERE game_id = %s", (game_id,))
            ).fetchone()
        return None if row is None else dict(row[0])

    async def analysis_saved(self, game_id: str, analysis: dict[str, Any]) -> bool:
        async with self.records.connection() as conn:
            done = await conn.execute(
                "INSERT INTO analyses (game_id, version, made, analysis) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (game_id) DO NOTHING",
                (game_id, int(analysis.get("version", 0)), time.time(), Jsonb(analysis)),
            )
            return done.rowcount == 1
