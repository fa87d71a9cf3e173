"""Tournaments against abuse, over real sockets on one node: a bounded number of players, joins
bounded per address, a Swiss round that seats only those connected, guests who are gone put out,
a start at most a day ahead, tournaments counted per address, and a seat that goes only to the
player who entered, not to whoever holds the name now."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from server.app import Server
from server.tournament.director import Joins
from tests.server.clients import TIMEOUT, WsClient
from tests.server.conftest import ServerFactory
from tests.server.test_tournaments import _api, _registered, _started, _tables


async def _names(server: Server, number: int) -> list[str]:
    """The names in tournament ``number``'s standings."""
    return sorted(line["name"] for line in (await _api(server, f"/api/tournaments/{number}"))["standings"])


async def test_a_swiss_round_seats_only_those_connected(make_server: ServerFactory) -> None:
    """Before the start a guest who quit is out of the tournament (his name is gone); at the
    start a registered player who is not connected sits round 1 out (no table, no points, still
    in the standings): only the four connected players are seated, at two tables."""
    server: Server = await make_server()
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new flood swiss 2 size 2 start +1m"))["type"] == "tournament"
    eve = await _registered(server, "eve")
    assert (await eve.command("/tournament join flood"))["type"] == "ack"
    await eve.close()
    guests = {name: await WsClient.connect(server.port, name) for name in ("bob", "cy", "fay", "dee")}
    for client in guests.values():
        assert (await client.command("/tournament join flood"))["type"] == "ack"
    assert (await guests["dee"].request({"type": "command", "text": "/quit"}))["type"] == "ack"
    await guests["dee"].close()
    deadline = time.monotonic() + TIMEOUT
    while "dee" in (names := await _names(server, 1)):
        assert time.monotonic() < deadline, names
        await asyncio.sleep(0.05)
    assert names == ["ann", "bob", "cy", "eve", "fay"]

    _started(server)
    tables = await _tables(server, 1, 2)
    assert len(tables) == 2 and all(t["round"] == 1 for t in tables)
    assert sorted(p for t in tables for p in t["players"]) == ["ann", "bob", "cy", "fay"]
    shown = await _api(server, "/api/tournaments/1")
    eve_line = next(line for line in shown["standings"] if line["name"] == "eve")
    assert eve_line["points"] == 0.0


def _three_players_at_most(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.tournament.commands.TOURNAMENT_ENTRANTS_MAX", 3)


def _two_joins_an_hour(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    assert server.tournaments is not None
    server.tournaments.joins = Joins(per_hour=2)


@pytest.mark.parametrize(
    ("bound", "code"),
    [(_three_players_at_most, "tournament_full"), (_two_joins_an_hour, "rate_limited")],
    ids=["players", "joins-per-address"],
)
async def test_joins_past_a_bound_are_refused_and_change_nothing(
    server: Server,
    monkeypatch: pytest.MonkeyPatch,
    bound: Callable[[Server, pytest.MonkeyPatch], None],
    code: str,
) -> None:
    """Once a tournament has as many players as it takes (``tournament_full``), or an address
    joined tournaments as often as an hour allows, whatever name it uses (``rate_limited``), the
    next join is refused, to that player alone, and the standings stay as they were."""
    bound(server, monkeypatch)
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup swiss 3 start +10m"))["type"] == "tournament"
    for name in ("bob", "cy"):
        client = await WsClient.connect(server.port, name)
        assert (await client.command("/tournament join cup"))["type"] == "ack"
    dee = await WsClient.connect(server.port, "dee")
    refused = await dee.command("/tournament join cup")
    assert refused["type"] == "error" and refused["code"] == code, refused
    assert await _names(server, 1) == ["ann", "bob", "cy"]


async def test_a_start_is_at_most_a_day_ahead(server: Server) -> None:
    """``start +1440m`` is the furthest start; further is refused, as a command and as the
    message's field (its JSON Schema bounds it), and no tournament is made."""
    ann = await _registered(server, "ann")
    for line in ("/tournament new far swiss 3 start +1441m", "/tournament new far swiss 3 start +9999m"):
        answer = await ann.command(line)
        assert answer["type"] == "error" and answer["code"] == "bad_arguments", answer
    sent: dict[str, Any] = {"type": "tournament", "action": "new", "name": "far", "kind": "swiss"}
    answer = await ann.request({**sent, "rounds": 3, "start": "+9999m"})
    assert answer["type"] == "error" and answer["code"] == "bad_field", answer
    assert (await ann.request({"type": "tournaments"}))["upcoming"] == []
    made = await ann.command("/tournament new far swiss 3 start +1440m")
    assert made["type"] == "tournament"
    assert 1439 * 60 < made["tournament"]["starts"] - time.time() <= 1440 * 60


async def test_tournaments_are_counted_per_address(server: Server) -> None:
    """Three accounts from one address make three tournaments; a fourth account from the same
    address is refused (``too_many_tournaments``), as one person would be."""
    for number, name in enumerate(("ann", "bob", "cy", "dee")):
        client = await _registered(server, name)
        answer = await client.command(f"/tournament new t{number} arena 30 start +10m")
        if number < 3:
            assert answer["type"] == "tournament", answer
        else:
            assert answer["type"] == "error" and answer["code"] == "too_many_tournaments", answer
    assert len((await client.request({"type": "tournaments"}))["upcoming"]) == 3


async def test_a_seat_goes_to_the_player_who_entered_not_to_the_name(server: Server) -> None:
    """Guest carl joins and quits; someone else says hello as carl: their ``join`` is refused
    (``name_taken``), and at the start the table made for carl does not take them to his seat,
    while ann is seated."""
    assert server.tournaments is not None
    director = server.tournaments
    looked = director.people

    async def carl_held() -> Mapping[str, str | None]:
        # (the director looks at who is connected once a second: carl stays "connected" to it,
        # so that the instant between the quit and the new hello cannot put him out first)
        return {"carl": None, **await looked()}

    director.people = carl_held
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup swiss 1 size 2 start +1m"))["type"] == "tournament"
    carl = await WsClient.connect(server.port, "carl")
    assert (await carl.command("/tournament join cup"))["type"] == "ack"
    assert (await carl.request({"type": "command", "text": "/quit"}))["type"] == "ack"
    await carl.close()
    other = await WsClient.connect(server.port, "carl")
    refused = await other.command("/tournament join cup")
    assert refused["type"] == "error" and refused["code"] == "name_taken", refused

    _started(server)
    (table,) = await _tables(server, 1, 1)
    assert sorted(table["players"]) == ["ann", "carl"]
    seated = await ann.next("seated")
    assert seated["room"] == table["room"]
    await other.settle()
    assert not [x for x in other.take_all() if x["type"] == "seated"]
    assert other.view is None or other.view.get("room") != table["room"]


async def test_a_join_counts_against_its_address_only_when_it_enters(server: Server) -> None:
    """An address may join twice an hour here. A guest joins cup, then joins it again and again:
    each answer says he is in already, and the tournament is not written again; those joins used
    none of the hour's, so he still joins bowl, and only the next join from the address is
    refused (``rate_limited``)."""
    assert server.tournaments is not None
    server.tournaments.joins = Joins(per_hour=2)
    for name, tournament in (("ann", "cup"), ("bob", "bowl")):
        client = await _registered(server, name)
        made = await client.command(f"/tournament new {tournament} swiss 3 start +10m")
        assert made["type"] == "tournament", made
    gus = await WsClient.connect(server.port, "gus")
    assert (await gus.command("/tournament join cup"))["type"] == "ack"
    before = await server.store.tournaments.tournament(1)
    for _ in range(3):
        assert (await gus.command("/tournament join cup"))["type"] == "ack"
    notices = [x["text"] for x in gus.messages if x["type"] == "notice"]
    assert notices[-3:] == ["You are in tournament cup already."] * 3, notices
    after = await server.store.tournaments.tournament(1)
    assert before is not None and after is not None and after.version == before.version
    assert (await gus.command("/tournament join bowl"))["type"] == "ack"
    dee = await WsClient.connect(server.port, "dee")
    refused = await dee.command("/tournament join bowl")
    assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
    assert await _names(server, 2) == ["bob", "gus"]


async def test_tournaments_made_and_closed_in_a_loop_are_bounded_per_address(server: Server) -> None:
    """One address makes and closes tournaments in a loop: ten an hour, closed ones counted; the
    eleventh is ``rate_limited`` and makes nothing, so the list of recent ones is not all spam."""
    ann = await _registered(server, "ann")
    for number in range(10):
        made = await ann.command(f"/tournament new t{number} arena 30 start +10m")
        assert made["type"] == "tournament", made
        assert (await ann.command(f"/tournament close t{number}"))["type"] == "ack"
    refused = await ann.command("/tournament new t10 arena 30 start +10m")
    assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
    listed = await ann.request({"type": "tournaments"})
    assert listed["upcoming"] == [] and "t10" not in {t["name"] for t in listed["recent"]}
