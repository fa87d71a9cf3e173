"""The relay's end on the owner: a message to a member on another node that cannot be delivered
makes that member resynchronise; nothing queued before the loss, and no patch, reaches it until a
fresh snapshot does (a patch after a lost one would not apply); answers made meanwhile follow
the snapshot. A node that listens again after Redis went away catches up both ways."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from protocol import messages as m
from protocol.outgoing import Outgoing
from server.cluster import envelopes as env
from server.cluster import relay as relay_module
from server.cluster.node import connect
from server.cluster.relay import Relay, RemoteRoom, RemoteSession, channel
from server.log.redis.batch import batched
from server.room.items import Enter, Leave, Returned
from server.session import Session
from tests.cluster.conftest import RedisServer
from tests.server.clients import eventually


class FlakyRedis:
    """Takes what is published while ``up``, refuses it while down (one command at a time, or
    several in a pipeline, as the relay sends them)."""

    def __init__(self) -> None:
        self.up = True
        #: the nodes a publish reaches (0: its node died)
        self.receivers = 1
        self.published: list[dict[str, Any]] = []  # what was published for members, in order
        self.messages: list[tuple[str, str]] = []  # (channel, data) of every publish taken

    async def publish(self, channel: str, data: str) -> int:
        if not self.up:
            raise RedisConnectionError("down")
        self.messages.append((channel, data))
        envelopes = [json.loads(line) for line in data.split("\n")]
        self.published.extend(e["json"] for e in envelopes if e["op"] == "out")
        return self.receivers

    def pipeline(self, transaction: bool = True) -> FlakyPipeline:
        return FlakyPipeline(self)


class FlakyPipeline:
    def __init__(self, redis: FlakyRedis) -> None:
        self.redis = redis
        self.commands: list[tuple[Any, ...]] = []

    async def __aenter__(self) -> FlakyPipeline:
        return self

    async def __aexit__(self, *exc: object) -> None:
        pass

    def execute_command(self, *args: Any) -> None:
        self.commands.append(args)

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        if not self.redis.up:
            raise RedisConnectionError("down")
        assert all(name == "PUBLISH" for name, *_ in self.commands)
        return [await self.redis.publish(*args) for _, *args in self.commands]


class Room:
    name = "r"

    def __init__(self) -> None:
        self.posted: list[Any] = []

    def post(self, session: Any, message: Any) -> None:
        self.posted.append(message)


class Here(Session):
    """A connection on the relay's node: keeps the text of what it is sent."""

    def __init__(self, relay: Relay, sid: str = "s1", name: str = "ann") -> None:
        super().__init__()
        self.sid, self.name = sid, name
        self.got: list[str] = []
        relay.local[sid] = self

    def send(self, message: m._ServerMessage | Outgoing) -> None:
        self.got.append(message.json if isinstance(message, Outgoing) else Outgoing(message).json)


async def _drain(relay: Relay) -> None:
    """Until what the relay queued is published (its round trip made, a window after the last
    one) and handled after."""
    batch = batched(relay.redis)
    for _ in range(500):
        if not relay._outbox and (batch._task is None or batch._task.done()):
            break
        await asyncio.sleep(0.002)
    for _ in range(3):
        await asyncio.sleep(0)


async def test_a_node_that_listens_again_catches_up_both_ways() -> None:
    """What Redis took and died with is lost without a word: when this node listens again, its
    person's room elsewhere is asked for a fresh snapshot (its forwarded move, which that room may
    still take, is not answered yet), and a member from elsewhere in a room here gets one; of what
    was queued for it before, only the answer that did not reach it goes."""
    redis = FlakyRedis()
    relay = Relay(redis, "a", {})  # type: ignore[arg-type]
    ann = Here(relay)
    ann.room = RemoteRoom(relay, "far", "b:1")
    bob = relay.remote[("c", "s2")] = RemoteSession(relay, "c", "s2", "bob", "person")
    bob.room = room = Room()
    redis.up = False
    bob.send(Outgoing.ack(3))  # lost with Redis: it goes again after the next snapshot
    await _drain(relay)
    assert [type(p) for p in room.posted] == [m.Resync]
    redis.up = True
    relay.forward(ann.room, ann, m.PlayMove(id=7, move="FRf@FR1s"))
    bob.send(Outgoing(m.Snapshot(room="r", view={"room": "r"})))
    bob.send(Outgoing(m.Chat(room="r", name="dee", text="queued before Redis went away")))
    relay.resubscribed()
    assert ann.got == [] and list(relay.awaited.ids["s1"]) == [7]
    assert [type(p) for p in room.posted] == [m.Resync, m.Resync]
    await _drain(relay)
    forwarded = [json.loads(line) for _, data in redis.messages for line in data.split("\n")]
    assert [e["msg"] for e in forwarded if e["op"] == "msg"] == [
        m.PlayMove(id=7, move="FRf@FR1s").model_dump_json(),
        m.Resync().model_dump_json(),
        m.GetLegalMoves(id=f"{relay.awaited.prefix}1").model_dump_json(),  # (see the next test)
    ]
    # the snapshot and chat queued before it listened again are not sent; the answer is
    assert [p["type"] for p in redis.published] == ["ack"]
    bob.send(Outgoing(m.Snapshot(room="r", view={"room": "r"})))
    await _drain(relay)
    assert [p["type"] for p in redis.published] == ["ack", "snapshot"]


async def test_what_stays_unanswered_until_the_rooms_answer_to_the_nodes_question_is_unavailable() -> None:
    """After listening again, a node asks each room where its people wait for answers a question
    of its own; the room answers in order, so what still waits when that answer comes was lost and
    is answered ``unavailable`` then, not before. The client never sees the question's answer, and
    the answer to an older question says nothing."""
    redis = FlakyRedis()
    relay = Relay(redis, "b", {})  # type: ignore[arg-type]
    ann = Here(relay)
    got = ann.got
    ann.room = RemoteRoom(relay, "far", "a:1")
    relay.forward(ann.room, ann, m.PlayMove(id=7, move="FRf@FR1s"))
    relay.forward(ann.room, ann, m.Say(id=8, text="hi"))
    relay.resubscribed()
    relay.resubscribed()  # Redis went away twice: only the latest question counts
    assert relay.awaited.questions == {"s1": (f"{relay.awaited.prefix}2", 2)}
    await _drain(relay)
    asked = [json.loads(e["msg"]) for _, d in redis.messages for e in map(json.loads, d.split("\n"))]
    assert [(q["type"], q.get("id")) for q in asked] == [
        ("move", 7), ("say", 8), ("resync", None), ("legal_moves", f"{relay.awaited.prefix}1"),
        ("resync", None), ("legal_moves", f"{relay.awaited.prefix}2"),
    ]  # fmt: skip
    ack = Outgoing.ack(7).json
    relay.receive(env.to_member("s1", ack))  # the room took the move: its answer came
    relay.receive(env.to_member("s1", Outgoing(m.LegalMoves(id=f"{relay.awaited.prefix}1", moves=[])).json))
    assert got == [ack] and list(relay.awaited.ids["s1"]) == [8]
    refused = m.Error(id=f"{relay.awaited.prefix}2", code="not_your_turn", message="Not your turn.")
    relay.receive(env.to_member("s1", Outgoing(refused).json))
    assert [json.loads(text)["id"] for text in got] == [7, 8]
    assert json.loads(got[1])["code"] == "unavailable" and not relay.awaited.ids["s1"]
    assert relay.awaited.questions == {}
    relay.forward(ann.room, ann, m.Say(id=9, text="still there?"))
    relay.resubscribed()
    relay.detach("s1")  # gone meanwhile: nothing of it is kept
    assert (relay.local, relay.awaited.ids, relay.awaited.questions) == ({}, {}, {})


async def test_a_client_id_shaped_like_the_nodes_question_is_answered_as_any() -> None:
    """A client chooses its ids freely: one that reads like the node's own question after Redis
    came back (``cafe:caught-up:N``) gets its answer, and ``unavailable`` when its message reached
    nobody, as any other; only the node knows its questions' ids."""
    redis = FlakyRedis()
    relay = Relay(redis, "b", {})  # type: ignore[arg-type]
    ann = Here(relay)
    ann.room = RemoteRoom(relay, "far", "a:1")
    relay.forward(ann.room, ann, m.GetLegalMoves(id="cafe:caught-up:1"))
    await _drain(relay)
    answer = Outgoing(m.LegalMoves(id="cafe:caught-up:1", moves=[])).json
    relay.receive(env.to_member("s1", answer))
    assert ann.got == [answer] and not relay.awaited.ids["s1"]
    redis.receivers = 0  # its room's node died
    relay.forward(ann.room, ann, m.Say(id="cafe:caught-up:2", text="hi"))
    await _drain(relay)
    refused = [(x["id"], x["code"]) for x in map(json.loads, ann.got[1:])]
    assert refused == [("cafe:caught-up:2", "unavailable")]


async def test_a_question_that_reached_nobody_is_asked_again_and_says_nothing_to_the_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis goes away again before the node's question reaches the room: the question is asked
    again a moment later (the client hears nothing of it), and a message of the client's that
    reached nobody meanwhile is answered ``unavailable`` and no longer counted as sent before."""
    monkeypatch.setattr(relay_module, "ASK_AGAIN", 0.01)
    redis = FlakyRedis()
    relay = Relay(redis, "b", {})  # type: ignore[arg-type]
    ann = Here(relay)
    ann.room = RemoteRoom(relay, "far", "a:1")
    relay.forward(ann.room, ann, m.PlayMove(id=7, move="FRf@FR1s"))
    await _drain(relay)  # the move reached the room; its answer is lost
    redis.up = False
    relay.forward(ann.room, ann, m.Say(id=8, text="hi"))
    relay.resubscribed()  # both wait: the question is to count them
    assert relay.awaited.questions["s1"] == (f"{relay.awaited.prefix}1", 2)
    await _drain(relay)
    assert [(x["type"], x.get("id"), x.get("code")) for x in map(json.loads, ann.got)] == [
        ("error", 8, "unavailable"),
        ("notice", None, None),  # (the resync's)
    ]
    assert list(relay.awaited.ids["s1"]) == [7]
    assert relay.awaited.questions["s1"] == (f"{relay.awaited.prefix}1", 1)
    redis.up = True
    for _ in range(100):
        await asyncio.sleep(0.01)
        await _drain(relay)
        if len(redis.messages) > 1:
            break
    asked = [json.loads(e["msg"]) for _, d in redis.messages for e in map(json.loads, d.split("\n"))]
    assert [(q["type"], q.get("id")) for q in asked] == [
        ("move", 7),
        ("legal_moves", f"{relay.awaited.prefix}1"),
    ]


async def test_the_listener_hears_of_a_subscription_redis_py_makes_by_itself(
    redis_server: RedisServer,
) -> None:
    """After a Redis restart redis-py connects again and subscribes anew without a word to the
    caller: the node still hears that it listens again (and catches up), and what is published to
    it then arrives."""
    await redis_server.wait_ready()
    redis = connect(redis_server.url)
    relay = Relay(redis, "a", {})
    subscriptions: list[float] = []
    tells: list[str] = []
    relay.on_tell = lambda name, to, text: not tells.append(text)
    loop = asyncio.get_running_loop()
    listener = loop.create_task(relay.listen(lambda: subscriptions.append(loop.time())))

    async def subscribed(times: int) -> bool:
        return len(subscriptions) == times

    try:
        await eventually(lambda: subscribed(1), "a first subscription")
        redis_server.kill()
        redis_server.start()
        await redis_server.wait_ready()
        await eventually(lambda: subscribed(2), "the node hears it listens again")
        assert not listener.done()  # redis-py's own subscription, not the listener started anew
        tell = {"op": "tell", "from": "b", "sid": "s1", "name": "bob", "to": "ann", "text": "back"}
        await redis.publish(channel("a"), json.dumps(tell))
        await eventually(lambda: asyncio.sleep(0, tells == ["back"]), "the tell arrives")
    finally:
        listener.cancel()
        await redis.aclose()


async def test_a_lost_message_stops_the_member_until_a_snapshot_reaches_it() -> None:
    """A lost patch: the room is asked for a resync, later patches are dropped, the snapshot goes
    and the answers made meanwhile after it."""
    redis = FlakyRedis()
    relay = Relay(redis, "a", {})  # type: ignore[arg-type]
    member = RemoteSession(relay, "b", "s1", "ann", "person")
    room = Room()
    member.room = room
    member.send(Outgoing.patch("r", [{"op": "replace", "path": "/state", "value": "playing"}]))
    await _drain(relay)
    assert [p["type"] for p in redis.published] == ["patch"]
    redis.up = False
    member.send(Outgoing.patch("r", [{"op": "replace", "path": "/state", "value": "over"}]))
    member.send(Outgoing(m.Chat(room="r", name="bob", text="queued before the loss")))
    await _drain(relay)
    assert [type(p) for p in room.posted] == [m.Resync]
    redis.up = True
    member.send(Outgoing.patch("r", [{"op": "replace", "path": "/state", "value": "waiting"}]))
    member.send(Outgoing.ack(4))  # an answer is not dropped: it follows the snapshot
    member.send(Outgoing(m.Snapshot(room="r", view={"room": "r"})))
    member.send(Outgoing.patch("r", [{"op": "replace", "path": "/state", "value": "playing"}]))
    await _drain(relay)
    assert [p["type"] for p in redis.published] == ["patch", "snapshot", "ack", "patch"]


def test_what_comes_for_a_room_being_taken_up_waits_for_it_in_order() -> None:
    """Another node forwards as soon as it sees the lease: the room gets it once it stands here."""
    sender = {"from": "b", "sid": "s1", "name": "ann", "kind": "person", "room": "R"}
    rooms: dict[str, Room] = {}
    relay = Relay(FlakyRedis(), "a", rooms)  # type: ignore[arg-type]
    relay.expect("r")
    relay.receive(env.dump(env.EnterRoom.model_validate({**sender, "join": True, "id": 1})))
    rooms["r"] = room = Room()  # the room stands; what waited is still handed over first
    relay.receive(env.dump(env.Message.model_validate({**sender, "msg": m.Start(id=2).model_dump_json()})))
    assert room.posted == []
    relay.arrived("r")
    assert [type(p) for p in room.posted] == [Enter, m.Start]
    assert room.posted[0].join and room.posted[0].id == 1
    relay.receive(env.dump(env.Message.model_validate({**sender, "msg": m.Start(id=3).model_dump_json()})))
    assert [getattr(p, "id", None) for p in room.posted] == [1, 2, 3]


async def test_a_tell_for_someone_gone_meanwhile_tells_its_sender_so() -> None:
    """A tell whose recipient left this node after the sender's look-up: the sender, who had its
    echo, gets a notice through its own node; a tell for someone here is handed over, sanitized."""
    redis = FlakyRedis()
    relay = Relay(redis, "b", {})  # type: ignore[arg-type]
    handed: list[tuple[str, str, str]] = []
    here = {"bob"}

    def on_tell(name: str, to: str, text: str) -> bool:
        handed.append((name, to, text))
        return to in here

    relay.on_tell = on_tell
    tell = {"op": "tell", "from": "a", "sid": "s1", "name": "ann", "to": "bob", "text": "hi\x1b[2J there"}
    relay.receive(json.dumps(tell))
    relay.receive(json.dumps({**tell, "to": "zoe", "text": "hello"}))
    await _drain(relay)
    assert handed == [("ann", "bob", "hi[2J there"), ("ann", "zoe", "hello")]
    assert redis.published == [
        {"seq": 0, "type": "notice", "room": None, "text": "zoe left before your tell reached them."}
    ]


def test_a_tell_with_nothing_left_to_say_is_dropped() -> None:
    """A tell envelope whose text is only control characters is not a tell: nobody is handed it."""
    relay = Relay(FlakyRedis(), "b", {})  # type: ignore[arg-type]
    handed: list[str] = []
    relay.on_tell = lambda name, to, text: bool(handed.append(text))
    relay.receive(
        json.dumps({"op": "tell", "from": "a", "sid": "s1", "name": "ann", "to": "bob", "text": "\x07"})
    )
    assert handed == []


def test_the_owner_reads_each_message_with_the_member_as_it_is_now() -> None:
    """A member's identity and ASCII mode travel with every message: a login or ``/ascii on``
    after it entered is what the owner's room sees next."""
    sender = {"from": "b", "sid": "s1", "name": "ann", "kind": "person", "room": "r", "identity": "guest-1"}
    room = Room()
    relay = Relay(FlakyRedis(), "a", {"r": room})  # type: ignore[arg-type]
    relay.receive(env.dump(env.EnterRoom.model_validate(sender)))
    member = relay.remote[("b", "s1")]
    assert (member.identity, member.ascii_only) == ("guest-1", False)
    now = {**sender, "identity": "account:ann", "ascii": True}
    relay.receive(env.dump(env.Show.model_validate({**now, "what": "board", "id": 2})))
    assert relay.remote[("b", "s1")] is member
    assert (member.identity, member.ascii_only) == ("account:ann", True)


async def test_a_message_from_a_member_the_room_has_not_seen_enter_is_answered_unavailable() -> None:
    """The room came back to this node and the member's node has not entered it again: its move
    is not taken as a stranger's (refused as a spectator's) but answered unavailable, to be sent
    again once the member is back in the room."""
    redis = FlakyRedis()
    room = Room()
    relay = Relay(redis, "a", {"r": room})  # type: ignore[arg-type]
    sender = {"from": "b", "sid": "s1", "name": "ann", "kind": "person", "room": "r"}
    move = m.PlayMove(id=5, move="FRf@FR1s").model_dump_json()
    relay.receive(env.dump(env.Message.model_validate({**sender, "msg": move})))
    relay.receive(env.dump(env.Message.model_validate({**sender, "msg": m.Resync().model_dump_json()})))
    await _drain(relay)
    assert room.posted == []
    assert [(p["type"], p["code"], p["id"]) for p in redis.published] == [("error", "unavailable", 5)]
    relay.receive(env.dump(env.Returned.model_validate(sender)))
    relay.receive(env.dump(env.Message.model_validate({**sender, "msg": move})))
    assert [type(p) for p in room.posted] == [Returned, m.PlayMove]


def test_a_reread_brings_a_member_up_to_date_and_posts_nothing() -> None:
    """``/ascii on`` or ``/lang`` on the member's node reaches the owner's copy of the member at once;
    the room gets no item for it, and a reread from someone not in the room makes no member."""
    sender = {"from": "b", "sid": "s1", "name": "ann", "kind": "person", "room": "r"}
    room = Room()
    relay = Relay(FlakyRedis(), "a", {"r": room})  # type: ignore[arg-type]
    relay.receive(env.dump(env.EnterRoom.model_validate(sender)))
    member = relay.remote[("b", "s1")]
    relay.receive(env.dump(env.Reread.model_validate({**sender, "ascii": True, "lang": "de"})))
    assert (member.ascii_only, member.lang.code) == (True, "de")
    assert [type(p) for p in room.posted] == [Enter]
    relay.receive(env.dump(env.Reread.model_validate({**sender, "sid": "s2"})))
    assert ("b", "s2") not in relay.remote and len(room.posted) == 1


async def test_what_waits_for_one_node_goes_in_one_message_in_order() -> None:
    """A move's patches and events for two members on one node, queued together, travel in one
    publish, one envelope a line, in the order they were sent; another node's go in their own."""
    redis = FlakyRedis()
    relay = Relay(redis, "a", {})  # type: ignore[arg-type]
    ann = RemoteSession(relay, "b", "s1", "ann", "person")
    bob = RemoteSession(relay, "b", "s2", "bob", "person")
    cyd = RemoteSession(relay, "c", "s3", "cyd", "person")
    for n, member in enumerate((ann, bob, cyd, ann)):
        member.send(Outgoing(m.Chat(room="r", name="dee", text=f"line {n}")))
    await _drain(relay)
    assert [channel for channel, _ in redis.messages] == ["cafe:to:b", "cafe:to:c"]
    lines = [json.loads(line) for line in redis.messages[0][1].split("\n")]
    assert [(e["sid"], e["json"]["text"]) for e in lines] == [
        ("s1", "line 0"), ("s2", "line 1"), ("s1", "line 3")
    ]  # fmt: skip


def test_a_message_of_several_envelopes_is_handled_line_by_line_a_bad_one_dropped() -> None:
    """Each line of a message is an envelope handled in order; a malformed line is dropped and
    the lines after it are handled still."""
    sender = {"from": "b", "sid": "s1", "name": "ann", "kind": "person", "room": "r"}
    room = Room()
    rooms: dict[str, Any] = {"r": room}
    relay = Relay(FlakyRedis(), "a", rooms)  # type: ignore[arg-type]
    lines = [
        env.dump(env.EnterRoom.model_validate({**sender, "join": True, "id": 1})),
        "not json",
        '{"op":"out","sid":' + "[" * 100_000 + "}",  # nested past any parser's depth
        env.dump(env.Message.model_validate({**sender, "msg": m.Start(id=2).model_dump_json()})),
    ]
    relay.receive("\n".join(lines).encode())
    assert [getattr(p, "id", None) for p in room.posted] == [1, 2]


def test_a_message_for_a_member_travels_as_written_and_either_form_is_read() -> None:
    """An ``out`` envelope carries the message's JSON as the owner wrote it (not escaped into a
    string); the receiver hands that text to the member unparsed, and reads the form with the
    message as a JSON string too. Malformed ones are dropped, and nobody else gets anything."""
    text = Outgoing(m.Chat(room="r", name="bob", text='say "hi"')).json
    data = env.to_member('s"1', text)
    assert (
        data == '{"op":"out","sid":"s\\"1","json":' + text + "}"
        and json.loads(data)["json"]["text"] == 'say "hi"'
    )
    assert env.member_text(data) == ('s"1', text)
    as_string = json.dumps({"op": "out", "sid": "s1", "json": text}, separators=(",", ":"))
    assert env.member_text(as_string) == ("s1", text)
    relay = Relay(FlakyRedis(), "a", {})  # type: ignore[arg-type]
    got = Here(relay).got
    relay.receive("\n".join([env.to_member("s1", text), as_string, env.to_member("s9", text)]))
    assert got == [text, text]
    for bad in (
        '{"op":"out","sid":"s1","json":',
        '{"op":"out","sid":7,"json":{}}',
        '{"op":"out","sid":"s1"}',
    ):
        assert env.member_text(bad) is None
        relay.receive(bad)
    assert got == [text, text]


async def test_after_listening_again_no_patch_reaches_a_person_before_the_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A patch Redis took and died with is lost without a word, and the next one would not apply:
    once this node listens again, a person of it in a room elsewhere gets no patch until the
    snapshot it asks for, though chat and answers still reach them; should the snapshot be long
    in coming, it is asked for again. After it, patches go as ever."""
    redis = FlakyRedis()
    relay = Relay(redis, "a", {})  # type: ignore[arg-type]
    ann = Here(relay)
    ann.room = RemoteRoom(relay, "far", "b:1")
    relay.resubscribed()
    await _drain(relay)
    patch = Outgoing(m.Patch(room="far", ops=[{"op": "add", "path": "/game/history/7", "value": "x"}])).json
    chat = Outgoing(m.Chat(room="far", name="bob", text="hi")).json
    snapshot = Outgoing(m.Snapshot(room="far", view={"room": "far"})).json
    relay.receive("\n".join(env.to_member("s1", text) for text in (patch, chat)))
    assert ann.got == [chat]
    monkeypatch.setattr(relay_module, "RESYNC_AGAIN", 0.0)
    relay.receive(env.to_member("s1", patch))
    await _drain(relay)
    asked = [json.loads(line) for _, data in redis.messages for line in data.split("\n")]
    resyncs = [e for e in asked if e["op"] == "msg" and json.loads(e["msg"])["type"] == "resync"]
    assert len(resyncs) == 2  # (on listening again, and once more)
    relay.receive("\n".join(env.to_member("s1", text) for text in (snapshot, patch)))
    assert ann.got == [chat, snapshot, patch]
    relay.detach("s1")
    assert not relay._resyncing


async def test_a_leave_that_reached_no_node_leaves_its_sender_in_the_room() -> None:
    """The room's node died: a ``leave_room`` published to it reaches nobody and is answered
    ``unavailable`` (nothing changed), so its sender, whom the lobby took out of the room as it
    sent it, is put back (the room's owner to be found): asking again leaves the room once it
    stands on another node. A leave the lobby posts by itself (on entering another room), or one
    Redis failed to take (it may have been passed on), puts nobody back."""
    redis = FlakyRedis()
    redis.receivers = 0
    relay = Relay(redis, "b", {})  # type: ignore[arg-type]
    stayed: list[Session] = []
    relay.on_stayed = stayed.append
    ann, bob = Here(relay), Here(relay, "s2", "bob")
    room = RemoteRoom(relay, "far", "a:1")
    relay.forward(room, ann, Leave(disconnected=False, id=5, name="ann"))  # (ann.room: None)
    relay.forward(room, bob, Leave(disconnected=False, id=None, name="bob", asked=False))
    await _drain(relay)
    assert [(x["id"], x["code"]) for x in map(json.loads, ann.got)] == [(5, "unavailable")]
    assert isinstance(ann.room, RemoteRoom) and ann.room.name == "far" and ann.room.owner == ""
    assert stayed == [ann] and bob.room is None
    # Redis failed as it took the leave: it may have passed it on, and the sender stays out
    redis.up = False
    cy = Here(relay, "s3", "cy")
    relay.forward(room, cy, Leave(disconnected=False, id=6, name="cy"))
    await _drain(relay)
    assert [(x["id"], x["code"]) for x in map(json.loads, cy.got)] == [(6, "unavailable")]
    assert cy.room is None and stayed == [ann]


@pytest.mark.parametrize("up", [True, False], ids=["reached-nobody", "redis-failed"])
async def test_an_own_entry_that_did_not_reach_the_room_is_made_again(up: bool) -> None:
    """This node's own entry of its person into a room elsewhere (back in a room that moved, or
    seated there by the node) reached nobody, or Redis failed as it took it: the room would never
    know them and answer their every message ``unavailable``. They are put back to the room's
    owner to be found, which the watcher does again and enters them anew; the client, who asked
    for nothing, reads nothing. One who went elsewhere meanwhile stays there."""
    redis = FlakyRedis()
    redis.receivers, redis.up = 0, up
    relay = Relay(redis, "b", {})  # type: ignore[arg-type]
    ann, bob, cy = Here(relay), Here(relay, "s2", "bob"), Here(relay, "s3", "cy")
    for person in (ann, bob, cy):
        person.room = RemoteRoom(relay, "Far", "a:1")
    relay.forward(ann.room, ann, Returned(), own=True)
    relay.forward(bob.room, bob, Enter(admitted=True, asked=False), own=True)
    relay.forward(cy.room, cy, Returned(), own=True)
    elsewhere = cy.room = RemoteRoom(relay, "near", "c:4")
    await _drain(relay)
    for person in (ann, bob):
        assert isinstance(person.room, RemoteRoom)
        assert (person.room.name, person.room.lease) == ("Far", "")
    assert cy.room is elsewhere
    assert ann.got == bob.got == cy.got == []
