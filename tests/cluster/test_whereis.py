"""``/whereis`` across nodes shows a registered player's rating, as ``/who`` does."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.server.clients import WsClient
from tests.server.process import ServerProcess


async def test_whereis_on_another_node_shows_the_rating(nodes: list[ServerProcess]) -> None:
    """ann registers on node a; once bob on node b sees her as registered in ``/who`` (node a
    writes her line as it changes), ``/whereis ann`` shows the same ``1000?``."""
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


async def test_a_registration_and_a_seat_taken_back_are_in_who_at_once(nodes: list[ServerProcess]) -> None:
    """A person's line is written as it changes, not only with the whole list every ten
    heartbeats: right after ann registers on node a, a's ``/who`` (which waits for a's own writes)
    shows her registered; right after mia takes her seat back there with her token, in her room."""
    a, _ = nodes
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.request({"type": "register", "password": "correct horse battery"}))["registered"]
    people = {p["name"]: p for p in (await ann.request({"type": "who"}))["people"]}
    assert people["ann"]["guest"] is False
    mia = await WsClient.connect(a.port, "mia")
    for client in (ann, mia):
        assert (await client.command("/join back"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    token = mia.token
    await mia.close()
    await ann.next(lambda x: x["type"] == "presence" and x["event"] == "away")
    mia = await WsClient.connect(a.port, "mia", token=token)
    people = {p["name"]: p for p in (await mia.request({"type": "who"}))["people"]}
    assert people["mia"]["room"] == "back"
