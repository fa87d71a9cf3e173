"""Accounts, ratings and rating history in the SQLite log (the tables: :mod:`server.log.sqlite.schema`).

:meth:`Accounts.rate_finished` runs inside the transaction that finishes a game
(:meth:`server.log.sqlite.store.Store.game_finished`), so a game is rated exactly when it is
finished, once, whatever instant the process dies at.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from engine import Outcome
from protocol.names import alike, alike_version
from server.log.contract import CLOSED, Account, Standing
from server.ratings import (
    BOT,
    RatingChange,
    Skill,
    account_key,
    is_rated,
    rate,
    rating_key,
    standing_identities,
)


class Accounts:
    """The ``accounts``, ``ratings`` and ``rating_history`` tables; each call but
    :meth:`rate_finished` is one committed statement or transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def index_forms(self) -> None:
        """Index each account by its look-alike form (:func:`protocol.names.alike`), so that a name
        like a registered one is found at once: as the log opens, when the forms were made with
        another version of them than this one's (``name_forms`` keeps the version), or not yet."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            made = self._db.execute("SELECT version FROM name_forms").fetchone()
            if made is not None and made[0] == alike_version():
                return
            forms = [(alike(name), name) for (name,) in self._db.execute("SELECT name FROM accounts")]
            self._db.executemany("UPDATE accounts SET form = ? WHERE name = ?", forms)
            self._db.execute("DELETE FROM name_forms")
            self._db.execute("INSERT INTO name_forms (version) VALUES (?)", (alike_version(),))

    # --- accounts ------------------------------------------------------------------------------

    def account_alike(self, name: str) -> str | None:
        """The registered name that looks like ``name`` (or is it, in any case), if any."""
        row = self._db.execute("SELECT name FROM accounts WHERE form = ? LIMIT 1", (alike(name),)).fetchone()
        return None if row is None else str(row[0])

    def account(self, name: str) -> Account | None:
        row = self._db.execute(
            "SELECT name, hash, created, last_seen, lang, ascii FROM accounts WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            return None
        name, hash, created, last_seen, lang, ascii = row
        return Account(name, hash, created, last_seen, lang, bool(ascii))

    def account_created(self, name: str, hash: str, identity: str | None) -> bool:
        """Register ``name``; ``False`` if it (or a name that looks like it) already is. The
        games the guest played (by ``identity``) become the account's."""
        key, form = account_key(name), alike(name)
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if self._db.execute("SELECT 1 FROM accounts WHERE form = ?", (form,)).fetchone():
                return False
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO accounts (name, hash, created, form) VALUES (?, ?, ?, ?)",
                (name, hash, time.time(), form),
            )
            if cursor.rowcount != 1:
                return False
            if identity is not None and identity != key:
                self._db.execute("UPDATE players SET identity = ? WHERE identity = ?", (key, identity))
        return True

    def password_changed(self, name: str, hash: str) -> None:
        self._db.execute("UPDATE accounts SET hash = ? WHERE name = ?", (hash, name))

    def account_seen(self, name: str, when: float) -> None:
        self._db.execute("UPDATE accounts SET last_seen = ? WHERE name = ?", (when, name))

    def account_language(self, name: str, lang: str) -> None:
        self._db.execute("UPDATE accounts SET lang = ? WHERE name = ?", (lang, name))

    def account_ascii(self, name: str, on: bool) -> None:
        self._db.execute("UPDATE accounts SET ascii = ? WHERE name = ?", (int(on), name))

    def account_deleted(self, name: str) -> None:
        """Forget the account, its settings, lists, rating and rating history; its games stay, under
        the name."""
        key = account_key(name)
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM accounts WHERE name = ?", (name,))
            self._db.execute("DELETE FROM ratings WHERE key = ?", (key,))
            self._db.execute("DELETE FROM rating_history WHERE key = ?", (key,))
            self._db.execute("UPDATE players SET identity = NULL WHERE identity = ?", (key,))
            self._db.execute("DELETE FROM tokens WHERE identity = ?", (key,))
            self._db.execute("DELETE FROM lists WHERE identity = ?", (key,))

    # --- ratings -------------------------------------------------------------------------------

    def standing(self, key: str) -> Standing | None:
        row = self._db.execute(
            "SELECT key, name, mu, sigma, games, wins FROM ratings WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else _standing(row)

    def standings(self, keys: Sequence[str]) -> dict[str, Standing]:
        """The standings of those of ``keys`` that have one, in one query."""
        found: dict[str, Standing] = {}
        unique = list(dict.fromkeys(keys))
        for at in range(0, len(unique), 500):  # (SQLite's limit of bound values is far above)
            part = unique[at : at + 500]
            rows = self._db.execute(
                "SELECT key, name, mu, sigma, games, wins FROM ratings WHERE key IN"
                f" ({', '.join('?' * len(part))})",
                part,
            ).fetchall()
            found.update((row[0], _standing(row)) for row in rows)
        return found

    def leaderboard(self, limit: int) -> list[Standing]:
        """The best shown ratings first (bots included: they are rated by strategy)."""
        rows = self._db.execute(
            "SELECT key, name, mu, sigma, games, wins FROM ratings"
            " ORDER BY mu - 3 * sigma DESC, name LIMIT ?",
            (limit,),
        ).fetchall()
        return [_standing(row) for row in rows]

    def games_count(self, identity: str, reader: str | None) -> int:
        """The games ``identity`` played that ``reader`` may read: a private game (its room
        options say so) only by its players, as ``StoredGame.readable_by`` has it."""
        (count,) = self._db.execute(
            "SELECT COUNT(*) FROM players p JOIN games g ON g.id = p.game_id WHERE p.identity = ?"
            " AND (COALESCE(json_extract(g.room_options, '$.private'), 0) = 0"
            # (the reader's games read once: a correlated EXISTS read them for each private game,
            # 225 ms for a player of 5,000 games asked by their opponent)
            " OR p.game_id IN (SELECT game_id FROM players WHERE identity = ?))",
            (identity, reader),
        ).fetchone()
        return int(count)

    def game_ratings(self, game_id: str) -> list[RatingChange]:
        """The rating changes a finished game made (empty for a game that was not rated)."""
        rows = self._db.execute(
            "SELECT name, key, mu_before, sigma_before, mu_after, sigma_after, games, wins, won"
            " FROM rating_history WHERE game_id = ? ORDER BY rowid",
            (game_id,),
        ).fetchall()
        return [
            RatingChange(
                name, key, Skill(mu0, sigma0, games - 1, wins - won), Skill(mu1, sigma1, games, wins)
            )
            for name, key, mu0, sigma0, mu1, sigma1, games, wins, won in rows
        ]

    def _standing(self, game_id: str, seats: Sequence[tuple[str, str | None]]) -> list[str | None]:
        """The identities of a finished game's seats as it is rated (``standing_identities``):
        a seat of an account deleted since is nobody's, in its record too."""
        names = _names_of(seats)
        rows = self._db.execute(
            f"SELECT name FROM accounts WHERE name IN ({', '.join('?' * len(names))})", names
        ).fetchall()
        standing = standing_identities([identity for _, identity in seats], {account_key(n) for (n,) in rows})
        for (name, identity), now in zip(seats, standing, strict=True):
            if now != identity:
                self._db.execute(
                    "UPDATE players SET identity = NULL WHERE game_id = ? AND name = ?", (game_id, name)
                )
        return standing

    def rate_finished(self, game_id: str, outcome: Outcome) -> list[RatingChange]:
        """Rate a game just finished, inside its transaction (the caller holds it); a game whose
        room was closed is not rated, and keeps no seat of an account gone (``_standing``) all the
        same."""
        seats = self._db.execute(
            "SELECT name, identity FROM players WHERE game_id = ? ORDER BY rowid", (game_id,)
        ).fetchall()
        identities = self._standing(game_id, seats)
        row = self._db.execute("SELECT kinds, room_options FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None or outcome.reason == CLOSED:
            return []
        kinds: list[str] = json.loads(row[0])
        room_options: dict[str, Any] = json.loads(row[1] or "{}")
        if len(seats) != len(kinds):
            return []
        if not is_rated(kinds, identities, room_options):
            return []
        entrants = []
        for (name, identity), kind in zip(seats, kinds, strict=True):
            key = rating_key(name, kind, identity)
            if key is not None:
                current = self._db.execute(
                    "SELECT mu, sigma, games, wins FROM ratings WHERE key = ?", (key,)
                ).fetchone()
                entrants.append((name, key, Skill(*current) if current else Skill()))
        changes = rate(entrants, dict(outcome.places))
        for c in changes:
            shown_name = c.key.removeprefix(BOT) if c.key.startswith(BOT) else c.name
            self._db.execute(
                "INSERT OR REPLACE INTO ratings (key, name, mu, sigma, games, wins)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (c.key, shown_name, c.after.mu, c.after.sigma, c.after.games, c.after.wins),
            )
            self._db.execute(
                "INSERT INTO rating_history (game_id, key, name, mu_before, sigma_before, mu_after,"
                " sigma_after, games, wins, won) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, c.key, c.name, c.before.mu, c.before.sigma, c.after.mu, c.after.sigma,
                 c.after.games, c.after.wins, c.after.wins - c.before.wins),
            )  # fmt: skip
        return changes


def _names_of(seats: Sequence[tuple[str, str | None]]) -> list[str]:
    """The names the accounts of ``seats`` may be registered under: the seat's, and the one its
    identity was made of (casefolded)."""
    return [n for name, identity in seats if identity for n in (name, identity.split(":", 1)[-1])]


def _standing(row: tuple[Any, ...]) -> Standing:
    key, name, mu, sigma, games, wins = row
    return Standing(str(key), str(name), Skill(float(mu), float(sigma), int(games), int(wins)))
