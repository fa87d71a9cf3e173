"""No hints in a rated game across nodes: the room's owner refuses a hint asked through another
node, and the node that takes the room over from Redis after its owner died refuses it too."""

from __future__ import annotations

import asyncio
import signal

from tests.server.clients import WsClient
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"


async def test_no_hints_on_any_node_nor_after_a_takeover(pair: list[ServerProcess]) -> None:
    """ann (node a, the room's owner) and bob (node b), both registered, play with a drawn seed:
    each hint is ``no_hints``; once node a is killed and node b has the room from the log, bob's
    hint is still ``no_hints``."""
    a, b = pair
    ann = await WsClient.connect(a.port, "ann")
    bob = await WsClient.connect(b.port, "bob")
    for client in (ann, bob):
        assert (await client.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await ann.command("/join fair"))["type"] == "ack"
    assert (await bob.command("/join fair"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    for client in (ann, bob):
        await client.next("game_started")
        answer = await client.request({"type": "hint"})
        assert (answer["type"], answer["code"]) == ("error", "no_hints"), answer
    bob.take_all()  # the snapshots so far: the one wanted comes from node b
    a.proc.send_signal(signal.SIGKILL)
    await asyncio.wait_for(a.proc.wait(), 10)
    view = (await bob.next("snapshot", timeout=20))["view"]
    assert (view["seat"], view["state"]) == (1, "playing")
    assert (await bob.request({"type": "hint"}))["code"] == "no_hints"
