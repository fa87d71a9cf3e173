"""Names that look alike in a cluster: a registered name's look-alikes are refused through every
node, a connected name's and a held seat's too (one Redis key for all the names of a form), the
reserved names everywhere; the accounts' forms are indexed in Redis, old accounts' too."""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

import redis.asyncio as aioredis

from protocol.names import alike
from server.cluster.presence import WHOLE_EVERY, held_key, name_key
from server.log.redis.store import RedisStore
from tests.cluster.conftest import TIMINGS
from tests.server.clients import WsClient
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"


async def _hello(node: ServerProcess, name: str) -> dict[str, Any]:
    client = await WsClient.connect(node.port)
    return await client.request({"type": "hello", "name": name})


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
    through b, and a keeps the form's key alive: its time to live is renewed every
    ``WHOLE_EVERY`` heartbeats, so after twice as many and more it has lost about that many."""
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
        await asyncio.sleep((2 * WHOLE_EVERY + 2) * TIMINGS.renew_every)  # (not renewed: 11 s of 15 gone)
        assert await client.get(name_key("mia")) == "a"
        left = TIMINGS.name_ttl - (WHOLE_EVERY + 4) * TIMINGS.renew_every  # (8 s of 15)
        assert await client.pttl(name_key("mia")) > left * 1000
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


# --- a name is held for its holder alone, on every node ------------------------------------------------


async def _planted_token(redis_url: str, name: str) -> str:
    """A good token for ``name`` as a node that died with its connection open leaves it (no
    expiry set, no connection anywhere, the name's key run out)."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        token = "f" * 32
        await RedisStore(client, lambda room: None).token_issued(token, name, "planted-identity")
        return token
    finally:
        await client.aclose()


async def test_a_dropped_guests_name_is_held_on_every_node(nodes: list[ServerProcess]) -> None:
    """mia, a guest in no game, loses her connection to a: through b ``mia`` is ``name_taken``
    (someone is called so) and ``rnia`` too (it looks like it) while her window lasts; her token
    brings her back through b."""
    a, b = nodes
    mia = await WsClient.connect(a.port, "mia")
    await mia.close()
    answer = await _hello(b, "mia")
    assert (answer["code"], answer["message"]) == ("name_taken", "Someone is already called mia.")
    answer = await _hello(b, "rnia")
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "rnia looks like the name of someone here; choose another name.",
    )
    back = await WsClient.connect(b.port, "mia", token=mia.token)
    assert back.messages[-1]["resumed"] is True


async def test_a_dropped_guests_name_is_free_after_the_window(quick: list[ServerProcess]) -> None:
    """With a window of half a second, a look-alike of the name is welcome through b once it has
    passed (the node that held it lets the name's key go at its next heartbeat)."""
    a, b = quick
    mia = await WsClient.connect(a.port, "mia")
    await mia.close()
    assert (await _hello(b, "rnia"))["code"] == "name_taken"
    deadline = time.monotonic() + 5
    client = await WsClient.connect(b.port)
    while (answer := await client.request({"type": "hello", "name": "rnia"}))["type"] != "welcome":
        assert answer["code"] == "name_taken" and time.monotonic() < deadline, answer
        await asyncio.sleep(0.1)


async def test_a_token_does_not_take_a_name_whose_look_alike_is_connected(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """mia's token is good but her name is held nowhere (her node died); rnia connects to b. mia's
    token through a is ``name_taken`` ("looks like the name of someone here"); rnia stays alone."""
    a, b = nodes
    token = await _planted_token(redis_url, "mia")
    rnia = await WsClient.connect(b.port, "rnia")
    answer = await (await WsClient.connect(a.port)).request({"type": "hello", "name": "mia", "token": token})
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "mia looks like the name of someone here; choose another name.",
    )
    who = await rnia.request({"type": "who"})
    assert [p["name"] for p in who["people"]] == ["rnia"]


async def test_a_look_alikes_token_cannot_hijack_a_held_seat(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """The seat hijack across nodes: rnia's token is good (her node died); mia sits in a game on a
    and drops. Through b a fresh ``rnia`` and rnia's token are ``name_taken``, and ``/nick mia``
    too; mia herself comes back through b to her seat and hand."""
    a, b = nodes
    token = await _planted_token(redis_url, "rnia")
    ann, mia = await WsClient.connect(a.port, "ann"), await WsClient.connect(a.port, "mia")
    for client in (ann, mia):
        assert (await client.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await mia.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    assert (await _hello(b, "rnia"))["code"] == "name_taken"
    attacker = await WsClient.connect(b.port)
    answer = await attacker.request({"type": "hello", "name": "rnia", "token": token})
    assert (answer["code"], answer["message"]) == (
        "name_taken",
        "rnia looks like the name of someone here; choose another name.",
    )
    zed = await WsClient.connect(b.port, "zed")
    answer = await zed.command("/nick mia")
    assert (answer["code"], answer["message"]) == ("name_taken", "Someone is already called mia.")
    back = await WsClient.connect(b.port, "mia", token=mia.token)
    snapshot = await back.next("snapshot")
    assert snapshot["view"]["seat"] == 1 and snapshot["view"]["game"]["hand"]


async def test_nick_refuses_another_s_name_like_ones_own_on_another_node(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """Should two look-alikes ever be connected at once (here what a holds of the form is deleted
    from Redis, as a Redis that lost it would, until a writes it again), ``/nick mia`` from rnia
    on b is ``name_taken``: mia is connected to a under that very name."""
    a, b = nodes
    await WsClient.connect(a.port, "mia")
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        deadline = time.monotonic() + 5
        hello = await WsClient.connect(b.port)
        while True:  # (a's heartbeat writes them again every second)
            await client.delete(name_key("mia"), held_key("a"))
            answer = await hello.request({"type": "hello", "name": "rnia"})
            if answer["type"] == "welcome":
                break
            assert time.monotonic() < deadline, answer
        while await client.hget(held_key("a"), alike("mia")) != "mia":
            assert time.monotonic() < deadline + 5
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()
    for nick in ("mia", "MIA"):
        answer = await hello.command(f"/nick {nick}")
        assert (answer["code"], answer["message"]) == ("name_taken", f"Someone is already called {nick}.")


async def test_a_stopped_nodes_names_come_back_through_the_other_at_once(nodes: list[ServerProcess]) -> None:
    """a stops while mia is connected to it: the key of her name's form outlives a for a while,
    yet her token brings her back through b at once (what a held went with it)."""
    a, b = nodes
    mia = await WsClient.connect(a.port, "mia")
    a.proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(a.proc.wait(), 20) == 0
    back = await WsClient.connect(b.port, "mia", token=mia.token)
    assert back.messages[-1]["resumed"] is True


async def test_a_hold_ends_once_its_holder_came_back_elsewhere(nodes: list[ServerProcess]) -> None:
    """mia drops from a, comes back through b and quits there: her token is gone, and so is the
    hold of her name on a: a new ``mia`` is welcome through a at once."""
    a, b = nodes
    mia = await WsClient.connect(a.port, "mia")
    await mia.close()
    back = await WsClient.connect(b.port, "mia", token=mia.token)
    await back.request({"type": "command", "text": "/quit"})
    await back.close()
    deadline = time.monotonic() + 5  # (b lets the name go once it has read the connection's end)
    client = await WsClient.connect(a.port)
    while (answer := await client.request({"type": "hello", "name": "mia"}))["type"] != "welcome":
        assert answer["code"] == "name_taken" and time.monotonic() < deadline, answer
        await asyncio.sleep(0.1)


async def test_two_hellos_at_once_on_one_node_get_one_welcome(quick: list[ServerProcess]) -> None:
    """Two connections to one node say hello at the same instant, as ``dupN`` both, then as
    ``miaN`` and ``rniaN`` (look-alikes): one is welcomed, the other ``name_taken``, every time."""
    a = quick[0]
    for n in range(8):
        for first, second in ((f"dup{n}", f"dup{n}"), (f"mia{n}", f"rnia{n}")):
            one, two = await WsClient.connect(a.port), await WsClient.connect(a.port)
            answers = await asyncio.gather(
                one.request({"type": "hello", "name": first}), two.request({"type": "hello", "name": second})
            )
            kinds = sorted(x.get("code", x["type"]) for x in answers)
            assert kinds == ["name_taken", "welcome"], (first, second, answers)
            await one.close()
            await two.close()
