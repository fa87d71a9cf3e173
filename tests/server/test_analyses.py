"""Analyses of finished games over real sockets: ``/analyse GAME`` (WebSocket and line) queues one
and tells the asker when it is ready, ``GET /api/games/ID/analysis`` answers 202 then 200, it is
kept in the store once, a private game's is its players' alone, and nobody can queue unbounded
work (README, "Analysis"; PROTOCOL.md, sections 1, 3 and 5)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

from server.app import Server
from server.log.sqlite.store import Store
from tests.server.clients import LineClient, WsClient, http_get
from tests.server.conftest import ServerFactory
from tests.server.process import ServerProcess

JSON = "application/json"
MARKS = {"good", "inaccurate", "mistake", "blunder", "forced", None}
#: seconds an analysis may take to be ready in these tests
READY = 60.0
#: test settings: a quick analysis
QUICK: dict[str, Any] = {"analysis_budget": 0.01}


async def _game(
    server: Server, ann: WsClient, bob: WsClient, room: str, moves: int = 6, private: bool = False
) -> str:
    """ann and bob play ``moves`` moves in ``room`` (each the hint), then bob leaves (absent
    drop): the game is over. Its id."""
    await _played(ann, bob, room, moves, private)
    assert isinstance(server.store, Store)
    assert ann.name is not None
    return server.store.games_named(ann.name, 1)[0].game_id


async def _played(ann: WsClient, bob: WsClient, room: str, moves: int, private: bool = False) -> None:
    """The game of :func:`_game`, played to its end."""
    assert (await ann.command(f"/join {room}"))["type"] == "ack"
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    if private:
        assert (await ann.command("/option private on"))["type"] == "ack"
        assert (await ann.command("/invite bob"))["type"] == "ack"
    assert (await bob.command(f"/join {room}"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await ann.next("game_started")
    await bob.next("game_started")
    for _ in range(moves):
        await ann.barrier()
        await bob.barrier()
        assert ann.view is not None and ann.view["game"] is not None
        mover = ann if ann.view["game"]["to_move"] == ann.name else bob
        hint = await mover.request({"type": "hint"})
        assert (await mover.request({"type": "move", "move": hint["move"]}))["type"] == "ack"
    assert (await bob.command("/leave"))["type"] == "ack"
    await ann.next("game_over")


async def _ready(client: WsClient, game_id: str) -> dict[str, Any]:
    """The ``analysis`` that says the game's analysis is ready (its worker runs at a low priority,
    so on a busy machine it may take a while)."""
    return await client.next(
        lambda x: x["type"] == "analysis" and x["game"] == game_id and x["state"] == "ready", READY
    )


async def test_an_analysis_is_queued_told_when_ready_and_kept(make_server: ServerFactory) -> None:
    """ann asks over the WebSocket and bob at a terminal: one analysis runs, both are told; the
    HTTP API answers 202 while it runs and 200 with every move judged once it is kept; asking
    again answers ``ready`` at once, from the store."""
    server = await make_server(**QUICK)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    game_id = await _game(server, ann, bob, "cafe")
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "cy")
    answer = await ann.request({"type": "analyse", "game": game_id})
    assert answer == {
        "seq": answer["seq"],
        "id": answer["id"],
        "type": "analysis",
        "game": game_id,
        "state": "queued",
        "ahead": 0,
        "players": None,
    }
    pending = await http_get(server.port, f"/api/games/{game_id}/analysis", accept=JSON)
    assert pending.status == 202 and pending.json()["state"] in ("queued", "running")
    assert pending.json()["ahead"] == 0
    await line.line(f"/analyse {game_id}")
    await line.expect(f"* The analysis of game {game_id} is queued (place 1)")
    ready = await _ready(ann, game_id)
    assert ready["id"] is None and set(ready["players"]) == {"ann", "bob"}
    await line.expect(f"* The analysis of game {game_id} is ready: /games/{game_id}")
    await line.expect("accuracy")
    done = await http_get(server.port, f"/api/games/{game_id}/analysis", accept=JSON)
    assert done.status == 200
    body = done.json()
    assert body["id"] == game_id and body["state"] == "ready"
    assert [m["number"] for m in body["moves"]] == list(range(1, 8))
    assert body["moves"][-1] == {
        "number": 7,
        "player": "bob",
        "move": "leave bob",
        "mark": None,
        "cost": 0.0,
        "best": None,
        "value": None,
        "best_value": None,
        "samples": 0,
        "auto": None,
    }
    for move in body["moves"]:
        assert move["mark"] in MARKS and move["cost"] >= 0
    for name, figures in body["players"].items():
        judged = [m for m in body["moves"] if m["player"] == name and m["mark"] not in (None, "forced")]
        assert figures["moves"] == len(judged)
        assert abs(figures["total_cost"] - sum(m["cost"] for m in judged)) < 0.05
        assert 0 <= figures["accuracy"] <= 100
        assert ready["players"][name]["accuracy"] == figures["accuracy"]
    assert isinstance(server.store, Store)
    assert await server.store.analyses.analysis(game_id) == {
        k: v for k, v in body.items() if k not in ("id", "state")
    }
    again = await ann.request({"type": "analyse", "game": game_id})
    assert again["state"] == "ready" and again["players"] == ready["players"]
    assert not server.lobby.analyses.jobs


async def test_an_analysis_survives_a_restart_and_is_not_made_again(
    make_server: ServerFactory, tmp_path: Any
) -> None:
    """The analysis is kept in the log: after a restart it is read, not computed again."""
    server = await make_server(**QUICK)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    game_id = await _game(server, ann, bob, "cafe", moves=2)
    await ann.request({"type": "analyse", "game": game_id})
    await _ready(ann, game_id)
    first = (await http_get(server.port, f"/api/games/{game_id}/analysis")).json()
    await server.stop()
    server = await make_server(**QUICK)
    zoe = await WsClient.connect(server.port, "zoe")
    answer = await zoe.request({"type": "analyse", "game": game_id})
    assert answer["state"] == "ready"
    assert (await http_get(server.port, f"/api/games/{game_id}/analysis")).json() == first


async def test_a_stop_ends_the_analysis_that_runs_at_once(tmp_path: Path) -> None:
    """SIGTERM while an analysis runs (ten seconds a move, far longer than a stop may take): the
    server process exits 0 within seconds, its analysis worker with it, and the analysis is
    dropped, as one still queued is (ask again after the restart)."""
    data = tmp_path / "cafe.db"
    server = await ServerProcess.start(data, "--analysis-budget", "10", "--bot-workers", "0")
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    await _played(ann, bob, "cafe", moves=4)
    with contextlib.closing(sqlite3.connect(f"file:{data}?mode=ro", uri=True)) as db:
        (game_id,) = db.execute("SELECT id FROM games").fetchone()
    assert (await ann.request({"type": "analyse", "game": game_id}))["state"] == "queued"
    answer = await http_get(server.port, f"/api/games/{game_id}/analysis")
    assert (answer.status, answer.json()["state"]) == (202, "running")
    await asyncio.sleep(1.0)  # (the worker thinks about the first move)
    workers = _children(server.proc.pid)
    started = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(server.proc.wait(), 20) == 0
    assert time.monotonic() - started < 10
    deadline = time.monotonic() + 5  # (a child ended is reaped by whoever adopted it)
    while workers and [p for p in workers if _alive(p)] and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert workers and not [p for p in workers if _alive(p)]
    assert "analysis_done" not in [e["event"] for e in await server.logs()]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rpartition(")")[2].split()
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


async def test_refusals_each_have_their_code_and_change_nothing(make_server: ServerFactory) -> None:
    """An unknown game is ``no_such_game``, a running one ``not_finished``; a second game while
    one's analysis waits is ``analysis_pending``; more new analyses than the hour allows are
    ``too_many_analyses``; a full queue is ``analysis_busy``. Each refusal reaches its sender
    alone and queues nothing."""
    server = await make_server(analysis_budget=0.5, analysis_rate=2, analysis_queue=1)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    first = await _game(server, ann, bob, "one", moves=2)
    second = await _game(server, ann, bob, "two", moves=2)
    third = await _game(server, ann, bob, "three", moves=2)
    unknown = await ann.request({"type": "analyse", "game": "0000000000000000"})
    assert (unknown["code"], unknown["message"]) == (
        "no_such_game",
        "No game 0000000000000000 that you may read.",
    )
    assert (await ann.command("/join running"))["type"] == "ack"
    assert (await bob.command("/join running"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await ann.next("game_started")
    assert isinstance(server.store, Store)
    running = server.store.games_named("ann", 1)[0].game_id
    answer = await ann.command(f"/analyse {running}")
    assert answer["code"] == "not_finished"
    assert (await ann.request({"type": "analyse", "game": first}))["state"] == "queued"
    answer = await ann.request({"type": "analyse", "game": second})
    assert (answer["code"], answer["message"]) == (
        "analysis_pending",
        f"Your analysis of game {first} is not ready yet: one at a time.",
    )
    assert (await bob.request({"type": "analyse", "game": second}))[
        "state"
    ] == "queued"  # the queue's one place
    zoe = await WsClient.connect(server.port, "zoe")
    busy = await zoe.request({"type": "analyse", "game": third})
    assert busy["code"] == "analysis_busy"
    assert set(server.lobby.analyses.jobs) == {first, second}
    # the same game as someone else costs nothing: zoe waits for it too
    assert (await zoe.request({"type": "analyse", "game": first}))["state"] == "queued"
    await _ready(ann, first)
    await _ready(zoe, first)
    await _ready(bob, second)
    assert (await ann.request({"type": "analyse", "game": third}))["state"] == "queued"
    await _ready(ann, third)
    # ann asked for two new ones this hour (first, third): a third new one is refused
    fourth = await _game(server, ann, bob, "four", moves=1)
    answer = await ann.request({"type": "analyse", "game": fourth})
    assert (answer["code"], answer["message"]) == (
        "too_many_analyses",
        "You asked for 2 new analyses within an hour, the most allowed; try later.",
    )
    assert fourth not in server.lobby.analyses.jobs
    await ann.barrier()
    assert not [x for x in ann.take_all() if x["type"] == "analysis"]
    assert (await http_get(server.port, f"/api/games/{fourth}/analysis")).json() == {
        "error": "not analysed",
        "id": fourth,
        "state": None,
    }


async def test_a_game_id_that_is_not_one_is_refused_without_being_written_back(
    make_server: ServerFactory,
) -> None:
    """A game's id is letters and digits: one with control characters (a terminal's colours, a
    line of its own) is ``bad_field`` over the WebSocket and ``bad_arguments`` typed, and the
    answer does not repeat it."""
    server = await make_server(**QUICK)
    ann = await WsClient.connect(server.port, "ann")
    forged = "\u001b[31mRED\u001b[0m\nfake line"
    answer = await ann.request({"type": "analyse", "game": forged})
    assert answer["code"] == "bad_field" and "\u001b" not in answer["message"]
    answer = await ann.command("/analyse \u001b[31mRED")
    assert answer["code"] == "bad_arguments" and "\u001b" not in answer["message"]
    answer = await ann.command("/analyse ЖЖ")  # (said in words, not as a pattern)
    assert answer["message"].startswith("Game: a game's id is letters A to Z, digits, _ and -."), answer
    assert not server.lobby.analyses.jobs


async def test_an_address_past_its_analyses_is_told_so_not_the_newcomer(make_server: ServerFactory) -> None:
    """With one new analysis an hour for a person, an address may ask for three: a fourth person
    from it is refused (``too_many_analyses``) with the address's count, not with one of theirs."""
    server = await make_server(analysis_budget=0.05, analysis_rate=1)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    games = [await _game(server, ann, bob, f"g{n}", moves=1) for n in range(4)]
    askers = [ann, bob, await WsClient.connect(server.port, "cid")]
    for asker, game in zip(askers, games, strict=False):
        assert (await asker.request({"type": "analyse", "game": game}))["state"] == "queued"
    dan = await WsClient.connect(server.port, "dan")
    refused = await dan.request({"type": "analyse", "game": games[3]})
    assert (refused["code"], refused["message"]) == (
        "too_many_analyses",
        "Your address asked for 3 new analyses within an hour, the most allowed; try later.",
    )


async def test_one_address_waits_for_three_analyses_at_once_however_many_guests_it_holds(
    make_server: ServerFactory,
) -> None:
    """Each new guest is a new person with an analysis of their own to wait for: a fourth guest of
    the same address is refused (``analysis_pending``, with the address's count) while three of
    its analyses wait, and is let in once one is ready."""
    server = await make_server(analysis_budget=0.3)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    games = [await _game(server, ann, bob, f"g{n}", moves=2) for n in range(4)]
    guests = [await WsClient.connect(server.port, f"hog{n}") for n in range(4)]
    for guest, game in zip(guests[:3], games, strict=False):
        assert (await guest.request({"type": "analyse", "game": game}))["state"] == "queued"
    refused = await guests[3].request({"type": "analyse", "game": games[3]})
    assert (refused["code"], refused["message"]) == (
        "analysis_pending",
        "Your address waits for 3 analyses already, the most at once; ask again when one is ready.",
    )
    assert games[3] not in server.lobby.analyses.jobs
    await _ready(guests[0], games[0])
    assert (await guests[3].request({"type": "analyse", "game": games[3]}))["state"] == "queued"


async def test_the_analysis_awaited_follows_its_asker_through_register_and_unregister(
    make_server: ServerFactory,
) -> None:
    """gus asks as a guest and registers: his analysis is still his one at a time, and he is told
    it is ready. dan asks for his private game's and deletes his account: whoever registers the
    name next neither waits for it nor hears of it (nor of the game), and may ask for their own."""
    server = await make_server(analysis_budget=0.3)
    gus, bob = await WsClient.connect(server.port, "gus"), await WsClient.connect(server.port, "bob")
    first = await _game(server, gus, bob, "one", moves=2)
    second = await _game(server, gus, bob, "two", moves=2)
    assert (await gus.request({"type": "analyse", "game": first}))["state"] == "queued"
    assert (await gus.request({"type": "register", "password": "correct horse battery"}))["registered"]
    answer = await gus.request({"type": "analyse", "game": second})
    assert (answer["code"], answer["message"]) == (
        "analysis_pending",
        f"Your analysis of game {first} is not ready yet: one at a time.",
    )
    await _ready(gus, first)

    dan = await WsClient.connect(server.port, "dan")
    assert (await dan.request({"type": "register", "password": "correct horse battery"}))["registered"]
    assert isinstance(server.store, Store)
    await _played(dan, bob, "geheim", 2, private=True)
    private = server.store.games_named("dan", 1)[0].game_id
    assert (await dan.request({"type": "analyse", "game": private}))["state"] == "queued"
    assert (await dan.request({"type": "unregister", "password": "correct horse battery"}))[
        "registered"
    ] is False
    assert (await dan.command("/quit"))["type"] == "ack"  # (the name is free at once)
    await dan.close()
    heir = await WsClient.connect(server.port, "dan")
    assert (await heir.request({"type": "register", "password": "another horse battery"}))["registered"]
    assert (await heir.request({"type": "analyse", "game": second}))["state"] in ("queued", "ready")
    deadline = time.monotonic() + READY
    while private in server.lobby.analyses.jobs and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert private not in server.lobby.analyses.jobs
    await heir.barrier()
    assert not [x for x in heir.raw if private in x]


async def test_an_analysis_worker_that_died_idle_fails_no_analysis(make_server: ServerFactory) -> None:
    """The analysis worker is killed between two analyses: the next one is made all the same, in
    a fresh worker (and had it failed, it would not count against its asker's hour)."""
    server = await make_server(**QUICK)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    first = await _game(server, ann, bob, "one", moves=2)
    second = await _game(server, ann, bob, "two", moves=2)
    assert (await ann.request({"type": "analyse", "game": first}))["state"] == "queued"
    await _ready(ann, first)
    workers = server.lobby.analyses._workers
    assert workers._executor is not None
    pids = list(workers._executor._processes)  # (the pool's own table: the test's only way in)
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    await asyncio.sleep(0.5)  # (the pool notices its worker's death)
    assert (await ann.request({"type": "analyse", "game": second}))["state"] == "queued"
    await _ready(ann, second)
    await ann.barrier()
    assert not [x for x in ann.raw if "failed" in x]


async def test_a_private_games_analysis_is_its_players_alone(make_server: ServerFactory) -> None:
    """In a private room's game: a stranger's ``/analyse`` is ``no_such_game`` and the HTTP
    analysis is the 404 of a game that does not exist, with a token or without; its players
    ask for it and read it with their token."""
    server = await make_server(**QUICK)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    game_id = await _game(server, ann, bob, "geheim", moves=2, private=True)
    zoe = await WsClient.connect(server.port, "zoe")
    refused = await zoe.request({"type": "analyse", "game": game_id})
    assert (refused["code"], refused["message"]) == ("no_such_game", f"No game {game_id} that you may read.")
    assert not server.lobby.analyses.jobs
    assert (await bob.request({"type": "analyse", "game": game_id}))["state"] == "queued"
    await _ready(bob, game_id)
    path = f"/api/games/{game_id}/analysis"
    missing = await http_get(server.port, "/api/games/0000000000000000/analysis")
    assert (missing.status, missing.json()) == (404, {"error": "no such finished game"})
    for token in (None, zoe.token, "no-such-token"):
        answer = await http_get(server.port, path, token)
        assert (answer.status, answer.json()) == (404, missing.json())
    for player in (ann, bob):
        answer = await http_get(server.port, path, player.token)
        assert answer.status == 200 and answer.json()["state"] == "ready"


async def test_a_bystander_does_not_wait_while_an_analysis_runs(make_server: ServerFactory) -> None:
    """The analysis thinks in a worker process: a ping on the event loop is answered at once
    while it runs (each within half a second)."""
    server = await make_server(analysis_budget=0.2)
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    game_id = await _game(server, ann, bob, "cafe", moves=8)
    assert (await ann.request({"type": "analyse", "game": game_id}))["state"] == "queued"
    zoe = await WsClient.connect(server.port, "zoe")
    worst = 0.0
    pings = 0
    while server.lobby.analyses.jobs and pings < 40:
        started = time.perf_counter()
        await zoe.barrier()
        worst = max(worst, time.perf_counter() - started)
        pings += 1
        await asyncio.sleep(0.05)
    assert pings >= 5, "the analysis ended before the pings could tell"
    assert worst < 0.5
    await _ready(ann, game_id)
