"""A fresh, empty game log of each backend, for the tests that run one contract on all three:
the SQLite log, Redis (a real redis-server, one for the module, emptied for each test) and
Redis with the records in PostgreSQL (a real PostgreSQL server, emptied for each test)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from server.log.contract import GameLog
from server.log.redis.keys import lease_key
from server.log.redis.store import RedisStore
from server.log.sqlite.store import Store
from tests.cluster.conftest import RedisServer
from tests.cluster.postgres import PostgresServer, postgres_for_module, records_store

#: the backends, as the ``log`` fixtures' params
BACKENDS = ("sqlite", "redis", "postgresql")

__all__ = ["BACKENDS", "fresh_log", "postgres_for_module", "redis_server"]  # fixtures used by name


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@contextlib.asynccontextmanager
async def fresh_log(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, fence: str | None = None
) -> AsyncIterator[GameLog]:
    """A fresh, empty log of the backend ``request.param`` names; with ``fence``, the only node
    owns room ``r`` under that fencing token."""
    if request.param == "sqlite":
        store = Store(str(tmp_path_factory.mktemp("sqlite") / "cafe.db"))
        try:
            yield store
        finally:
            store.close()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    await server.wait_ready()
    client = aioredis.from_url(server.url, decode_responses=True)
    await client.flushall()
    if fence is not None:
        await client.set(lease_key("r"), fence)
    try:
        if request.param == "redis":
            yield RedisStore(client, lambda room: fence)
        else:
            postgres: PostgresServer = request.getfixturevalue("postgres_for_module")
            async with records_store(postgres, client, lambda room: fence) as store:
                yield store
    finally:
        await client.aclose()
