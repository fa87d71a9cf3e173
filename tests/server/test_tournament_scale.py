"""Tournaments at scale: an answer about a tournament that made a thousand tables stays small
(over WebSocket, HTTP and the line endpoint), and the director looks at who is connected once a
tick at most, and not at all while no tournament needs it."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Mapping
from typing import Any

import pytest

from protocol.text.tournaments import FINISHED_SHOWN
from server.app import Server
from server.ratings import ACCOUNT
from server.tournament import views
from server.tournament.standings import Line
from server.tournament.state import ARENA_LAST, Tournament
from server.tournament.views import FINISHED_TABLES
from tests.server.clients import TIMEOUT, LineClient, WsClient
from tests.server.test_tournament_abuse import _names
from tests.server.test_tournaments import _api, _registered

#: the tables written into the tournament of the first test
MADE = 1000


def _finished(number: int, players: list[str]) -> dict[str, Any]:
    """A finished table of the stored state: its first player won."""
    return {
        "number": number,
        "round": 0,
        "players": players,
        "started": 0.0,
        "room": f"t1-{number}",
        "game_id": f"{number:016x}",
        "places": {name: place for place, name in enumerate(players, 1)},
        "scores": {name: 10 * (len(players) - place) for place, name in enumerate(players)},
    }


async def _arena_of_a_thousand_tables(server: Server, number: int = 1) -> None:
    """Tournament ``number``, an arena closed after :data:`MADE` tables of ann, bob, cy and dee (as
    one whose players abandon their games at once made in seconds); tables 3 and the last still
    play."""
    stored = await server.store.tournaments.tournament(number)
    assert stored is not None
    names = ["ann", "bob", "cy", "dee"]
    tables = [_finished(n, [names[n % 4], names[(n + 1) % 4]]) for n in range(1, MADE + 1)]
    for running in (tables[2], tables[-1]):
        running["places"] = running["scores"] = None
    state = {
        **stored.state,
        "status": "closed",
        "closed_by": "ann",
        "finished": time.time(),
        "entrants": [
            {"name": n, "rating": 1000, "active": True, "bye": False, "identity": f"{ACCOUNT}{n}"}
            for n in names
        ],
        "tables": tables,
        "waiting": {},
    }
    assert await server.store.tournaments.tournament_saved(stored.version, state)


async def test_a_tournament_of_a_thousand_tables_is_answered_in_few(server: Server) -> None:
    """An arena that made a thousand tables: ``tournament`` (WebSocket) and
    ``GET /api/tournaments/ID`` list its two running tables (an old one too) and the latest 20
    finished, latest first, with ``table_count`` 1000; the standings count every game; the answer
    is under 8 KB (every table listed, it was 145 KB). A terminal reads its latest tables."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new churn arena 720 size 2 start +10m"))["type"] == "tournament"
    await _arena_of_a_thousand_tables(server)

    shown = await ann.request({"type": "tournament", "name": "churn"})
    over = list(range(MADE - 1, 0, -1))
    over.remove(3)
    assert [x["number"] for x in shown["tables"]] == [MADE, 3, *over[:FINISHED_TABLES]]
    assert [x["places"] is None for x in shown["tables"]] == [True, True] + [False] * FINISHED_TABLES
    assert shown["table_count"] == MADE
    assert sum(line["games"] for line in shown["standings"]) == 2 * (MADE - 2)
    assert shown["tournament"]["leader"] == shown["standings"][0]["name"]
    assert len(json.dumps(shown)) < 8_000, len(json.dumps(shown))
    api = await _api(server, "/api/tournaments/1")
    assert api["tables"] == shown["tables"] and api["table_count"] == MADE
    assert api["standings"] == shown["standings"]

    terminal = await LineClient.connect(server.line_port or 0, "lea")
    await terminal.line("/tournament churn")
    await terminal.expect(f"Tables (the latest {2 + FINISHED_SHOWN} of {MADE}):")
    text = await terminal.expect(f"{MADE - 1}  over: 1.")
    assert f"{MADE}  " in text
    await terminal.close()


async def _ticks(server: Server, count: int) -> list[int]:
    """How many times the director asked who is connected in each of its next ``count`` ticks."""
    director = server.tournaments
    assert director is not None
    looked = director.people
    tick = director.tick
    asked = 0
    per_tick: list[int] = []

    async def counted_people() -> Mapping[str, str | None]:
        nonlocal asked
        asked += 1
        return await looked()

    async def counted_tick() -> None:
        before = asked
        await tick()
        per_tick.append(asked - before)

    director.people = counted_people
    director.tick = counted_tick  # type: ignore[method-assign]
    try:
        deadline = time.monotonic() + TIMEOUT
        while len(per_tick) < count:
            assert time.monotonic() < deadline, per_tick
            director.poke()
            await asyncio.sleep(0.02)
    finally:
        director.people = looked
        director.tick = tick  # type: ignore[method-assign]
    return per_tick


async def test_the_director_looks_at_who_is_here_once_a_tick_at_most(server: Server) -> None:
    """Three upcoming tournaments of registered players: a tick asks nobody who is connected (a
    look builds every connection's line: with thousands connected and fifty tournaments it was
    a third of a CPU). Once a guest is in two of them (a guest gone is out), each tick looks once,
    for both; when he quits he is out of both."""
    for number, name in enumerate(("ann", "bob", "cy")):
        client = await _registered(server, name)
        made = await client.command(f"/tournament new t{number} arena 30 start +10m")
        assert made["type"] == "tournament", made
    assert set(await _ticks(server, 3)) == {0}

    gus = await WsClient.connect(server.port, "gus")
    for number in (0, 1):
        assert (await gus.command(f"/tournament join t{number}"))["type"] == "ack"
    assert set(await _ticks(server, 3)) == {1}

    assert (await gus.request({"type": "command", "text": "/quit"}))["type"] == "ack"
    await gus.close()
    deadline = time.monotonic() + TIMEOUT
    for number in (1, 2):
        while "gus" in await _names(server, number):
            assert time.monotonic() < deadline, number
            await asyncio.sleep(0.05)


def test_a_tournament_that_reads_nobody_seats_as_it_would_with_anyone() -> None:
    """Whenever a tournament says it needs no look at who is connected (``reads_present``), what
    is due is the same whether everyone or nobody is connected: random Swiss and arena
    tournaments of accounts, with joins, leaves and games ending, at every step."""
    rng = random.Random(11)
    skipped = looked = 0
    for case in range(60):
        kind = rng.choice(["swiss", "arena"])
        rounds = rng.randint(1, 4) if kind == "swiss" else None
        minutes = rng.randint(5, 8) if kind == "arena" else None
        t = Tournament(case, "t", kind, rng.choice([2, 3, 4]), 30, 100.0, "p0", 0.0, rounds, minutes)
        names = [f"p{i}" for i in range(rng.randint(1, 9))]
        now = 0.0
        for _ in range(80):
            now += rng.choice([1.0, 5.0, 20.0, 40.0])
            name = rng.choice(names)
            if rng.random() < 0.2 and t.open_to_join(now):
                t.join(name, rng.randint(900, 1100), now, f"{ACCOUNT}{name}")
            elif rng.random() < 0.05:
                t.leave(name)
            for table in t.running_tables():
                if rng.random() < 0.3:
                    order = rng.sample(table.players, len(table.players))
                    t.game_over(table.number, {p: i + 1 for i, p in enumerate(order)}, {}, now)
            if t.reads_present(now):
                looked += 1
                t.due(now, {n.casefold() for n in names})
                continue
            skipped += 1
            nobody = Tournament.from_dict(t.to_dict())
            assert t.due(now, None) == nobody.due(now, set()), (case, now)
            assert t.to_dict() == nobody.to_dict(), (case, now)
            if t.kind == "arena" and t.ends is not None and now > t.ends + ARENA_LAST:
                break
    assert skipped > 100 and looked > 100, (skipped, looked)


def test_an_answer_computes_the_standings_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``tournament`` reads the standings for its lines and for its leader: they are computed once
    (over every game the tournament played, the costliest part of the answer)."""
    t = Tournament(1, "cup", "swiss", 2, 30, 0.0, "a", 0.0, rounds=1)
    for name in ("a", "b"):
        t.join(name, 1000, 0.0)
    (table,) = t.due(0.0)
    t.game_over(table.number, {"a": 1, "b": 2}, {}, 1.0)
    computed = Tournament.standings
    calls = 0

    def counted(self: Tournament) -> list[Line]:
        nonlocal calls
        calls += 1
        return computed(self)

    monkeypatch.setattr(Tournament, "standings", counted)
    shown = views.info(t)
    assert calls == 1 and shown.tournament.leader == "a" and shown.standings[0].points == 1.0
