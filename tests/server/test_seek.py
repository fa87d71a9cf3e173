"""Quick pairing over real sockets on one node: ``/seek`` and ``/unseek`` (WebSocket messages and
line commands), tables made of those waiting, seeking shown in ``/who`` and ended by ``/join``,
``/nick`` or a lost connection; refusals with their codes (README "Quick pairing", PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest

from server.app import Server
from server.lobby import seeking
from server.log.contract import StoreUnavailable
from tests.server.clients import TIMEOUT, LineClient, WsClient, bot_game, http_get, until
from tests.server.conftest import ServerFactory

PASSWORD = "correct horse battery"


async def _seated(client: WsClient) -> dict[str, Any]:
    seated = await client.next("seated")
    await client.next(lambda x: x["type"] == "snapshot" and x["view"]["room"] == seated["room"])
    return seated


async def test_two_seekers_of_two_are_seated_together(server: Server) -> None:
    """Two guests who seek a casual table of 2 are answered ``seeking``, then seated together in a
    new public room whose game runs with the default clock of 60 s, as a practice game (the
    server drew its seed); the queue is empty after."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    answer = await ann.request({"type": "seek", "size": 2})
    assert answer == {**answer, "type": "seeking", "size": 2, "rated": False, "clock": 60, "bots": False}
    assert (await bob.command("/seek 2 casual"))["type"] == "seeking"
    seated = [await _seated(ann), await _seated(bob)]
    assert seated[0]["room"] == seated[1]["room"] and str(seated[0]["room"]).startswith("seek-")
    assert sorted(seated[0]["players"]) == ["ann", "bob"]
    assert ann.view is not None and ann.view["state"] == "playing" and ann.view["options"]["clock"] == 60
    assert ann.view["options"]["seed"] == "set" and not ann.view["options"]["private"]
    assert await server.lobby.seeks.queue.entries() == []
    started = await ann.next("game_started")
    assert started["practice"] is True


async def test_seated_is_followed_by_the_snapshot_and_no_presence_about_oneself(server: Server) -> None:
    """A seeker moved to a table reads ``seated``, then the room's ``snapshot`` and
    ``game_started``: no ``presence`` about themselves; the other seeker's arrival is ``joined``
    (taking the seat made for them), never ``back``; at a terminal no "* kai is back". A
    casual table's game says the server chose its seed (``seed_drawn``; at a terminal and in
    ``/info``), and shows that seed's fingerprint, as any seed drawn at random does: in
    ``game_started``, at a terminal and in the running game's record."""
    ann = await WsClient.connect(server.port, "ann")
    kai = await LineClient.connect(server.line_port or 0, "kai")
    assert (await ann.command("/seek 2 casual"))["type"] == "seeking"
    await kai.line("/seek 2 casual")
    await ann.next("game_started")
    await ann.barrier()
    types = [x["type"] for x in ann.messages]
    at = types.index("seated")
    assert types[at + 1] == "snapshot", types
    about_self = [x for x in ann.messages if x["type"] == "presence" and x["name"] == "ann"]
    assert about_self == [], about_self
    await kai.expect("The game starts")
    await kai.expect("* A practice game: the server chose the seed.")
    await kai.line("/info")
    await kai.expect("Rated: no, a practice game (the server chose the seed).")
    assert "is back" not in kai.text() and "the room chose" not in kai.text(), kai.text()
    arrivals = [(x["name"], x["event"]) for x in ann.messages if x["type"] == "presence"]
    assert ("kai", "back") not in arrivals
    assert ("kai", "joined") in arrivals or "ann takes a seat" in kai.text()
    started = next(x for x in ann.messages if x["type"] == "game_started")
    assert started["practice"] is True and started["seed_drawn"] is True, started
    game = server.lobby.rooms[started["room"]].core.game
    assert game is not None
    fingerprint = hashlib.sha256(str(game.seed).encode()).hexdigest()
    assert started["seed_hash"] == fingerprint, started
    assert "* Shuffle fingerprint, sha256(seed):" in kai.text() and fingerprint in kai.text()
    record = (await http_get(server.port, f"/api/games/{game.game_id}")).json()
    assert record["seed_hash"] == fingerprint and "seed" not in record
    await kai.close()


async def test_a_terminal_reads_its_table_s_board_once(server: Server) -> None:
    """Two terminals paired by ``/seek``: each reads the board once (the table is entered with
    its game begun: the snapshot draws it, and ``game_started`` only adds the tip for the one
    who begins)."""
    lia = await LineClient.connect(server.line_port or 0, "lia")
    moe = await LineClient.connect(server.line_port or 0, "moe")
    await lia.line("/seek 2 casual")
    await lia.expect("Seeking a casual game")
    await moe.line("/seek 2 casual")
    for line in (lia, moe):
        await line.expect("* A practice game: the server chose the seed.")
        await line.line("/ping")
        await line.expect("* pong")
    tips = [
        lia.text().count("* /moves lists your legal moves"),
        moe.text().count("* /moves lists your legal moves"),
    ]
    assert sorted(tips) == [0, 1], tips
    for line in (lia, moe):
        assert line.text().count("Bar: 0 of 20 places taken") == 1, line.text()
        assert line.text().count("It is your turn.") + line.text().count("is to move.") == 1


async def test_four_of_any_size_sit_at_one_table(server: Server) -> None:
    """Four who seek any size within a few seconds sit at one table of four."""
    clients = [await WsClient.connect(server.port, name) for name in ("ann", "bob", "cid", "dan")]
    for client in clients:
        assert (await client.command("/seek"))["type"] == "seeking"
    rooms = {str((await _seated(c))["room"]) for c in clients}
    assert len(rooms) == 1
    room = server.directory.rooms[rooms.pop().casefold()]
    assert len(room.seats) == 4 and room.state == "playing"


async def test_seeking_shows_in_who_and_unseek_ends_it(server: Server) -> None:
    """A seeker is marked seeking in ``/who`` (and the line endpoint says so), ``/unseek`` is
    told ("* No longer seeking." at a terminal, a ``notice`` then ``ack`` over WebSocket) and
    takes the mark away; a second ``/unseek`` is ``not_seeking``."""
    ann = await WsClient.connect(server.port, "ann")
    line = await LineClient.connect(server.line_port or 0, "lea")
    await line.line("/seek 3 clock 30")
    await line.expect("Seeking a casual game of 3 players, 30 s a turn")
    assert (await ann.command("/seek 4"))["type"] == "seeking"
    people = {p["name"]: p for p in (await ann.request({"type": "who"}))["people"]}
    assert people["ann"]["seeking"] and people["lea"]["seeking"]
    await line.line("/who")
    await line.expect("(seeking)")
    await line.line("/unseek")
    await line.expect("* No longer seeking.")
    assert (await ann.request({"type": "unseek"}))["type"] == "ack"
    assert any(x["type"] == "notice" and x["text"] == "No longer seeking." for x in ann.messages)
    people = {p["name"]: p for p in (await ann.request({"type": "who"}))["people"]}
    assert not people["ann"]["seeking"] and not people["lea"]["seeking"]
    again = await ann.command("/unseek")
    assert again["type"] == "error" and again["code"] == "not_seeking"
    assert await server.lobby.seeks.queue.entries() == []


async def test_a_second_seek_replaces_the_first(server: Server) -> None:
    """A new ``/seek`` replaces the one before: one entry, with the new wishes."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/seek 3"))["size"] == 3
    assert (await ann.command("/seek 4 clock 90"))["clock"] == 90
    [entry] = await server.lobby.seeks.queue.entries()
    assert entry.seeker.size == 4 and entry.seeker.clock == 90


async def test_join_nick_and_a_lost_connection_end_seeking(server: Server) -> None:
    """``/join`` of a room, ``/nick`` and a dropped connection each take the seeker out of the
    queue (nobody is seated in their absence)."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    cid = await WsClient.connect(server.port, "cid")
    for client in (ann, bob, cid):
        assert (await client.command("/seek 4"))["type"] == "seeking"
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert (await bob.command("/nick bert"))["type"] == "welcome"
    await cid.close()
    queue = server.lobby.seeks.queue
    await until(lambda: not getattr(queue, "seeks", {}), "the queue empties")
    assert await queue.entries() == []


async def test_a_game_that_starts_at_a_seat_one_holds_ends_the_seek(server: Server) -> None:
    """A seek made while seated in a room whose game has not started ends when that game starts
    (a notice says so): the queue does not take the player out of their game to a second table
    when another seeker comes (it did, within a round: a way out of a game one is losing)."""
    ia, ib, ic = [await WsClient.connect(server.port, name) for name in ("ia", "ib", "ic")]
    assert (await ia.command("/join r1"))["type"] == "ack"
    assert (await ib.command("/join r1"))["type"] == "ack"
    assert (await ia.request({"type": "seek", "size": 2}))["type"] == "seeking"
    assert (await ia.command("/start"))["type"] == "ack"
    await ia.next(lambda x: x["type"] == "notice" and x["text"] == "No longer seeking.")
    assert (await ic.request({"type": "seek", "size": 2}))["type"] == "seeking"
    await asyncio.sleep(4 * seeking.TICK)  # (pairing rounds: nobody to pair ic with)
    [entry] = await server.lobby.seeks.queue.entries()
    assert entry.seeker.name == "ic"
    assert [x for x in ia.messages if x["type"] == "seated"] == []
    people = {p["name"]: p for p in (await ic.request({"type": "who"}))["people"]}
    assert (people["ia"]["room"], people["ia"]["seeking"]) == ("r1", False)


async def test_the_pairing_seats_nobody_who_plays_a_game(server: Server) -> None:
    """Should a game start for a seeker before the seek's end reaches the queue, the pairing
    finds the seat and leaves the seeker out (their seek ended, with its notice)."""
    ia, ib, ic = [await WsClient.connect(server.port, name) for name in ("ia", "ib", "ic")]
    assert (await ia.command("/join r1"))["type"] == "ack"
    assert (await ib.command("/join r1"))["type"] == "ack"
    assert (await ia.request({"type": "seek", "size": 2}))["type"] == "seeking"
    session = server.lobby.directory.session("ia")
    assert session is not None
    session.seek_ends = None  # (as if the start's news had not come yet)
    assert (await ia.command("/start"))["type"] == "ack"
    assert (await ic.request({"type": "seek", "size": 2}))["type"] == "seeking"
    await ia.next(lambda x: x["type"] == "notice" and x["text"] == "No longer seeking.")
    await asyncio.sleep(2 * seeking.TICK)
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["ic"]
    assert [x for x in ia.messages if x["type"] == "seated"] == []


async def test_a_refused_join_keeps_the_seek_and_a_taken_one_is_acked_once(server: Server) -> None:
    """A ``/join`` or ``/nick`` refused (a room name that is none, a name someone holds) changes
    nothing: the seeker still seeks; a ``/join`` taken ends the seek and is answered by one
    ``ack``, its own, and no other."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/seek 4"))["type"] == "seeking"
    refused = await ann.command("/join no/room!")
    assert (refused["type"], refused["code"]) == ("error", "bad_room"), refused
    bob = await WsClient.connect(server.port, "bob")
    refused = await ann.command("/nick bob")
    assert (refused["type"], refused["code"]) == ("error", "name_taken"), refused
    await bob.close()
    [entry] = await server.lobby.seeks.queue.entries()
    assert entry.seeker.name == "ann"
    people = {p["name"]: p for p in (await ann.request({"type": "who"}))["people"]}
    assert people["ann"]["seeking"]
    ann.take_all()
    answer = await ann.command("/join cafe")
    assert answer["type"] == "ack"
    await ann.barrier()
    acks = [x for x in ann.take_all() if x["type"] == "ack"]
    assert acks == [], acks
    assert await server.lobby.seeks.queue.entries() == []
    assert (await ann.command("/join other"))["type"] == "ack"  # out of cafe, into other
    await ann.barrier()
    assert [x for x in ann.take_all() if x["type"] == "ack"] == []


async def test_refusals_change_nothing(make_server: ServerFactory) -> None:
    """A guest's rated seek is ``not_registered``; a clock under the server's shortest is
    ``bad_option``; a bad size is ``bad_arguments``; a seek while seated in a running game is
    ``already_playing``; none of them puts anyone in the queue."""
    server = await make_server(clock_min=10)
    ann = await WsClient.connect(server.port, "ann")
    for text, code in (
        ("/seek rated", "not_registered"),
        ("/seek clock 5", "bad_option"),
        ("/seek 5", "bad_arguments"),
        ("/seek 2 2", "bad_arguments"),
    ):
        answer = await ann.command(text)
        assert answer["type"] == "error" and answer["code"] == code, (text, answer)
    for clock in (5, 0, -1):  # a seek's game always has a clock: its range, and no "or off"
        answer = await ann.request({"type": "seek", "clock": clock})
        assert answer["code"] == "bad_option", answer
        assert answer["message"] == "A seek's clock is 10 to 3600 seconds per turn.", answer
    for field in ({"size": 5}, {"size": 2.0}, {"clock": 3601}, {"clock": 30.0}):  # (exact types)
        assert (await ann.request({"type": "seek", **field}))["code"] == "bad_field", field
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/addbot"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    answer = await ann.command("/seek")
    assert answer["code"] == "already_playing" and "cafe" in answer["message"]
    assert await server.lobby.seeks.queue.entries() == []


async def test_a_new_identity_ends_the_seek_it_was_made_as(server: Server) -> None:
    """A seek is its player's as they were when they made it: deleting the account (or
    registering) ends it, with a notice, so a rated seek never seats a guest; the other rated
    seeker waits on alone."""
    clients = []
    for name in ("ann", "bob"):
        client = await WsClient.connect(server.port, name)
        assert (await client.request({"type": "register", "password": PASSWORD}))["type"] == "welcome"
        clients.append(client)
    ann, bob = clients
    assert (await ann.command("/seek 2"))["rated"] is True
    gone = await ann.request({"type": "unregister", "password": PASSWORD})
    assert gone["type"] == "welcome" and gone["registered"] is False
    assert [m["text"] for m in ann.messages if m["type"] == "notice"][-2:] == [
        "No longer seeking.",
        "The account ann is deleted; you play on as a guest.",
    ]
    assert (await bob.command("/seek 2"))["rated"] is True
    await asyncio.sleep(4 * seeking.TICK)  # (pairing rounds: nobody to pair bob with)
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["bob"]
    assert not any(m["type"] == "seated" for m in ann.messages + bob.messages)
    gus = await WsClient.connect(server.port, "gus")
    assert (await gus.command("/seek 2 casual"))["rated"] is False
    welcome = await gus.request({"type": "register", "password": PASSWORD})
    assert welcome["type"] == "welcome" and welcome["registered"], welcome
    assert "No longer seeking." in [m["text"] for m in gus.messages if m["type"] == "notice"]
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["bob"]


async def test_registered_seekers_play_a_rated_game(server: Server) -> None:
    """Two registered people seek with no kind named: the game is rated (no seed set, both seats
    theirs), and ``/info`` says so."""
    clients = []
    for name in ("ann", "bob"):
        client = await WsClient.connect(server.port, name)
        assert (await client.request({"type": "register", "password": PASSWORD}))["type"] in (
            "ack",
            "welcome",
        )
        clients.append(client)
    for client in clients:
        answer = await client.command("/seek 2")
        assert answer["type"] == "seeking" and answer["rated"] is True
    for client in clients:
        await _seated(client)
    info = await clients[0].command("/info")
    assert "Rated: yes" in info["text"], info


async def test_a_lone_seeker_who_said_bots_gets_bots(server: Server) -> None:
    """Alone in the queue with ``bots``, a seeker gets a table with the server's greedy bots
    after the bound (shortened here), at their wished size; without ``bots`` nobody does."""
    server.lobby.seeks.bots_after = 1
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    answer = await ann.command("/seek 3 bots")
    assert answer["bots"] is True and answer["bots_after"] == 1
    assert (await bob.command("/seek 4 clock 30"))["type"] == "seeking"
    seated = await _seated(ann)
    assert len(seated["players"]) == 3 and "ann" in seated["players"]
    await asyncio.sleep(1.5)
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["bob"]


async def test_a_seeker_cannot_choose_whom_nor_flood_nor_be_led_into_a_private_room(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seek naming an opponent or a room is ``bad_field``; repeating ``/seek`` holds one place;
    once the queue holds its most, a new seeker is ``queue_full`` (a seeker already in may still
    change their seek); and a table is a new public room even while a private room waits, its
    host seeking from inside it."""
    server = await make_server()
    ann = await WsClient.connect(server.port, "ann")
    for field in ({"opponent": "bob"}, {"room": "geheim"}, {"name": "bob"}):
        answer = await ann.request({"type": "seek", "size": 2, **field})
        assert answer["type"] == "error" and answer["code"] == "bad_field", field
    for _ in range(5):
        assert (await ann.command("/seek 2"))["type"] == "seeking"
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["ann"]
    monkeypatch.setattr(seeking, "SEEKERS_MAX", 1)
    zoe = await WsClient.connect(server.port, "zoe")
    full = await zoe.command("/seek 2")
    assert full["type"] == "error" and full["code"] == "queue_full"
    assert (await ann.command("/seek 2 clock 30"))["type"] == "seeking"
    monkeypatch.undo()
    assert (await ann.command("/seek 2"))["type"] == "seeking"
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/join geheim"))["type"] == "ack"
    assert (await bob.command("/option private on"))["type"] == "ack"
    assert (await bob.command("/seek 2"))["type"] == "seeking"
    seated = await _seated(ann)
    assert str(seated["room"]).startswith("seek-") and sorted(seated["players"]) == ["ann", "bob"]
    table = server.directory.rooms[str(seated["room"]).casefold()]
    assert not table.options.private and table.state == "playing"
    # nor can the table's host make it private while its game runs (the other is no host)
    host = ann if table.options.host and table.seats[0].name == "ann" else bob
    refused = await host.request({"type": "option", "key": "private", "value": True})
    assert (refused["type"], refused["code"]) == ("error", "bad_option"), refused
    assert "quick pairing" in refused["message"]
    assert (await host.command("/option private on"))["code"] == "bad_option"
    assert not table.options.private
    assert not [p for p in (await ann.request({"type": "who"}))["people"] if p["private"]]


async def test_a_seek_for_bots_costs_what_a_start_with_bots_costs(make_server: ServerFactory) -> None:
    """With --max-bot-games 1, a person who plays a game against the server's bots alone is refused
    a seek (``already_playing``), and a new name to seek under (``/nick``: the game knows its
    players by name); another person's seek with bots is taken. With --max-bot-games 0, a seek
    with bots is ``too_many_bot_games`` and one without them is taken."""
    server: Server = await make_server(max_bot_games=1, bot_workers=0)
    burn = await WsClient.connect(server.port, "burn")
    assert (await burn.command("/join b1"))["type"] == "ack"
    assert (await burn.command("/addbot greedy"))["type"] == "ack"
    assert (await burn.command("/start"))["type"] == "ack"
    assert (await burn.command("/leave"))["type"] == "ack"
    assert (await burn.command("/seek 2 bots"))["code"] == "already_playing"  # (the seat is burn's)
    assert (await burn.command("/nick burn2"))["code"] == "already_playing"
    cal = await WsClient.connect(server.port, "cal")
    assert (await cal.command("/seek 2 bots"))["type"] == "seeking"
    none: Server = await make_server(max_bot_games=0, bot_workers=0)
    dee = await WsClient.connect(none.port, "dee")
    assert (await dee.command("/seek 2 bots"))["code"] == "too_many_bot_games"
    assert (await dee.command("/seek 2"))["type"] == "seeking"


async def test_tables_count_against_the_rooms_the_server_may_hold(make_server: ServerFactory) -> None:
    """``--max-rooms 2``: one room has ann in it, a table seats bob and cy; dan and eve, who seek
    next, wait (every room has someone in it) and are seated once ann's room goes."""
    server: Server = await make_server(max_rooms=2)
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/room hold"))["type"] == "ack"
    bob, cy, dan, eve = [await WsClient.connect(server.port, n) for n in ("bob", "cy", "dan", "eve")]
    for client in (bob, cy):
        assert (await client.command("/seek 2 casual"))["type"] == "seeking"
    for client in (bob, cy):
        await _seated(client)
    assert len(server.directory.rooms) == 2
    for client in (dan, eve):
        assert (await client.command("/seek 2 casual"))["type"] == "seeking"
    await asyncio.sleep(4 * seeking.TICK)  # (rounds of pairing that find no room)
    assert not [m for m in dan.messages + eve.messages if m["type"] == "seated"]
    assert len(await server.lobby.seeks.queue.entries()) == 2 and len(server.directory.rooms) == 2
    assert (await ann.command("/leave"))["type"] == "ack"
    for client in (dan, eve):
        await _seated(client)
    assert len(server.directory.rooms) == 2


async def test_one_address_holds_a_quarter_of_its_connections_in_the_queue(
    make_server: ServerFactory,
) -> None:
    """With --max-per-ip 8, two connections of one address may seek at once: a third is
    ``queue_full`` (its message says why) and nothing of it is queued; a seeker already in may
    change their seek, and once one of the two stops seeking (``/unseek``, or their connection
    goes) the third is taken."""
    server = await make_server(max_per_ip=8)
    clients = [await WsClient.connect(server.port, f"p{i}") for i in range(4)]
    for i, client in enumerate(clients[:2]):  # (clocks apart: nobody is paired meanwhile)
        assert (await client.command(f"/seek 2 clock {30 + i}"))["type"] == "seeking"
    refused = await clients[2].command("/seek 2 clock 40")
    assert (refused["type"], refused["code"]) == ("error", "queue_full"), refused
    assert "your address" in refused["message"] and "(2)" in refused["message"]
    assert sorted(e.seeker.name for e in await server.lobby.seeks.queue.entries()) == ["p0", "p1"]
    assert (await clients[0].command("/seek 2 clock 50"))["type"] == "seeking"
    assert (await clients[0].command("/unseek"))["type"] == "ack"
    assert (await clients[2].command("/seek 2 clock 40"))["type"] == "seeking"
    assert (await clients[3].command("/seek 2 clock 60"))["code"] == "queue_full"
    await clients[1].close()
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while (answer := await clients[3].command("/seek 2 clock 60"))["type"] != "seeking":
        assert answer["code"] == "queue_full" and asyncio.get_running_loop().time() < deadline, answer
        await asyncio.sleep(0.05)
    assert sorted(e.seeker.name for e in await server.lobby.seeks.queue.entries()) == ["p2", "p3"]


async def test_a_nick_or_a_join_ends_the_seek_with_a_notice(server: Server) -> None:
    """A seeker who takes a new name, or a seat in a room, is told the seek ended ("No longer
    seeking.", before the answer), and ``who`` no longer marks them."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    for client in (ann, bob):
        assert (await client.command("/seek 2 clock 30"))["type"] == "seeking"
        client.take_all()
    assert (await ann.request({"type": "nick", "name": "anna"}))["type"] == "welcome"
    assert (await bob.command("/join cafe"))["type"] == "ack"
    for client in (ann, bob):
        notices = [x["text"] for x in client.take_all() if x["type"] == "notice"]
        assert notices[:1] == ["No longer seeking."], notices
    people = (await ann.request({"type": "who"}))["people"]
    assert not [p for p in people if p["seeking"]], people
    assert await server.lobby.seeks.queue.entries() == []


async def test_a_refused_join_leaves_the_seek_as_it_was(server: Server) -> None:
    """A seeker watching a game asks for a seat in it (``game_running``, over WebSocket and at a
    terminal): the seek stands, with no notice; a seat taken in a room between games ends it,
    with one."""
    host = await WsClient.connect(server.port, "host")
    await bot_game(host, "busy")
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/watch busy"))["type"] == "ack"
    assert (await ann.command("/seek 2 clock 30"))["type"] == "seeking"
    assert server.line_port is not None
    bob = await LineClient.connect(server.line_port, "bob")
    await bob.line("/watch busy")
    await bob.expect("busy")
    await bob.line("/seek 2 clock 31")
    await bob.expect("Seeking a casual game")
    ann.take_all()
    refused = await ann.request({"type": "join"})
    assert refused["code"] == "game_running", refused
    await bob.line("/join")
    await bob.expect("[game_running]")
    await ann.barrier()
    assert not [x for x in ann.take_all() if x["type"] == "notice"]
    assert sorted(e.seeker.name for e in await server.lobby.seeks.queue.entries()) == ["ann", "bob"]
    people = {p["name"]: p for p in (await ann.request({"type": "who"}))["people"]}
    assert people["ann"]["seeking"] and people["bob"]["seeking"]
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert "No longer seeking." in [x["text"] for x in ann.take_all() if x["type"] == "notice"]
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["bob"]


async def test_an_address_s_seeks_at_once_count_one_after_another(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --max-per-ip 8 (two seekers an address) and a queue that answers slowly (as Redis
    does, where other seeks run meanwhile), eight connections of one address seek at once: two
    are ``seeking``, six ``queue_full``, and the queue holds two."""
    server = await make_server(max_per_ip=8)
    queue = server.lobby.seeks.queue
    put = queue.put

    async def slowly(entry: Any, limit: int) -> bool:
        await asyncio.sleep(0.05)
        return await put(entry, limit)

    monkeypatch.setattr(queue, "put", slowly)
    clients = [await WsClient.connect(server.port, f"q{i}") for i in range(8)]
    answers = await asyncio.gather(*(c.command(f"/seek 2 clock {30 + i}") for i, c in enumerate(clients)))
    kinds = sorted(a.get("code", a["type"]) for a in answers)
    assert kinds == ["queue_full"] * 6 + ["seeking"] * 2, kinds
    assert len(await queue.entries()) == 2


async def test_a_terminal_s_join_ends_its_seek_and_a_resume_its_old_one(server: Server) -> None:
    """At a terminal, ``/join cafe`` while seeking ends the seek once the seat is taken (its ack,
    not a tell that came first); and a seeker who resumes on a new connection leaves no seek
    behind in the queue."""
    assert server.line_port is not None
    lea = await LineClient.connect(server.line_port, "lea")
    await lea.line("/seek 2 clock 30")
    await lea.expect("Seeking a casual game")
    ann = await WsClient.connect(server.port, "ann")
    await lea.line("/join cafe")
    assert (await ann.command("/tell lea hello"))["type"] == "tell"
    await lea.expect("No longer seeking.")
    assert await server.lobby.seeks.queue.entries() == []
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/seek 2 clock 31"))["type"] == "seeking"
    again = await WsClient.connect(server.port, "bob", token=bob.token)
    assert again.messages[0]["resumed"] is True
    await until(lambda: not server.lobby.seeks._from, "the old connection's seek let go")
    assert await server.lobby.seeks.queue.entries() == []


async def test_a_nick_the_store_refuses_leaves_the_seek_and_the_name(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seeker's ``/nick`` while the store cannot write the new name's token is ``unavailable``
    and changes nothing: still seeking under the old name; asked again once the store is back,
    it renames them and ends the seek."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/seek 2 clock 30"))["type"] == "seeking"
    issued = server.store.token_issued

    async def away(*_: Any) -> None:
        raise StoreUnavailable("away")

    monkeypatch.setattr(server.store, "token_issued", away)
    refused = await ann.request({"type": "nick", "name": "anna"})
    assert refused["code"] == "unavailable", refused
    assert [e.seeker.name for e in await server.lobby.seeks.queue.entries()] == ["ann"]
    monkeypatch.setattr(server.store, "token_issued", issued)
    assert (await ann.request({"type": "nick", "name": "anna"}))["type"] == "welcome"
    assert await server.lobby.seeks.queue.entries() == []
