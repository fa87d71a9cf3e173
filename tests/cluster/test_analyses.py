"""Analyses in a cluster: asked for on one node, run there, kept in Redis, read on every node and
not made again (README, "Analysis")."""

from __future__ import annotations

from pathlib import Path

from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient, http_get


async def test_an_analysis_made_on_one_node_is_read_on_the_other(redis_url: str, tmp_path: Path) -> None:
    """ann (a) and bob (b) play; ann asks on a and is told when it is ready; b answers the same
    analysis over HTTP and, asked by bob, as ``ready`` at once: it is kept in Redis."""
    async with two_nodes(redis_url, tmp_path, "--analysis-budget", "0.01") as (a, b):
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
        game_id = (await ann.command("/history"))["text"].split()[2]
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
