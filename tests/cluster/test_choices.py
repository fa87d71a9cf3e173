"""What a person chose is kept in a cluster: a registered account's lists, language and ASCII
choice are in Redis, read through any node, across the resume window and a restart of every node
(one of them killed), and deleted with the account; a guest's lists follow its token to another
node and expire as Redis' copy of the token does."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import redis.asyncio as aioredis

from protocol.names import alike
from server.cluster.presence import held_key, name_key
from server.log.redis.lists import GUEST_TTL
from server.log.redis.store import TOKEN_TTL
from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient, eventually
from tests.server.test_choices import (
    PAST_WINDOW,
    WINDOW,
    check_choices_kept,
    check_fresh,
    make_choices,
    unregister,
)

ARGS = ("--resume-window", str(WINDOW), "--hash-memory", "1024")


async def test_an_accounts_choices_are_kept_across_nodes_and_restarts_and_go_with_it(
    redis_url: str, tmp_path: Path
) -> None:
    """Chosen through node a, ann's friends, mutes, language and ASCII are there at a login
    through b after the resume window; after a is killed and b stopped, both started again, they
    are there through a; /unregister through b deletes them from Redis, and the name registered
    again starts afresh."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
            await make_choices(a.port, a.line_port)
            await asyncio.sleep(PAST_WINDOW)
            await check_choices_kept(b.port, b.line_port)
            a.proc.send_signal(signal.SIGKILL)
            await asyncio.wait_for(a.proc.wait(), 10)
        assert await client.hgetall("cafe:list:account:ann:friend") == {"bob": "Bob"}
        assert await client.hgetall("cafe:list:account:ann:mute") == {"cld": "cid"}  # (by the form)
        assert await client.hmget("cafe:account:ann", ["lang", "ascii"]) == ["de", "1"]
        assert await client.ttl("cafe:list:account:ann:friend") == -1  # kept for good
        async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
            await check_choices_kept(a.port, a.line_port)
            await unregister(b.port)
            assert await client.keys("cafe:list:account:ann:*") == []
            assert await client.exists("cafe:account:ann") == 0

            # the name is free through a once b has written that its connection is gone (the
            # client's close ends before b has: a moment's wait)
            async def let_go() -> bool:
                held = await client.hexists(held_key("b"), alike("ann"))
                return not held and await client.get(name_key("ann")) != "b"

            await eventually(let_go, "b let ann's name go", timeout=5)
            await check_fresh(a.port)
    finally:
        await client.aclose()


async def test_a_guests_lists_follow_its_token_to_another_node(redis_url: str, tmp_path: Path) -> None:
    """A guest's list made through a is there when it resumes through b within the window; in
    Redis it expires as the guest's token does."""
    assert GUEST_TTL == TOKEN_TTL
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
            ann = await WsClient.connect(a.port, "ann")
            assert (await ann.command("/friend bob"))["type"] == "ack"
            identity = await client.hget(f"cafe:token:{ann.token}", "identity")
            assert isinstance(identity, str)
            assert 0 < await client.ttl(f"cafe:list:{identity}:friend") <= GUEST_TTL
            await ann.close()
            back = await WsClient.connect(b.port, "ann", token=ann.token)
            assert [f["name"] for f in (await back.command("/friends"))["friends"]] == ["bob"]
    finally:
        await client.aclose()
