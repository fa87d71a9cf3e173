"""The store ``cafe-admin`` works on: the server's own, found by the server's settings, opened for
one command and closed after it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.config import Config
from server.log.contract import OPERATOR, GameLog
from server.log.sqlite.schema import SCHEMA_VERSION
from server.log.sqlite.store import Store

if TYPE_CHECKING:
    import redis.asyncio as aioredis

    from server.log.postgres.store import PostgresStore

# The cluster's parts (Redis, PostgreSQL, the envelopes nodes read) are imported by the commands
# that reach a cluster, when they do: a command on a single server's SQLite file then starts in
# half the time (0.16 s of CPU against 0.34).


class AdminError(Exception):
    """What a command could not do, in one line for the operator."""


class Opened:
    """The store the server uses, opened for one command, and closed after it."""

    def __init__(self, config: Config, *, records: bool = True) -> None:
        self.config = config
        #: whether the records in PostgreSQL (``--database``) are opened too, or Redis alone
        self.with_records = records
        self.store: GameLog
        #: the cluster's records in PostgreSQL (``--database``), or ``None``
        self.records: PostgresStore | None = None
        #: a cluster's Redis, or ``None``
        self.redis: aioredis.Redis | None = None
        self._closers: list[Any] = []

    async def __aenter__(self) -> GameLog:
        config = self.config
        if config.redis is None:
            self.store = open_sqlite(config.data)
            return self.store
        import redis.asyncio as aioredis

        from server.log.postgres.records import Records
        from server.log.postgres.store import PostgresStore
        from server.log.redis.store import RedisStore

        client = aioredis.from_url(
            config.redis, decode_responses=True, socket_connect_timeout=5, socket_timeout=10
        )
        self._closers.append(client.aclose)
        await client.ping()
        self.redis = client

        def fence(room: str) -> str | None:  # the operator owns no room: no game is written here
            return None

        if config.database and self.with_records:
            records = PostgresStore(client, fence, Records(config.database), config.redis_durability)
            await records.open(upgrade_schema=False)  # (the nodes upgrade it, as each starts)
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

    async def tell_nodes(self, name: str, until: float | None, reason: str) -> bool:
        """Have every node of a cluster close the connections of ``name``, banned, as a node does
        for its staff's ``/ban`` (the envelope ``moderation`` on the channel every node hears);
        ``False`` on a single server, which is not reached from here."""
        if self.redis is None:
            return False
        from server.cluster import envelopes as env
        from server.cluster.relay import NEWS

        envelope = env.Moderation.model_validate(
            {"from": "cafe-admin", "kind": "ban", "name": name, "until": until, "reason": reason[:300],
             "by": OPERATOR}
        )  # fmt: skip
        await self.redis.publish(NEWS, env.dump(envelope))
        return True


def sqlite_version(path: str) -> int:
    """The schema version of the server's SQLite log at ``path``, read without changing the file,
    which must be there (a missing file is a wrong path far more often than a new server)."""
    if path == ":memory:":
        raise AdminError("--data is :memory:, which keeps nothing: give the server's file (--data FILE)")
    if not Path(path).is_file():
        raise AdminError(f"{path}: no such file; give the server's --data FILE (or CAFE_DATA)")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        (version,) = db.execute("PRAGMA user_version").fetchone()
    db.close()
    return int(version)


def open_sqlite(path: str) -> Store:
    """The server's SQLite log at ``path``, of this code's schema version exactly: the store
    upgrades an older file as it opens, which would change the schema under a running server of
    that older version, so a file of another version is refused and left as it is."""
    version = sqlite_version(path)
    if version != SCHEMA_VERSION:
        written = "a newer server" if version > SCHEMA_VERSION else "an older server"
        raise AdminError(
            f"{path}: schema version {version}, written by {written}; this cafe-admin works on"
            f" version {SCHEMA_VERSION} only and changes nothing (use the cafe-admin of the"
            " server's version)"
        )
    return Store(path, checkpoint_interval=3600.0)
