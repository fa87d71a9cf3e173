"""Analyses in a cluster: asked for on one node, run there, kept in Redis, read on every node and
not made again (README, "Analysis")."""

from __future__ import annotations

from pathlib import Path

from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient, http_get
from tests.server.process import ServerProcess


async def _played(a: ServerProcess, b: ServerProcess) -> tuple[WsClient, WsClient, str]:
    """ann (on a) and bob (on b) play three moves, then bob leaves: the game's id."""
    ann, bob = await WsClient.connect(a.port, "ann"), await WsClient.connect(b.port, "bob")
    assert (await ann.command("/join salon"))["type"] == "ack"
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    assert (await bob.command("/join salon"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    for _ in range(2):
        await ann.barrier()
        await bob.barrier()
        assert ann.view is not None and ann.view["game"] is not None
        mover = ann if ann.view["game"]["to_move"] == "ann" else bob
        hint = await mover.request({"type": "hint"})
        assert (await mover.request({"type": "move", "move": hint["move"]}))["type"] == "ack"
    assert (await bob.command("/leave"))["type"] == "ack"
    await ann.next("game_over")
    return ann, bob, (await ann.command("/history"))["text"].split()[2]


async def test_one_game_asked_through_both_nodes_is_analysed_once(redis_url: str, tmp_path: Path) -> None:
    """ann asks on a and bob on b for the same game at once: one node runs the analysis, the other
    waits for it to be kept, and both are told it is ready, with the same figures."""
    async with two_nodes(redis_url, tmp_path, "--analysis-budget", "0.2") as (a, b):
        ann, bob, game_id = await _played(a, b)
        for client in (ann, bob):
            await client.send({"type": "analyse", "game": game_id, "id": 9})
        for client in (ann, bob):
            assert (await client.next(lambda x: x.get("id") == 9))["state"] == "queued"
        ready = [
            await client.next(lambda x: x["type"] == "analysis" and x["state"] == "ready", 60)
            for client in (ann, bob)
        ]
        assert ready[0]["players"] == ready[1]["players"]
    events = [[line["event"] for line in await node.logs()] for node in (a, b)]
    assert sorted(e.count("analysis_done") for e in events) == [1, 1]  # (each told its askers)
    assert sorted(e.count("analysis_theirs") for e in events) == [0, 1], events


async def test_an_analysis_made_on_one_node_is_read_on_the_other(redis_url: str, tmp_path: Path) -> None:
    """ann (a) and bob (b) play; ann asks on a and is told when it is ready; b answers the same
    analysis over HTTP and, asked by bob, as ``ready`` at once: it is kept in Redis."""
    async with two_nodes(redis_url, tmp_path, "--analysis-budget", "0.01") as (a, b):
        ann, bob, game_id = await _played(a, b)
        assert (await http_get(b.port, f"/api/games/{game_id}/analysis")).status == 404
        queued = await ann.request({"type": "analyse", "game": game_id})
        assert (queued["state"], queued["ahead"]) == ("queued", 0)
        ready = await ann.next(lambda x: x["type"] == "analysis" and x["state"] == "ready", 60)
        assert set(ready["players"]) == {"ann", "bob"}
        on_a = await http_get(a.port, f"/api/games/{game_id}/analysis")
        on_b = await http_get(b.port, f"/api/games/{game_id}/analysis")
        assert on_a.status == on_b.status == 200 and on_a.json() == on_b.json()
        assert [m["number"] for m in on_b.json()["moves"]] == [1, 2, 3]
        again = await bob.request({"type": "analyse", "game": game_id})
        assert again["state"] == "ready" and again["players"] == ready["players"]
