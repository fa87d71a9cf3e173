"""Whom a person mutes reaches the ``friends`` answer on any node: a mute made through one node is
read, after a login through the other, from Redis alone and from PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.cluster.conftest import QUICK_HASH, two_nodes
from tests.cluster.postgres import PostgresServer, postgres_server
from tests.server.clients import WsClient
from tests.server.process import ServerProcess

__all__ = ["postgres_server"]  # the fixture, used by name

PASSWORD = "correct horse battery"


async def _mute_on_a_read_on_b(a: ServerProcess, b: ServerProcess) -> None:
    """Mira registers and mutes Zed through a and quits; logged in through b, her ``friends``
    answer names zed; she unmutes there, and through a the list is empty again."""
    mira = await WsClient.connect(a.port, "Mira")
    assert (await mira.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await mira.command("/mute Zed"))["type"] == "ack"
    await mira.request({"type": "command", "text": "/quit"})
    await mira.close()
    there = await WsClient.connect(b.port, "mira", password=PASSWORD)
    assert (await there.request({"type": "friends"}))["muted"] == ["zed"]
    assert (await there.command("/unmute zed"))["type"] == "ack"
    await there.request({"type": "command", "text": "/quit"})
    await there.close()
    back = await WsClient.connect(a.port, "mira", password=PASSWORD)
    assert (await back.request({"type": "friends"}))["muted"] == []


async def test_a_mute_made_on_one_node_is_read_on_the_other_with_redis(
    redis_url: str, tmp_path: Path
) -> None:
    """Redis alone keeps the account's lists: the other node's ``friends`` names the mute."""
    async with two_nodes(redis_url, tmp_path, *QUICK_HASH, "--bot-workers", "0") as (a, b):
        await _mute_on_a_read_on_b(a, b)


@pytest.fixture
async def records_nodes(
    redis_url: str, postgres_server: PostgresServer, tmp_path: Path
) -> AsyncIterator[list[ServerProcess]]:
    args = ("--database", postgres_server.url, *QUICK_HASH, "--bot-workers", "0")
    async with two_nodes(redis_url, tmp_path, *args) as started:
        yield started


async def test_a_mute_made_on_one_node_is_read_on_the_other_with_postgresql(
    records_nodes: list[ServerProcess],
) -> None:
    """PostgreSQL keeps the account's lists: the other node's ``friends`` names the mute."""
    await _mute_on_a_read_on_b(*records_nodes)
