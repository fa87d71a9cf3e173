"""Group commit: the games started and the moves logged by rooms in one turn of the event loop are
committed together at its end, one transaction (one write of the WAL) for all, each still
committed before its room goes on to tell anyone.

One row that cannot be logged fails the transaction: the rows are then logged each on its own, so
that only that one fails. A move whose number is not its game's next fails alone as well (as a
number already taken, or out of order, would in a table indexed by game and number).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any

from server.log.sqlite.games import INSERT_GAME, INSERT_PLAYER, GameRows
from server.log.sqlite.journal import INSERT_MOVE, Journal

#: a move as a room logs it: game id, its number, its notation, its mark (played by the server)
Move = tuple[str, int, str, str | None]
#: a move with its row of the journal: seq, game id, number, notation, mark
_Row = tuple[int, str, int, str, str | None]


class Batch:
    """What rooms log in the current turn of the loop, committed together at its end."""

    def __init__(self, db: sqlite3.Connection, journal: Journal) -> None:
        self._db = db
        self._journal = journal
        self._games: list[tuple[GameRows, asyncio.Future[None]]] = []
        self._moves: list[tuple[Move, asyncio.Future[None]]] = []
        #: the event loop of those, until their commit
        self._gathering: asyncio.AbstractEventLoop | None = None

    def game(self, rows: GameRows) -> asyncio.Future[None]:
        """Log a game's start; the future is done once it is committed."""
        return self._batched(self._games, rows)

    def move(self, game_id: str, number: int, move: str, auto: str | None = None) -> asyncio.Future[None]:
        """Log a move; the future is done once it is committed."""
        return self._batched(self._moves, (game_id, number, move, auto))

    def _batched(self, pending: list[tuple[Any, asyncio.Future[None]]], row: Any) -> asyncio.Future[None]:
        # (the loop is asked for once a turn: on Python 3.11 asking costs a system call, getpid)
        loop = self._gathering
        if loop is None:
            loop = self._gathering = asyncio.get_running_loop()
            loop.call_soon(self._commit)
        committed = loop.create_future()
        pending.append((row, committed))
        return committed

    def _commit(self) -> None:
        self._gathering = None
        games, self._games = self._games, []
        moves = self._numbered(self._moves)
        self._moves = []
        try:
            with self._db:
                self._db.execute("BEGIN")
                for (game, players), _ in games:  # before the moves, which refer to their games
                    self._db.execute(INSERT_GAME, game)
                    self._db.executemany(INSERT_PLAYER, players)
                self._db.executemany(INSERT_MOVE, [row for row, _ in moves])
        except sqlite3.Error:
            for (game, players), committed in games:
                self._commit_alone(committed, self._game_rows, game, players)
            for row, committed in moves:
                seq, game_id, number, move, auto = row
                if self._refused(game_id, number, self._journal.last_number(game_id), committed):
                    continue  # one before it failed
                if self._commit_alone(committed, self._db.execute, INSERT_MOVE, row):
                    self._journal.add(game_id, seq, number, move, auto)
            return
        for (seq, game_id, number, move, auto), _ in moves:
            self._journal.add(game_id, seq, number, move, auto)
        for _, committed in (*games, *moves):
            if not committed.done():
                committed.set_result(None)

    def _numbered(
        self, moves: list[tuple[Move, asyncio.Future[None]]]
    ) -> list[tuple[_Row, asyncio.Future[None]]]:
        """The moves with their rows' ``seq``, but for those whose number is not their game's
        next, which fail."""
        rows: list[tuple[_Row, asyncio.Future[None]]] = []
        last: dict[str, int] = {}  # the games of this commit: their last move in it
        for (game_id, number, move, auto), committed in moves:
            before = last.get(game_id)
            if before is None:
                before = self._journal.last_number(game_id)
            if self._refused(game_id, number, before, committed):
                continue
            last[game_id] = number
            rows.append(((self._journal.next_seq(), game_id, number, move, auto), committed))
        return rows

    @staticmethod
    def _refused(game_id: str, number: int, before: int, committed: asyncio.Future[None]) -> bool:
        """Whether the move ``number`` fails, not being the one after ``before`` (its future then
        holds the error)."""
        if number == before + 1:
            return False
        if not committed.done():
            committed.set_exception(
                sqlite3.IntegrityError(f"{game_id}: move {number} is not the next after {before}")
            )
        return True

    def _game_rows(self, game: tuple[Any, ...], players: list[tuple[Any, ...]]) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(INSERT_GAME, game)
            self._db.executemany(INSERT_PLAYER, players)

    @staticmethod
    def _commit_alone(committed: asyncio.Future[None], write: Callable[..., Any], *args: Any) -> bool:
        try:
            write(*args)
        except sqlite3.Error as e:
            if not committed.done():
                committed.set_exception(e)
            return False
        if not committed.done():
            committed.set_result(None)
        return True
