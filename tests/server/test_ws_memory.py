"""What an open WebSocket connection keeps: nothing of its handshake's headers."""

from __future__ import annotations

import json

import pytest

from server.app import Server
from server.net.ws import WsSession
from tests.server.clients import WsClient
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api


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


async def test_an_open_connection_reads_fragments_and_many_messages(make_server: ServerFactory) -> None:
    """A served connection reads a message sent in many fragments, and many messages at once."""
    server: Server = await make_server()
    client = await WsClient.connect(server.port, "ann")
    text = json.dumps({"type": "ping", "id": "fragmented"})
    await client.ws.send([text[i : i + 3] for i in range(0, len(text), 3)])
    assert (await client.next(lambda m: m.get("id") == "fragmented"))["type"] == "pong"
    for i in range(20):
        await client.send({"type": "ping", "id": i})
    for i in range(20):
        assert (await client.next(lambda m, i=i: m.get("id") == i))["type"] == "pong"
