"""Resume tokens in the SQLite log: each bound to a name and the player behind it (its identity,
kept across resumes), open-ended while its connection is open, then held until it expires or
while its player's seat is held.

(The SQL here carries "pragma: no mutate": SQLite reads its keywords and names in any case, so a
mutant in another case is the same statement.)
"""

from __future__ import annotations

import sqlite3
import time

from server.log.contract import TokenInfo


class Tokens:
    """The ``tokens`` table; every call is one committed statement or transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def token_issued(self, token: str, name: str, identity: str, replacing: str | None = None) -> bool:
        """A new token for ``name``: every other token of the name is revoked with it; with
        ``replacing``, only while that one is still the name's (``False``: nothing changed)."""
        with self._db:
            self._db.execute("BEGIN")  # pragma: no mutate
            if (
                replacing is not None
                and not self._db.execute(
                    "SELECT 1 FROM tokens WHERE token = ? AND name = ? COLLATE NOCASE",  # pragma: no mutate
                    (replacing, name),
                ).fetchone()
            ):
                return False
            self._db.execute("DELETE FROM tokens WHERE name = ? COLLATE NOCASE", (name,))  # pragma: no mutate
            self._db.execute(
                "INSERT OR REPLACE INTO tokens (token, name, issued, identity, expires)"  # pragma: no mutate
                " VALUES (?, ?, ?, ?, NULL)",  # pragma: no mutate
                (token, name, time.time(), identity),
            )
        return True

    def token_released(self, token: str, expires: float) -> None:
        """The token's connection is gone: it holds until ``expires`` (or while a seat is held)."""
        self._db.execute(
            "UPDATE tokens SET expires = ? WHERE token = ?",  # pragma: no mutate
            (expires, token),
        )

    def token_revoked(self, token: str) -> None:
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

    def token(self, token: str) -> TokenInfo | None:
        row = self._db.execute(
            "SELECT name, identity, expires FROM tokens WHERE token = ?",  # pragma: no mutate
            (token,),
        ).fetchone()
        if row is None:
            return None
        name, identity, expires = row
        return TokenInfo(str(name), str(identity or token), expires)  # a token of an older log is its own
