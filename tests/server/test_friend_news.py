"""A friend's news is for those not there: nobody is told that a friend started the game they
started together; a friend who does not play in it is told once."""

from __future__ import annotations

from server.app import Server
from tests.server.clients import WsClient


def _started_news(client: WsClient) -> list[str]:
    return [m["text"] for m in client.messages if m["type"] == "notice" and "started a game" in m["text"]]


async def test_players_are_not_told_of_the_game_they_started_with_a_friend(server: Server) -> None:
    """anna and bruno are each other's friends, carl is bruno's: anna and bruno start a game in
    room cafe; neither hears that the other started a game, carl hears it of bruno once."""
    anna, bruno = await WsClient.connect(server.port, "anna"), await WsClient.connect(server.port, "bruno")
    carl = await WsClient.connect(server.port, "carl")
    for client, friend in ((anna, "bruno"), (bruno, "anna"), (carl, "bruno")):
        assert (await client.command(f"/friend {friend}"))["type"] == "ack"
    for client in (anna, bruno):
        assert (await client.command("/join cafe"))["type"] == "ack"
    assert (await anna.command("/start"))["type"] == "ack"
    await carl.next(lambda x: x["type"] == "notice" and "started a game" in x["text"])
    for client in (anna, bruno, carl):
        await client.barrier()
    assert _started_news(anna) == [] and _started_news(bruno) == []
    assert _started_news(carl) == ["Your friend bruno started a game in room cafe: /watch cafe."]
