"""Connection limits over real sockets: the hello deadline and the cap per address, for WebSocket
and line clients alike."""

from __future__ import annotations

import asyncio
import re

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.app import Server
from server.limits import PerAddress
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory


def _security_events(server: Server, event: str) -> float:
    text = server.lobby.metrics.render().decode()
    found = re.search(rf'cafe_security_events_total\{{event="{event}"\}} ([0-9.]+)', text)
    return float(found[1]) if found else 0.0


def test_per_address_counts_to_the_cap_and_back() -> None:
    """acquire succeeds up to the cap for one address, others are counted apart, release frees one."""
    limit = PerAddress(2)
    assert limit.acquire("a") and limit.acquire("a") and not limit.acquire("a")
    assert limit.acquire("b")
    limit.release("a")
    assert limit.count("a") == 1 and limit.acquire("a")
    limit.release("b")
    assert limit.count("b") == 0


async def test_a_websocket_without_hello_is_closed_with_1008(make_server: ServerFactory) -> None:
    """A WebSocket that says no hello within the timeout is closed with 1008 and a reason."""
    server: Server = await make_server(hello_timeout=0.2)
    async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == 1008
        assert ws.close_reason == "no hello within 0.2 seconds"
    assert _security_events(server, "hello_timeout") == 1


async def test_a_websocket_that_said_hello_stays(make_server: ServerFactory) -> None:
    """A connection that said hello in time is not closed when the timeout passes."""
    server: Server = await make_server(hello_timeout=0.2)
    client = await WsClient.connect(server.port, "ann")
    await asyncio.sleep(0.5)
    assert (await client.request({"type": "ping"}))["type"] == "pong"
    assert _security_events(server, "hello_timeout") == 0


async def test_a_line_client_without_a_name_is_told_and_closed(make_server: ServerFactory) -> None:
    """A line client that gives no name within the timeout gets a line, then the server hangs up."""
    server: Server = await make_server(hello_timeout=0.2)
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("")  # an empty answer is no name
    await client.expect("* No name given within 0.2 seconds; goodbye.\r\n")
    assert await asyncio.wait_for(client.reader.read(), 10) == b""
    assert _security_events(server, "hello_timeout") == 1


async def test_connections_past_the_cap_per_address_are_refused(make_server: ServerFactory) -> None:
    """Past --max-per-ip, a WebSocket is closed with 1013 and a line client gets a line and the
    close; WebSocket and line connections count together, and a closed one frees its place."""
    server: Server = await make_server(max_per_ip=2)
    assert server.line_port is not None
    first = await WsClient.connect(server.port, "ann")
    await LineClient.connect(server.line_port, "bob")
    async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        assert (ws.close_code, ws.close_reason) == (1013, "too many connections from your address")
    reader, writer = await asyncio.open_connection("127.0.0.1", server.line_port)
    refused = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    assert refused == b"* Too many connections from your address; try again later.\r\n"
    assert _security_events(server, "per_ip_cap") == 2
    await first.close()
    for _ in range(200):  # the server notices the close on its own time
        if server.limits.per_address.count("127.0.0.1") < 2:
            break
        await asyncio.sleep(0.01)
    await WsClient.connect(server.port, "cyd")
