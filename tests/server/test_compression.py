"""WebSocket compression: off unless the server is told to use it, whatever the client offers."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect

from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api


async def negotiated(port: int) -> str | None:
    """The extensions the server accepted for a client that offers permessage-deflate."""
    async with connect(f"ws://127.0.0.1:{port}/ws", compression="deflate") as ws:
        assert ws.response is not None
        return ws.response.headers.get("Sec-WebSocket-Extensions")


async def test_no_compression_by_default(make_server: ServerFactory) -> None:
    """By default the server declines permessage-deflate, which a client may offer."""
    server = await make_server()
    assert await negotiated(server.port) is None


async def test_deflate_when_configured(make_server: ServerFactory) -> None:
    """With compression "deflate" the server accepts the permessage-deflate a client offers."""
    server = await make_server(compression="deflate")
    extensions = await negotiated(server.port)
    assert extensions is not None and extensions.startswith("permessage-deflate")
