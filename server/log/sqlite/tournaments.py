"""Tournaments in the SQLite log: one row each, its whole state as JSON and a version that counts
its changes (a :class:`server.log.contract.TournamentTable`)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from server.log.contract import StoredTournament, live_status


class Tournaments:
    """The ``tournaments`` table; every call is one committed statement."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    async def tournament_created(self, state: dict[str, Any]) -> int | None:
        """Keep a new tournament (its ``id`` is given here); ``None`` if a tournament of its name
        is upcoming or running."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            live = self._db.execute(
                "SELECT 1 FROM tournaments WHERE name = ? COLLATE NOCASE AND status IN (?, ?)",
                (state["name"], *live_status()),
            ).fetchone()
            if live is not None:
                return None
            number = self._db.execute("SELECT coalesce(max(id), 0) + 1 FROM tournaments").fetchone()[0]
            state = {**state, "id": number}
            self._db.execute(
                "INSERT INTO tournaments (id, name, status, version, state) VALUES (?, ?, ?, 1, ?)",
                (number, state["name"], state["status"], json.dumps(state)),
            )
            return int(number)

    async def tournament(self, tournament_id: int) -> StoredTournament | None:
        row = self._db.execute(
            "SELECT version, state FROM tournaments WHERE id = ?", (tournament_id,)
        ).fetchone()
        return None if row is None else StoredTournament(int(row[0]), json.loads(row[1]))

    async def tournament_named(self, name: str) -> StoredTournament | None:
        """The latest tournament of ``name`` (in any case)."""
        row = self._db.execute(
            "SELECT version, state FROM tournaments WHERE name = ? COLLATE NOCASE ORDER BY id DESC LIMIT 1",
            (name,),
        ).fetchone()
        return None if row is None else StoredTournament(int(row[0]), json.loads(row[1]))

    async def tournament_saved(self, version: int, state: dict[str, Any]) -> bool:
        """Write ``state`` over version ``version``; ``False`` (nothing written) if it changed since."""
        cursor = self._db.execute(
            "UPDATE tournaments SET status = ?, version = version + 1, state = ?"
            " WHERE id = ? AND version = ?",
            (state["status"], json.dumps(state), state["id"], version),
        )
        return cursor.rowcount == 1

    async def tournaments_live(self) -> list[StoredTournament]:
        """The upcoming and running tournaments, oldest first."""
        rows = self._db.execute(
            "SELECT version, state FROM tournaments WHERE status IN (?, ?) ORDER BY id", live_status()
        )
        return [StoredTournament(int(v), json.loads(s)) for v, s in rows]

    async def tournaments_recent(self, limit: int) -> list[StoredTournament]:
        """The ``limit`` latest tournaments that are over, latest first."""
        rows = self._db.execute(
            "SELECT version, state FROM tournaments WHERE status NOT IN (?, ?) ORDER BY id DESC LIMIT ?",
            (*live_status(), limit),
        )
        return [StoredTournament(int(v), json.loads(s)) for v, s in rows]
