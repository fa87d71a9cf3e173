"""``cafe-admin``: the operator's command line, on the data the server uses, while it runs.

It opens the same store the server would (``--data`` for SQLite, ``--redis`` for a cluster, with
``--database`` for its records in PostgreSQL, or the server's ``CAFE_*`` variables) and works
through the storage contract (:mod:`server.log.contract`), as the server does: a role or a ban set
here holds in the server at once, since the server reads them from the store at each login and
command. Every change is written to the moderation log, by ``(operator)``.

Each command prints what it did and exits 0, or prints one ``cafe-admin: error: ...`` line and
exits 1 (2 for a command line or setting it cannot take, as argparse does)::

    cafe-admin role ann admin
    cafe-admin ban troll 7d --reason "insults in the lobby"
    cafe-admin unban troll
    cafe-admin password ann              # a new random password, shown once
    cafe-admin modlog --limit 20
    cafe-admin reports
    cafe-admin backup /var/backups/cafe-2026-12-05.db
    cafe-admin check
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import redis.asyncio as aioredis

from engine.errors import InvalidPositionError
from engine.game import replay
from protocol.names import NAME_MAX, is_name
from server.config import Config, ConfigError, load_config
from server.lobby.accounts import Accounts
from server.log.contract import OPERATOR, GameLog, Role, StoreUnavailable
from server.log.postgres.records import Records, RecordsUnavailable
from server.log.postgres.schema import RecordsTooNew
from server.log.postgres.store import PostgresStore
from server.log.redis.store import RedisStore
from server.log.sqlite.schema import SCHEMA_VERSION, LogTooNew
from server.log.sqlite.store import Store

PROG: Final = "cafe-admin"

#: the roles ``role`` gives (``none`` takes a role away)
ROLE_CHOICES: Final = ("admin", "moderator", "none")

#: a duration as ``ban`` takes it: minutes, hours, days, or ``perm``
_DURATION = re.compile(r"([1-9][0-9]{0,5})([mhd])")
_UNITS: Final = {"m": 60, "h": 3600, "d": 86400}


class AdminError(Exception):
    """What a command could not do, in one line for the operator."""


def duration_seconds(text: str) -> float | None:
    """The seconds ``text`` stands for (``30m``, ``2h``, ``7d``); ``None`` for ``perm``.

    >>> duration_seconds("30m"), duration_seconds("7d"), duration_seconds("perm")
    (1800, 604800, None)
    """
    if text == "perm":
        return None
    found = _DURATION.fullmatch(text)
    if found is None:
        raise AdminError(f"{text!r} is not a duration: 30m, 2h, 7d (minutes, hours, days) or perm")
    return int(found[1]) * _UNITS[found[2]]


def when(moment: float | None) -> str:
    """A moment as operators read it, in UTC.

    >>> when(0), when(None)
    ('1970-01-01 00:00 UTC', 'for good')
    """
    if moment is None:
        return "for good"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(moment))


# --- the command line ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Administer a Café International server's data while it runs: roles, bans,"
        " passwords, the moderation log, reports, backups and a check of the data.",
        epilog="Where the data is comes from the flags or, like the server's, from CAFE_DATA,"
        " CAFE_REDIS and CAFE_DATABASE; with --redis the cluster's data is used, else the SQLite file.",
    )
    parser.add_argument("--data", metavar="FILE", help="the server's SQLite file [env CAFE_DATA]")
    parser.add_argument(
        "--redis", metavar="URL", help="a cluster's Redis (redis://HOST:PORT/0) [env CAFE_REDIS]"
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        help="a cluster's records in PostgreSQL (postgresql://...), with --redis [env CAFE_DATABASE]",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    role = commands.add_parser("role", help="give or take a role: admin, moderator or none")
    role.add_argument("name", metavar="NAME")
    role.add_argument("role", choices=ROLE_CHOICES, metavar="admin|moderator|none")
    role.add_argument("--reason", default="", help="why, for the moderation log")

    ban = commands.add_parser("ban", help="bar NAME from logging in for DURATION (30m, 2h, 7d or perm)")
    ban.add_argument("name", metavar="NAME")
    ban.add_argument("duration", metavar="DURATION")
    ban.add_argument("--reason", required=True, help="why, for NAME and the moderation log")

    unban = commands.add_parser("unban", help="lift NAME's ban")
    unban.add_argument("name", metavar="NAME")
    unban.add_argument("--reason", default="", help="why, for the moderation log")

    password = commands.add_parser(
        "password", help="give the account NAME a new random password (shown once) and revoke its tokens"
    )
    password.add_argument("name", metavar="NAME")

    modlog = commands.add_parser("modlog", help="the moderation log, newest first")
    modlog.add_argument("name", metavar="NAME", nargs="?", help="only where NAME acted or was acted on")
    modlog.add_argument("--limit", type=_positive, default=50, metavar="N", help="entries shown (50)")

    reports = commands.add_parser("reports", help="open reports, newest first")
    reports.add_argument("--all", action="store_true", help="resolved ones too")
    reports.add_argument("--limit", type=_positive, default=50, metavar="N", help="reports shown (50)")

    backup = commands.add_parser("backup", help="a consistent copy of the SQLite file, while the server runs")
    backup.add_argument("file", metavar="FILE", type=Path)

    commands.add_parser("check", help="the data's schema version, and that every unfinished game replays")
    return parser


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if not 1 <= number <= 100_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer from 1 to 100000")
    return number


def settings(args: argparse.Namespace, environ: dict[str, str] | None = None) -> Config:
    """The server's configuration as the flags and ``CAFE_*`` variables give it (the flags win)."""
    flags: list[str] = []
    for name in ("data", "redis", "database"):
        value = getattr(args, name)
        if value is not None:
            flags += ["--" + name, value]
    return load_config(flags, os.environ if environ is None else environ)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = settings(args)
    except ConfigError as e:
        return _fail(str(e), 2)
    try:
        return asyncio.run(_run(args, config))
    except AdminError as e:
        return _fail(str(e))
    except LogTooNew as e:
        return _fail(f"{config.data}: {e}", 2)
    except RecordsTooNew as e:
        return _fail(f"PostgreSQL: {e}", 2)
    except RecordsUnavailable as e:
        return _fail(f"the data cannot be reached: PostgreSQL: {e}")
    except (StoreUnavailable, OSError) as e:
        return _fail(f"the data cannot be reached: {e}")
    except sqlite3.Error as e:
        return _fail(f"{config.data}: SQLite: {e}")
    except Exception as e:
        if type(e).__module__.startswith(("redis", "psycopg")):  # the cluster's stores, out of reach
            return _fail(f"the data cannot be reached: {type(e).__name__}: {e}")
        raise


def _fail(message: str, status: int = 1) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return status


def say(line: str = "") -> None:
    print(line, flush=True)


# --- the store -----------------------------------------------------------------------------------


class Opened:
    """The store the server uses, opened for one command, and closed after it."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: GameLog
        #: the cluster's records in PostgreSQL (``--database``), or ``None``
        self.records: PostgresStore | None = None
        self._closers: list[Any] = []

    @property
    def cluster(self) -> bool:
        return self.config.redis is not None

    async def __aenter__(self) -> GameLog:
        config = self.config
        if config.redis is None:
            self.store = open_sqlite(config.data)
            return self.store
        client = aioredis.from_url(
            config.redis, decode_responses=True, socket_connect_timeout=5, socket_timeout=10
        )
        self._closers.append(client.aclose)
        await client.ping()

        def fence(room: str) -> str | None:  # the operator owns no room: no game is written here
            return None

        if config.database:
            records = PostgresStore(client, fence, Records(config.database), config.redis_durability)
            await records.open()
            self._closers.insert(0, records.aclose)
            self.store = self.records = records
        else:
            self.store = RedisStore(client, fence, config.redis_durability)
        return self.store

    async def __aexit__(self, *exc: object) -> None:
        if self.config.redis is None:
            self.store.close()
        for close in self._closers:
            await close()


def open_sqlite(path: str) -> Store:
    """The server's SQLite log at ``path``, which must be there (a missing file is a wrong path
    far more often than a new server)."""
    if path == ":memory:":
        raise AdminError("--data is :memory:, which keeps nothing: give the server's file (--data FILE)")
    if not Path(path).is_file():
        raise AdminError(f"{path}: no such file; give the server's --data FILE (or CAFE_DATA)")
    return Store(path, checkpoint_interval=3600.0)


# --- the commands --------------------------------------------------------------------------------


async def _run(args: argparse.Namespace, config: Config) -> int:
    command: str = args.command
    if command == "backup":
        return backup(config, args.file)
    if command == "check":
        return await check(config)
    async with Opened(config) as store:
        if command == "role":
            return await set_role(store, args.name, args.role, args.reason)
        if command == "ban":
            return await ban(store, args.name, args.duration, args.reason)
        if command == "unban":
            return await unban(store, args.name, args.reason)
        if command == "password":
            return await new_password(store, config, args.name)
        if command == "modlog":
            return await show_modlog(store, args.name, args.limit)
        assert command == "reports", command
        return await show_reports(store, args.all, args.limit)


def _name(name: str) -> str:
    if not is_name(name):
        raise AdminError(
            f"{name!r} is not a name: 1 to {NAME_MAX} letters, digits, '_' or '-', starting with a letter"
        )
    return name


async def _account(store: GameLog, name: str) -> str:
    """The account ``name`` as it is registered."""
    account = await store.account(_name(name))
    if account is None:
        raise AdminError(f"{name} is not a registered account")
    return account.name


async def revoke_tokens(store: GameLog, name: str) -> None:
    """Revoke every resume token of ``name``: a token issued for the name revokes the others (the
    contract's promise), and this one, which nobody holds, is revoked at once."""
    token = "admin-" + secrets.token_urlsafe(24)
    await store.token_issued(token, name, OPERATOR)
    await store.token_revoked(token)


async def set_role(store: GameLog, name: str, role: str, reason: str) -> int:
    account = await _account(store, name)
    given: Role | None = None if role == "none" else role  # type: ignore[assignment]
    before = await store.role(account)
    if not await store.role_set(account, given, by=OPERATOR, reason=reason):
        raise AdminError(f"{name} is not a registered account")
    was = before or "no role"
    say(f"{account} is now {given}, was {was}" if given else f"{account} holds no role now, was {was}")
    return 0


async def ban(store: GameLog, name: str, duration: str, reason: str) -> int:
    _name(name)
    if not reason.strip():
        raise AdminError("a ban needs a reason (--reason TEXT): the banned person reads it")
    seconds = duration_seconds(duration)
    until = None if seconds is None else time.time() + seconds
    sanction = await store.sanction_added("ban", name, OPERATOR, until, reason, duration=duration)
    await revoke_tokens(store, name)
    say(f"{name} is banned {'until ' + when(until) if until else 'for good'} (ban #{sanction.id}): {reason}")
    say("They cannot log in or come back with a resume token; a connection open now ends when they leave.")
    return 0


async def unban(store: GameLog, name: str, reason: str) -> int:
    lifted = await store.sanction_lifted("ban", _name(name), OPERATOR, reason)
    if not lifted:
        raise AdminError(f"{name} is not banned")
    say(f"{name} is no longer banned ({lifted} ban{'s' if lifted > 1 else ''} lifted)")
    return 0


async def new_password(store: GameLog, config: Config, name: str) -> int:
    account = await _account(store, name)
    password = secrets.token_urlsafe(12)  # 16 characters, 96 bits
    hasher = Accounts(store, workers=1, memory_cost=config.hash_memory)
    try:
        hashed = await hasher.hash(password)
    finally:
        hasher.close()
    await store.modlog_appended(OPERATOR, "password", account)
    await store.password_changed(account, hashed)
    await revoke_tokens(store, account)
    say(f"New password of {account}: {password}")
    say("It is shown only this once. Their resume tokens are revoked: they log in with it.")
    return 0


async def show_modlog(store: GameLog, name: str | None, limit: int) -> int:
    entries = await store.modlog(_name(name) if name else None, limit)
    if not entries:
        say("The moderation log has no entries" + (f" of {name}." if name else "."))
        return 0
    for e in entries:
        extra = "  ".join(part for part in (e.duration, e.reason) if part)
        say(f"#{e.id}  {when(e.when)}  {e.by}  {e.action}  {e.target}" + (f"  {extra}" if extra else ""))
    return 0


async def show_reports(store: GameLog, everything: bool, limit: int) -> int:
    found = await store.reports(everything, limit)
    if not found:
        say("No reports." if everything else "No open reports.")
        return 0
    for r in found:
        state = f"resolved by {r.resolved_by} {when(r.resolved)}" if r.resolved is not None else "open"
        say(f"#{r.id}  {when(r.made)}  {r.reporter} reports {r.name}: {r.reason}  [{state}]")
        if r.note:
            say(f"    note: {r.note}")
        for line in r.excerpt:
            say(f"    | {line}")
    return 0


# --- backup and check ----------------------------------------------------------------------------

CLUSTER_BACKUP: Final = """\
A cluster keeps its data in Redis{records}; this command copies only a single server's SQLite
file. Back up:
- Redis: run `redis-cli -u {redis} BGSAVE`, wait until `LASTSAVE` changes, then copy dump.rdb
  from Redis' folder (`CONFIG GET dir`); or copy its appendonlydir folder.{pg}"""

PG_BACKUP: Final = """
- PostgreSQL (accounts, ratings, lists, finished games, moderation): `pg_dump --format=custom
  --file=cafe.dump DATABASE_URL`; pg_restore brings it back."""


def backup(config: Config, target: Path) -> int:
    """Copy the SQLite log to ``target`` with SQLite's online backup (consistent while the
    server writes); for a cluster, say what to back up instead (exit 1: nothing was written)."""
    if config.redis is not None:
        pg = PG_BACKUP if config.database else ""
        records = " and PostgreSQL" if config.database else ""
        say(CLUSTER_BACKUP.format(records=records, redis=config.redis, pg=pg))
        raise AdminError(f"{target} was not written: a cluster is backed up as said above")
    source = config.data
    open_sqlite(source).close()  # there, and of a version this code reads (brought up to it)
    if target.exists():
        raise AdminError(f"{target} is there already; give a new file")
    if not target.parent.is_dir():
        raise AdminError(f"{target.parent}: no such folder")
    started = time.monotonic()
    with sqlite3.connect(source, timeout=10) as src, sqlite3.connect(str(target)) as dst:
        src.backup(dst)
    with sqlite3.connect(str(target)) as copy:
        (ok,) = copy.execute("PRAGMA integrity_check").fetchone()
        (version,) = copy.execute("PRAGMA user_version").fetchone()
        (games,) = copy.execute("SELECT count(*) FROM games").fetchone()
        (accounts,) = copy.execute("SELECT count(*) FROM accounts").fetchone()
    copy.close()
    if ok != "ok":
        raise AdminError(f"{target}: the copy does not pass SQLite's integrity check: {ok}")
    size = target.stat().st_size
    say(
        f"Backed up {source} to {target}: {size:,} bytes, schema version {version}, {games} games,"
        f" {accounts} accounts, in {time.monotonic() - started:.2f} s."
    )
    say("To restore: stop the server, put the copy in place of the file (without its -wal and -shm),")
    say("and start it.")
    return 0


async def check(config: Config) -> int:
    """Check the data: its schema version, and that every unfinished game replays by the rules."""
    if config.redis is not None:
        opened = Opened(config)
        async with opened as store:
            if opened.records is not None:  # brought up to this code's version as it opened
                async with opened.records.records.connection() as conn:
                    row = await (await conn.execute("SELECT version FROM schema_version")).fetchone()
                say(f"PostgreSQL records: schema version {row[0] if row else '?'}, this server's.")
            else:
                say("Redis keeps no schema version: the server reads what any version wrote.")
            return await _replays(store)
    source = config.data
    if source == ":memory:" or not Path(source).is_file():
        open_sqlite(source)  # the same clear error
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=10) as db:
        (version,) = db.execute("PRAGMA user_version").fetchone()
    db.close()
    if version > SCHEMA_VERSION:
        raise AdminError(
            f"{source}: schema version {version}, written by a newer server; this one reads up to"
            f" {SCHEMA_VERSION} and would not start on it"
        )
    if version == SCHEMA_VERSION:
        say(f"{source}: schema version {version}, this server's.")
    else:
        say(f"{source}: schema version {version}; the server takes it to {SCHEMA_VERSION} when it starts.")
    # the games are read from a copy, brought up to this version there: the file is left as it is
    with tempfile.TemporaryDirectory(prefix="cafe-check-") as folder:
        copy = str(Path(folder) / "copy.db")
        with sqlite3.connect(source, timeout=10) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)
            (ok,) = dst.execute("PRAGMA integrity_check").fetchone()
        src.close()
        dst.close()
        if ok != "ok":
            raise AdminError(f"{source}: SQLite's integrity check fails: {ok}")
        say("SQLite's integrity check: ok.")
        store = Store(copy, checkpoint_interval=3600.0)
        try:
            return await _replays(store)
        finally:
            store.close()


async def _replays(store: GameLog) -> int:
    games = await store.unfinished_games()
    failed = 0
    for game in games:
        try:
            replay(game.record)
        except (InvalidPositionError, ValueError) as e:
            failed += 1
            say(f"game {game.game_id} in room {game.room}: does not replay: {e}")
    if failed:
        raise AdminError(f"{failed} of {len(games)} unfinished games do not replay")
    say(f"{len(games)} unfinished game{'' if len(games) == 1 else 's'}: every one replays.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
