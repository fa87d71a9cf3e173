"""A client that never reads cannot slow the room: it is resynchronised with a snapshot, or dropped."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
import structlog.testing
from websockets.asyncio.client import connect

from server.app import Server
from server.net.line import LineSession
from tests.server.clients import LineClient, WsClient, until
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api

CHATS = 3000
TEXT = "x" * 450
UNLIMITED = {"rate": 1e6, "burst": 10**6, "chat_rate": 1e6, "chat_burst": 10**6}


async def _stalled_line_client(server: Server) -> LineClient:
    """A line client in room ``busy`` that reads nothing, on a link too thin to buffer megabytes."""
    assert server.line_port is not None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.line_port))
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(b"slow\r\n/room busy\r\n")
    await writer.drain()
    await until(
        lambda: any(s.name == "slow" and s.room is not None for s in server.lobby.all_sessions),
        "the stalled client entered the room",
    )
    session = next(s for s in server.lobby.all_sessions if s.name == "slow")
    assert isinstance(session, LineSession)
    session.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    return LineClient(reader, writer)


async def _flood(server: Server) -> tuple[WsClient, WsClient]:
    """ann says CHATS long lines in room busy; bob must get every one, in order."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    await ann.command("/room busy")
    await bob.command("/room busy")
    return ann, bob


async def _talk(ann: WsClient, bob: WsClient) -> None:
    reading = asyncio.create_task(ann.settle(quiet=3))  # ann reads while she talks
    for i in range(CHATS):
        await ann.send({"type": "say", "text": f"{i} {TEXT}"})
    for i in range(CHATS):
        chat = await bob.next("chat")
        assert chat["text"].startswith(f"{i} ")
    await reading


async def test_a_client_that_never_reads_is_dropped_and_the_others_get_everything(
    make_server: ServerFactory,
) -> None:
    """With one strike allowed, the stalled client is cut off while the others get every chat."""
    server: Server = await make_server(outbox=16, slow_strikes=1, **UNLIMITED)
    ann, bob = await _flood(server)
    await _stalled_line_client(server)
    await _talk(ann, bob)
    left = await bob.next(lambda m: m["type"] == "presence" and m["name"] == "slow" and m["event"] == "left")
    assert left["room"] == "busy"
    assert "slow" not in [s.name for s in server.lobby.all_sessions]


async def test_a_client_that_falls_behind_gets_a_fresh_snapshot(make_server: ServerFactory) -> None:
    """A stalled client loses the backlog but, once it reads again, finds a fresh picture of the room."""
    server: Server = await make_server(outbox=16, slow_strikes=3, **UNLIMITED)
    ann, bob = await _flood(server)
    slow = await _stalled_line_client(server)
    await _talk(ann, bob)
    await slow.expect("You are in room busy")  # on entry
    await slow.expect("You are in room busy")  # the resync
    assert slow.text().count(" xxxx") < CHATS
    await slow.line("/who")
    await slow.expect("slow ")


async def test_a_client_that_falls_behind_in_the_lobby_is_told_and_answered_after(
    make_server: ServerFactory,
) -> None:
    """In the lobby there is no view to send afresh: a client whose backlog of answers overflows
    its outbox hears that what was queued was dropped, and its next message is answered (it was
    left deaf until it entered a room)."""
    server: Server = await make_server(outbox=8, slow_strikes=5, **UNLIMITED)
    dzc = await WsClient.connect(server.port, "dzc")
    for i in range(20):  # (sent at once: twenty answers wait in an outbox of eight)
        await dzc.send({"type": "who", "id": 1000 + i})
    notice = await dzc.next(lambda x: x["type"] == "notice" and "fell behind" in x["text"])
    assert notice["text"] == "You fell behind: what the server sent you meanwhile was dropped."
    assert (await dzc.request({"type": "ping"}))["type"] == "pong"


async def test_a_dropped_client_is_not_read_any_more(make_server: ServerFactory) -> None:
    """A client dropped as too slow is closed at once for its reader too: the commands it sent and
    that are still buffered are not carried out (each would fall behind again: an audit saw 55
    strikes past the last one, and a bystander's ping wait 353 ms)."""
    server: Server = await make_server(outbox=32, slow_strikes=2, **UNLIMITED)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
    with structlog.testing.capture_logs() as logged:
        async with connect(f"ws://127.0.0.1:{server.port}/ws", sock=sock, max_queue=1) as slow:
            await slow.send(json.dumps({"type": "hello", "name": "slowpoke"}))
            for _ in range(2500):  # each answered with 4 KB of help, none of it read
                await slow.send(json.dumps({"type": "command", "text": "/help"}))
            await until(
                lambda: "slowpoke" not in [s.name for s in server.lobby.all_sessions], "slowpoke dropped"
            )
    strikes = [e["strikes_left"] for e in logged if e["event"] == "slow_client"]
    assert strikes == [1, 0], strikes


async def test_a_client_that_asks_for_long_answers_and_never_reads_falls_behind_by_their_size(
    make_server: ServerFactory,
) -> None:
    """Fewer answers than ``--outbox`` can still be megabytes (``who`` lists everyone): a stalled
    client falls behind at ``OUTBOX_BYTES`` of them queued, and with one strike it is dropped,
    rather than the server holding all it asked for."""
    server: Server = await make_server(outbox=256, slow_strikes=1, max_per_ip=200, **UNLIMITED)
    people = [await WsClient.connect(server.port, f"person{n}") for n in range(100)]
    slow = await _stalled_line_client(server)
    session = next(s for s in server.lobby.all_sessions if s.name == "slow")
    slow.writer.write(b"/who\r\n" * 200)  # 200 answers of ~10 KB: under 256, over a megabyte
    await slow.writer.drain()
    await until(lambda: session.closed, "the stalled client dropped")
    assert session.pending == 0
    assert all(not p.ws.close_code for p in people)

