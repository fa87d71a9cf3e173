"""Keep-alive: every WebSocket connection is pinged; one that leaves a ping unanswered is closed."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from tests.server.clients import raw_websocket, until
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api


async def test_a_client_that_answers_pings_stays_and_one_that_does_not_is_closed(
    make_server: ServerFactory,
) -> None:
    """With pings every 0.5 s, a client whose library answers them is still served after several
    rounds, while a client that never answers is cut off and leaves the keep-alive's table."""
    server = await make_server(ping_interval=0.5, hello_timeout=60)
    reader, writer = await raw_websocket(server.port)  # (never reads: never answers a ping)
    async with connect(f"ws://127.0.0.1:{server.port}/ws", ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": "ann"}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await until(lambda: len(server.keepalive) == 2, "both connections kept alive")
        # the silent client's socket ends once its ping went unanswered a whole interval
        rest = await asyncio.wait_for(reader.read(), 10)
        assert rest.startswith(b"\x89")  # what it was sent: the ping it never answered
        await until(lambda: len(server.keepalive) == 1, "the silent connection forgotten")
        await ws.send(json.dumps({"type": "ping", "id": 1}))
        assert json.loads(await ws.recv()) == {"seq": 2, "type": "pong", "id": 1}
    writer.close()
    await until(lambda: len(server.keepalive) == 0, "the closed connection forgotten")
