"""Names that look alike in a cluster: a registered name's look-alikes are refused through every
node, a connected name's and a held seat's too (one Redis key for all the names of a form), the
reserved names everywhere; the accounts' forms are indexed in Redis, old accounts' too."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.cluster.node import NAME_TTL, name_key
from server.log.redis.store import RedisStore
from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"


async def _hello(node: ServerProcess, name: str) -> dict[str, Any]:
    client = await WsClient.connect(node.port)
    return await client.request({"type": "hello", "name": name})


@pytest.fixture
async def quick(redis_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Two nodes whose lost players are dropped from their games after half a second."""
    async with two_nodes(redis_url, tmp_path, "--resume-window", "0.5", "--hash-memory", "1024") as started:
        yield started


async def test_look_alikes_are_refused_through_the_other_node(quick: list[ServerProcess]) -> None:
    """alice registered through a: ``aIice`` through b is ``name_registered``; mia connected to a:
    ``rnia`` through b is ``name_taken`` (as it looks like someone's), ``MIA`` too (the very name);
    ``ADMlN`` is ``name_reserved`` on b."""
    a, b = quick
    alice = await WsClient.connect(a.port, "alice")
    assert (await alice.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await alice.close()
    answer = await _hello(b, "aIice")
    assert (answer["code"], answer["message"]) == (
        "name_registered",
        "aIice looks like alice, a registered name; choose another name.",
    )
    await WsClient.connect(a.port, "mia")
    answer = await _hello(b, "rnia")
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "rnia looks like the name of someone here; choose another name.",
    )
    answer = await _hello(b, "MIA")
    assert (answer["code"], answer["message"]) == ("name_taken", "Someone is already called MIA.")
    assert (await _hello(b, "ADMlN"))["code"] == "name_reserved"
    again = await WsClient.connect(b.port, "ALICE", password=PASSWORD)  # its owner, in any case
    assert again.messages[-1]["registered"] is True


async def test_a_held_seat_keeps_its_look_alikes_on_every_node(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """mia leaves a running game on a: while the seat waits for her, ``rnia`` is ``name_taken``
    through b, and a keeps the form's key alive (its time to live renewed every second)."""
    a, b = nodes
    ann, mia = await WsClient.connect(a.port, "ann"), await WsClient.connect(a.port, "mia")
    for client in (ann, mia):
        assert (await client.command("/join seats"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await mia.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    assert (await _hello(b, "rnia"))["code"] == "name_taken"
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        await asyncio.sleep(4)
        assert await client.get(name_key("mia")) == "a"
        assert await client.pttl(name_key("mia")) > (NAME_TTL - 2.5) * 1000
    finally:
        await client.aclose()
    assert (await _hello(b, "rnIa"))["code"] == "name_taken"


async def test_a_seats_name_is_free_as_soon_as_its_game_ends(quick: list[ServerProcess]) -> None:
    """mia is dropped from her game on a (the window passed) and the game ends: ``rnia`` is
    welcome through b at once, not when the held name's key would have run out."""
    a, b = quick
    ann, mia = await WsClient.connect(a.port, "ann"), await WsClient.connect(a.port, "mia")
    for client in (ann, mia):
        assert (await client.command("/join ends"))["type"] == "ack"
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await mia.close()
    await ann.next("game_over", timeout=30)
    deadline = time.monotonic() + 5  # (a node lets a seat's name go at its next heartbeat)
    client = await WsClient.connect(b.port)
    while (answer := await client.request({"type": "hello", "name": "rnia"}))["type"] != "welcome":
        assert answer["code"] == "name_taken" and time.monotonic() < deadline, answer
        await asyncio.sleep(0.1)


async def test_accounts_from_before_forms_are_indexed_in_redis(redis_url: str) -> None:
    """An account from before forms is indexed as a node starts: then its look-alikes find it and
    are not registered. (Registering, finding and freeing forms is held for every log in
    ``tests/server/test_log_contract.py``.)"""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        store = RedisStore(client, lambda room: None)
        await client.hset("cafe:account:bob", mapping={"name": "bob", "hash": "x", "created": "1"})
        assert await store.account_alike("b0b") is None
        await store.index_forms()
        assert await store.account_alike("B0B") == "bob"
        assert not await store.account_created("b0b", "hash", None)
    finally:
        await client.aclose()
