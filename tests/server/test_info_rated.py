"""``/info``'s rating line over real sockets: rated only with two registered players seated."""

from __future__ import annotations

from server.app import Server
from tests.server.clients import WsClient

PASSWORD = "correct horse battery"


async def _registered(server: Server, name: str) -> WsClient:
    client = await WsClient.connect(server.port, name)
    assert (await client.request({"type": "register", "password": PASSWORD}))["type"] == "welcome"
    return client


async def _rating_line(client: WsClient) -> str:
    info = await client.command("/info")
    assert info["type"] == "text" and info["kind"] == "info"
    [line] = [line for line in info["text"].splitlines() if line.startswith("Rated:")]
    return str(line)


async def test_info_is_rated_only_once_two_registered_players_sit(server: Server) -> None:
    """A registered player alone, then with a guest: not rated, and why; a second registered
    player sits down: ``Rated: yes.``"""
    ann = await _registered(server, "ann")
    assert (await ann.command("/join cafe"))["type"] == "ack"
    too_few = "Rated: no, fewer than two registered players are seated."
    assert await _rating_line(ann) == too_few
    cem = await WsClient.connect(server.port, "cem")
    assert (await cem.command("/join cafe"))["type"] == "ack"
    assert await _rating_line(cem) == too_few
    bob = await _registered(server, "bob")
    assert (await bob.command("/join cafe"))["type"] == "ack"
    assert await _rating_line(cem) == "Rated: yes."
