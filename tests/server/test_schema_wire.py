"""Every frame of real games, as a client receives it over a socket, is valid under the published
schema's ``#/server``: the room's view in snapshots, each patch's operations and each move's events
have their shapes there, not only the messages around them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocol.diff import apply_patch
from protocol.schema import build_schema
from server.app import Server
from tests.server.clients import WsClient
from tests.server.conftest import ServerFactory

jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")


def _validator(where: str) -> Any:
    registry = referencing.Registry().with_resource(
        "urn:cafe-protocol", referencing.Resource.from_contents(build_schema())
    )
    return jsonschema.Draft202012Validator({"$ref": f"urn:cafe-protocol#/{where}"}, registry=registry)


async def _game(server: Server, name: str, *options: str, bots: int, stand: bool = False) -> WsClient:
    """``name`` and ``bots`` greedy bots play a game with ``options`` to its end on a half-second
    clock that plays ``name``'s moves (and, after three, hands the seat to a bot); with ``stand``
    (and ``absent drop``) ``name`` leaves the game as it begins. Then a resync."""
    client = await WsClient.connect(server.port, name)
    assert (await client.command(f"/join {name}-room"))["type"] == "ack"
    for option in ("clock 0.5", *options):
        assert (await client.command(f"/option {option}"))["type"] == "ack"
    for _ in range(bots):
        assert (await client.command("/addbot greedy"))["type"] == "ack"
    assert (await client.command("/start"))["type"] == "ack"
    if stand:
        assert (await client.command("/stand"))["type"] == "ack"
    await client.next("game_over", timeout=120)
    await client.send({"type": "resync", "id": "again"})
    await client.next(lambda x: x["type"] == "snapshot" and x["id"] == "again")
    return client


async def test_every_frame_of_real_games_is_valid_under_the_schema(make_server: ServerFactory) -> None:
    """Four games (two to four players, the Stammtisch on and off, a chosen seed shown as "set",
    moves the clock played, a player leaving the game): every frame validates, and the schema
    would refuse a view with a field it does not describe."""
    server: Server = await make_server(clock_min=0.1)
    validator, views = _validator("server"), _validator("server/$defs/View")
    clients = [
        await _game(server, "ann", "seed 4", "stammtisch on", bots=3),
        await _game(server, "bob", "seed 5", bots=1),
        await _game(server, "cid", "seed 6", "stammtisch on", bots=2),
        await _game(server, "dan", "seed 7", "absent drop", bots=2, stand=True),
    ]
    frames = [json.loads(raw) for client in clients for raw in client.raw]
    problems = [(f["type"], e.message[:200]) for f in frames for e in validator.iter_errors(f)]
    assert problems == []
    seeds = []
    for client in clients:  # every view a client holds as the patches come, not only snapshots
        view: dict[str, Any] | None = None
        for frame in map(json.loads, client.raw):
            if frame["type"] in ("snapshot", "patch"):
                view = frame["view"] if frame["type"] == "snapshot" else apply_patch(view, frame["ops"])
                assert view is not None and [e.message[:200] for e in views.iter_errors(view)] == []
                seeds.append(view["options"]["seed"])
    assert len(seeds) > 100 and "set" in seeds  # (a seed the room chose shows as "set" while it runs)
    kinds = {f["type"] for f in frames}
    assert {"snapshot", "patch", "played", "game_started", "game_over"} <= kinds
    events = {e["type"] for f in frames if f["type"] == "played" for e in f["events"]}
    assert {"seat", "bar", "draw", "left"} <= events, events
    assert any(f["type"] == "snapshot" and f["view"]["game"] and f["view"]["game"]["result"] for f in frames)
    snapshot = next(f for f in frames if f["type"] == "snapshot" and f["view"]["game"])
    snapshot["view"]["game"]["secret"] = 1
    assert list(validator.iter_errors(snapshot))
