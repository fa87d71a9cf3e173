"""The room's view says whether its game counts for ratings (``rated``), as the server decides it,
before the start, during the game and after it; a finished game's view carries its rating changes,
so that a snapshot after the end (a reload, a newcomer) shows them. Over real sockets."""

from __future__ import annotations

from typing import Any

from server.app import Server
from tests.server.clients import WsClient
from tests.server.conftest import ServerFactory

PASSWORD = "correct horse battery"


async def _registered(server: Server, name: str) -> WsClient:
    client = await WsClient.connect(server.port, name)
    assert (await client.request({"type": "register", "password": PASSWORD}))["registered"] is True
    return client


async def _view(client: WsClient) -> dict[str, Any]:
    """The client's view once everything the server queued for it has arrived."""
    await client.barrier()
    assert client.view is not None
    return client.view


async def test_rated_follows_the_seats_and_the_seed_before_the_start(server: Server) -> None:
    """One account seated: not rated; a guest beside it: still not; a second account: rated; a
    seed chosen: not (practice); the seed random again: rated. A spectator reads the same."""
    ann = await _registered(server, "ann")
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await ann.command("/join ratedroom"))["type"] == "ack"
    assert (await zoe.command("/watch ratedroom"))["type"] == "ack"
    assert (await _view(ann))["rated"] is False
    guest = await WsClient.connect(server.port, "gus")
    assert (await guest.command("/join ratedroom"))["type"] == "ack"
    assert (await _view(zoe))["rated"] is False
    assert (await guest.command("/stand"))["type"] == "ack"
    bob = await _registered(server, "bob")
    assert (await bob.command("/join ratedroom"))["type"] == "ack"
    assert (await _view(ann))["rated"] is True
    assert (await _view(zoe))["rated"] is True
    assert (await ann.command("/option seed 8"))["type"] == "ack"
    assert (await _view(zoe))["rated"] is False
    assert (await ann.command("/option seed random"))["type"] == "ack"
    assert (await _view(bob))["rated"] is True
    assert (await ann.command("/start"))["type"] == "ack"
    assert (await _view(zoe))["rated"] is True


async def _drop_game(server: Server, room: str, *options: str) -> tuple[WsClient, dict[str, Any]]:
    """ann and bob, registered, play in ``room`` with absent drop; bob goes, ann wins: ann and
    the game's ``game_over``."""
    ann, bob = await _registered(server, "ann"), await _registered(server, "bob")
    assert (await ann.command(f"/join {room}"))["type"] == "ack"
    for option in ("absent drop", *options):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    assert (await bob.command(f"/join {room}"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.close()
    return ann, await ann.next("game_over")


async def test_a_finished_rated_games_snapshot_carries_its_ratings(make_server: ServerFactory) -> None:
    """After a rated game's end the view stays rated and its result holds the ratings of
    ``game_over``: in the patched view, a fresh snapshot and a newcomer's."""
    server: Server = await make_server(resume_window=0.3)
    ann, over = await _drop_game(server, "afterend")
    assert over["ratings"] and set(over["ratings"]) == {"ann", "bob"}
    view = await _view(ann)
    assert view["state"] == "over" and view["rated"] is True
    assert view["game"]["result"]["ratings"] == over["ratings"]
    ann.take_all()
    await ann.send({"type": "resync"})
    snapshot = await ann.next("snapshot")
    assert snapshot["view"]["game"]["result"]["ratings"] == over["ratings"]
    cy = await WsClient.connect(server.port, "cy")
    assert (await cy.command("/watch afterend"))["type"] == "ack"
    assert cy.view is not None and cy.view["rated"] is True
    assert cy.view["game"]["result"]["ratings"] == over["ratings"]


async def test_a_finished_practice_game_is_not_rated_and_has_no_ratings(make_server: ServerFactory) -> None:
    """A game whose room chose the seed reads unrated before, during and after, with no ratings."""
    server: Server = await make_server(resume_window=0.3)
    ann, over = await _drop_game(server, "practiced", "seed 8")
    assert over["ratings"] is None
    view = await _view(ann)
    assert view["state"] == "over" and view["rated"] is False
    assert view["game"]["result"]["ratings"] is None
