"""Each person's lists (whom they mute, who their friends are) in the SQLite log.

The lists are kept by identity (see ``tokens``): a registered account's (``account:NAME``) until the
account is deleted, with it; a guest's while one of the guest's resume tokens is kept, that is as
long as the guest's name holds (:meth:`ListTables.lists_pruned` drops the others). Every change is
one statement, committed before it returns.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Literal, Protocol

from server.ratings import ACCOUNT

#: the first identity after every account's (``account:`` with its last character the next one)
_AFTER_ACCOUNTS = ACCOUNT[:-1] + chr(ord(ACCOUNT[-1]) + 1)

#: the lists a person keeps, as ``list`` actions name them
LISTS: tuple[Literal["mute", "friend"], ...] = ("mute", "friend")

LIST_SCHEMA = """
CREATE TABLE IF NOT EXISTS lists (
    identity TEXT NOT NULL,      -- whose list: account:NAME, or a guest's identity (see tokens)
    list TEXT NOT NULL,          -- mute or friend
    key TEXT NOT NULL,           -- the name listed, casefolded
    name TEXT NOT NULL,          -- the name as it was typed
    PRIMARY KEY (identity, list, key)
) WITHOUT ROWID;
"""


def stored_lists() -> dict[str, dict[str, str]]:
    """Empty lists, as :meth:`ListTable.lists` gives them: list -> casefolded name -> name."""
    return {which: {} for which in LISTS}


class ListTable(Protocol):
    """What a person's lists need of a store: SQLite's :class:`ListTables` or Redis'."""

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        """The lists of ``identity``: ``mute`` and ``friend``, each casefolded name -> name."""
        ...

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        """``identity`` did ``action`` (``mute``, ``unmute``, ``friend``, ``unfriend``) to
        ``name`` (casefolded: ``key``); kept when this returns."""
        ...

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        """``identity``'s lists are ``lists`` (a guest's, who registered), all at once."""
        ...

    async def lists_deleted(self, identity: str) -> None:
        """Nobody is ``identity`` any more: its lists go."""
        ...


def _list_of(action: str) -> tuple[str, bool]:
    """The list an action changes, and whether it adds to it."""
    which = action.removeprefix("un")
    if which not in LISTS:
        raise ValueError(f"no list is changed by {action!r}")
    return which, which == action


class ListTables:
    """The lists' part of the SQLite store, mixed into :class:`server.log.sqlite.store.Store` (its table is
    made by the accounts' schema upgrade, :mod:`server.log.sqlite.accounts`)."""

    _db: sqlite3.Connection

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        found = stored_lists()
        rows = self._db.execute("SELECT list, key, name FROM lists WHERE identity = ?", (identity,))
        for which, key, name in rows:
            found.setdefault(which, {})[key] = name
        return found

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        which, adds = _list_of(action)
        if adds:
            self._db.execute(
                "INSERT OR REPLACE INTO lists (identity, list, key, name) VALUES (?, ?, ?, ?)",
                (identity, which, key, name),
            )
        else:
            self._db.execute(
                "DELETE FROM lists WHERE identity = ? AND list = ? AND key = ?", (identity, which, key)
            )

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM lists WHERE identity = ?", (identity,))
            rows = [
                (identity, which, key, name) for which in LISTS for key, name in lists.get(which, {}).items()
            ]
            self._db.executemany("INSERT INTO lists (identity, list, key, name) VALUES (?, ?, ?, ?)", rows)

    async def lists_deleted(self, identity: str) -> None:
        self._db.execute("DELETE FROM lists WHERE identity = ?", (identity,))

    def lists_pruned(self) -> int:
        """Forget the lists of guests whose names no token holds any more (run after
        ``tokens_pruned``); an account's stay until the account is deleted. The accounts' rows,
        the many, are passed over by the index: every identity outside ``account:``...``account;``."""
        cursor = self._db.execute(
            "DELETE FROM lists WHERE (identity < ? OR identity >= ?)"
            " AND identity NOT IN (SELECT coalesce(identity, token) FROM tokens)",  # (an older log's)
            (ACCOUNT, _AFTER_ACCOUNTS),
        )
        return cursor.rowcount
