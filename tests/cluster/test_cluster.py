"""Several nodes on one real Redis: one game across nodes, an owner killed mid-game, Redis restarted."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed

from engine import GameRecord, Position, legal_move_texts, new_position, play
from server.cluster import envelopes as env
from server.cluster.relay import NEWS
from server.log.contract import LeaseLost
from server.log.redis.keys import PREFIX, lease_key
from server.log.redis.store import RedisStore
from tests.cluster.conftest import QUICK_HASH, TIMINGS, RedisServer, published, two_nodes
from tests.server.clients import MAX_TURNS, WsClient, bot_game, end_reason, eventually, game_result, until
from tests.server.process import ServerProcess


async def _move(client: WsClient, move: str, number: int, timeout: float = 30.0) -> None:
    """Send move ``number`` until the room has it. While Redis is away the answer may be
    ``unavailable``; a retry that finds the move already played (its answer was lost) is fine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        answer = await client.request({"type": "move", "move": move})
        if answer["type"] == "ack":
            return
        if _moves_seen(client) >= number:
            return
        assert answer["code"] in ("unavailable", "not_your_turn"), answer
        assert loop.time() < deadline, answer
        await asyncio.sleep(0.3)


def _moves_seen(client: WsClient) -> int:
    view = client.view
    return -1 if view is None or view["game"] is None else int(view["game"]["move_number"])


@dataclass
class Game:
    """The game as the test plays it: the engine's position and the number of moves so far."""

    position: Position
    moves: int = 0


async def _play(
    clients: list[WsClient], game: Game, rng: random.Random, count: int | None, watcher: WsClient
) -> Game:
    """Play random moves, each checked against the engine, until ``count`` are played or the game ends.

    Progress is read from the watcher's view (snapshots and patches), not from ``played`` events:
    after a Redis outage a client gets a fresh snapshot, and events sent meanwhile may be gone."""
    done = 0
    while done < (MAX_TURNS if count is None else count):
        result = play(game.position, rng.choice(legal_move_texts(game.position)))
        number = game.moves + 1
        await _move(clients[game.position.to_move], result.move, number)
        if _moves_seen(watcher) < number:
            try:
                await watcher.next(lambda m, n=number: _moves_seen(watcher) >= n, timeout=30)
            except TimeoutError:
                raise AssertionError(
                    f"move {number} never reached the watcher: "
                    f"{[str(m)[:150] for m in watcher.messages[-6:]]}"
                ) from None
        assert watcher.view is not None
        view = watcher.view["game"]
        assert view["last_move"]["move"] == result.move and view["last_move"]["points"] == result.points
        assert [p["score"] for p in view["players"]] == [p.score for p in result.position.players]
        game = Game(result.position, number)
        done += 1
        if result.outcome is not None:
            break
    return game


async def _two_players(nodes: list[ServerProcess], seed: int, *options: str) -> tuple[WsClient, WsClient]:
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await ann.command("/join big"))["type"] == "ack"
    for option in (f"seed {seed}", "host off", *options):  # host off: bob, on the other node, starts
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    assert (await bob.command("/join big"))["type"] == "ack"
    assert (await bob.command("/start"))["type"] == "ack"
    return ann, bob


async def test_players_on_two_nodes_play_a_whole_game(nodes: list[ServerProcess]) -> None:
    """ann on node a and bob on node b play one room to the end; names and rooms are cluster-wide,
    and bob's ``resync`` through node b is answered with a snapshot carrying its id."""
    ann, bob = await _two_players(nodes, 5)
    thief = await WsClient.connect(nodes[1].port)
    assert (await thief.request({"type": "hello", "name": "ANN"}))["code"] == "name_taken"
    rooms = await bob.request({"type": "list_rooms"})
    assert [r["name"] for r in rooms["rooms"]] == ["big"]
    who = await ann.request({"type": "who"})
    assert {p["name"] for p in who["people"]} == {"ann", "bob"}
    final = (
        await _play([ann, bob], Game(new_position(["ann", "bob"], 5)), random.Random(2), None, bob)
    ).position
    over = await ann.next("game_over")
    assert over["ranking"][0] in ("ann", "bob")
    assert ann.view is not None
    last = ann.view["game"]["move_number"]
    # bob's node relays the owner's messages through Redis: wait for them rather than for quiet
    await until(lambda: bob.view is not None and bob.view["game"]["move_number"] == last, "bob saw the end")
    assert bob.view is not None
    assert [p["score"] for p in bob.view["game"]["players"]] == [p.score for p in final.players]
    await bob.send({"type": "resync", "id": "bob-again"})  # through bob's node to the owner
    fresh = await bob.next("snapshot")
    assert fresh["id"] == "bob-again" and fresh["view"]["game"]["move_number"] == last


async def test_nodes_reach_redis_on_a_unix_socket(tmp_path: Path) -> None:
    """``--redis unix://PATH`` (Redis on the nodes' machine): two nodes on Redis' Unix socket
    alone (no TCP port) share names and rooms, and a game between them plays to the end."""
    sock = tmp_path / "redis.sock"
    redis = RedisServer(tmp_path, "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700")
    redis.start()
    try:
        url = f"unix://{sock}?db=0"
        await until(sock.exists, "Redis listens on its socket")
        async with two_nodes(url, tmp_path) as nodes:
            ann, bob = await _two_players(nodes, 7)
            assert {p["name"] for p in (await ann.request({"type": "who"}))["people"]} == {"ann", "bob"}
            await _play([ann, bob], Game(new_position(["ann", "bob"], 7)), random.Random(3), None, bob)
            assert (await ann.next("game_over"))["ranking"][0] in ("ann", "bob")
    finally:
        redis.stop()


async def test_people_on_two_nodes_joining_a_new_room_at_once_both_sit(
    redis_url: str, tmp_path: Path
) -> None:
    """The node that takes a new room's lease gets the other node's join before the room stands
    there: the join waits for the room, and is answered and seats its sender like the other."""
    # (30 comings and goings each, past their burst of 10 at the default rate)
    async with two_nodes(redis_url, tmp_path, "--chat-rate", "100") as nodes:
        ann = await WsClient.connect(nodes[0].port, "ann")
        bob = await WsClient.connect(nodes[1].port, "bob")
        for i in range(15):
            room = f"race{i}"
            answers = await asyncio.gather(ann.command(f"/join {room}"), bob.command(f"/join {room}"))
            assert [a["type"] for a in answers] == ["ack", "ack"], (room, answers)
            for client in (ann, bob):
                await client.next(lambda _, c=client: c.view is not None and len(c.view["seats"]) == 2)
                assert client.view is not None and {s["name"] for s in client.view["seats"]} == {"ann", "bob"}
            await asyncio.gather(ann.command("/leave"), bob.command("/leave"))


async def test_killing_the_owner_moves_the_room_and_loses_no_move(nodes: list[ServerProcess]) -> None:
    """SIGKILL the owning node mid-game: the other node takes over with the room's options as they
    were (clock, absent); the players reconnect and finish."""
    ann, bob = await _two_players(nodes, 9, "clock 600", "absent drop")
    game = await _play([ann, bob], Game(new_position(["ann", "bob"], 9)), random.Random(3), 10, bob)
    assert bob.view is not None
    options = bob.view["options"]
    assert (options["clock"], options["absent"]) == (600, "drop")
    nodes[0].proc.send_signal(signal.SIGKILL)  # node a owns the room: ann entered it first
    await asyncio.wait_for(nodes[0].proc.wait(), 10)

    # bob stays connected to node b; node b takes the room over and sends him a fresh snapshot
    snapshot = await bob.next(lambda m: m["type"] == "snapshot", timeout=20)
    assert snapshot["view"]["game"]["move_number"] == 10
    assert snapshot["view"]["options"] == options
    # ann comes back through node b with her token
    again = await WsClient.connect(nodes[1].port, "ann", token=ann.token)
    assert again.messages[0]["resumed"] is True
    mine = await again.next("snapshot", timeout=20)
    assert mine["view"]["game"]["hand"] == [c.text for c in game.position.players[0].hand]
    await _play([again, bob], game, random.Random(4), None, bob)
    await again.next("game_over")


async def test_a_player_back_on_the_rooms_node_while_still_connected_elsewhere_did_not_leave(
    nodes: list[ServerProcess],
) -> None:
    """bob, seated in a room of node a from node b, comes back through node a with his token while
    his connection on b is still open: ann reads nothing of it (he was never away: neither
    ``away``, nor ``back``, nor ``left`` as the old connection's leave comes after his return);
    bob plays on."""
    a, b = nodes
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.command("/join duo"))["type"] == "ack"  # (node a owns the room)
    bob = await WsClient.connect(b.port, "bob")
    assert (await bob.command("/join duo"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    await ann.barrier()
    ann.take_all()
    again = await WsClient.connect(a.port, "bob", token=bob.token)
    assert again.messages[0]["resumed"] is True
    await again.next("snapshot", timeout=20)
    await asyncio.sleep(0.5)  # (the old connection's leave, from node b, comes in a few ms)
    await ann.barrier()
    told = [(m["name"], m["event"]) for m in ann.take_all() if m["type"] == "presence" and m["name"] == "bob"]
    assert told == [], told
    assert (await again.request({"type": "legal_moves"}))["type"] in ("legal_moves", "error")
    assert (await again.request({"type": "say", "text": "still here"}))["type"] == "ack"


async def test_a_guest_who_left_a_room_of_the_other_node_and_quits_ends_the_bots_game(
    nodes: list[ServerProcess],
) -> None:
    """amy, a guest on node b, plays against a bot in a room of node a (ann opened it there), leaves
    the room, and quits in the lobby: nobody can come back to her seat, so the game ends (``closed``)
    and her name is free on both nodes."""
    a, b = nodes
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.command("/room solo"))["type"] == "ack"  # (node a owns the room)
    amy = await WsClient.connect(b.port, "amy")
    game = await bot_game(amy, "solo")
    assert (await ann.command("/leave"))["type"] == "ack"
    assert (await amy.command("/leave"))["type"] == "ack"
    assert (await amy.command("/quit"))["type"] == "ack"
    await amy.close()
    assert await end_reason(a.port, game) == "closed"
    for node in (a, b):
        again = await WsClient.connect(node.port, "amy")  # (name_taken while the game waited)
        assert (await again.command("/quit"))["type"] == "ack"
        await again.close()


async def test_a_game_that_left_memory_ends_after_the_max_age_on_either_node(
    redis_url: str, tmp_path: Path
) -> None:
    """``--game-max-age``: ann leaves her game against a bot in a room of node a; with nobody in
    the room it leaves memory (the cluster's idle rooms), and once it began longer ago than the max
    age a node takes it up and ends it (``closed``, unrated); the idle room is forgotten."""
    args = ("--bot-workers", "0", "--resume-window", "0.2", "--game-max-age", "1.5", *QUICK_HASH)
    async with two_nodes(redis_url, tmp_path, *args) as (a, b):
        ann = await WsClient.connect(a.port, "ann")  # (registered: a game of guests alone ends sooner)
        assert (await ann.request({"type": "register", "password": "correct horse battery"}))["registered"]
        game = await bot_game(ann, "den")
        assert (await ann.command("/leave"))["type"] == "ack"
        assert await game_result(b.port, game) is None
        assert await end_reason(b.port, game) == "closed"
        client = aioredis.from_url(redis_url, decode_responses=True)
        try:

            async def forgotten() -> bool:
                return not await client.smembers("cafe:idle") and not await client.hlen("cafe:running")

            await eventually(forgotten, "the idle room forgotten")
            assert await client.smembers("cafe:idle") == set()
            assert await client.hlen("cafe:running") == 0
        finally:
            await client.aclose()


async def test_an_idle_game_that_no_longer_replays_keeps_no_other_from_ending(
    redis_url: str, tmp_path: Path
) -> None:
    """Two games left memory; one's log is edited so that it no longer replays. The look for old
    games ends the other; the edited one stays in Redis as it is, logged (``game_unrestorable``)
    once by the node that tried, left among the idle rooms, and its room is not left standing
    empty on that node: a newcomer's ``/room`` of its name is ``unavailable``, not a fresh room.
    Mended, it is taken up and ended as any other."""
    args = ("--bot-workers", "0", "--resume-window", "0.2", "--game-max-age", "1.5", *QUICK_HASH)
    async with two_nodes(redis_url, tmp_path, *args) as (a, b):
        games = {}
        for room in ("alpha", "beta"):
            ann = await WsClient.connect(a.port, f"ann{room}")  # (registered, as above)
            registered = await ann.request({"type": "register", "password": "correct horse battery"})
            assert registered["registered"]
            games[room] = await bot_game(ann, room)
            assert (await ann.command("/leave"))["type"] == "ack"
        client = aioredis.from_url(redis_url, decode_responses=True)
        try:
            await client.rpush(f"cafe:game:{games['alpha']}:moves", "XXm@XX9n")
            assert await end_reason(b.port, games["beta"]) == "closed"
            await until(
                lambda: any(line.get("event") == "game_unrestorable" for line in a.lines + b.lines),
                "the edited game logged",
            )
            await asyncio.sleep(2.0)  # (another look or two of each node)
            assert await game_result(b.port, games["alpha"]) is None
            assert await client.smembers("cafe:idle") == {"alpha"}
            assert await client.hget("cafe:running", "alpha") == games["alpha"]
            unrestorable = [line for line in a.lines + b.lines if line.get("event") == "game_unrestorable"]
            assert len(unrestorable) <= 2 and {line["game"] for line in unrestorable} == {games["alpha"]}
            cy = await WsClient.connect(a.port, "cy")
            assert (await cy.command("/room alpha"))["code"] == "unavailable"
            rooms = (await cy.request({"type": "list_rooms"}))["rooms"]
            assert "alpha" not in {room["name"] for room in rooms}
            # its log mended (the edit taken off), the game is taken up as any other, by a node
            # that found it broken too: a newcomer enters it, and once its room is idle again the
            # look for old games ends it
            await client.rpop(f"cafe:game:{games['alpha']}:moves")
            assert (await cy.command("/room alpha"))["type"] == "ack"
            assert (await cy.command("/leave"))["type"] == "ack"
            assert await end_reason(b.port, games["alpha"]) == "closed"
        finally:
            await client.aclose()


async def test_a_client_bot_gets_its_seat_back_through_the_other_node(nodes: list[ServerProcess]) -> None:
    """A client that says it is a bot (as cafe-bot does) plays on node a, the owner; node a is
    killed; the client comes back through node b with its token and is seated again, not a spectator."""
    ann = await WsClient.connect(nodes[0].port, "ann", kind="bot")
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await ann.command("/join big"))["type"] == "ack"
    assert (await ann.command("/option seed 21"))["type"] == "ack"
    assert (await ann.command("/option host off"))["type"] == "ack"
    assert (await bob.command("/join big"))["type"] == "ack"
    assert (await bob.command("/start"))["type"] == "ack"
    game = await _play([ann, bob], Game(new_position(["ann", "bob"], 21)), random.Random(7), 4, bob)
    nodes[0].proc.send_signal(signal.SIGKILL)  # node a owns the room: ann entered it first
    await asyncio.wait_for(nodes[0].proc.wait(), 10)
    await bob.next(lambda m: m["type"] == "snapshot", timeout=20)  # node b has taken the room over

    again = await WsClient.connect(nodes[1].port, "ann", token=ann.token, kind="bot")
    assert again.messages[0]["resumed"] is True
    mine = await again.next("snapshot", timeout=20)
    assert mine["view"]["seat"] == 0
    assert mine["view"]["game"]["hand"] == [c.text for c in game.position.players[0].hand]
    game = await _play([again, bob], game, random.Random(8), 4, bob)
    assert game.moves == 8


async def test_a_redis_restart_mid_game_does_not_stop_the_game(
    nodes: list[ServerProcess], redis_server: RedisServer
) -> None:
    """Redis stops and starts again mid-game; the nodes reconnect and the game goes on."""
    ann, bob = await _two_players(nodes, 13)
    game = await _play([ann, bob], Game(new_position(["ann", "bob"], 13)), random.Random(5), 6, bob)
    redis_server.stop()
    await asyncio.sleep(TIMINGS.renew_every)  # (a third of a lease: the rooms stay where they are)
    redis_server.start()
    await redis_server.wait_ready()
    game = await _play([ann, bob], game, random.Random(6), 6, bob)
    assert game.moves == 12


async def test_a_node_without_the_lease_cannot_write_the_log(redis_url: str) -> None:
    """Fencing: a write with an old lease token is refused, and nothing is appended."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        await client.set(lease_key("r"), "new:2")
        old = RedisStore(client, lambda room: "old:1")
        new = RedisStore(client, lambda room: "new:2")
        record = GameRecord(("ann", "bob"), 1)
        await new.game_started("g1", "r", record, ["person", "person"])
        old.adopt("g1", "r", record, ["person", "person"])
        with pytest.raises(LeaseLost):
            await old.move_played("g1", 1, "CFf@bar")
        assert await client.llen("cafe:game:g1:moves") == 0
        await new.move_played("g1", 1, "CFf@bar")
        assert await client.lrange("cafe:game:g1:moves", 0, -1) == ["CFf@bar"]
    finally:
        await client.aclose()


async def test_the_seat_index_holds_client_bots_and_not_server_bots(redis_url: str) -> None:
    """Every seat a connection plays (a person, or a client that said it is a bot) is in the seat
    index that brings a player back to its room; a seat the server's own bot plays is not."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        await client.set(lease_key("r"), "n:1")
        store = RedisStore(client, lambda room: "n:1")
        record = GameRecord(("ann", "robo", "Greedy1"), 1)
        await store.game_started("g1", "r", record, ["person", "bot", "bot:greedy"])
        assert [await store.seat_room(n) for n in ("ann", "robo", "Greedy1")] == ["r", "r", None]
    finally:
        await client.aclose()


async def test_room_options_are_kept_with_the_game_and_missing_ones_read_as_none(redis_url: str) -> None:
    """The Redis log gives back the room options a game started with; a game logged before they
    were kept reads with none (the room's defaults), its record intact."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        await client.set(lease_key("r"), "n:1")
        store = RedisStore(client, lambda room: "n:1")
        record = GameRecord(("ann", "bob"), 1)
        options = {"seed": None, "stammtisch": False, "clock": 30, "absent": "drop"}
        await store.game_started("g1", "r", record, ["person", "person"], options)
        game = await store.game("g1")
        assert game is not None and game.room_options == options and game.record == record
        data = json.loads(await client.hget("cafe:game:g1", "data"))
        del data["room_options"]
        await client.hset("cafe:game:g0", "data", json.dumps(data))
        old = await store.game("g0")
        assert old is not None and old.room_options == {} and old.record == record
    finally:
        await client.aclose()


async def test_a_message_for_a_room_the_node_no_longer_owns_is_answered_unavailable(
    redis_url: str, tmp_path: Path
) -> None:
    """A node restarted after a kill gets a move forwarded to the room it owned in its earlier life;
    it owns no such room now, and the sender hears ``unavailable`` instead of nothing: an error
    with the move's id, or, for a line client's command (which has no id), an error all the same."""
    node = await ServerProcess.start(tmp_path / "a.db", "--redis", redis_url, "--node-id", "a")
    client = aioredis.from_url(redis_url, decode_responses=True)
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe("cafe:to:b")
        envelope = {"from": "b", "sid": "s1", "name": "ann", "kind": "person", "room": "gone"}
        envelope.update(op="msg", msg=json.dumps({"type": "move", "id": 7, "move": "FRf@FR1s"}))
        assert await client.publish("cafe:to:a", json.dumps(envelope)) == 1
        answer = await published(pubsub, "the answer")
        out = json.loads(answer["data"])
        assert out["op"] == "out" and out["sid"] == "s1"
        error = out["json"]  # (the message itself, as the node wrote it)
        assert (error["type"], error["code"], error["id"]) == ("error", "unavailable", 7)
        envelope.update(msg=json.dumps({"type": "move", "move": "FRf@FR1s"}))  # a line client's /play
        assert await client.publish("cafe:to:a", json.dumps(envelope)) == 1
        answer = await published(pubsub, "the answer")
        error = json.loads(answer["data"])["json"]
        assert (error["type"], error["code"], error["id"]) == ("error", "unavailable", None)
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()
        node.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(node.proc.wait(), 20)


async def test_a_malformed_envelope_is_logged_and_dropped_and_nothing_else_is_disturbed(
    redis_url: str, tmp_path: Path
) -> None:
    """Envelopes that are not JSON, name no known op, or lack a field are logged as
    ``bad_envelope`` and dropped: the node keeps listening (no resubscription, no failed job) and
    answers the next good message."""
    node = await ServerProcess.start(tmp_path / "a.db", "--redis", redis_url, "--node-id", "a")
    client = aioredis.from_url(redis_url, decode_responses=True)
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe("cafe:to:b")
        sender = {"from": "b", "sid": "s1", "name": "ann", "kind": "person", "room": "gone"}
        bad = [
            "not json",
            json.dumps({"op": "dance", **sender}),
            json.dumps({"op": "enter", "from": "b"}),
            json.dumps({"op": "msg", **sender, "msg": '{"type": "nonsense"}'}),
        ]
        for data in bad:
            assert await client.publish("cafe:to:a", data) == 1
        good = {"op": "msg", **sender, "msg": json.dumps({"type": "move", "id": 9, "move": "FRf@FR1s"})}
        assert await client.publish("cafe:to:a", json.dumps(good)) == 1
        answer = await published(pubsub, "the answer")
        assert json.loads(answer["data"])["json"]["id"] == 9
        # the node logged each before it answered; its log lines reach this test through a pipe
        await until(
            lambda: sum(line.get("event") == "bad_envelope" for line in node.lines) >= len(bad),
            "every bad envelope logged",
        )
        events = [line.get("event") for line in node.lines]
        assert events.count("bad_envelope") == len(bad)
        assert events.count("subscribed") == 1
        assert "cluster_job_failed" not in events and "redis_unavailable" not in events
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()
        node.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(node.proc.wait(), 20)


async def test_coming_back_through_the_other_node_closes_the_old_connection(
    nodes: list[ServerProcess],
) -> None:
    """ann plays a bot game on node a and comes back through node b with her token while her
    connection to a is still open: that one is closed (1008, as on one node), ``who`` lists her
    once, and her hand is the new connection's alone; a password login does the same."""
    password = "correct horse battery"
    ann = await WsClient.connect(nodes[0].port, "ann")
    welcome = await ann.request({"type": "register", "password": password})
    assert welcome["registered"] is True
    await bot_game(ann, "anns")
    again = await WsClient.connect(nodes[1].port, "ann", token=welcome["token"])
    assert again.messages[0]["resumed"] is True
    assert (await again.next("snapshot", timeout=20))["view"]["seat"] == 0
    closed = await _closed_code(ann)
    assert closed == 1008, closed

    async def once() -> bool:
        people = (await again.request({"type": "who"}))["people"]
        return [p["name"] for p in people].count("ann") == 1

    await eventually(once, "ann listed once")
    third = await WsClient.connect(nodes[0].port, "ann", password=password)
    assert third.messages[0]["type"] == "welcome"
    assert await _closed_code(again) == 1008


async def _closed_code(client: WsClient) -> int | None:
    """The close code of ``client``'s connection once the server closes it (within 10 s)."""
    try:
        async with asyncio.timeout(10):
            while True:
                await client._receive(10)
    except Exception:
        pass
    return client.ws.close_code


async def test_two_resumes_with_one_token_at_once_welcome_one(nodes: list[ServerProcess]) -> None:
    """One resume token sent by two connections at once, through one node or through both: one is
    welcomed back to the seat, with its hand; the other is refused ``bad_token`` and reads nothing
    of the game (a token that leaked gives no second feed of a player's hand)."""
    a, b = nodes
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.command("/join race"))["type"] == "ack"
    assert (await ann.command("/addbot greedy"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await ann.next("snapshot")
    token = ann.token
    await ann.close()
    for ports in [(a.port, a.port), (a.port, b.port), (b.port, b.port), (b.port, a.port)] * 2:
        first, second = [await WsClient.connect(port) for port in ports]
        hello = {"type": "hello", "name": "ann", "token": token}
        answers = await asyncio.gather(first.request(hello), second.request(hello))
        assert sorted(x["type"] for x in answers) == ["error", "welcome"], answers
        welcomed, refused = (first, second) if answers[0]["type"] == "welcome" else (second, first)
        assert next(x for x in answers if x["type"] == "error")["code"] == "bad_token"
        assert (await welcomed.next("snapshot", timeout=20))["view"]["game"]["hand"]
        with pytest.raises(TimeoutError):  # (a ping would be answered hello_first)
            await refused.next(lambda m: True, timeout=0.5)
        assert [x["type"] for x in refused.messages] == ["error"], refused.messages
        token = next(x for x in answers if x["type"] == "welcome")["token"]
        await asyncio.gather(first.close(), second.close())


async def test_a_late_word_that_a_name_was_taken_back_elsewhere_closes_no_newer_connection(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """A node's word that it took a name back can reach another node after a newer connection
    of the name came there (two take-backs through two nodes in a moment): a connection whose
    token still holds is the newer one and stays; one whose token was revoked goes."""
    a, _ = nodes
    ann = await WsClient.connect(a.port, "ann")
    late = env.dump(env.Replaced.model_validate({"from": "b", "name": "ann"}))
    redis = aioredis.from_url(redis_url)
    try:
        await redis.publish(NEWS, late)
        await asyncio.sleep(0.5)
        assert (await ann.request({"type": "ping"}))["type"] == "pong"  # (still open)
        await redis.delete(f"{PREFIX}token:{ann.token}")  # (as a newer connection's token revokes it)
        await redis.publish(NEWS, late)
        with pytest.raises(ConnectionClosed) as closed:
            await ann.next(lambda m: False, timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.reason == "replaced"
    finally:
        await redis.aclose()
