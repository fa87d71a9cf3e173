"""Moderation in a cluster of two nodes with a real redis-server: what the staff do on one node
reaches the people on the other, and the store read at hello holds on both."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.log.contract import OPERATOR
from server.log.redis.store import RedisStore
from tests.server.clients import WsClient
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisStore]:
    """The cluster's store, as the operator's ``cafe-admin`` reaches it."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    yield RedisStore(client, lambda room: None)
    await client.aclose()


async def _admin(node: ServerProcess, store: RedisStore, name: str = "ann") -> WsClient:
    """``name`` registered through ``node`` and made an admin by the operator."""
    client = await WsClient.connect(node.port, name)
    assert (await client.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert await store.role_set(name, "admin", by=OPERATOR)
    return client


async def _read_until_closed(client: WsClient) -> list[dict[str, Any]]:
    read: list[dict[str, Any]] = []
    try:
        while True:
            read.append(await client._receive(10.0))
    except Exception:
        return read


async def test_a_ban_on_one_node_closes_the_connection_on_the_other_and_holds_on_both(
    pair: list[ServerProcess], store: RedisStore
) -> None:
    """ann bans troll through a; troll, connected to b, reads why and is closed; a hello as
    troll is ``banned`` on either node; the log has it once."""
    a, b = pair
    ann = await _admin(a, store)
    troll = await WsClient.connect(b.port, "troll")
    assert (await ann.command("/ban troll 2h insults"))["type"] == "ack"
    read = await _read_until_closed(troll)
    assert any(m["type"] == "bye" and "insults" in m["reason"] for m in read), read
    for node in (a, b):
        again = await WsClient.connect(node.port)
        answer = await again.request({"type": "hello", "name": "troll"})
        assert (answer["type"], answer["code"]) == ("error", "banned"), answer
    assert [e.action for e in await store.modlog("troll")] == ["ban"]


async def test_silence_and_announcements_reach_the_other_node(
    pair: list[ServerProcess], store: RedisStore
) -> None:
    """A silence given through a holds for bob on b at once (``silenced``), and is lifted
    through a; an admin's announcement reaches everyone on both nodes."""
    a, b = pair
    ann = await _admin(a, store)
    bob, cid = await WsClient.connect(b.port, "bob"), await WsClient.connect(a.port, "cid")
    assert (await ann.command("/silence bob 30m rude"))["type"] == "ack"
    await bob.next(lambda m: m["type"] == "notice" and "silenced" in m["text"])
    assert (await bob.request({"type": "say", "text": "hi"}))["code"] == "silenced"
    assert (await ann.command("/unsilence bob"))["type"] == "ack"
    await bob.next(lambda m: m["type"] == "notice" and "again" in m["text"])
    assert (await bob.request({"type": "say", "text": "sorry"}))["type"] == "ack"
    assert (await ann.command("/announce Restart at 22:00 UTC."))["type"] == "ack"
    for client in (bob, cid):
        notice = await client.next(lambda m: m["type"] == "notice" and m["text"].startswith("Announcement"))
        assert notice["text"] == "Announcement from ann: Restart at 22:00 UTC."


async def test_a_guest_kicked_on_the_other_node_keeps_its_address_out(
    pair: list[ServerProcess], store: RedisStore
) -> None:
    """A guest connected to b, kicked through a, is closed; its address is barred for new guests
    on both nodes (the staff's node read it from b's list of people), an account is not."""
    a, b = pair
    ann = await _admin(a, store)
    reg = await WsClient.connect(a.port, "reg")
    assert (await reg.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await reg.close()
    flood = await WsClient.connect(b.port, "flood")
    assert (await ann.command("/kick flood spam"))["type"] == "ack"
    await _read_until_closed(flood)
    for node in (a, b):
        again = await WsClient.connect(node.port)
        answer = await again.request({"type": "hello", "name": "newguest"})
        assert (answer["type"], answer["code"]) == ("error", "kicked"), answer
    assert (await WsClient.connect(b.port, "reg", password=PASSWORD)).name == "reg"


async def test_a_report_on_one_node_reaches_the_staff_on_the_other(
    pair: list[ServerProcess], store: RedisStore
) -> None:
    """A report made through b tells the staff connected to a, and is listed there."""
    a, b = pair
    ann = await _admin(a, store)
    bob = await WsClient.connect(b.port, "bob")
    assert (await bob.command("/report troll spam in the lobby"))["type"] == "ack"
    told = await ann.next(lambda m: m["type"] == "notice" and "New report" in m["text"])
    assert "troll" in told["text"]
    [report] = (await ann.command("/reports"))["reports"]
    assert (report["reporter"], report["name"]) == ("bob", "troll")


async def test_closing_a_room_run_by_the_other_node(pair: list[ServerProcess], store: RedisStore) -> None:
    """A room whose game runs on b, closed through a: its game ends unrated (``closed``), its
    players are told and are in the lobby."""
    a, b = pair
    ann = await _admin(a, store)
    cid, dee = await WsClient.connect(b.port, "cid"), await WsClient.connect(b.port, "dee")
    for client in (cid, dee):
        assert (await client.command("/join far"))["type"] == "ack"
    assert (await cid.command("/start"))["type"] == "ack"
    await dee.next("game_started")
    assert (await ann.command("/close far spam"))["type"] == "ack"
    for client in (cid, dee):
        over = await client.next("game_over", timeout=15)
        assert over["reason"] == "closed" and not over.get("ratings")
        await client.next(lambda m: m["type"] == "notice" and "closed by ann" in m["text"])
    people = {p["name"]: p["room"] for p in (await dee.command("/who"))["people"]}
    assert people["cid"] is None and people["dee"] is None


async def test_a_role_given_on_one_node_is_told_on_the_other(
    pair: list[ServerProcess], store: RedisStore
) -> None:
    """ann, an admin on a, makes mia, connected to b, a moderator: mia reads it on b and may act
    there at once; ``/whereis mia`` on a carries the role; taking it back is told on b too."""
    a, b = pair
    ann = await _admin(a, store)
    mia = await WsClient.connect(b.port, "mia")
    assert (await mia.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await ann.command("/role mia moderator"))["type"] == "ack"
    await mia.next(lambda m: m["type"] == "notice" and m["text"].startswith("You are a moderator now"))
    assert (await mia.command("/modlog"))["type"] == "modlog"
    seen: list[dict[str, Any]] = []
    for _ in range(100):  # (until a reads mia as registered: b writes her line as it changes)
        seen = (await ann.command("/whereis mia"))["people"]
        if seen and not seen[0]["guest"]:
            break
        await asyncio.sleep(0.1)
    assert [(p["name"], p["role"]) for p in seen] == [("mia", "moderator")], seen
    assert (await ann.command("/role mia none"))["type"] == "ack"
    await mia.next(lambda m: m["type"] == "notice" and m["text"] == "You are no longer a moderator.")
    assert (await mia.command("/modlog"))["code"] == "not_staff"
