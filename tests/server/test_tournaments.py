"""Tournaments over real sockets on one node: made, joined and shown over WebSocket and the line
endpoint, Swiss rounds seated when the last table of the round before has ended, results and
standings, the HTTP API, the refusals' codes, and a restart mid-round that loses nothing."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from server.app import Server
from server.log.contract import OPERATOR
from tests.server.clients import TIMEOUT, LineClient, WsClient, bot_game, http_get
from tests.server.conftest import ServerFactory

PASSWORD = "correct horse"


async def _registered(server: Server, name: str) -> WsClient:
    client = await WsClient.connect(server.port, name)
    welcome = await client.request({"type": "register", "password": PASSWORD})
    assert welcome["type"] == "welcome" and welcome["registered"], welcome
    client.token = welcome["token"]
    return client


def _started(server: Server, seconds: float = 61.0) -> None:
    """Move the director's clock past the start, and make it look at once."""
    server.tournaments.clock = lambda: time.time() + seconds
    server.tournaments.poke()


async def _api(server: Server, path: str) -> Any:
    answer = await http_get(server.port, path)
    assert answer.status == 200, answer
    return answer.json()


async def _tables(server: Server, number: int, count: int) -> list[dict[str, Any]]:
    """The tables of tournament ``number`` once ``count`` of them have their games."""
    found: list[dict[str, Any]] = []

    async def made() -> bool:
        nonlocal found
        found = (await _api(server, f"/api/tournaments/{number}"))["tables"]
        return sum(1 for t in found if t["game"] is not None) >= count

    deadline = time.monotonic() + TIMEOUT
    while not await made():
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.05)
    return found


async def _status(server: Server, number: int, status: str) -> Any:
    """Tournament ``number`` from the API once its status is ``status``."""
    deadline = time.monotonic() + TIMEOUT
    while (found := await _api(server, f"/api/tournaments/{number}"))["tournament"]["status"] != status:
        assert time.monotonic() < deadline, found["tournament"]
        await asyncio.sleep(0.05)
    return found


async def test_a_swiss_is_made_joined_played_and_ranked(make_server: ServerFactory) -> None:
    """A registered player makes a Swiss of 2 rounds at tables of 2; three others join over
    WebSocket and a terminal. At the start each is seated (``seated``); a table's game ends when
    one player leaves its room (the drop the tournament's rooms use); round 2 is seated only
    once both tables of round 1 ended, with no one facing the same opponent; the standings
    give 1 point a win, and the API shows the rounds and games. The list says to each whether
    they are in (``entered``)."""
    server: Server = await make_server()
    ann = await _registered(server, "ann")
    made = await ann.command("/tournament new cup swiss 2 size 2 clock 30 start +1m")
    assert made["type"] == "tournament", made
    assert made["tournament"]["status"] == "upcoming" and made["tournament"]["players"] == 1
    assert made["tournament"]["kind"] == "swiss" and made["tournament"]["rounds"] == 2
    number = made["tournament"]["id"]
    clients: dict[str, WsClient] = {"ann": ann}
    for name in ("bob", "dee"):
        clients[name] = await WsClient.connect(server.port, name)
        joined = await clients[name].request({"type": "tournament", "action": "join", "name": "CUP"})
        assert joined["type"] == "ack"
    cy = await LineClient.connect(server.line_port or 0, "cy")
    await cy.line("/tournament join cup")
    await cy.expect("You are in tournament cup")
    listed = await ann.request({"type": "tournaments"})
    assert [t["name"] for t in listed["upcoming"]] == ["cup"] and listed["upcoming"][0]["players"] == 4
    assert listed["upcoming"][0]["entered"] is True  # (ann is in it; someone who is not reads false)
    outsider = await WsClient.connect(server.port, "out")
    assert (await outsider.request({"type": "tournaments"}))["upcoming"][0]["entered"] is False

    _started(server)
    first = await _tables(server, number, 2)
    assert sorted(len(t["players"]) for t in first) == [2, 2] and all(t["round"] == 1 for t in first)
    for name in ("ann", "bob", "dee"):
        seated = await clients[name].next("seated")
        assert any(seated["room"] == t["room"] for t in first)
    await cy.expect("Your table is ready in room")

    async def lose(name: str) -> None:
        if name == "cy":
            await cy.line("/leave")
        else:
            await clients[name].request({"type": "leave_room"})

    met = set()
    for table in first:
        met.add(frozenset(table["players"]))
        await lose(sorted(table["players"])[1])  # the later name loses its game
    second = [t for t in await _tables(server, number, 4) if t["round"] == 2]
    assert len(second) == 2 and not met & {frozenset(t["players"]) for t in second}
    shown = await ann.request({"type": "tournament", "name": "cup"})
    assert shown["tournament"]["round"] == 2 and shown["tournament"]["status"] == "running"
    points = {line["name"]: line["points"] for line in shown["standings"]}
    winners = {sorted(t["players"])[0] for t in first}
    assert {n for n, p in points.items() if p == 1.0} == winners and sum(points.values()) == 2.0
    await cy.line("/tournament cup")
    await cy.expect("Round 2 of 2 is played.")
    text = await cy.expect("Tables:")
    assert all(len(line) <= 80 for line in text.splitlines())

    for table in second:
        await lose(sorted(table["players"])[1])
    final = await _status(server, number, "finished")
    assert len(final["tables"]) == 4 and all(t["places"] for t in final["tables"])
    assert final["standings"][0]["points"] == 2.0 and final["standings"][-1]["points"] == 0.0
    winner = final["standings"][0]["name"]
    for name in ("ann", "bob", "dee"):  # each entrant still in is told the end, and who won
        over = await clients[name].next(lambda m: m["type"] == "notice" and "is over" in m["text"])
        assert over["text"] == f"Tournament cup is over. Winner: {winner}."
    await cy.expect(f"Tournament cup is over. Winner: {winner}.")
    assert [t["name"] for t in (await _api(server, "/api/tournaments"))["recent"]] == ["cup"]


async def test_refusals_change_nothing(server: Server) -> None:
    """Each wrong request is answered with its code, to its sender alone, and leaves the
    tournament as it was: a guest making one, a name in use, an unknown name, a bad kind, a
    clock too short, leaving what one is not in, closing another's."""
    guest = await WsClient.connect(server.port, "gus")
    refused = await guest.command("/tournament new cup swiss 3")
    assert refused["code"] == "not_registered"
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup swiss 3 start +1m"))["type"] == "tournament"
    codes = {
        "/tournament new CUP arena 30": "tournament_exists",
        "/tournament nope": "no_such_tournament",
        "/tournament join nope": "no_such_tournament",
        "/tournament new other swiss x": "bad_arguments",
        "/tournament new -x swiss 3": "bad_arguments",  # (a name of another form, as typed)
        "/tournament new other swiss 3 clock 1": "bad_field",
        "/tournament new other swiss 3 start 25:00": "bad_arguments",
    }
    for line, code in codes.items():
        answer = await ann.command(line)
        assert answer["type"] == "error" and answer["code"] == code, (line, answer)
    wrong = await ann.request(
        {"type": "tournament", "action": "new", "name": "x", "kind": "swiss", "minutes": 30}
    )
    assert wrong["code"] == "bad_field"
    assert (await guest.command("/tournament leave cup"))["code"] == "not_entered"
    assert (await guest.command("/tournament close cup"))["code"] == "not_organizer"
    await guest.barrier()
    assert not [m for m in guest.take_all() if m["type"] == "notice"]
    shown = await guest.request({"type": "tournament", "name": "cup"})
    assert shown["tournament"]["status"] == "upcoming" and [s["name"] for s in shown["standings"]] == ["ann"]
    assert (await ann.command("/tournament close cup"))["type"] == "ack"
    assert (await guest.command("/tournament join cup"))["code"] == "tournament_closed"
    assert (await guest.command("/tournament leave cup"))["code"] == "not_entered"  # (never in it)
    assert (await ann.command("/tournament leave cup"))["code"] == "tournament_closed"
    listed = await guest.request({"type": "tournaments"})
    assert listed["upcoming"] == [] and [t["status"] for t in listed["recent"]] == ["closed"]
    missing = await http_get(server.port, "/api/tournaments/99")
    assert missing.status == 404 and missing.json() == {"error": "no_such_tournament"}


async def test_whoever_takes_a_creators_name_later_is_not_its_organizer(server: Server) -> None:
    """ann makes a tournament, leaves it (a player in it keeps the account until it is over:
    ``already_playing``), then deletes her account and quits; a stranger who takes the name
    ``ann``, as a guest and then registered anew, is refused ``close`` (``not_organizer``) and it
    stays upcoming."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup swiss 3 start +1m"))["type"] == "tournament"
    refused = await ann.request({"type": "unregister", "password": PASSWORD})
    assert refused["code"] == "already_playing" and "cup" in refused["message"]
    assert (await ann.command("/tournament leave cup"))["type"] == "ack"
    gone = await ann.request({"type": "unregister", "password": PASSWORD})
    assert gone["type"] == "welcome" and gone["registered"] is False
    await ann.command("/quit")
    await ann.close()
    stranger = await WsClient.connect(server.port, "ann")
    refused = await stranger.command("/tournament close cup")
    assert refused["code"] == "not_organizer"
    # (not "Only ann, who made ...": the stranger is ann too)
    assert refused["message"] == "Only the player who made tournament cup may close it."
    welcome = await stranger.request({"type": "register", "password": "another horse"})
    assert welcome["type"] == "welcome" and welcome["registered"], welcome
    assert (await stranger.command("/tournament close cup"))["code"] == "not_organizer"
    shown = await stranger.request({"type": "tournament", "name": "cup"})
    assert shown["tournament"]["status"] == "upcoming"


async def test_a_creator_who_deletes_the_account_still_closes_what_they_made(server: Server) -> None:
    """The tournaments someone made stay theirs when their account goes: ann, a guest now on the
    same connection, may still close hers."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup swiss 3 start +1m"))["type"] == "tournament"
    assert (await ann.command("/tournament leave cup"))["type"] == "ack"
    gone = await ann.request({"type": "unregister", "password": PASSWORD})
    assert gone["type"] == "welcome" and gone["registered"] is False
    assert (await ann.command("/tournament close cup"))["type"] == "ack"
    shown = await ann.request({"type": "tournament", "name": "cup"})
    assert shown["tournament"]["status"] == "closed"


async def test_a_player_in_a_tournament_keeps_their_name_until_they_leave_it(server: Server) -> None:
    """A tournament knows its players by name: a guest who joined one is refused ``/nick``
    (``already_playing``, naming it) until they leave it."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup swiss 3 start +1m"))["type"] == "tournament"
    gus = await WsClient.connect(server.port, "gus")
    assert (await gus.command("/tournament join cup"))["type"] == "ack"
    refused = await gus.command("/nick gus2")
    assert (refused["type"], refused["code"]) == ("error", "already_playing") and "cup" in refused["message"]
    assert (await gus.command("/tournament leave cup"))["type"] == "ack"
    notices = [m["text"] for m in gus.messages if m["type"] == "notice"]
    assert notices[-1] == "You left tournament cup before its start.", notices  # (no points yet)
    assert (await gus.command("/nick gus2"))["type"] == "welcome"


async def test_a_bad_start_is_told_in_a_sentence(server: Server) -> None:
    """A start past +1440m (or a time that is none) is told in a sentence saying what start takes
    (``bad_field`` for the JSON message, ``bad_arguments`` with the usage for the line command),
    never a raw pattern; nothing is made; a terminal reads the same sentence (German too)."""
    ann = await _registered(server, "ann")
    sentence = "The start is +MINUTESm (from now, at most +1440m) or HH:MM (UTC)."
    json = await ann.request(
        {"type": "tournament", "action": "new", "name": "far", "kind": "swiss", "rounds": 3, "start": "9h"}
    )
    assert (json["code"], json["message"]) == ("bad_field", f"Field 'start': t{sentence[1:]}"), json
    line = await ann.command("/tournament new far swiss 3 start +1441m")
    assert line["code"] == "bad_arguments" and line["message"].startswith(sentence), line
    assert "[0-9]" not in line["message"]
    far = {"type": "tournament", "action": "new", "name": "far", "kind": "swiss", "rounds": 3}
    for hour in ("25:00", "12:60"):  # a time of day that is none: the same codes
        json = await ann.request({**far, "start": hour})
        assert (json["code"], json["message"]) == ("bad_field", f"Field 'start': t{sentence[1:]}"), json
        line = await ann.command(f"/tournament new far swiss 3 start {hour}")
        assert line["code"] == "bad_arguments" and line["message"].startswith(sentence), line
    # a clock below --clock-min, which the server checks against its setting: bad_field either way
    json = await ann.request({**far, "clock": 1})
    assert json["code"] == "bad_field" and "clock is 5 to 3600 seconds" in json["message"], json
    assert (await ann.command("/tournament new far swiss 3 clock 1"))["code"] == "bad_field"
    listed = await ann.request({"type": "tournaments"})
    assert listed["upcoming"] == [], listed
    de = await LineClient.connect(server.line_port or 0, "dora")
    await de.line("/lang de")
    await de.line("/tournament new far swiss 3 start +1441m")
    await de.expect("Der Start ist +MINUTENm (ab jetzt, höchstens +1440m) oder HH:MM (UTC).")
    await de.close()


async def test_one_round_is_one_round_in_english_and_german(server: Server) -> None:
    """A Swiss of one round reads "a Swiss of 1 round" (German "mit 1 Runde") when it is made
    and at a terminal; of two, "2 rounds"."""
    ann = await _registered(server, "ann")
    await ann.command("/tournament new one swiss 1 start +5m")
    made = next(x for x in ann.messages if x["type"] == "notice" and "is made" in x["text"])
    assert "a Swiss of 1 round at tables of 4" in made["text"], made
    await ann.command("/tournament new two swiss 2 start +5m")
    line = await LineClient.connect(server.line_port or 0, "lea")
    await line.line("/tournament one")
    await line.expect("Tournament one: a Swiss of 1 round at tables of 4")
    await line.line("/tournament two")
    await line.expect("Tournament two: a Swiss of 2 rounds at tables of 4")
    await line.line("/lang de")
    await line.line("/tournament one")
    await line.expect("Turnier one: Schweizer System mit 1 Runde an Tischen zu 4")
    await line.close()


async def test_a_restart_mid_round_loses_nothing(make_server: ServerFactory) -> None:
    """A Swiss's round 1 runs when the server stops; the next server takes the tournament and
    the game up from the log: the players come back with their tokens to their seats, the game
    ends, and the tournament goes on to its end from there."""
    first: Server = await make_server()
    ann = await _registered(server=first, name="ann")
    assert (await ann.command("/tournament new cup swiss 1 size 2 start +1m"))["type"] == "tournament"
    bob = await WsClient.connect(first.port, "bob")
    assert (await bob.command("/tournament join cup"))["type"] == "ack"
    _started(first)
    (table,) = await _tables(first, 1, 1)
    await bob.next("seated")
    await first.stop()

    second: Server = await make_server()
    bob_again = await WsClient.connect(second.port, "bob", token=bob.token)
    snapshot = await bob_again.next(lambda x: x["type"] == "snapshot" and x["view"]["room"] == table["room"])
    assert snapshot["view"]["state"] == "playing" and snapshot["view"]["seat"] is not None
    shown = await bob_again.request({"type": "tournament", "name": "cup"})
    assert shown["tournament"]["status"] == "running" and shown["tables"][0]["game"] == table["game"]
    assert (await bob_again.request({"type": "leave_room"}))["type"] == "ack"  # he leaves the game: ann wins
    final = await _status(second, 1, "finished")
    assert [(s["name"], s["points"]) for s in final["standings"]] == [("ann", 1.0), ("bob", 0.0)]


async def test_the_staff_close_anothers_tournament_logged_first(server: Server) -> None:
    """A moderator (a role in the store) closes a tournament someone else made; the moderation
    log holds it, and /metrics counts it; a registered player without a role is refused
    (``not_organizer``). The tournament says who closed it (``closed_by``; at a terminal "Closed by
    zed (staff).")."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup arena 30 start +1m"))["type"] == "tournament"
    bob = await _registered(server, "bob")
    assert (await bob.command("/tournament close cup"))["code"] == "not_organizer"
    mod = await _registered(server, "zed")
    assert await server.store.role_set("zed", "moderator", by=OPERATOR)
    assert (await mod.command("/tournament close cup"))["type"] == "ack"
    told = await ann.next(lambda m: m["type"] == "notice" and "closed" in m["text"])  # (an entrant)
    assert told["text"] == "Tournament cup was closed: no more tables are made."
    shown = await bob.request({"type": "tournament", "name": "cup"})
    assert shown["tournament"]["status"] == "closed" and shown["tournament"]["closed_by"] == "zed"
    cy = await LineClient.connect(server.line_port or 0, "cy")
    await cy.line("/tournament cup")
    await cy.expect("Closed by zed (staff).")
    assert "its creator" not in cy.text()
    await cy.close()
    (entry,) = [e for e in await server.store.modlog("zed") if e.action == "close_tournament"]
    assert (entry.by, entry.target) == ("zed", "cup")
    metrics = (await http_get(server.port, "/metrics")).body.decode()
    assert 'cafe_moderation_actions_total{action="close_tournament"} 1.0' in metrics


async def test_an_arena_seats_again_whoever_waits(server: Server) -> None:
    """An arena at tables of 2 with three players: at the start two play and one waits; when that
    game ends, the one who waited is seated at once with one of the two, and the one left over
    waits; its creator's close stops it, the standings kept."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new blitz arena 30 size 2 start +1m"))["type"] == "tournament"
    others = {name: await WsClient.connect(server.port, name) for name in ("bob", "cy")}
    for client in others.values():
        assert (await client.command("/tournament join blitz"))["type"] == "ack"
    clients = {"ann": ann, **others}
    _started(server)
    (first,) = await _tables(server, 1, 1)
    (waiting,) = set(clients) - set(first["players"])
    assert (await _api(server, "/api/tournaments/1"))["tournament"]["ends"] is not None
    loser = clients[sorted(first["players"])[1]]
    assert (await loser.request({"type": "leave_room"}))["type"] == "ack"
    tables = await _tables(server, 1, 2)
    second = next(t for t in tables if t["number"] == 2)
    assert waiting in second["players"] and len(second["players"]) == 2
    assert tables[0]["places"] is None and tables[1]["places"] is not None  # the one playing first
    assert (await ann.command("/tournament close blitz"))["type"] == "ack"
    final = await _status(server, 1, "closed")
    assert sum(line["points"] for line in final["standings"]) == 1.0


async def test_a_tournament_table_cannot_turn_private_while_its_game_runs(make_server: ServerFactory) -> None:
    """A tournament's tables and results are public (``/api/tournaments/ID``): at a table, the
    host's ``private on`` is ``bad_option`` while the game runs, also after a restart, and the
    game's record stays public."""
    server: Server = await make_server()
    ann = await _registered(server, "ann")
    made = await ann.command("/tournament new open swiss 1 size 2 start +1m")
    number = made["tournament"]["id"]
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.request({"type": "tournament", "action": "join", "name": "open"}))["type"] == "ack"
    _started(server)
    [table] = await _tables(server, number, 1)
    for client in (ann, bob):
        await client.next("seated")
    codes = {client.name: (await client.command("/option private on"))["code"] for client in (ann, bob)}
    assert sorted(codes.values()) == ["bad_option", "not_host"], codes  # the host's, and the other's
    host = ann if codes["ann"] == "bad_option" else bob
    assert (await http_get(server.port, f"/api/games/{table['game']}")).status == 200
    await server.stop()
    again: Server = await make_server()
    back = await WsClient.connect(again.port, host.name, token=host.token)
    assert (await back.command("/option private on"))["code"] == "bad_option"
    assert (await http_get(again.port, f"/api/games/{table['game']}")).status == 200


async def _in_game_elsewhere(server: Server, name: str) -> WsClient:
    """``name``, connected, playing a game against a bot in a room of their own."""
    client = await WsClient.connect(server.port, name)
    await bot_game(client, f"{name}s-room")
    return client


async def test_an_arena_leaves_a_player_to_the_game_they_are_playing(server: Server) -> None:
    """An entrant playing a game in another room as the arena starts is not taken from it: the
    others are seated without them; once they have left that game they are seated with the next
    player who waits."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new blitz arena 30 size 2 start +1m"))["type"] == "tournament"
    clients = {"ann": ann}
    for name in ("bob", "dee"):
        clients[name] = await WsClient.connect(server.port, name)
    clients["cy"] = await _in_game_elsewhere(server, "cy")
    for name in ("bob", "dee", "cy"):
        assert (await clients[name].command("/tournament join blitz"))["type"] == "ack"
    _started(server)
    (first,) = await _tables(server, 1, 1)
    assert "cy" not in first["players"]
    (waiting,) = {"ann", "bob", "dee"} - set(first["players"])
    await _ticks_passed(server, 3)
    assert len((await _api(server, "/api/tournaments/1"))["tables"]) == 1
    assert not [x for x in clients["cy"].messages if x["type"] == "seated"]
    assert clients["cy"].view is not None and clients["cy"].view["state"] == "playing"
    assert (await clients["cy"].request({"type": "leave_room"}))["type"] == "ack"
    second = next(t for t in await _tables(server, 1, 2) if t["number"] == 2)
    assert sorted(second["players"]) == sorted(["cy", waiting])


async def test_a_swiss_round_goes_on_without_a_player_in_another_game(server: Server) -> None:
    """A Swiss round seats those still in and connected who are not playing a game in another
    room: the one who is sits the round out, their game left alone."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new cup swiss 2 size 2 start +1m"))["type"] == "tournament"
    bob = await WsClient.connect(server.port, "bob")
    cy = await _in_game_elsewhere(server, "cy")
    for client in (bob, cy):
        assert (await client.command("/tournament join cup"))["type"] == "ack"
    _started(server)
    (first,) = await _tables(server, 1, 1)
    assert sorted(first["players"]) == ["ann", "bob"]
    assert cy.view is not None and cy.view["state"] == "playing"
    assert not [x for x in cy.messages if x["type"] == "seated"]


async def _ticks_passed(server: Server, count: int) -> None:
    """Wait until the director has ticked ``count`` more times."""
    director = server.tournaments
    tick = director.tick
    ticked = 0

    async def counted() -> None:
        nonlocal ticked
        await tick()
        ticked += 1

    director.tick = counted  # type: ignore[method-assign]
    try:
        deadline = time.monotonic() + TIMEOUT
        while ticked < count:
            assert time.monotonic() < deadline, ticked
            director.poke()
            await asyncio.sleep(0.02)
    finally:
        director.tick = tick  # type: ignore[method-assign]


async def test_an_arena_seats_again_only_who_plays_on(server: Server) -> None:
    """ann and bob sit at an arena's table of 2, and bob leaves the game: ann wins it, and bob is
    out of the arena (his point-less line stays, ``active`` false), not seated again though he is
    connected and ann waits; once he joins again they meet at a second table."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/tournament new blitz arena 30 size 2 start +1m"))["type"] == "tournament"
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/tournament join blitz"))["type"] == "ack"
    _started(server)
    await _tables(server, 1, 1)
    assert (await bob.request({"type": "leave_room"}))["type"] == "ack"
    await _first_table_over(server)
    await _ticks_passed(server, 3)
    found = await _api(server, "/api/tournaments/1")
    assert len(found["tables"]) == 1
    lines = {line["name"]: line for line in found["standings"]}
    assert lines["ann"]["points"] == 1.0 and lines["ann"]["active"]
    assert lines["bob"]["points"] == 0.0 and not lines["bob"]["active"]
    assert (await bob.command("/tournament join blitz"))["type"] == "ack"
    second = next(t for t in await _tables(server, 1, 2) if t["number"] == 2)
    assert sorted(second["players"]) == ["ann", "bob"]


async def test_an_arena_player_who_left_a_game_and_joined_again_before_its_end_stays_in(
    server: Server,
) -> None:
    """cy leaves her arena game of three and joins again while ann and bob play it on: she is
    told her next table comes after that game, and when bob's leave ends it she is still in
    (waiting for a table), while bob, who did not join again, is out."""
    ann = await _registered(server, "ann")
    made = await ann.command("/tournament new trio arena 30 size 3 start +1m")
    assert made["type"] == "tournament"
    others = {name: await WsClient.connect(server.port, name) for name in ("bob", "cy")}
    for client in others.values():
        assert (await client.command("/tournament join trio"))["type"] == "ack"
    _started(server)
    await _tables(server, 1, 1)
    cy = others["cy"]
    assert (await cy.request({"type": "leave_room"}))["type"] == "ack"
    again = await cy.command("/tournament join trio")
    assert again["type"] == "ack"
    told = [m["text"] for m in cy.take_all() if m["type"] == "notice" and "trio" in m["text"]]
    assert told[-1] == "You are in tournament trio: your next table comes after your game's end."
    assert (await others["bob"].request({"type": "leave_room"}))["type"] == "ack"
    await _first_table_over(server)
    await _ticks_passed(server, 2)
    lines = {line["name"]: line for line in (await _api(server, "/api/tournaments/1"))["standings"]}
    assert lines["cy"]["active"] and lines["ann"]["active"]
    assert not lines["bob"]["active"]


async def _first_table_over(server: Server) -> None:
    """Wait until table 1 of tournament 1 has its result."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = await _api(server, "/api/tournaments/1")
        if next(t for t in found["tables"] if t["number"] == 1)["places"] is not None:
            return
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.05)


async def test_a_player_with_a_bye_is_told_so(server: Server) -> None:
    """A Swiss of three at tables of two: the one left over has a bye (a win), and is told."""
    ann = await _registered(server, "ann")
    made = await ann.command("/tournament new odd swiss 1 size 2 start +1m")
    number = made["tournament"]["id"]
    clients = {"ann": ann}
    for name in ("bob", "cy"):
        clients[name] = await WsClient.connect(server.port, name)
        assert (await clients[name].command("/tournament join odd"))["type"] == "ack"
    _started(server)
    [table] = [t for t in await _tables(server, number, 1) if t["game"] is not None]
    [bye] = set(clients) - set(table["players"])
    told = await clients[bye].next(lambda m: m["type"] == "notice" and "bye" in m["text"])
    assert told["text"] == "Tournament odd, round 1: you have a bye, counted as a win."
    for name in table["players"]:
        await clients[name].barrier()
        assert not [m for m in clients[name].messages if m["type"] == "notice" and "bye" in m["text"]]


async def test_a_swiss_nobody_joined_is_cancelled_and_its_maker_is_told(make_server: ServerFactory) -> None:
    """A Swiss with one player at its start is ``cancelled``, and that player reads why."""
    server: Server = await make_server()
    ann = await _registered(server, "ann")
    made = await ann.command("/tournament new lonely swiss 1 size 2 start +1m")
    number = made["tournament"]["id"]
    _started(server)
    told = await ann.next(lambda m: m["type"] == "notice" and "cancelled" in m["text"])
    assert told["text"] == "Tournament lonely is cancelled: fewer than two players were in it at its start."
    assert (await _status(server, number, "cancelled"))["tournament"]["players"] == 1
