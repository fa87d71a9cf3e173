"""Each person's lists (whom they mute, who their friends are) in the SQLite log.

The lists are kept by identity (see ``tokens``): a registered account's (``account:NAME``) until the
account is deleted, with it; a guest's while one of the guest's resume tokens is kept, that is as
long as the guest's name holds (:meth:`Lists.lists_pruned` drops the others).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from server.log.contract import LISTS, list_of, stored_lists
from server.ratings import ACCOUNT

#: the first identity after every account's (``account:`` with its last character the next one)
_AFTER_ACCOUNTS = ACCOUNT[:-1] + chr(ord(ACCOUNT[-1]) + 1)


class Lists:
    """The ``lists`` table; every call is one committed statement or transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def lists(self, identity: str) -> dict[str, dict[str, str]]:
        found = stored_lists()
        rows = self._db.execute("SELECT list, key, name FROM lists WHERE identity = ?", (identity,))
        for which, key, name in rows:
            found.setdefault(which, {})[key] = name
        return found

    def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        which, adds = list_of(action)
        if adds:
            self._db.execute(
                "INSERT OR REPLACE INTO lists (identity, list, key, name) VALUES (?, ?, ?, ?)",
                (identity, which, key, name),
            )
        else:
            self._db.execute(
                "DELETE FROM lists WHERE identity = ? AND list = ? AND key = ?", (identity, which, key)
            )

    def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM lists WHERE identity = ?", (identity,))
            rows = [
                (identity, which, key, name) for which in LISTS for key, name in lists.get(which, {}).items()
            ]
            self._db.executemany("INSERT INTO lists (identity, list, key, name) VALUES (?, ?, ?, ?)", rows)

    def lists_deleted(self, identity: str) -> None:
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
