"""A cluster's records in PostgreSQL: accounts and their settings, ratings and their history, an
account's lists, and the games that finished (record, players, outcome, rating changes).

The driver is psycopg 3 with its pool (``psycopg_pool``), rather than asyncpg: it speaks through
libpq, the library ``psql`` and ``pg_dump`` use (the same connection strings, ``PG*`` variables,
``.pgpass`` and TLS settings an operator already has), it ships its own type annotations (the
server is checked with ``mypy --strict``; asyncpg has none), and its pool checks a connection
before handing it out, so that a PostgreSQL restarted under a running server costs one failed
answer, not a pool of broken connections. asyncpg's speed is not needed here: these tables are
written once a game and once a login, never a move.

Every call answers within :data:`ANSWER_WITHIN` seconds: PostgreSQL out of reach is
:class:`~server.log.contract.StoreUnavailable`, as Redis is, so that whoever asked hears
``unavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from engine import GameRecord, Options
from protocol.names import alike, alike_version
from server.log.contract import (
    CLOSED,
    LISTS,
    Account,
    RecordsTooNew,
    RecordsTooOld,
    RecordsUnavailable,
    RecordsUnreadable,
    Standing,
    StoredGame,
    StoreUnavailable,
    list_of,
    stored_lists,
)
from server.log.postgres.schema import SCHEMA_VERSION, upgrade, version_of
from server.ratings import (
    ACCOUNT,
    BOT,
    RatingChange,
    Skill,
    account_key,
    is_rated,
    rate,
    rating_key,
    standing_identities,
)

#: seconds a call may take before it is ``StoreUnavailable`` (PostgreSQL away, or too slow)
ANSWER_WITHIN = 2.0
#: connections kept to PostgreSQL, at most (a node writes a record a game and reads one a login)
POOL_SIZE = 8
#: seconds the pool tries again to make a connection it lost (after 1 s, then 2 s more), before it
#: waits for the next call to try anew. psycopg_pool doubles its wait after each failed try: trying
#: for ever, a node found PostgreSQL back as late again as it had been away (after a 10 s outage,
#: at 15 s; after an hour, at two)
RECONNECT_WITHIN = 4.0

Connection = psycopg.AsyncConnection[TupleRow]

_GAME_COLUMNS = (
    "id, room, players, kinds, seed, options, board, start_player, started, finished, result,"
    " room_options, moves, voted_out, auto"
)


class Records:
    """The records' tables, through a pool of connections to ``url``; :meth:`open` before use."""

    def __init__(self, url: str, *, timeout: float = ANSWER_WITHIN, size: int = POOL_SIZE) -> None:
        self.url = url
        self.timeout = timeout
        self.pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=size,
            open=False,
            timeout=timeout,
            check=AsyncConnectionPool.check_connection,
            kwargs={"autocommit": True, "connect_timeout": max(2, int(timeout))},
            reconnect_timeout=RECONNECT_WITHIN,
            name="cafe-records",
        )

    @property
    def where(self) -> str:
        """The database's host, port and name (not its password), for a log line."""
        return _shown(self.url)

    async def open(self, wait: float = 30.0, *, upgrade_schema: bool = True) -> None:
        """Connect (waiting up to ``wait`` seconds for PostgreSQL) and bring the schema up to this
        code's (:func:`server.log.postgres.schema.upgrade`); without ``upgrade_schema`` (``cafe-admin``)
        a database of another version is left as it is: :class:`RecordsTooOld`, ``RecordsTooNew``."""
        try:
            await self.pool.open(wait=True, timeout=wait)
        except PoolTimeout as e:
            await self.pool.close()
            raise RecordsUnavailable(
                f"PostgreSQL at {_shown(self.url)} did not answer within {wait:g} s"
            ) from e
        try:
            async with self.pool.connection() as conn:
                if upgrade_schema:
                    try:
                        await upgrade(conn)
                    except psycopg.OperationalError:
                        raise  # (PostgreSQL went away meanwhile)
                    except psycopg.DatabaseError as e:
                        # (the steps' one transaction undid what it began: nothing changed)
                        raise RecordsUnreadable(f"a schema step failed: {e}") from e
                else:
                    at = await version_of(conn)
                    if at > SCHEMA_VERSION:
                        raise RecordsTooNew(at, SCHEMA_VERSION)
                    if at < SCHEMA_VERSION:
                        raise RecordsTooOld(at, SCHEMA_VERSION)
        except BaseException:
            await self.pool.close()
            raise

    async def close(self) -> None:
        await self.pool.close()

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[Connection]:
        """A connection for one call; PostgreSQL away, or too slow, is ``StoreUnavailable``."""
        try:
            async with asyncio.timeout(self.timeout), self.pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout, TimeoutError, OSError) as e:
            raise StoreUnavailable(f"PostgreSQL: {str(e) or type(e).__name__}") from e

    async def _one(self, sql: str, args: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        async with self.connection() as conn:
            return await (await conn.execute(sql, args)).fetchone()

    async def _all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        async with self.connection() as conn:
            return await (await conn.execute(sql, args)).fetchall()

    async def _do(self, sql: str, args: Sequence[Any] = ()) -> None:
        async with self.connection() as conn:
            await conn.execute(sql, args)

    # --- accounts ------------------------------------------------------------------------------

    async def index_forms(self) -> None:
        """Index each account by its look-alike form, when the forms were made with another version
        of them than this code's (``name_forms`` keeps it), or not yet."""
        async with self.connection() as conn, conn.transaction():
            await conn.execute("LOCK TABLE name_forms IN EXCLUSIVE MODE")
            made = await (await conn.execute("SELECT version FROM name_forms")).fetchone()
            if made is not None and made[0] == alike_version():
                return
            names = await (await conn.execute("SELECT key, name FROM accounts")).fetchall()
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    "UPDATE accounts SET form = %s WHERE key = %s",
                    [(alike(name), key) for key, name in names],
                )
            await conn.execute("DELETE FROM name_forms")
            await conn.execute("INSERT INTO name_forms (version) VALUES (%s)", (alike_version(),))

    async def account(self, name: str) -> Account | None:
        row = await self._one(
            "SELECT name, hash, created, last_seen, lang, ascii FROM accounts WHERE key = %s",
            (name.casefold(),),
        )
        if row is None:
            return None
        name, hash, created, last_seen, lang, ascii = row
        return Account(name, hash, created, last_seen, lang, bool(ascii))

    async def account_alike(self, name: str) -> str | None:
        row = await self._one("SELECT name FROM accounts WHERE form = %s LIMIT 1", (alike(name),))
        return None if row is None else str(row[0])

    async def account_created(self, name: str, hash: str, identity: str | None) -> bool:
        """Register ``name`` unless it or a look-alike is; the finished games of the guest
        (``identity``) become the account's, and so do its running games when they finish."""
        key, form = account_key(name), alike(name)
        async with self.connection() as conn, conn.transaction():
            # one registration of a form at a time: the check and the insert see the same accounts
            await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (form,))
            if await (await conn.execute("SELECT 1 FROM accounts WHERE form = %s", (form,))).fetchone():
                return False
            inserted = await conn.execute(
                "INSERT INTO accounts (key, name, hash, created, form) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (key) DO NOTHING",
                (name.casefold(), name, hash, time.time(), form),
            )
            if inserted.rowcount != 1:
                return False
            if identity is not None and identity != key:
                await conn.execute("UPDATE players SET identity = %s WHERE identity = %s", (key, identity))
                await conn.execute(
                    "INSERT INTO guest_accounts (identity, account) VALUES (%s, %s)"
                    " ON CONFLICT (identity) DO UPDATE SET account = excluded.account",
                    (identity, key),
                )
        return True

    async def password_changed(self, name: str, hash: str) -> None:
        await self._do("UPDATE accounts SET hash = %s WHERE key = %s", (hash, name.casefold()))

    async def account_seen(self, name: str, when: float) -> None:
        await self._do("UPDATE accounts SET last_seen = %s WHERE key = %s", (when, name.casefold()))

    async def account_language(self, name: str, lang: str) -> None:
        await self._do("UPDATE accounts SET lang = %s WHERE key = %s", (lang, name.casefold()))

    async def account_ascii(self, name: str, on: bool) -> None:
        await self._do("UPDATE accounts SET ascii = %s WHERE key = %s", (on, name.casefold()))

    async def account_deleted(self, name: str) -> None:
        """Forget the account, its settings, lists, rating and rating history; its games stay,
        under the name, nobody's."""
        key = account_key(name)
        async with self.connection() as conn, conn.transaction():
            await conn.execute("DELETE FROM accounts WHERE key = %s", (name.casefold(),))
            await conn.execute("DELETE FROM ratings WHERE key = %s", (key,))
            await conn.execute("DELETE FROM rating_history WHERE key = %s", (key,))
            await conn.execute("UPDATE players SET identity = NULL WHERE identity = %s", (key,))
            await conn.execute("DELETE FROM lists WHERE identity = %s", (key,))
            await conn.execute("DELETE FROM guest_accounts WHERE account = %s", (key,))

    # --- ratings -------------------------------------------------------------------------------

    async def standing(self, key: str) -> Standing | None:
        row = await self._one("SELECT key, name, mu, sigma, games, wins FROM ratings WHERE key = %s", (key,))
        return None if row is None else _standing(row)

    async def standings(self, keys: Sequence[str]) -> dict[str, Standing]:
        rows = await self._all(
            "SELECT key, name, mu, sigma, games, wins FROM ratings WHERE key = ANY(%s)", (list(set(keys)),)
        )
        return {str(row[0]): _standing(row) for row in rows}

    async def leaderboard(self, limit: int) -> list[Standing]:
        rows = await self._all(
            "SELECT key, name, mu, sigma, games, wins FROM ratings"
            " ORDER BY mu - 3 * sigma DESC, name LIMIT %s",
            (limit,),
        )
        return [_standing(row) for row in rows]

    async def games_count(self, identity: str, reader: str | None) -> int:
        """The finished games ``identity`` played that ``reader`` may read (a private one only by
        its players, as ``StoredGame.readable_by`` has it)."""
        row = await self._one(
            "SELECT count(*) FROM players p JOIN games g ON g.id = p.game_id WHERE p.identity = %s"
            " AND (NOT COALESCE((g.room_options->>'private')::boolean, false)"
            " OR p.game_id IN (SELECT game_id FROM players WHERE identity = %s))",
            (identity, reader),
        )
        return 0 if row is None else int(row[0])

    async def game_ratings(self, game_id: str) -> list[RatingChange]:
        async with self.connection() as conn:
            return await _game_ratings(conn, game_id)

    # --- finished games ------------------------------------------------------------------------

    async def archive(self, game: StoredGame) -> tuple[list[RatingChange], bool]:
        """Keep a finished game and rate it, in one transaction, once: a game kept before is left
        as it was (its rating changes are given back); and whether this call kept it. In pipeline
        mode, statements whose answers are not read at once go together: the game's row with the
        question of who registered since it began; its players with its rating's locks and the read
        of its ratings. (For a rated game
        of four a node spent 1,303-1,329 µs of CPU on a game's end so, 1,516-1,614 without:
        ``bench/records.py --ends``.)"""
        assert game.finished is not None and game.result is not None
        record = game.record
        seats = game.identities or (None,) * len(record.players)
        async with self.connection() as conn, conn.pipeline(), conn.transaction():
            kept = await conn.execute(
                f"INSERT INTO games ({_GAME_COLUMNS})"
                f" VALUES ({', '.join(['%s'] * 15)}) ON CONFLICT (id) DO NOTHING RETURNING id",
                (game.game_id, game.room, Jsonb(list(record.players)), Jsonb(list(game.kinds)), record.seed,
                 Jsonb({"stammtisch": record.options.stammtisch}), record.board, record.start_player,
                 game.started, game.finished, Jsonb(game.result), Jsonb(game.room_options),
                 Jsonb(list(record.moves)), Jsonb(list(game.voted_out)),
                 Jsonb({str(number): mark for number, mark in game.auto.items()})),
            )  # fmt: skip
            guests = await conn.execute(
                "SELECT identity, account FROM guest_accounts WHERE identity = ANY(%s)",
                ([i for i in seats if i is not None],),
            )
            # (the accounts its seats may be: an account deleted since its player was seated
            # rates nobody, and its seat is nobody's)
            names = {name.casefold() for name in record.players}
            names |= {i.removeprefix(ACCOUNT) for i in seats if i is not None and i.startswith(ACCOUNT)}
            accounts = await conn.execute("SELECT key FROM accounts WHERE key = ANY(%s)", (sorted(names),))
            if await kept.fetchone() is None:  # kept before (a crash between the two writes, or another node)
                return await _game_ratings(conn, game.game_id), False
            identities = standing_identities(
                _registered(seats, await guests.fetchall()),
                {ACCOUNT + str(key) for (key,) in await accounts.fetchall()},
            )
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO players (game_id, seat, name, identity) VALUES (%s, %s, %s, %s)",
                    [(game.game_id, seat, name, who) for seat, (name, who) in
                     enumerate(zip(record.players, identities, strict=True))],
                )  # fmt: skip
            places = dict(game.result.get("places") or {})
            return await _rate(conn, game, identities, places), True

    async def game(self, game_id: str) -> StoredGame | None:
        async with self.connection() as conn:
            row = await (
                await conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = %s", (game_id,))
            ).fetchone()
            return None if row is None else await _game(conn, row)

    async def history(self, identity: str, limit: int, reader: str | None) -> list[StoredGame]:
        """The finished games ``identity`` played that ``reader`` may read, newest first."""
        async with self.connection() as conn:
            rows = await (
                await conn.execute(
                    f"SELECT {', '.join('g.' + c.strip() for c in _GAME_COLUMNS.split(','))}"
                    " FROM games g JOIN players p ON p.game_id = g.id WHERE p.identity = %s"
                    " AND (NOT COALESCE((g.room_options->>'private')::boolean, false)"
                    " OR p.game_id IN (SELECT game_id FROM players WHERE identity = %s))"
                    " ORDER BY g.started DESC LIMIT %s",
                    (identity, reader, limit),
                )
            ).fetchall()
            return [await _game(conn, row) for row in rows]

    # --- an account's lists --------------------------------------------------------------------

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        found = stored_lists()
        for which, key, name in await self._all(
            "SELECT list, key, name FROM lists WHERE identity = %s", (identity,)
        ):
            found.setdefault(which, {})[key] = name
        return found

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        which, adds = list_of(action)
        if adds:
            await self._do(
                "INSERT INTO lists (identity, list, key, name) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (identity, list, key) DO UPDATE SET name = excluded.name",
                (identity, which, key, name),
            )
        else:
            await self._do(
                "DELETE FROM lists WHERE identity = %s AND list = %s AND key = %s", (identity, which, key)
            )

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        rows = [(identity, which, key, name) for which in LISTS for key, name in lists.get(which, {}).items()]
        async with self.connection() as conn, conn.transaction():
            await conn.execute("DELETE FROM lists WHERE identity = %s", (identity,))
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO lists (identity, list, key, name) VALUES (%s, %s, %s, %s)", rows
                )

    async def lists_deleted(self, identity: str) -> None:
        await self._do("DELETE FROM lists WHERE identity = %s", (identity,))

    # --- what the operator reads ---------------------------------------------------------------

    async def table_sizes(self) -> dict[str, int]:
        """Each table's bytes on disk, its indexes and TOAST included."""
        rows = await self._all(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY c.relname"
        )
        return {str(name): int(size) for name, size in rows}


def _registered(identities: Sequence[str | None], rows: Sequence[tuple[Any, ...]]) -> list[str | None]:
    """Each seat's identity, a guest's who registered since the game started made its account's
    (``rows``: the guests' lines of ``guest_accounts``)."""
    accounts: dict[str, str] = {str(guest): str(account) for guest, account in rows}
    return [None if i is None else accounts.get(i, i) for i in identities]


async def _rate(
    conn: Connection, game: StoredGame, identities: list[str | None], places: dict[str, int]
) -> list[RatingChange]:
    """Rate a game just kept, inside its transaction (the caller's); not one whose room the staff
    closed."""
    closed = (game.result or {}).get("reason") == CLOSED
    if closed or not is_rated(list(game.kinds), identities, game.room_options):
        return []
    seats = [
        (name, key)
        for name, kind, identity in zip(game.record.players, game.kinds, identities, strict=True)
        if (key := rating_key(name, kind, identity)) is not None
    ]
    # a participant rated by two games at once waits for the first (in one order: no deadlock)
    for key in sorted({key for _, key in seats}):
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 1))", (key,))
    rows = await (
        await conn.execute(
            "SELECT key, mu, sigma, games, wins FROM ratings WHERE key = ANY(%s)", ([k for _, k in seats],)
        )
    ).fetchall()
    current = {str(key): Skill(mu, sigma, games, wins) for key, mu, sigma, games, wins in rows}
    changes = rate([(name, key, current.get(key, Skill())) for name, key in seats], places)
    async with conn.cursor() as cursor:
        await cursor.executemany(
            "INSERT INTO ratings (key, name, mu, sigma, games, wins) VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (key) DO UPDATE SET name = excluded.name, mu = excluded.mu,"
            " sigma = excluded.sigma, games = excluded.games, wins = excluded.wins",
            [(c.key, c.key.removeprefix(BOT) if c.key.startswith(BOT) else c.name, c.after.mu, c.after.sigma,
              c.after.games, c.after.wins) for c in changes],
        )  # fmt: skip
        await cursor.executemany(
            "INSERT INTO rating_history (game_id, seat, key, name, mu_before, sigma_before, mu_after,"
            " sigma_after, games, wins, won) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(game.game_id, at, c.key, c.name, c.before.mu, c.before.sigma, c.after.mu, c.after.sigma,
              c.after.games, c.after.wins, c.after.wins > c.before.wins) for at, c in enumerate(changes)],
        )  # fmt: skip
    return changes


async def _game_ratings(conn: Connection, game_id: str) -> list[RatingChange]:
    rows = await (
        await conn.execute(
            "SELECT name, key, mu_before, sigma_before, mu_after, sigma_after, games, wins, won"
            " FROM rating_history WHERE game_id = %s ORDER BY seat",
            (game_id,),
        )
    ).fetchall()
    return [
        RatingChange(
            name, key, Skill(mu0, sigma0, games - 1, wins - int(won)), Skill(mu1, sigma1, games, wins)
        )
        for name, key, mu0, sigma0, mu1, sigma1, games, wins, won in rows
    ]


async def _game(conn: Connection, row: tuple[Any, ...]) -> StoredGame:
    (game_id, room, players, kinds, seed, options, board, start_player, started, finished, result,
     room_options, moves, voted_out, auto) = row  # fmt: skip
    seats = await (
        await conn.execute("SELECT identity FROM players WHERE game_id = %s ORDER BY seat", (game_id,))
    ).fetchall()
    record = GameRecord(
        players=tuple(players),
        seed=int(seed),
        options=Options(**options),
        board=board,
        start_player=start_player,
        moves=tuple(moves),
    )
    return StoredGame(
        game_id, room, record, tuple(kinds), started, finished, result, dict(room_options),
        tuple(identity for (identity,) in seats), tuple(voted_out),
        {int(number): str(mark) for number, mark in (auto or {}).items()},
    )  # fmt: skip


def _standing(row: tuple[Any, ...]) -> Standing:
    key, name, mu, sigma, games, wins = row
    return Standing(str(key), str(name), Skill(float(mu), float(sigma), int(games), int(wins)))


def _shown(url: str) -> str:
    """``url`` without its password, for a log line."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    return f"{info.get('host', 'localhost')}:{info.get('port', 5432)}/{info.get('dbname', '')}"
