"""Tournaments in PostgreSQL (a :class:`server.log.contract.TournamentTable`): one row each, its
whole state as JSON and a version that counts its changes; one upcoming or running tournament a
name, held by a unique index."""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from server.log.contract import StoredTournament, live_status
from server.log.postgres.records import Records


class PostgresTournaments:
    """The ``tournaments`` table; PostgreSQL out of reach is ``StoreUnavailable``."""

    def __init__(self, records: Records) -> None:
        self.records = records

    async def tournament_created(self, state: dict[str, Any]) -> int | None:
        async with self.records.connection() as conn, conn.transaction():
            row = await (await conn.execute("SELECT nextval('tournament_ids')")).fetchone()
            assert row is not None
            number = int(row[0])
            kept = await conn.execute(
                "INSERT INTO tournaments (id, name, status, version, state) VALUES (%s, %s, %s, 1, %s)"
                " ON CONFLICT (lower(name)) WHERE status IN ('upcoming', 'running') DO NOTHING",
                (number, state["name"], state["status"], Jsonb({**state, "id": number})),
            )
            return number if kept.rowcount == 1 else None

    async def tournament(self, tournament_id: int) -> StoredTournament | None:
        return await self._one("SELECT version, state FROM tournaments WHERE id = %s", (tournament_id,))

    async def tournament_named(self, name: str) -> StoredTournament | None:
        return await self._one(
            "SELECT version, state FROM tournaments WHERE lower(name) = lower(%s) ORDER BY id DESC LIMIT 1",
            (name,),
        )

    async def tournament_saved(self, version: int, state: dict[str, Any]) -> bool:
        async with self.records.connection() as conn:
            done = await conn.execute(
                "UPDATE tournaments SET status = %s, version = version + 1, state = %s"
                " WHERE id = %s AND version = %s",
                (state["status"], Jsonb(state), state["id"], version),
            )
            return done.rowcount == 1

    async def tournaments_live(self) -> list[StoredTournament]:
        return await self._many(
            "SELECT version, state FROM tournaments WHERE status = ANY(%s) ORDER BY id",
            (list(live_status()),),
        )

    async def tournaments_recent(self, limit: int) -> list[StoredTournament]:
        return await self._many(
            "SELECT version, state FROM tournaments WHERE NOT status = ANY(%s) ORDER BY id DESC LIMIT %s",
            (list(live_status()), limit),
        )

    async def _one(self, sql: str, args: tuple[Any, ...]) -> StoredTournament | None:
        found = await self._many(sql, args)
        return found[0] if found else None

    async def _many(self, sql: str, args: tuple[Any, ...]) -> list[StoredTournament]:
        async with self.records.connection() as conn:
            rows = await (await conn.execute(sql.encode(), args)).fetchall()
        return [StoredTournament(int(version), dict(state)) for version, state in rows]
