"""What an open WebSocket connection keeps: nothing of its handshake's headers, and no deque of
websockets' own that is empty nearly always."""

from __future__ import annotations

import json
from collections import deque

from server.app import Server
from server.ws import WsSession, _ShortQueue
from tests.server.clients import WsClient
from tests.server.conftest import ServerFactory


async def test_an_open_connection_keeps_no_handshake_headers(make_server: ServerFactory) -> None:
    """Once a client is served, its connection holds neither the request's nor the answer's
    headers, and the client is served as before."""
    server: Server = await make_server()
    client = await WsClient.connect(server.port, "ann")
    assert (await client.request({"type": "ping"}))["type"] == "pong"
    [session] = [s for s in server.lobby.all_sessions if isinstance(s, WsSession)]
    request, response = session.connection.request, session.connection.response
    assert request is not None and response is not None
    assert list(request.headers.raw_items()) == []
    assert list(response.headers.raw_items()) == []


async def test_an_open_connection_queues_frames_and_waiters_in_lists(make_server: ServerFactory) -> None:
    """A served connection holds its unread frames and its drain waiters in lists rather than in
    deques, and still reads a message sent in many fragments, and many messages at once."""
    server: Server = await make_server()
    client = await WsClient.connect(server.port, "ann")
    [session] = [s for s in server.lobby.all_sessions if isinstance(s, WsSession)]
    connection = session.connection
    assert type(connection.drain_waiters) is list
    assert isinstance(connection.recv_messages.frames.queue, list)
    text = json.dumps({"type": "ping", "id": "fragmented"})
    await client.ws.send([text[i : i + 3] for i in range(0, len(text), 3)])
    assert (await client.next(lambda m: m.get("id") == "fragmented"))["type"] == "pong"
    for i in range(20):
        await client.send({"type": "ping", "id": i})
    for i in range(20):
        assert (await client.next(lambda m, i=i: m.get("id") == i))["type"] == "pong"


def test_the_short_queue_does_what_the_deque_did() -> None:
    """``popleft``, ``append``, ``extendleft`` (as websockets puts frames back) and ``len`` give
    the same items in the same order as a deque."""
    short, full = _ShortQueue(), deque[int]()
    for queue in (short, full):
        queue.append(1)
        queue.append(2)
        queue.extendleft(reversed([7, 8, 9]))
        queue.extendleft([5, 6])
    assert list(short) == list(full) == [6, 5, 7, 8, 9, 1, 2]
    assert [short.popleft() for _ in range(3)] == [full.popleft() for _ in range(3)] == [6, 5, 7]
    assert len(short) == len(full) == 4 and bool(short) and bool(full)
