"""The game log in SQLite (WAL): every game's record, each accepted move committed before it is
broadcast, finished games kept for ``/history`` and ``GET /games/ID``, resume tokens, accounts,
ratings, people's lists and moderation; the storage contract (:mod:`server.log.contract`) on one
node.

The store is called from the room actors on the event loop: a commit in WAL mode with
``synchronous=NORMAL`` survives a killed process and costs tens of microseconds; the games started
and moves logged in one turn of the loop share one commit (:mod:`~server.log.sqlite.batch`).
Checkpoints, which copy the WAL into the database file and sync it, run in a thread of their own
(:mod:`~server.log.sqlite.checkpoint`): inside a commit they would stall the loop.

:class:`Store` owns one part for each job and one connection they share: the tables and their
upgrades (:mod:`~server.log.sqlite.schema`), the running games' moves
(:mod:`~server.log.sqlite.journal`), the games (:mod:`~server.log.sqlite.games`), tokens
(:mod:`~server.log.sqlite.tokens`), accounts and ratings (:mod:`~server.log.sqlite.accounts`),
lists (:mod:`~server.log.sqlite.lists`) and moderation (:mod:`~server.log.sqlite.moderation`).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from array import array
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine import GameRecord, Outcome
from server.log.contract import (
    Account,
    AnalysisTable,
    ModEntry,
    Report,
    Role,
    Sanction,
    SanctionKind,
    Standing,
    StoredGame,
    TokenInfo,
)
from server.log.sqlite.accounts import Accounts
from server.log.sqlite.analyses import Analyses
from server.log.sqlite.batch import Batch
from server.log.sqlite.checkpoint import Checkpointer
from server.log.sqlite.games import Games, game_rows
from server.log.sqlite.journal import Journal
from server.log.sqlite.lists import Lists
from server.log.sqlite.moderation import Moderation
from server.log.sqlite.schema import upgrade
from server.log.sqlite.tokens import Tokens
from server.log.sqlite.tournaments import Tournaments
from server.ratings import RatingChange


class DataInUse(Exception):
    """Another server runs on the data file: two would play the same games into one log."""


class Store:
    """The SQLite game log (a :class:`server.log.contract.GameLog`). ``path`` ``:memory:`` keeps
    nothing across restarts; a file written by a newer version is refused
    (:class:`server.log.contract.LogTooNew`). A server's store is ``exclusive``: it holds a lock
    on the file while it is open (``flock``, apart from SQLite's own locks: ``cafe-admin`` and a
    reader still open it), and another such store on the file is :class:`DataInUse`."""

    def __init__(self, path: str, *, checkpoint_interval: float = 1.0, exclusive: bool = False) -> None:
        self._held: int | None = None
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            if exclusive:
                self._held = _hold(path)
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except BaseException:
            self._release()
            raise
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            upgrade(self._db)
        except BaseException:
            self._db.close()
            self._release()
            raise
        self._accounts = Accounts(self._db)
        self._accounts.index_forms()
        self._lists = Lists(self._db)
        self._moderation = Moderation(self._db)
        self.tournaments = Tournaments(self._db)
        self.analyses: AnalysisTable = Analyses(self._db)
        self._tokens = Tokens(self._db)
        self._journal = Journal(self._db)
        self._games = Games(self._db, self._journal)
        self._batch = Batch(self._db, self._journal)
        self._checkpointer: Checkpointer | None = None
        if path != ":memory:":
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # commits only append to the WAL
            self._checkpointer = Checkpointer(path, checkpoint_interval)

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        self._db.close()  # the last connection to close checkpoints what is left
        self._release()

    def _release(self) -> None:
        if self._held is not None:
            os.close(self._held)  # (and with it the lock)
            self._held = None

    # --- games (each call committed when it returns) ----------------------------------------------

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
        await self._batch.game(game_rows(game_id, room, record, kinds, room_options, identities))

    async def move_played(self, game_id: str, number: int, move: str, auto: str | None = None) -> None:
        await self._batch.move(game_id, number, move, auto)

    async def seat_taken(self, game_id: str, seat: int, old: str, name: str, identity: str | None) -> None:
        self._games.seat_taken(game_id, seat, old, name, identity)

    async def voted_out(self, game_id: str, name: str) -> None:
        self._games.voted_out(game_id, name)

    async def game_option(self, game_id: str, key: str, value: bool) -> None:
        self._games.game_option(game_id, key, value)

    async def game_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        # the rating is written in the transaction that marks the game finished: a process killed
        # at any instant leaves both or neither, and a game finished again (a restart) is not
        # rated again
        changes: list[RatingChange] | None = None
        moved: list[tuple[str, array[int]]] = []
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if self._games.finish(game_id, outcome):
                changes = self._accounts.rate_finished(game_id, outcome)
                moved = self._journal.cut(game_id)
        self._journal.finished(game_id, moved)
        return self._accounts.game_ratings(game_id) if changes is None else changes

    async def unfinished_games(self) -> list[StoredGame]:
        return self._games.unfinished()

    async def game(self, game_id: str) -> StoredGame | None:
        return self._games.game(game_id)

    async def history(self, identity: str, limit: int = 10, reader: str | None = None) -> list[StoredGame]:
        return self._games.history(identity, limit, reader)

    def games_named(self, name: str, limit: int = 10) -> list[StoredGame]:
        """The games someone played under ``name``, newest first, whoever it was (for operators
        and tests; a player's ``/history`` goes by identity)."""
        return self._games.named(name, limit)

    # --- resume tokens ---------------------------------------------------------------------------

    async def token_issued(self, token: str, name: str, identity: str, replacing: str | None = None) -> bool:
        return self._tokens.token_issued(token, name, identity, replacing)

    async def token(self, token: str) -> TokenInfo | None:
        return self._tokens.token(token)

    async def token_released(self, token: str, expires: float) -> None:
        self._tokens.token_released(token, expires)

    async def token_revoked(self, token: str) -> None:
        self._tokens.token_revoked(token)

    def tokens_released(self, expires: float) -> None:
        """Every connection is gone (the server starts): the open tokens hold until ``expires``."""
        self._tokens.tokens_released(expires)

    def tokens_pruned(self, now: float) -> int:
        """Forget tokens that expired, except those of players seated in an unfinished game."""
        return self._tokens.tokens_pruned(now)

    # --- accounts and ratings --------------------------------------------------------------------

    async def account(self, name: str) -> Account | None:
        return self._accounts.account(name)

    async def account_created(self, name: str, hash: str, identity: str | None) -> bool:
        return self._accounts.account_created(name, hash, identity)

    async def account_alike(self, name: str) -> str | None:
        return self._accounts.account_alike(name)

    async def password_changed(self, name: str, hash: str) -> None:
        self._accounts.password_changed(name, hash)

    async def account_seen(self, name: str, when: float) -> None:
        self._accounts.account_seen(name, when)

    async def account_language(self, name: str, lang: str) -> None:
        self._accounts.account_language(name, lang)

    async def account_ascii(self, name: str, on: bool) -> None:
        self._accounts.account_ascii(name, on)

    async def account_deleted(self, name: str) -> None:
        self._accounts.account_deleted(name)
        self._moderation.account_deleted(name)

    async def standing(self, key: str) -> Standing | None:
        return self._accounts.standing(key)

    async def standings(self, keys: Sequence[str]) -> dict[str, Standing]:
        return self._accounts.standings(keys)

    async def leaderboard(self, limit: int) -> list[Standing]:
        return self._accounts.leaderboard(limit)

    async def games_count(self, identity: str, reader: str | None = None) -> int:
        return self._accounts.games_count(identity, reader)

    async def game_ratings(self, game_id: str) -> list[RatingChange]:
        return self._accounts.game_ratings(game_id)

    # --- people's lists --------------------------------------------------------------------------

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        return self._lists.lists(identity)

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        self._lists.list_changed(identity, action, key, name)

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        self._lists.lists_replaced(identity, lists)

    async def lists_deleted(self, identity: str) -> None:
        self._lists.lists_deleted(identity)

    def lists_pruned(self) -> int:
        """Forget the lists of guests whose names no token holds any more (run after
        :meth:`tokens_pruned`); an account's stay until the account is deleted."""
        return self._lists.lists_pruned()

    # --- moderation (see server.log.contract.ModerationStore) -------------------------------------

    async def role(self, name: str) -> Role | None:
        return self._moderation.role(name)

    async def staff(self) -> dict[str, Role]:
        return self._moderation.staff()

    async def role_set(self, name: str, role: Role | None, by: str, reason: str = "") -> bool:
        return self._moderation.role_set(name, role, by, reason)

    async def sanction_added(
        self,
        kind: SanctionKind,
        name: str,
        by: str,
        until: float | None,
        reason: str = "",
        *,
        address: str | None = None,
        duration: str = "",
    ) -> Sanction:
        return self._moderation.sanction_added(kind, name, by, until, reason, address, duration)

    async def sanction_lifted(self, kind: SanctionKind, name: str, by: str, reason: str = "") -> int:
        return self._moderation.sanction_lifted(kind, name, by, reason)

    async def sanctions(
        self, name: str | None, address: str | None = None, now: float | None = None
    ) -> list[Sanction]:
        return self._moderation.sanctions(name, address, time.time() if now is None else now)

    async def report_added(
        self, reporter: str, name: str, reason: str, excerpt: Sequence[str], key: str | None = None
    ) -> Report:
        return self._moderation.report_added(reporter, name, reason, excerpt, key)

    async def reports(
        self, everything: bool = False, limit: int = 50, hiding: str | None = None
    ) -> list[Report]:
        return self._moderation.reports(everything, limit, hiding)

    async def reports_open(self, hiding: Collection[str] = ()) -> int:
        return self._moderation.reports_open(hiding)

    async def reports_since(self, key: str, since: float) -> int:
        return self._moderation.reports_since(key, since)

    async def report_resolved(self, report_id: int, by: str, note: str = "") -> Report | None:
        return self._moderation.report_resolved(report_id, by, note)

    async def modlog_appended(
        self, by: str, action: str, target: str, reason: str = "", duration: str = ""
    ) -> ModEntry:
        return self._moderation.modlog_appended(by, action, target, reason, duration)

    async def modlog(self, name: str | None = None, limit: int = 50) -> list[ModEntry]:
        return self._moderation.modlog(name, limit)


def _hold(path: str) -> int:
    """A descriptor of ``path`` (made if missing: SQLite takes an empty file as a new database)
    holding its exclusive ``flock``; :class:`DataInUse` when another holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise DataInUse(f"{path}: another server runs on it") from None
    except BaseException:
        os.close(fd)
        raise
    return fd
