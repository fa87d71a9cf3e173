"""Tables the server makes (``Lobby.tables.open``): a new room, its options set, seats drawn, the
game started at once, each player moved to their seat and told where, over real sockets."""

from __future__ import annotations

import pytest

from protocol.options import RoomOptions
from server.app import Server
from server.lobby.tables import Player
from tests.server.clients import LineClient, WsClient


async def test_a_table_seats_its_players_and_starts_at_once(server: Server) -> None:
    """Two connected players are moved from where they were (one watching a room, one in the
    lobby) to their seats in a new room whose game runs with the options given; each hears
    ``seated`` naming the room, and the player to move may play."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/room elsewhere"))["type"] == "ack"
    table = await server.lobby.tables.open(
        [Player("ann", None), Player("bob", None)],
        options=RoomOptions(clock=60, drawseat=True),
        prefix="seek",
    )
    assert table.room.startswith("seek-") and sorted(table.players) == ["ann", "bob"]
    for client in (ann, bob):
        seated = await client.next("seated")
        assert seated["room"] == table.room and seated["game"] == table.game_id
        assert seated["players"] == list(table.players)
        snapshot = await client.next(lambda x: x["type"] == "snapshot" and x["view"]["room"] == table.room)
        view = snapshot["view"]
        assert view["state"] == "playing" and view["options"]["clock"] == 60 and view["options"]["drawseat"]
        assert view["you"] == client.name and len(view["game"]["hand"]) == 5
    assert ann.view is not None
    mover = ann if ann.view["game"]["to_move"] == "ann" else bob
    moves = await mover.request({"type": "legal_moves"})
    assert moves["type"] == "legal_moves" and moves["moves"]
    assert (await mover.request({"type": "move", "move": moves["moves"][0]}))["type"] == "ack"
    # the room bob watched before heard him leave
    assert server.directory.rooms.get("elsewhere") is None


async def test_a_player_not_connected_finds_the_seat_waiting(server: Server) -> None:
    """A player with no connection gets a seat all the same; coming with that name later and
    ``/join``-ing their seat's number, or resuming, they play it; a line client is told where."""
    ann = await LineClient.connect(server.line_port or 0, "ann")
    table = await server.lobby.tables.open([Player("ann", None), Player("cid", None)], bots=("greedy",))
    await ann.expect(f"room {table.room}")
    assert len(table.players) == 3 and "cid" in table.players
    room = server.directory.rooms[table.room.casefold()]
    seat = room.core.seat_of("cid")
    assert seat is not None and seat.session is None and room.state == "playing"


async def test_a_table_of_one_is_refused(server: Server) -> None:
    """A table seats 2 to 4: one player and no bots is a ``ValueError``; nothing is made."""
    before = dict(server.directory.rooms)
    with pytest.raises(ValueError):
        await server.lobby.tables.open([Player("ann", None)])
    assert dict(server.directory.rooms) == before
