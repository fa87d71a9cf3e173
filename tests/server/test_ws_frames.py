"""The WebSocket endpoint's own framing: the same bytes as websockets makes, read by its client."""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

from server.net.ws import MAX_CLOSE_REASON, close_reason
from server.net.wsinternals import text_frame_header
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_header_as_websockets_makes_it(length: int) -> None:
    """A text frame's header, for every length class, is the one websockets serialises."""
    data = b"x" * length
    assert text_frame_header(length) + data == Frame(Opcode.TEXT, data).serialize(mask=False)


@pytest.mark.parametrize("compression", ["none", "deflate"])
async def test_long_and_short_frames_reach_a_client(make_server: ServerFactory, compression: str) -> None:
    """Frames under 126 bytes and over it, compressed or not, arrive whole and in order."""
    server = await make_server(compression=compression)
    async with connect(f"ws://127.0.0.1:{server.port}/ws", compression="deflate") as ws:
        await ws.send(json.dumps({"type": "hello", "name": "ann"}))
        welcome = json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "enter_room", "room": "cafe", "id": 1}))
        await ws.send(json.dumps({"type": "ping", "id": 2}))
        got = [json.loads(await ws.recv()) for _ in range(3)]
    assert welcome["type"] == "welcome" and welcome["seq"] == 1
    # (the lobby answers the ping at once; the room answers the entry on its own turn)
    assert [g["seq"] for g in got] == [2, 3, 4]
    assert sorted(g["type"] for g in got) == ["ack", "pong", "snapshot"]
    sizes = {g["type"]: len(json.dumps(g)) for g in got}
    assert sizes["snapshot"] > 126 > sizes["ack"]


def test_a_close_reason_is_cut_to_the_bytes_a_close_frame_holds() -> None:
    """A reason past 123 bytes of UTF-8 (umlauts count twice) is cut on a character boundary."""
    assert close_reason("Server hält an") == "Server hält an"
    long = close_reason("ä" * 100)
    assert len(long.encode()) <= MAX_CLOSE_REASON and long.endswith("...") and long.startswith("ää")
