"""The commands on the data as a whole: ``backup`` (SQLite's online backup) and ``check`` (the
schema's version, and every unfinished game replayed by the rules)."""

from __future__ import annotations

import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Final

from engine.errors import InvalidPositionError
from engine.game import replay
from server.admin.commands import say
from server.admin.store import AdminError, Opened, open_sqlite, sqlite_version
from server.config import Config
from server.log.contract import GameLog, RecordsTooOld
from server.log.sqlite.schema import SCHEMA_VERSION
from server.log.sqlite.store import Store

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
        say(CLUSTER_BACKUP.format(records=records, redis=config.data_shown, pg=pg))
        raise AdminError(f"{target} was not written: a cluster is backed up as said above")
    source = config.data
    sqlite_version(source)  # there; copied as it is, of whichever version, and not upgraded
    if target.exists():
        raise AdminError(f"{target} is there already; give a new file")
    if not target.parent.is_dir():
        raise AdminError(f"{target.parent}: no such folder")
    started = time.monotonic()
    try:
        with sqlite3.connect(source, timeout=10) as src:
            try:
                with sqlite3.connect(str(target)) as dst:
                    src.backup(dst)
                dst.close()
            except sqlite3.Error as e:  # (the source was read just above: the copy's side failed)
                raise AdminError(f"{target}: SQLite: {e}; the copy was not made") from e
        src.close()
        with sqlite3.connect(str(target)) as copy:
            (ok,) = copy.execute("PRAGMA integrity_check").fetchone()
            (version,) = copy.execute("PRAGMA user_version").fetchone()
            (games,) = copy.execute("SELECT count(*) FROM games").fetchone()
            (accounts,) = copy.execute("SELECT count(*) FROM accounts").fetchone()
        copy.close()
        if ok != "ok":
            raise AdminError(f"{target}: the copy does not pass SQLite's integrity check: {ok}")
    except BaseException:
        # a copy that failed is not left behind, where it would pass for a backup (and stop
        # the next try: the file is there already)
        for part in (target, target.with_name(target.name + "-journal")):
            part.unlink(missing_ok=True)
        raise
    size = target.stat().st_size
    counted = f"{games} game{'' if games == 1 else 's'}, {accounts} account{'' if accounts == 1 else 's'}"
    say(
        f"Backed up {source} to {target}: {size:,} bytes, schema version {version}, {counted},"
        f" in {time.monotonic() - started:.2f} s."
    )
    say("To restore: stop the server, put the copy in place of the file (without its -wal and -shm),")
    say("and start it.")
    return 0


async def check(config: Config) -> int:
    """Check the data: its schema version, and that every unfinished game replays by the rules."""
    if config.redis is not None:
        from server.log.postgres.schema import SCHEMA_VERSION as RECORDS_VERSION

        opened = Opened(config)
        try:
            async with opened as store:
                if opened.records is not None:  # (of this code's version: see Opened)
                    say(f"PostgreSQL records: schema version {RECORDS_VERSION}, this server's.")
                else:
                    say("Redis keeps no schema version: the server reads what any version wrote.")
                return await _replays(store)
        except RecordsTooOld as e:  # left as it is; the running games are in Redis, read as they are
            say(
                f"PostgreSQL records: schema version {e.version}; a node of this version takes it to"
                f" {e.newest} as it starts (cafe-admin leaves it as it is)."
            )
        async with Opened(config, records=False) as running:
            return await _replays(running)
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
