"""``/whereis NAME`` shows a person as ``/who`` does: the same room and the same rating."""

from __future__ import annotations

from server.app import Server
from tests.server.clients import LineClient, WsClient

PASSWORD = "correct horse"


async def test_whereis_shows_the_rating_who_shows(server: Server) -> None:
    """A registered player is ``1000?`` in ``/whereis`` as in ``/who``, over JSON and at the
    terminal; a guest has no rating in either."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    bob = await WsClient.connect(server.port, "bob")
    who = {p["name"]: p for p in (await bob.request({"type": "who"}))["people"]}
    assert (who["ann"]["rating"], who["bob"]["rating"]) == ("1000?", None)
    for name in ("ann", "bob"):
        (found,) = (await bob.command(f"/whereis {name}"))["people"]
        assert found == who[name]
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "cem")
    await line.line("/whereis ann")
    await line.expect("\r\nann ")  # the answer's line begins with the name
    row = "ann " + await line.expect("\r\n")
    assert row.split()[:3] == ["ann", "person", "1000?"], row
