"""Games in the SQLite log: a game's row and its players' (who sits where, as whom), the changes a
running game makes to them, and every game read back as the contract's :class:`StoredGame`.

A running game's moves are the journal's (:mod:`server.log.sqlite.journal`); a finished game's
are a JSON list in its row, written with its result.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from engine import GameRecord, Options, Outcome
from server.log.contract import StoredGame, StoreUnavailable
from server.log.sqlite.journal import Journal

INSERT_GAME = (
    "INSERT INTO games"
    " (id, room, players, kinds, seed, options, board, start_player, started, room_options)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_PLAYER = "INSERT INTO players (game_id, name, identity) VALUES (?, ?, ?)"

#: a game's start as rows: its row of ``games`` (``INSERT_GAME``) and its players' (``INSERT_PLAYER``)
GameRows = tuple[tuple[Any, ...], list[tuple[Any, ...]]]

# the columns of ``games`` in the order ``_game`` reads them (a log from before ``room_options``
# was kept got the column added at the end when it was upgraded)
_GAME_COLUMNS = (
    "id, room, players, kinds, seed, options, board, start_player, started, finished, result,"
    " room_options, moves, auto"
)


def game_rows(
    game_id: str,
    room: str,
    record: GameRecord,
    kinds: list[str],
    room_options: dict[str, Any] | None,
    identities: list[str | None] | None,
) -> GameRows:
    """The rows that log a game's start, started now."""
    who = identities or [None] * len(record.players)
    game = (
        game_id,
        room,
        json.dumps(list(record.players)),
        json.dumps(kinds),
        record.seed,
        json.dumps({"stammtisch": record.options.stammtisch}),
        record.board,
        record.start_player,
        time.time(),
        json.dumps(room_options or {}),
    )
    return game, [(game_id, name, identity) for name, identity in zip(record.players, who, strict=True)]


class Games:
    """The games' and players' rows: each write here is one committed transaction, but for
    :meth:`finish`, which is part of the caller's."""

    def __init__(self, db: sqlite3.Connection, journal: Journal) -> None:
        self._db = db
        self._journal = journal

    # --- writing ---------------------------------------------------------------------------------

    def seat_taken(self, game_id: str, seat: int, old: str, name: str, identity: str | None) -> None:
        """Seat ``seat`` of the running game, ``old``'s, is ``name``'s; ``old`` watches."""
        with self._db:
            self._db.execute("BEGIN")
            row = self._db.execute("SELECT players FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreUnavailable(f"{game_id}: no such game in the log")
            players = json.loads(row[0])
            players[seat] = name
            self._db.execute("UPDATE games SET players = ? WHERE id = ?", (json.dumps(players), game_id))
            self._db.execute(
                "UPDATE players SET name = ?, identity = ? WHERE game_id = ? AND name = ?",
                (name, identity, game_id, old),
            )
            self._db.execute("INSERT OR IGNORE INTO voted_out (game_id, name) VALUES (?, ?)", (game_id, old))

    def voted_out(self, game_id: str, name: str) -> None:
        """``name`` was voted out of the running game."""
        try:
            self._db.execute("INSERT OR IGNORE INTO voted_out (game_id, name) VALUES (?, ?)", (game_id, name))
        except sqlite3.Error as e:  # no such game (the foreign key), or the file failed: nothing written
            raise StoreUnavailable(f"{game_id}: {e}") from e

    def game_option(self, game_id: str, key: str, value: bool) -> None:
        """The running game's room options say ``key`` is ``value`` from now on."""
        with self._db:
            self._db.execute("BEGIN")
            row = self._db.execute("SELECT room_options FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreUnavailable(f"{game_id}: no such game in the log")
            options = {**json.loads(row[0] or "{}"), key: value}
            self._db.execute("UPDATE games SET room_options = ? WHERE id = ?", (json.dumps(options), game_id))

    def finish(self, game_id: str, outcome: Outcome) -> bool:
        """In the caller's transaction: the game's result, and its moves into its row; whether it
        was running (a game finished before is left as it was)."""
        marks = self._journal.auto(game_id)
        cursor = self._db.execute(
            "UPDATE games SET finished = ?, result = ?, moves = ?, auto = ?"
            " WHERE id = ? AND finished IS NULL",
            (
                time.time(),
                json.dumps(outcome.to_dict()),
                json.dumps(self._journal.moves(game_id)),
                json.dumps(marks) if marks else None,
                game_id,
            ),
        )
        return cursor.rowcount == 1

    # --- reading ---------------------------------------------------------------------------------

    def unfinished(self) -> list[StoredGame]:
        """The running games, the oldest first."""
        rows = self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE finished IS NULL ORDER BY started"
        ).fetchall()
        return [self._game(row) for row in rows]

    def game(self, game_id: str) -> StoredGame | None:
        row = self._db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else self._game(row)

    def history(self, identity: str, limit: int, reader: str | None) -> list[StoredGame]:
        """The games ``identity`` played that ``reader`` may read (a private one only by its
        players), newest first."""
        return self._newest("p.identity", identity, limit, (reader,))

    def named(self, name: str, limit: int) -> list[StoredGame]:
        """The games someone played under ``name``, newest first, whoever it was."""
        return self._newest("p.name", name, limit)

    def _newest(
        self, column: str, value: str, limit: int, readers: tuple[str | None, ...] = ()
    ) -> list[StoredGame]:
        """The newest ``limit`` games whose players' ``column`` is ``value`` (with ``readers``, one
        reader: those it may read): their ids chosen first, the rows read for those alone (sorting
        whole rows, moves and all, of a player with 2,000 games took 5.4 ms a question, the ids
        alone 2.0). The reader's games are read once (``IN``), not for each private game."""
        readable = (
            " AND (COALESCE(json_extract(g.room_options, '$.private'), 0) = 0"
            " OR p.game_id IN (SELECT game_id FROM players WHERE identity = ?))"
            if readers
            else ""
        )
        rows = self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE id IN (SELECT p.game_id FROM players p"
            f" JOIN games g ON g.id = p.game_id WHERE {column} = ?{readable} ORDER BY g.started DESC LIMIT ?)"
            " ORDER BY started DESC",
            (value, *readers, limit),
        ).fetchall()
        return [self._game(row) for row in rows]

    def _moves_of(self, game_id: str, finished: float | None, moves: str | None) -> list[str]:
        if finished is None:
            return self._journal.moves(game_id)
        return list(json.loads(moves or "[]"))

    def _game(self, row: tuple[Any, ...]) -> StoredGame:
        (
            game_id,
            room,
            players,
            kinds,
            seed,
            options,
            board,
            start_player,
            started,
            finished,
            result,
            room_options,
            moves,
            auto,
        ) = row
        record = GameRecord(
            players=tuple(json.loads(players)),
            seed=int(seed),
            options=Options(**json.loads(options)),
            board=board,
            start_player=start_player,
            moves=tuple(self._moves_of(game_id, finished, moves)),
        )
        return StoredGame(
            game_id,
            room,
            record,
            tuple(json.loads(kinds)),
            started,
            finished,
            None if result is None else json.loads(result),
            {} if room_options is None else json.loads(room_options),
            self._identities(game_id),
            self._voted_out(game_id),
            self._journal.auto(game_id) if finished is None else _marks(auto),
        )

    def _identities(self, game_id: str) -> tuple[str | None, ...]:
        rows = self._db.execute(
            "SELECT identity FROM players WHERE game_id = ? ORDER BY rowid", (game_id,)
        ).fetchall()
        return tuple(identity for (identity,) in rows)

    def _voted_out(self, game_id: str) -> tuple[str, ...]:
        rows = self._db.execute("SELECT name FROM voted_out WHERE game_id = ? ORDER BY rowid", (game_id,))
        return tuple(name for (name,) in rows)


def _marks(kept: str | None) -> dict[int, str]:
    """A finished game's marks as its row keeps them (JSON keys are strings); none in an older one."""
    return {} if kept is None else {int(number): mark for number, mark in json.loads(kept).items()}
