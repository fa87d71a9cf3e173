"""Two nodes on a real Redis that stops, is killed, or loses a node's lease: every message is still
answered, who heals, health tells the truth, seats and acknowledged moves are kept."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sys
import urllib.error
import urllib.request
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from structlog.testing import capture_logs

from engine import GameRecord, legal_move_texts, new_position, play
from protocol.errors import UNAVAILABLE
from server.cluster.relay import channel
from server.log.contract import LeaseLost
from server.log.redis.store import RUNNING, RedisStore, lease_key
from tests.cluster.conftest import TIMINGS, RedisServer, published
from tests.cluster.test_cluster import Game, _move, _play, _two_players
from tests.server.clients import LineClient, WsClient, eventually
from tests.server.process import ServerProcess

SLOW = 30.0  # seconds an answer may take while Redis is away (its client retries, then gives up)


async def _status(url: str) -> int:
    def fetch() -> int:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            with error:
                return error.code

    return await asyncio.to_thread(fetch)


def _idless_errors(client: WsClient) -> list[dict[str, Any]]:
    return [m for m in client.messages if m["type"] == "error" and m.get("id") is None]


def _all_json(node: ServerProcess) -> None:
    """Every line the node wrote was JSON (its reader stops at the first that is not)."""
    reader = node._reader
    assert not reader.done() or reader.exception() is None, reader.exception()


async def _who(client: WsClient) -> set[tuple[str, str | None]]:
    answer = await client.request({"type": "who"}, timeout=SLOW)
    assert answer["type"] == "who", answer
    return {(p["name"], p["room"]) for p in answer["people"]}


async def test_every_lobby_command_is_answered_unavailable_while_redis_is_down(
    nodes: list[ServerProcess], redis_server: RedisServer
) -> None:
    """With Redis stopped, who, list_rooms, enter_room, /who, nick and a new hello are each answered
    ``unavailable`` (one sentence) with their id; the connections stay open, and the log stays JSON."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    line = await LineClient.connect(nodes[0].line_port, "lin")
    redis_server.stop()
    requests: list[dict[str, Any]] = [
        {"type": "who"},
        {"type": "list_rooms"},
        {"type": "enter_room", "room": "hall"},
        {"type": "command", "text": "/who"},
        {"type": "nick", "name": "anna"},
    ]
    for request in requests:
        answer = await ann.request(request, timeout=SLOW)
        assert (answer["type"], answer["code"], answer["message"]) == ("error", "unavailable", UNAVAILABLE)
    newcomer = await WsClient.connect(nodes[0].port)
    answer = await newcomer.request({"type": "hello", "name": "carl"}, timeout=SLOW)
    assert (answer["type"], answer["code"]) == ("error", "unavailable")
    await line.line("/who")
    await line.expect(f"! {UNAVAILABLE} [unavailable]", timeout=SLOW)
    assert (await ann.request({"type": "ping"}))["type"] == "pong"
    await line.line("/rooms")
    await line.expect("[unavailable]", timeout=SLOW)
    assert _idless_errors(ann) == []
    _all_json(nodes[0])
    redis_server.start()
    await redis_server.wait_ready()
    welcome = await newcomer.request({"type": "hello", "name": "carl"}, timeout=SLOW)
    assert welcome["type"] == "welcome"


async def test_a_redis_that_hangs_is_answered_unavailable_after_one_timeout(
    nodes: list[ServerProcess], redis_server: RedisServer
) -> None:
    """Redis that stops answering without closing (SIGSTOP: a machine that hangs, packets that
    are dropped): who and enter_room are each answered ``unavailable`` once a command's wait (5 s)
    is over, not after a retry of it each (four waits, 21 s: a command not answered in time may
    have been carried out, and is not sent again); once Redis answers, so does the node."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    assert redis_server.proc is not None
    redis_server.proc.send_signal(signal.SIGSTOP)
    try:
        for request in ({"type": "who"}, {"type": "enter_room", "room": "hall"}):
            started = asyncio.get_running_loop().time()
            answer = await ann.request(request, timeout=SLOW)
            waited = asyncio.get_running_loop().time() - started
            assert (answer["type"], answer["code"]) == ("error", "unavailable"), answer
            assert waited < 12, f"{request['type']} answered after {waited:.1f} s"
    finally:
        redis_server.proc.send_signal(signal.SIGCONT)
    assert (await ann.request({"type": "enter_room", "room": "hall"}, timeout=SLOW))["type"] == "ack"
    assert ("ann", "hall") in await _who(ann)


async def test_readiness_follows_redis_and_liveness_does_not(
    nodes: list[ServerProcess], redis_server: RedisServer
) -> None:
    """``/readyz`` is 503 while the node cannot reach Redis and 200 again once it can; ``/livez``
    and ``/healthz`` stay 200 all along."""
    base = f"http://127.0.0.1:{nodes[0].port}"

    async def status(path: str) -> int:
        return await _status(base + path)

    await eventually(lambda: _is(status("/readyz"), 200), "ready at start")
    redis_server.stop()
    await eventually(lambda: _is(status("/readyz"), 503), "not ready without Redis")
    assert await status("/livez") == 200 and await status("/healthz") == 200
    redis_server.start()
    await redis_server.wait_ready()
    await eventually(lambda: _is(status("/readyz"), 200), "ready again with Redis")


async def _is(value: Awaitable[int], wanted: int) -> bool:
    return await value == wanted


async def test_who_lists_the_lobby_cluster_wide_and_forgets_who_left_during_an_outage(
    nodes: list[ServerProcess], redis_server: RedisServer
) -> None:
    """People in the lobby of either node are listed; one who disconnects while Redis is down is
    gone from the list soon after Redis returns, not listed for ever."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "bob")

    async def listed() -> set[tuple[str, str | None]]:
        return await _who(bob)

    await eventually(lambda: _has(listed(), {("ann", None), ("bob", None)}), "both in the lobby listed")
    redis_server.stop()
    await ann.close()
    await asyncio.sleep(1.5)
    redis_server.start()
    await redis_server.wait_ready()
    await eventually(lambda: _equals(listed(), {("bob", None)}), "ann no longer listed")


async def test_a_guest_is_listed_on_the_other_node_once_welcomed(nodes: list[ServerProcess]) -> None:
    """The welcome waits for the node's list of people to reach Redis: a ``who`` through the other
    node, sent the moment a guest is welcomed, lists the guest (twenty guests, each at once); a
    ``who`` through the guest's own node, sent the moment it entered a room, lists it there."""
    bob = await WsClient.connect(nodes[0].port, "bob")
    for i in range(20):
        guest = await WsClient.connect(nodes[1].port, f"guest{i}")
        assert (f"guest{i}", None) in await _who(bob), f"guest{i} not listed at once"
        assert (await guest.command(f"/join r{i}"))["type"] == "ack"
        assert (f"guest{i}", f"r{i}") in await _who(guest), f"guest{i} not listed in r{i} at once"


async def test_who_forgets_the_people_of_a_node_that_died(nodes: list[ServerProcess]) -> None:
    """Everyone connected to a node killed with SIGKILL leaves the list within seconds."""
    await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "bob")
    await eventually(lambda: _has(_who(bob), {("ann", None)}), "ann listed")
    nodes[0].proc.send_signal(signal.SIGKILL)
    await nodes[0].proc.wait()
    await eventually(lambda: _equals(_who(bob), {("bob", None)}), "ann gone with her node")


async def _has(found: Awaitable[set[Any]], wanted: set[Any]) -> bool:
    return wanted <= await found


async def _equals(found: Awaitable[set[Any]], wanted: set[Any]) -> bool:
    return await found == wanted


async def test_a_move_reaching_a_node_that_just_lost_the_lease_is_answered_and_the_seat_kept(
    redis_url: str, tmp_path: Path
) -> None:
    """The room's lease is taken from its owner: the next move is answered ``unavailable`` with its
    id (not dropped). When the lease is free again the room comes back and both seats play on."""
    node = await ServerProcess.start(tmp_path / "a.db", "--redis", redis_url, "--node-id", "a")
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        ann, bob = await _two_players([node, node], 3)
        game = await _play([ann, bob], Game(new_position(["ann", "bob"], 3)), random.Random(1), 2, bob)
        await client.set(lease_key("big"), "elsewhere:99")
        player = [ann, bob][game.position.to_move]
        move = legal_move_texts(game.position)[0]
        answer = await player.request({"type": "move", "move": move}, timeout=SLOW)
        assert (answer["type"], answer["code"]) == ("error", "unavailable")
        await client.delete(lease_key("big"))
        game = await _play([ann, bob], game, random.Random(2), 4, bob)
        assert game.moves == 6
        assert _idless_errors(ann) == [] and _idless_errors(bob) == []
        _all_json(node)
    finally:
        await client.aclose()
        node.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(node.proc.wait(), 20)


async def test_a_return_to_a_moved_room_that_reached_nobody_is_made_again(
    redis_url: str, tmp_path: Path
) -> None:
    """The room moves to a node that is not listening yet (its lease taken as a node just back
    after an outage takes it): the node of its players sends their return there and it reaches
    nobody. It sends it again until the room's node hears it; before, the room never knew them and
    answered each of their moves ``unavailable`` for as long as it stood."""
    node = await ServerProcess.start(tmp_path / "a.db", "--redis", redis_url, "--node-id", "a")
    client = aioredis.from_url(redis_url, decode_responses=True)
    pubsub = client.pubsub()
    try:
        ann, bob = await _two_players([node, node], 3)
        await _play([ann, bob], Game(new_position(["ann", "bob"], 3)), random.Random(1), 1, bob)
        await client.set(lease_key("big"), "c:1")
        await asyncio.sleep(4 * TIMINGS.renew_every)  # lost, followed to c, the return unheard
        await pubsub.subscribe(channel("c"))
        entered: set[str] = set()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 6 * TIMINGS.renew_every
        while entered != {"ann", "bob"} and loop.time() < deadline:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
            for line in message["data"].split("\n") if message else ():
                envelope = json.loads(line)
                if envelope["op"] in ("returned", "enter") and envelope["room"] == "big":
                    entered.add(envelope["name"])
        assert entered == {"ann", "bob"}
        told = [x for x in ann.messages + bob.messages if x["type"] == "notice" and x["text"] == UNAVAILABLE]
        assert told == []  # (they asked for nothing)
        _all_json(node)
    finally:
        await pubsub.aclose()
        await client.aclose()
        node.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(node.proc.wait(), 20)


async def test_an_outage_longer_than_the_lease_keeps_every_seat(
    nodes: list[ServerProcess], redis_server: RedisServer
) -> None:
    """Redis is away longer than a lease and a node's heartbeat: afterwards both players, one on
    each node, are still seated and play on; no error without an id reached either."""
    ann, bob = await _two_players(nodes, 21)
    game = await _play([ann, bob], Game(new_position(["ann", "bob"], 21)), random.Random(3), 3, bob)
    redis_server.stop()
    await asyncio.sleep(TIMINGS.node_ttl + 2 * TIMINGS.renew_every)  # past a lease and a node's life
    redis_server.start()
    await redis_server.wait_ready()
    game = await _play([ann, bob], game, random.Random(4), 6, bob)
    assert game.moves == 9
    assert _idless_errors(ann) == [] and _idless_errors(bob) == []
    for node in nodes:
        _all_json(node)


async def test_fsync_durability_refuses_a_redis_that_does_not_sync_every_write(tmp_path: Path) -> None:
    """``--redis-durability fsync`` against Redis with ``appendfsync everysec``: the server does not
    start, and says why."""
    redis = RedisServer(tmp_path, "--appendfsync", "everysec")
    redis.start()
    try:
        await redis.wait_ready()
        argv = ["-m", "server", "--port", "0", "--line-port", "-1", "--redis", redis.url]
        proc = await asyncio.create_subprocess_exec(
            sys.executable, *argv, "--redis-durability", "fsync", stderr=asyncio.subprocess.PIPE
        )
        _, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 2
        assert b"redis_not_durable" in err and b"appendfsync always" in err and b"everysec" in err
    finally:
        redis.stop()


async def test_fsync_durability_starts_on_a_redis_that_syncs_every_write(
    redis_url: str, tmp_path: Path
) -> None:
    """The test's Redis runs with ``appendfsync always``: a node in fsync mode starts and serves."""
    node = await ServerProcess.start(
        tmp_path / "a.db", "--redis", redis_url, "--node-id", "a", "--redis-durability", "fsync"
    )
    try:
        ann = await WsClient.connect(node.port, "ann")
        assert (await ann.command("/join r"))["type"] == "ack"
    finally:
        node.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(node.proc.wait(), 20)


async def test_a_sigkilled_redis_loses_no_acknowledged_move(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Nodes in fsync mode; Redis is killed with SIGKILL right after a move is acknowledged: every
    acknowledged move is in the log it starts again from."""
    await redis_server.wait_ready()
    nodes = [
        await ServerProcess.start(
            tmp_path / f"{n}.db", "--redis", redis_server.url, "--node-id", n, "--redis-durability", "fsync"
        )
        for n in ("a", "b")
    ]
    try:
        ann, bob = await _two_players(nodes, 8)
        game = Game(new_position(["ann", "bob"], 8))
        played: list[str] = []
        rng = random.Random(9)
        for _ in range(3):
            for _ in range(3):
                result = play(game.position, rng.choice(legal_move_texts(game.position)))
                await _move([ann, bob][game.position.to_move], result.move, game.moves + 1)
                game = Game(result.position, game.moves + 1)
                played.append(result.move)
            redis_server.kill()  # just after the last acknowledgement
            redis_server.start()
            await redis_server.wait_ready()
            client = aioredis.from_url(redis_server.url, decode_responses=True)
            try:
                (game_id,) = (await client.hgetall(RUNNING)).values()
                assert await client.lrange(f"cafe:game:{game_id}:moves", 0, -1) == played
            finally:
                await client.aclose()
    finally:
        for node in nodes:
            node.proc.send_signal(signal.SIGTERM)
        for node in nodes:
            await asyncio.wait_for(node.proc.wait(), 20)


async def test_after_a_redis_restart_a_member_on_another_node_gets_a_fresh_view(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Redis may die holding what a node published and not yet passed on, and nobody hears of
    that loss: after a restart each member of a room owned elsewhere gets a fresh snapshot, though
    nothing was sent while Redis was away, and the game goes on with both views right."""
    await redis_server.wait_ready()
    nodes = [
        await ServerProcess.start(tmp_path / f"{n}.db", "--redis", redis_server.url, "--node-id", n)
        for n in ("a", "b")
    ]
    try:
        ann, bob = await _two_players(nodes, 8)  # the room is ann's node's; bob is on the other
        game = await _play([ann, bob], Game(new_position(["ann", "bob"], 8)), random.Random(3), 2, bob)
        await bob.barrier()
        before = bob.seq
        redis_server.kill()
        redis_server.start()
        await redis_server.wait_ready()
        fresh = await bob.next(lambda m: m["type"] == "snapshot" and m["seq"] > before, timeout=20)
        assert fresh["view"]["game"]["move_number"] == 2
        await _play([ann, bob], game, random.Random(4), 2, bob)
        assert ann.view is not None and bob.view is not None
        assert ann.view["game"]["chairs"] == bob.view["game"]["chairs"]
        assert ann.view["game"]["bar"] == bob.view["game"]["bar"]
    finally:
        for node in nodes:
            node.proc.send_signal(signal.SIGTERM)
        for node in nodes:
            await asyncio.wait_for(node.proc.wait(), 20)


async def test_replica_durability_acknowledges_only_what_a_replica_has(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """With ``replica`` durability a write no replica took is not acknowledged (the room is taken
    up again from the log), and a node's start-up check warns of it; with a replica attached, a
    write returns once the replica has it."""
    await redis_server.wait_ready()
    client = aioredis.from_url(redis_server.url, decode_responses=True)
    folder = tmp_path / "replica"
    folder.mkdir()
    replica = RedisServer(folder, "--replicaof", "127.0.0.1", str(redis_server.port))
    copy = aioredis.from_url(replica.url, decode_responses=True)
    try:
        await client.set(lease_key("r"), "n:1")
        store = RedisStore(client, lambda room: "n:1", "replica")
        with capture_logs() as alone:  # a node starting so says what it will cost
            await store.check()
        assert [e["event"] for e in alone] == ["redis_no_replica"]
        record = GameRecord(("ann", "bob"), 1)
        with pytest.raises(LeaseLost, match="no replica"):
            await store.game_started("g1", "r", record, ["person", "person"])
        replica.start()
        await replica.wait_ready()

        async def linked() -> bool:
            return (await copy.info("replication")).get("master_link_status") == "up"

        await eventually(linked, "the replica follows the primary")
        with capture_logs() as followed:
            await store.check()
        assert followed == []
        # a replica's answer within the node's second, on a machine busy with the other tests, is
        # the machine's speed rather than what is tested: this store waits longer
        store = RedisStore(client, lambda room: "n:1", "replica", wait_ms=10_000)
        await store.game_started("g1", "r", record, ["person", "person"])
        await store.move_played("g1", 1, "CFf@bar")
        assert await copy.lrange("cafe:game:g1:moves", 0, -1) == ["CFf@bar"]
    finally:
        await copy.aclose()
        await client.aclose()
        replica.stop()


async def test_a_message_its_owner_took_and_died_with_is_answered_when_the_room_moves(
    redis_url: str, tmp_path: Path
) -> None:
    """A room's owner takes a forwarded message and dies before answering it: when the room moves,
    the sender hears ``unavailable`` with the message's id, rather than waiting for ever."""
    node = await ServerProcess.start(tmp_path / "b.db", "--redis", redis_url, "--node-id", "b")
    client = aioredis.from_url(redis_url, decode_responses=True)
    dead = client.pubsub()
    try:
        await dead.subscribe("cafe:to:x")  # node x: it listens, takes everything, answers nothing
        await client.set(lease_key("big"), "x:1")
        ann = await WsClient.connect(node.port, "ann")
        msg_id = 77
        await ann.send({"type": "enter_room", "room": "big", "id": msg_id})
        await published(dead, "the message to the owner")
        await dead.unsubscribe()
        await client.delete(lease_key("big"))  # x is dead: its lease is gone
        answer = await ann.next(lambda m: m.get("id") == msg_id, timeout=SLOW)
        assert (answer["type"], answer["code"]) == ("error", "unavailable")
        ack = await ann.request({"type": "enter_room", "room": "big"}, timeout=SLOW)
        assert ack["type"] == "ack"
    finally:
        await dead.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()
        node.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(node.proc.wait(), 20)
