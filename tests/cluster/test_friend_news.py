"""A friend's news across nodes leaves out the players of the game it is of."""

from __future__ import annotations

from tests.server.clients import WsClient
from tests.server.process import ServerProcess


def _started_news(client: WsClient) -> list[str]:
    return [m["text"] for m in client.messages if m["type"] == "notice" and "started a game" in m["text"]]


async def test_a_player_on_another_node_is_not_told_of_the_game_started_with_a_friend(
    nodes: list[ServerProcess],
) -> None:
    """anna (node a, the room's owner) and bruno (node b) are friends and start a game together:
    bruno hears nothing of anna's start; dora on node b, anna's friend too, hears it once."""
    a, b = nodes
    anna = await WsClient.connect(a.port, "anna")
    bruno, dora = await WsClient.connect(b.port, "bruno"), await WsClient.connect(b.port, "dora")
    for client, friend in ((anna, "bruno"), (bruno, "anna"), (dora, "anna")):
        assert (await client.command(f"/friend {friend}"))["type"] == "ack"
    assert (await anna.command("/join cafe"))["type"] == "ack"
    assert (await bruno.command("/join cafe"))["type"] == "ack"
    assert (await anna.command("/start"))["type"] == "ack"
    await dora.next(lambda x: x["type"] == "notice" and "started a game" in x["text"], timeout=10)
    await bruno.next("game_started")
    # news reaches every node by one publish: once dora, on bruno's node, has it, bruno had his chance
    for client in (anna, bruno, dora):
        await client.barrier()
    assert _started_news(anna) == [] and _started_news(bruno) == []
    assert _started_news(dora) == ["Your friend anna started a game in room cafe: /watch cafe."]
