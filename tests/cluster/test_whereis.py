"""``/whereis`` across nodes shows a registered player's rating, as ``/who`` does."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.server.clients import WsClient
from tests.server.process import ServerProcess


async def test_whereis_on_another_node_shows_the_rating(nodes: list[ServerProcess]) -> None:
    """ann registers on node a; once bob on node b sees her as registered in ``/who`` (each node
    writes its people again with its heartbeat), ``/whereis ann`` shows the same ``1000?``."""
    a, b = nodes
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.request({"type": "register", "password": "correct horse battery"}))["registered"]
    bob = await WsClient.connect(b.port, "bob")
    who: list[dict[str, Any]] = []
    for _ in range(100):
        who = [p for p in (await bob.request({"type": "who"}))["people"] if p["name"] == "ann"]
        if who and not who[0]["guest"]:
            break
        await asyncio.sleep(0.1)
    assert [p["rating"] for p in who] == ["1000?"], who
    assert (await bob.command("/whereis ann"))["people"] == who
