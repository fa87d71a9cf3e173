"""The game log in SQLite (WAL): every game's record, each accepted move committed before it is
broadcast, finished games kept for ``/history`` and ``GET /games/ID``, and resume tokens.

The moves of running games go to ``journal``, in the order they were logged, with no index: each
commit appends to the end of one table, where an index by game would add a page of its own, in
another place of the file, for nearly every move of a commit (the moves of a turn of the loop
belong to as many rooms). Which rows are whose is kept in memory (read again when the log is
opened). When a game finishes, its moves are written into its row of ``games`` (``moves``, one
JSON list) in the transaction that records its result, and the journal's rows before the oldest
running game's first one are deleted. The games running beside it keep rows of finished games
between theirs, a few times as many as their own in steady play; a game that runs on while many
others finish (left waiting for its players, say) is moved to the journal's end once it holds
far more than that, so the journal stays within a few times what the running games need.

The store is called from the room actors on the event loop: a commit in WAL mode with
``synchronous=NORMAL`` survives a killed process and costs tens of microseconds; the games started
and moves logged in one turn of the loop share one commit. Checkpoints, which copy the WAL into the
database file and sync it, run in a thread of their own: inside a commit they would stall the loop.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import structlog

from engine import GameRecord, Options, Outcome
from server.log.sqlite.accounts import AccountStore, AccountTables
from server.ratings import RatingChange

log = structlog.get_logger("cafe.store")

_INSERT_MOVE = "INSERT INTO journal (seq, game_id, number, move) VALUES (?, ?, ?, ?)"
_INSERT_GAME = (
    "INSERT INTO games"
    " (id, room, players, kinds, seed, options, board, start_player, started, room_options)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_PLAYER = "INSERT INTO players (game_id, name, identity) VALUES (?, ?, ?)"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    players TEXT NOT NULL,       -- JSON list of names, in seating order
    kinds TEXT NOT NULL,         -- JSON list: "person" or "bot:STRATEGY"
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,       -- JSON object
    board TEXT NOT NULL,
    start_player INTEGER,
    started REAL NOT NULL,
    finished REAL,
    result TEXT,                 -- JSON outcome once finished
    room_options TEXT,           -- JSON object: the room's options at the start (clock, absent, ...)
    moves TEXT                   -- JSON list of a finished game's moves (a running game's: journal)
);
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,     -- in the order the moves were logged
    game_id TEXT NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,     -- the game's moves are numbered 1, 2, ...
    move TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    game_id TEXT NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,
    identity TEXT,               -- who played under the name (see tokens); NULL for bots
    PRIMARY KEY (game_id, name)
);
CREATE INDEX IF NOT EXISTS players_by_name ON players(name);
CREATE TABLE IF NOT EXISTS voted_out (
    game_id TEXT NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,          -- voted out of the game, or their seat taken over: they watch it
    PRIMARY KEY (game_id, name)
);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    issued REAL NOT NULL,
    identity TEXT,               -- the same for every token of one player: kept across resumes
    expires REAL                 -- NULL while its connection is open
);
"""
#: the identity given to the players and tokens of a log written before identities were kept
OLD_IDENTITY = "name:"
# made after the migration, which may have had to add the column first
_INDEXES = """
CREATE INDEX IF NOT EXISTS players_by_identity ON players(identity);
CREATE INDEX IF NOT EXISTS tokens_by_name ON tokens(name COLLATE NOCASE);
"""
# the columns of ``games`` in the order ``_game`` reads them (a log from before ``room_options``
# was kept gets the column added at the end when it is opened)
_GAME_COLUMNS = (
    "id, room, players, kinds, seed, options, board, start_player, started, finished, result,"
    " room_options, moves"
)
#: the rows of finished games the journal may hold beside three times the running games' before
#: it moves the oldest running games to its end (in steady play the games running hold two to
#: three times their own rows of finished games between theirs: ``bench/store.py`` ends with
#: 27,000 beside 10,600, and moves none)
JOURNAL_SLACK = 10_000


def logged_moves(db: sqlite3.Connection) -> dict[str, tuple[bool, list[str]]]:
    """Every game in a log that another process reads (a check after a soak, a benchmark's count
    of moves), running or finished: game id -> (finished, its moves in order)."""
    journal: dict[str, list[tuple[int, str]]] = {}
    for game_id, number, move in db.execute("SELECT game_id, number, move FROM journal"):
        journal.setdefault(game_id, []).append((number, move))
    return {
        game_id: (True, json.loads(moves)) if finished is not None
        else (False, [move for _, move in sorted(journal.get(game_id, []))])
        for game_id, finished, moves in db.execute("SELECT id, finished, moves FROM games")
    }  # fmt: skip


class _Running:
    """A running game's rows in the journal: their ``seq`` and their moves, in order, and its last
    move's number. (The moves are the very strings its room holds: a list of them costs a
    pointer a move, as the ``seq`` do, and a finished game's are not read back from the file.)"""

    __slots__ = ("last", "moves", "seqs")

    def __init__(self) -> None:
        self.seqs = array("q")
        self.moves: list[str] = []
        self.last = 0


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """What a resume token stands for: a name, the player behind it, and until when it holds
    (``None``: its connection is open)."""

    name: str
    identity: str
    expires: float | None


class StoreUnavailable(Exception):
    """The log could not be written or read just now; nothing was changed."""


class LeaseLost(Exception):
    """This node no longer owns the room whose log it tried to write (cluster mode)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as the log holds it."""

    game_id: str
    room: str
    record: GameRecord
    kinds: tuple[str, ...]
    started: float
    finished: float | None
    result: dict[str, Any] | None
    #: the room's options when the game started (``clock``, ``absent``, ...), beside the engine's
    #: in ``record``; empty for a game logged before they were kept
    room_options: dict[str, Any] = field(default_factory=dict)
    #: the player behind each seat (``None`` for a bot, or a game logged before they were kept),
    #: as the log will rate the game: a seat taken over is its new player's
    identities: tuple[str | None, ...] = ()
    #: the players voted out of the game, and those whose seat was taken over: they watch it to
    #: its end
    voted_out: tuple[str, ...] = ()


class GameLog(AccountStore, Protocol):
    """What the server needs of a game log: the SQLite ``Store`` or, in a cluster, Redis."""

    async def game_started(
        self,
        game_id: str,
        room: str,
        record: GameRecord,
        kinds: list[str],
        room_options: dict[str, Any] | None = None,
        identities: list[str | None] | None = None,
    ) -> None: ...
    async def move_played(self, game_id: str, number: int, move: str) -> None: ...
    async def seat_taken(self, game_id: str, seat: int, old: str, name: str, identity: str | None) -> None:
        """Seat ``seat`` (from 0) of the running game, ``old``'s, is ``name``'s from now on
        (``old`` watches the game from then on, as one voted out)."""
        ...
    async def voted_out(self, game_id: str, name: str) -> None:
        """The players of the running game voted ``name`` out of it: they watch it to its end."""
        ...
    async def game_private(self, game_id: str) -> None:
        """The running game's room became private: its ``room_options`` say ``private`` from now
        on (its record is its players' alone)."""
        ...

    async def game_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        """Log the outcome and, for a rated game, update its players' ratings, atomically and
        once per game id; the rating changes the game made (also when it was finished before)."""
        ...

    async def token_issued(self, token: str, name: str, identity: str) -> None: ...
    async def token(self, token: str) -> TokenInfo | None: ...
    async def token_released(self, token: str, expires: float) -> None: ...
    async def token_revoked(self, token: str) -> None: ...
    async def unfinished_games(self) -> list[StoredGame]: ...
    async def game(self, game_id: str) -> StoredGame | None: ...
    async def history(self, identity: str, limit: int = 10) -> list[StoredGame]: ...
    def close(self) -> None: ...


class _Checkpointer:
    """Copies the WAL into the database file every ``interval`` seconds from a thread with its own
    connection. SQLite works without the GIL, so the event loop goes on meanwhile; a checkpoint
    inside a commit would stop it for the pages' writing and the file's sync (up to ~17 ms, about
    once a second at 1,000 commits a second). ``PASSIVE`` never waits for the writer."""

    def __init__(self, path: str, interval: float) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(interval,), name="cafe-checkpoint", daemon=True
        )
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stopping.wait(interval):
            try:
                self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as e:  # the next round tries again; the WAL keeps every commit
                log.warning("checkpoint_failed", error=str(e))

    def close(self) -> None:
        self._stopping.set()
        self._thread.join()
        self._db.close()


class Store(AccountTables):
    """The SQLite game log. ``path`` ``:memory:`` keeps nothing across restarts."""

    def __init__(self, path: str, *, checkpoint_interval: float = 1.0) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        self._migrate()
        self._upgrade_accounts()
        self._index_forms()
        #: what rooms logged in this turn of the loop, committed together at its end
        self._games: list[tuple[tuple[tuple[Any, ...], list[tuple[Any, ...]]], asyncio.Future[None]]] = []
        self._moves: list[tuple[tuple[str, int, str], asyncio.Future[None]]] = []
        #: the event loop of those, until their commit
        self._gathering: asyncio.AbstractEventLoop | None = None
        #: the journal's rows of each running game, the game whose first row is oldest first
        self._running: dict[str, _Running] = {}
        self._live_rows = 0  # their rows in all
        self._last_seq = 0  # the journal's last row
        self._read_journal()
        self._checkpointer: _Checkpointer | None = None
        if path != ":memory:":
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # commits only append to the WAL
            self._checkpointer = _Checkpointer(path, checkpoint_interval)

    def _migrate(self) -> None:
        """Bring a log written by an earlier version up to this schema; its games stay as they were."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")  # another process opening the file waits, then sees it
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
            for column in ("room_options", "moves"):
                if column not in columns:
                    self._db.execute(f"ALTER TABLE games ADD COLUMN {column} TEXT")
            self._migrate_moves()
            for table, column, kind in (("players", "identity", "TEXT"), ("tokens", "identity", "TEXT"),
                                        ("tokens", "expires", "REAL")):  # fmt: skip
                if column not in {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
                    if column == "identity":
                        # a log from before identities knew players by name: its games stay with
                        # whoever comes back with one of its tokens
                        self._db.execute(f"UPDATE {table} SET identity = {OLD_IDENTITY!r} || name")
        self._db.executescript(_INDEXES)

    def _migrate_moves(self) -> None:
        """A log from before the journal kept every move in a table ``moves``, indexed by game:
        the running games' moves go to the journal, each finished game's into its row."""
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'moves'").fetchone():
            self._db.execute(
                "INSERT INTO journal (game_id, number, move) SELECT m.game_id, m.number, m.move"
                " FROM moves m JOIN games g ON g.id = m.game_id WHERE g.finished IS NULL"
                " ORDER BY g.started, m.game_id, m.number"
            )
            finished = self._db.execute(
                "SELECT m.game_id, m.move FROM moves m JOIN games g ON g.id = m.game_id"
                " WHERE g.finished IS NOT NULL ORDER BY m.game_id, m.number"
            )
            games: dict[str, list[str]] = {}
            for game_id, move in finished:
                games.setdefault(game_id, []).append(move)
            self._db.executemany(
                "UPDATE games SET moves = ? WHERE id = ?", [(json.dumps(m), g) for g, m in games.items()]
            )
            self._db.execute("DROP TABLE moves")
        self._db.execute("UPDATE games SET moves = '[]' WHERE finished IS NOT NULL AND moves IS NULL")

    def _read_journal(self) -> None:
        """Which rows of the journal are whose, and the rows no running game needs deleted."""
        rows = self._db.execute(
            "SELECT j.seq, j.game_id, j.number, j.move FROM journal j JOIN games g ON g.id = j.game_id"
            " WHERE g.finished IS NULL ORDER BY j.seq"
        )
        for seq, game_id, number, move in rows:
            self._add_row(game_id, seq, number, move)
        self._last_seq = self._db.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0]
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM journal WHERE seq < ?", (self._front(None),))

    def _add_row(self, game_id: str, seq: int, number: int, move: str) -> None:
        running = self._running.get(game_id)
        if running is None:
            running = self._running[game_id] = _Running()
        running.seqs.append(seq)
        running.moves.append(move)
        running.last = number
        self._live_rows += 1

    def _front(self, finished: str | None) -> int:
        """The first row of the journal a running game other than ``finished`` needs."""
        for game_id, running in self._running.items():  # (the first or the second)
            if game_id != finished:
                return running.seqs[0]
        return self._last_seq + 1

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        self._db.close()  # the last connection to close checkpoints what is left

    # --- writing (each call is one committed transaction) ----------------------------------

    async def game_started(
        self,
        game_id: str,
        room: str,
        record: GameRecord,
        kinds: list[str],
        room_options: dict[str, Any] | None = None,
        identities: list[str | None] | None = None,
    ) -> None:
        # committed with the moves of the same turn of the loop: many rooms starting at once
        # share one transaction, as their moves do
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
        players = [(game_id, name, identity) for name, identity in zip(record.players, who, strict=True)]
        await self._batched(self._games, (game, players))

    async def seat_taken(self, game_id: str, seat: int, old: str, name: str, identity: str | None) -> None:
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

    async def voted_out(self, game_id: str, name: str) -> None:
        try:
            self._db.execute("INSERT OR IGNORE INTO voted_out (game_id, name) VALUES (?, ?)", (game_id, name))
        except sqlite3.Error as e:  # no such game (the foreign key), or the file failed: nothing written
            raise StoreUnavailable(f"{game_id}: {e}") from e

    async def game_private(self, game_id: str) -> None:
        with self._db:
            self._db.execute("BEGIN")
            row = self._db.execute("SELECT room_options FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreUnavailable(f"{game_id}: no such game in the log")
            options = {**json.loads(row[0] or "{}"), "private": True}
            self._db.execute("UPDATE games SET room_options = ? WHERE id = ?", (json.dumps(options), game_id))

    async def move_played(self, game_id: str, number: int, move: str) -> None:
        await self._batched(self._moves, (game_id, number, move))

    def _batched(self, pending: list[tuple[Any, asyncio.Future[None]]], row: Any) -> asyncio.Future[None]:
        # The games and moves that rooms log in one turn of the event loop are committed together,
        # at its end: one transaction (one write of the WAL) for all, each still committed before
        # its room goes on to tell anyone.
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
                    self._db.execute(_INSERT_GAME, game)
                    self._db.executemany(_INSERT_PLAYER, players)
                self._db.executemany(_INSERT_MOVE, [row for row, _ in moves])
        except sqlite3.Error:
            # one row that cannot be logged fails the transaction: log each on its own, so that
            # only that one fails
            for (game, players), committed in games:
                self._commit_alone(committed, self._game_rows, game, players)
            for row, committed in moves:
                seq, game_id, number, move = row
                if self._refused(game_id, number, self._last_number(game_id), committed):
                    continue  # one before it failed
                if self._commit_alone(committed, self._db.execute, _INSERT_MOVE, row):
                    self._add_row(game_id, seq, number, move)
            return
        for (seq, game_id, number, move), _ in moves:
            self._add_row(game_id, seq, number, move)
        for _, committed in (*games, *moves):
            if not committed.done():
                committed.set_result(None)

    def _numbered(
        self, moves: list[tuple[tuple[str, int, str], asyncio.Future[None]]]
    ) -> list[tuple[tuple[int, str, int, str], asyncio.Future[None]]]:
        """The moves with their rows' ``seq``, but for those whose number is not their game's
        next, which fail (as a number already taken, or out of order, would in a table indexed by
        game and number)."""
        rows: list[tuple[tuple[int, str, int, str], asyncio.Future[None]]] = []
        last: dict[str, int] = {}  # the games of this commit: their last move in it
        for (game_id, number, move), committed in moves:
            before = last.get(game_id)
            if before is None:
                before = self._last_number(game_id)
            if self._refused(game_id, number, before, committed):
                continue
            last[game_id] = number
            self._last_seq += 1
            rows.append(((self._last_seq, game_id, number, move), committed))
        return rows

    def _last_number(self, game_id: str) -> int:
        """The number of the game's last move in the journal (0: none yet)."""
        running = self._running.get(game_id)
        return running.last if running is not None else 0

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
            self._db.execute(_INSERT_GAME, game)
            self._db.executemany(_INSERT_PLAYER, players)

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

    async def game_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        # the rating is written in the transaction that marks the game finished: a process killed
        # at any instant leaves both or neither, and a game finished again (a restart) is not
        # rated again
        changes: list[RatingChange] | None = None
        moved: list[tuple[str, array[int]]] = []
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            cursor = self._db.execute(
                "UPDATE games SET finished = ?, result = ?, moves = ? WHERE id = ? AND finished IS NULL",
                (time.time(), json.dumps(outcome.to_dict()), json.dumps(self._journaled(game_id)), game_id),
            )
            if cursor.rowcount == 1:
                changes = self._rate_finished(game_id, dict(outcome.places))
                moved = self._cut_journal(game_id)
        # committed: what the journal holds now
        running = self._running.pop(game_id, None)
        if running is not None:
            self._live_rows -= len(running.seqs)
        for moved_id, seqs in moved:
            copied = self._running.pop(moved_id)  # to the end: its first row is the newest now
            copied.seqs = seqs
            self._running[moved_id] = copied
        self._last_seq += sum(len(seqs) for _, seqs in moved)
        return await self.game_ratings(game_id) if changes is None else changes

    def _journaled(self, game_id: str) -> list[str]:
        """The moves of a running game, in order, as the journal holds them."""
        running = self._running.get(game_id)
        return [] if running is None else list(running.moves)

    def _cut_journal(self, finished: str) -> list[tuple[str, array[int]]]:
        """In the transaction that finishes ``finished``: delete the journal's rows before the
        first one another running game needs. When the journal holds more rows of finished games
        than three times the running games' and ``JOURNAL_SLACK``, the running games whose rows
        start in its older half are first moved to its end. The games moved, with their new
        rows (for the caller to keep once this is committed)."""
        front = self._front(finished)
        span = self._last_seq + 1 - front
        finishing = self._running.get(finished)
        live = self._live_rows - (len(finishing.seqs) if finishing is not None else 0)
        moved: list[tuple[str, array[int]]] = []
        if span - live > 3 * live + JOURNAL_SLACK:
            middle = front + span // 2
            seq = self._last_seq
            for game_id, running in self._running.items():
                if running.seqs[0] >= middle:
                    break
                if game_id == finished:
                    continue
                seqs = array("q", range(seq + 1, seq + 1 + len(running.seqs)))
                self._db.executemany(
                    "INSERT INTO journal (seq, game_id, number, move)"
                    " SELECT ?, game_id, number, move FROM journal WHERE seq = ?",
                    zip(seqs, running.seqs, strict=True),
                )
                seq += len(seqs)
                moved.append((game_id, seqs))
            # the first game not copied, else the first copy
            front = next(
                (r.seqs[0] for g, r in self._running.items() if g != finished and r.seqs[0] >= middle),
                self._last_seq + 1,
            )
            # the rows copied that the cut below leaves (a game's rows between others')
            self._db.executemany(
                "DELETE FROM journal WHERE seq = ?",
                ((old,) for game_id, _ in moved for old in self._running[game_id].seqs if old >= front),
            )
        self._db.execute("DELETE FROM journal WHERE seq < ?", (front,))
        return moved

    # (the token functions' SQL carries "pragma: no mutate": SQLite reads its keywords and names
    # in any case, so a mutant in another case is the same statement)

    async def token_issued(self, token: str, name: str, identity: str) -> None:
        """A new token for ``name``: every other token of the name is revoked with it."""
        with self._db:
            self._db.execute("BEGIN")  # pragma: no mutate
            self._db.execute("DELETE FROM tokens WHERE name = ? COLLATE NOCASE", (name,))  # pragma: no mutate
            self._db.execute(
                "INSERT OR REPLACE INTO tokens (token, name, issued, identity, expires)"  # pragma: no mutate
                " VALUES (?, ?, ?, ?, NULL)",  # pragma: no mutate
                (token, name, time.time(), identity),
            )

    async def token_released(self, token: str, expires: float) -> None:
        """The token's connection is gone: it holds until ``expires`` (or while a seat is held)."""
        self._db.execute(
            "UPDATE tokens SET expires = ? WHERE token = ?",  # pragma: no mutate
            (expires, token),
        )

    async def token_revoked(self, token: str) -> None:
        self._db.execute("DELETE FROM tokens WHERE token = ?", (token,))  # pragma: no mutate

    def tokens_released(self, expires: float) -> None:
        """Every connection is gone (the server starts): the open tokens hold until ``expires``."""
        self._db.execute(
            "UPDATE tokens SET expires = ? WHERE expires IS NULL",  # pragma: no mutate
            (expires,),
        )

    def tokens_pruned(self, now: float) -> int:
        """Forget tokens that expired, except those of players seated in an unfinished game."""
        cursor = self._db.execute(
            "DELETE FROM tokens WHERE expires < ? AND name NOT IN"  # pragma: no mutate
            " (SELECT p.name FROM players p JOIN games g"  # pragma: no mutate
            " ON g.id = p.game_id WHERE g.finished IS NULL)",  # pragma: no mutate
            (now,),
        )
        return cursor.rowcount

    # --- reading ---------------------------------------------------------------------------

    async def token(self, token: str) -> TokenInfo | None:
        row = self._db.execute(
            "SELECT name, identity, expires FROM tokens WHERE token = ?",  # pragma: no mutate
            (token,),
        ).fetchone()
        if row is None:
            return None
        name, identity, expires = row
        return TokenInfo(str(name), str(identity or token), expires)  # a token of an older log is its own

    async def unfinished_games(self) -> list[StoredGame]:
        rows = self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE finished IS NULL ORDER BY started"
        ).fetchall()
        return [self._game(row) for row in rows]

    async def game(self, game_id: str) -> StoredGame | None:
        row = self._db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else self._game(row)

    async def history(self, identity: str, limit: int = 10) -> list[StoredGame]:
        rows = self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games JOIN players p ON p.game_id = id WHERE p.identity = ?"
            " ORDER BY started DESC LIMIT ?",
            (identity, limit),
        ).fetchall()
        return [self._game(row) for row in rows]

    def games_named(self, name: str, limit: int = 10) -> list[StoredGame]:
        """The games someone played under ``name``, newest first, whoever it was (for operators
        and tests; a player's ``/history`` goes by identity)."""
        rows = self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games JOIN players p ON p.game_id = id WHERE p.name = ?"
            " ORDER BY started DESC LIMIT ?",
            (name, limit),
        ).fetchall()
        return [self._game(row) for row in rows]

    def _moves_of(self, game_id: str, finished: float | None, moves: str | None) -> list[str]:
        if finished is None:
            return self._journaled(game_id)
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
        )

    def _identities(self, game_id: str) -> tuple[str | None, ...]:
        rows = self._db.execute(
            "SELECT identity FROM players WHERE game_id = ? ORDER BY rowid", (game_id,)
        ).fetchall()
        return tuple(identity for (identity,) in rows)

    def _voted_out(self, game_id: str) -> tuple[str, ...]:
        rows = self._db.execute("SELECT name FROM voted_out WHERE game_id = ? ORDER BY rowid", (game_id,))
        return tuple(name for (name,) in rows)
