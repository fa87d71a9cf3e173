"""The lobby's welcomes over real sockets: when a welcome says ``resumed``, the form of every
token, the player kept across resumes, an account's login taking its seat back, and the
security log of refused and expired tokens and of renames."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest
from structlog.testing import capture_logs

from server import logs
from server.app import Server
from tests.server.clients import WsClient, http_get, until
from tests.server.conftest import ServerFactory

PASSWORD = "correct horse battery"
TOKEN = re.compile(r"[0-9a-f]{32}")


def _identity(server: Server, name: str) -> str | None:
    session = server.lobby.directory.session(name)
    assert session is not None
    return session.identity


async def _in_a_game(room: str, host: WsClient, other: WsClient) -> None:
    await host.command(f"/join {room}")
    await host.command("/option seed 5")
    await other.command(f"/join {room}")
    assert (await host.command("/start"))["type"] == "ack"


async def test_a_resume_without_a_seat_is_resumed_and_keeps_the_player(server: Server) -> None:
    """A resume in the lobby is ``resumed``, with a new token of the usual form; after two resumes
    the player behind the name is the same, so their games stay theirs."""
    kim = await WsClient.connect(server.port, "kim")
    assert kim.messages[-1]["resumed"] is False and TOKEN.fullmatch(str(kim.token))
    first = _identity(server, "kim")
    for _ in range(2):
        await kim.close()
        kim = await WsClient.connect(server.port, "kim", token=kim.token)
        assert kim.messages[-1]["resumed"] is True and TOKEN.fullmatch(str(kim.token))
    assert _identity(server, "kim") == first


async def test_an_accounts_login_takes_its_seat_back_and_only_then_is_resumed(server: Server) -> None:
    """A registered player logging in with the password while seated in a running game is
    ``resumed`` and plays the seat again; logging in from the lobby is no resume."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "register", "password": PASSWORD})
    await ann.close()
    ann = await WsClient.connect(server.port, "ann", password=PASSWORD)
    assert ann.messages[-1]["resumed"] is False and TOKEN.fullmatch(str(ann.token))
    await ann.close()
    await until(lambda: server.lobby.directory.session("ann") is None, "ann's connection gone")
    ann = await WsClient.connect(server.port, "ann", password=PASSWORD)
    bob = await WsClient.connect(server.port, "bob")
    await _in_a_game("acct", ann, bob)
    await ann.close()
    await bob.next(lambda msg: msg["type"] == "presence" and msg["event"] == "away")
    back = await WsClient.connect(server.port, "ann", password=PASSWORD)
    assert back.messages[-1]["resumed"] is True and back.messages[-1]["registered"] is True
    await back.next("snapshot")
    assert back.view is not None and back.view["seat"] is not None
    await bob.next(lambda msg: msg["type"] == "presence" and msg["event"] == "back")
    await back.request({"type": "ping"})  # after all that the room sent ann on her return
    assert [msg for msg in back.messages if msg["type"] == "presence"] == []  # the others read it


async def test_refused_and_expired_tokens_are_security_events_naming_player_and_peer(
    make_server: ServerFactory,
) -> None:
    """A token refused, or expired, is logged as a security event with the name and the address."""
    server: Server = await make_server(resume_window=0.0)
    kim = await WsClient.connect(server.port, "kim")
    await kim.close()
    await until(lambda: server.lobby.directory.session("kim") is None, "kim's connection gone")
    with capture_logs() as logs:
        for name, token in (("kim", "f" * 32), ("kim", kim.token)):
            client = await WsClient.connect(server.port)
            answer = await client.request({"type": "hello", "name": name, "token": token})
            assert answer["code"] == "bad_token"
    events = [(e["event"], e.get("player"), e.get("peer")) for e in logs if e["event"].startswith("token_")]
    assert [event[:2] for event in events] == [("token_refused", "kim"), ("token_expired", "kim")]
    assert all(peer and str(peer).startswith("127.0.0.1") for _, _, peer in events)


async def test_a_hello_and_a_rename_are_logged_with_their_names(server: Server) -> None:
    """A welcome is logged as ``hello`` with the name, the transport and whether it resumed; /nick
    as ``renamed`` with the new name and the old."""
    logs.configure("info", "console")  # each test's server fixture sets warning again
    with capture_logs() as captured:
        kim = await WsClient.connect(server.port, "kim")
        assert (await kim.command("/nick kam"))["type"] == "welcome"
    hellos = [(e["player"], e["transport"], e["resumed"]) for e in captured if e["event"] == "hello"]
    assert hellos == [("kim", "ws", False)]
    assert [(e["player"], e["old"]) for e in captured if e["event"] == "renamed"] == [("kam", "kim")]


async def test_a_lost_connection_is_counted_out_and_holds_its_seat_and_token(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """A connection ends without an error, in the lobby or during a game; it leaves the count of
    connections and ``/metrics``, its token holds for the resume window from then on, and a seat is
    held, ``away``, not handed to a bot before the window passes."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    zoe = await WsClient.connect(server.port, "zoe")  # in the lobby
    await _in_a_game("lost", ann, bob)
    assert server.lobby.connections == 3
    session = server.lobby.directory.session("ann")
    await zoe.close()
    await until(lambda: server.lobby.connections == 2, "zoe counted out")
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    await ann.close()
    await bob.next(lambda msg: msg["type"] == "presence" and msg["event"] == "away")
    await bob.barrier()
    assert not [msg for msg in bob.messages if msg.get("event") == "replaced_by_bot"]
    assert server.lobby.connections == 1 and session not in server.lobby.all_sessions
    _, _, body = await http_get(server.port, "/metrics")
    assert 'cafe_connections{transport="ws"} 1.0' in body.decode()
    released: list[object] = []

    async def check() -> None:  # the release is written in the background as the connection ends
        info = await server.store.token(str(ann.token))
        released.append(info is not None and info.expires is not None)

    for _ in range(100):
        await check()
        if released[-1]:
            break
        await asyncio.sleep(0.02)
    assert released[-1] is True


async def test_entering_a_room_as_its_last_member_leaves_is_answered_and_holds(server: Server) -> None:
    """bob enters (or joins) a room at the moment ann, alone in it, leaves: the room bob was sent
    to goes on with him in it, and he is answered (snapshot, ack), however the two cross."""
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    for turn, kind in enumerate(["enter_room", "join"] * 4):
        room, msg_id = f"cross{turn}", 900 + turn
        assert (await ann.request({"type": "enter_room", "room": room}))["type"] == "ack"
        await ann.send({"type": "leave_room", "id": msg_id})
        await bob.send({"type": kind, "room": room, "id": msg_id})
        answer = await bob.next(lambda m, msg_id=msg_id: m.get("id") == msg_id)
        assert answer["type"] == "ack", (kind, answer)
        assert (await bob.request({"type": "say", "text": "still here?"}))["type"] == "ack"
        rooms = (await bob.request({"type": "list_rooms"}))["rooms"]
        assert [r["name"] for r in rooms] == [room], rooms
        assert (await bob.request({"type": "leave_room"}))["type"] == "ack"
        await ann.next(lambda m, msg_id=msg_id: m.get("id") == msg_id)


async def test_a_room_that_ends_while_its_door_is_asked_is_opened_again(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a cluster the door of a room is asked of Redis: while bob waits for it, ann, alone in the
    room, leaves and the room ends. bob is not sent to the ended room (where nothing would answer
    him) but to the room opened again under its name."""
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    assert (await ann.request({"type": "enter_room", "room": "door"}))["type"] == "ack"
    directory = server.lobby.directory
    asked = directory.admission
    left = asyncio.Event()

    async def slow(room: Any, session: Any) -> Any:
        await left.wait()  # (the room ends meanwhile)
        return await asked(room, session)

    monkeypatch.setattr(directory, "admission", slow)
    await bob.send({"type": "enter_room", "room": "door", "id": 5})
    assert (await ann.request({"type": "leave_room"}))["type"] == "ack"
    await until(lambda: "door" not in directory.rooms, "the room ended")
    left.set()
    assert (await bob.next(lambda m: m.get("id") == 5))["type"] == "ack"
    assert bob.view is not None and bob.view["room"] == "door"
    assert [r["name"] for r in (await bob.request({"type": "list_rooms"}))["rooms"]] == ["door"]
