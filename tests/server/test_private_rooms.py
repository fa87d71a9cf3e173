"""Private rooms over real sockets: only the invited and the players of its game enter one; outside
it, its people are "in a private room" with no name; its games are readable by their players alone
(README, Security; PROTOCOL.md, section 2 and 3)."""

from __future__ import annotations

from typing import Any

import pytest

from server.app import Server
from server.directory import privacy
from server.log.sqlite.store import Store
from tests.examples import run_examples
from tests.server.clients import LineClient, WsClient, http_get
from tests.server.conftest import ServerFactory

PASSWORD = "correct horse battery"
REFUSED = "Room geheim is private: you may enter once someone in it invites you."
JSON = "application/json"  # (asked for as a program asks)


async def _private(server: Server, host: str = "ann", room: str = "geheim") -> WsClient:
    """``host`` seated in ``room``, which is private."""
    client = await WsClient.connect(server.port, host)
    assert (await client.command(f"/join {room}"))["type"] == "ack"
    assert (await client.command("/option private on"))["type"] == "ack"
    return client


def _presences(client: WsClient, name: str) -> list[str]:
    return [x["event"] for x in client.messages if x["type"] == "presence" and x["name"] == name]


async def test_a_stranger_is_turned_away_by_every_way_in_and_nothing_changes(server: Server) -> None:
    """``/join``, ``/room``, ``/watch``, ``enter_room``, ``watch`` and ``join`` with a room name
    are each ``not_invited`` for someone neither invited nor playing; the refused stays where they
    were (the lobby, or another room), and the private room's members hear nothing."""
    ann = await _private(server)
    zoe = await WsClient.connect(server.port, "zoe")
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command("/room open"))["type"] == "ack"
    tries: list[dict[str, Any]] = [
        {"type": "command", "text": "/join geheim"},
        {"type": "command", "text": "/room geheim"},
        {"type": "command", "text": "/watch GEHEIM"},
        {"type": "enter_room", "room": "Geheim"},
        {"type": "watch", "room": "geheim"},
        {"type": "join", "room": "geheim"},
    ]
    for stranger in (zoe, bob):
        for attempt in tries:
            answer = await stranger.request(attempt)
            assert answer["type"] == "error" and answer["code"] == "not_invited", (attempt, answer)
            assert answer["message"] == REFUSED
    assert zoe.view is None  # never a snapshot of the room
    assert (await zoe.command("/join 2"))["code"] == "not_in_room"  # still in the lobby
    assert bob.view is not None and bob.view["room"] == "open" and bob.view["spectators"] == ["bob"]
    assert (await bob.command("still here"))["type"] == "ack"
    said = await bob.next("chat")
    assert said["room"] == "open"
    await ann.barrier()
    assert _presences(ann, "zoe") == [] and _presences(ann, "bob") == []
    assert ann.view is not None and ann.view["spectators"] == []
    people = {p["name"]: p["room"] for p in (await ann.command("/who"))["people"]}
    assert people == {"ann": "geheim", "bob": "open", "zoe": None}


async def test_the_room_itself_turns_a_stranger_away_should_the_lobby_not_know_yet(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the lobby's look at the door be out of date (in a cluster, a node a moment behind),
    the room refuses by itself: the stranger hears ``not_invited`` and is in no room, and nobody in
    the private room hears of it."""
    ann = await _private(server)
    zoe = await WsClient.connect(server.port, "zoe")

    async def wide_open(room: object, session: object) -> str:
        return "open"

    monkeypatch.setattr(server.lobby.directory, "admission", wide_open)
    assert (await zoe.command("/join geheim"))["code"] == "not_invited"
    assert (await zoe.command("/join 2"))["code"] == "not_in_room"
    assert (await zoe.command("/board"))["code"] == "not_in_room"
    people = {p["name"]: p["room"] for p in (await ann.command("/who"))["people"]}
    assert people == {"ann": "geheim", "zoe": None}
    assert _presences(ann, "zoe") == []


async def test_a_line_client_reads_the_refusal_with_its_code(server: Server) -> None:
    """At a terminal the refusal is one ``!`` line ending with ``[not_invited]``; in German too."""
    await _private(server)
    assert server.line_port is not None
    zoe = await LineClient.connect(server.line_port, "zoe")
    await zoe.line("/join geheim")
    said = " ".join((await zoe.expect("[not_invited]")).split())
    assert said.endswith(f"! {REFUSED} [not_invited]")
    await zoe.line("/lang de")
    await zoe.line("/room geheim")
    said = " ".join((await zoe.expect("[not_invited]")).split())
    assert said.endswith(
        "! Der Raum geheim ist privat: du kommst hinein, sobald dich jemand darin einlädt. [not_invited]"
    )


async def test_an_invitation_lets_its_invitee_in_and_back_until_the_room_closes(server: Server) -> None:
    """Invited, zoe enters, leaves, and takes a seat later; once the room has closed a new room of
    that name owes her nothing."""
    ann = await _private(server)
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await ann.command("/invite zoe"))["type"] == "ack"
    await zoe.next("invited")
    assert (await zoe.command("/room geheim"))["type"] == "ack"
    assert (await zoe.command("/leave"))["type"] == "ack"
    assert (await zoe.command("/join geheim"))["type"] == "ack"
    await zoe.barrier()
    assert zoe.view is not None and [s["name"] for s in zoe.view["seats"]] == ["ann", "zoe"]
    for client in (zoe, ann):
        assert (await client.command("/leave"))["type"] == "ack"
    assert "geheim" not in server.lobby.rooms  # closed: nobody in it, no game
    ann = await _private(server, "ann2")
    assert (await zoe.command("/room geheim"))["code"] == "not_invited"


async def test_whoever_is_in_the_room_may_invite(server: Server) -> None:
    """A spectator let in by an invitation invites someone else, who may then enter too."""
    ann = await _private(server)
    zoe = await WsClient.connect(server.port, "zoe")
    cid = await WsClient.connect(server.port, "cid")
    await ann.command("/invite zoe")
    assert (await zoe.command("/watch geheim"))["type"] == "ack"
    assert (await cid.command("/room geheim"))["code"] == "not_invited"
    assert (await zoe.command("/invite cid"))["type"] == "ack"
    assert (await cid.command("/room geheim"))["type"] == "ack"


async def test_an_invitation_is_for_the_person_not_the_name(server: Server) -> None:
    """A guest who quits gives the name up: someone else under it later is not the one invited."""
    ann = await _private(server)
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/invite zoe")
    await zoe.next("invited")
    await zoe.request({"type": "command", "text": "/quit"})
    await zoe.close()
    other = await WsClient.connect(server.port, "zoe")
    assert (await other.command("/room geheim"))["code"] == "not_invited"


async def test_an_invitation_follows_its_person_through_register_and_unregister(server: Server) -> None:
    """zoe, invited as a guest, registers and still may enter; she deletes her account and plays
    on as a guest under another name, still invited. Whoever registers the name zoe afterwards
    is another person, and is not."""
    ann = await _private(server)
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/invite zoe")
    await zoe.next("invited")
    assert (await zoe.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await zoe.command("/room geheim"))["type"] == "ack"
    assert (await zoe.command("/leave"))["type"] == "ack"
    assert (await zoe.request({"type": "unregister", "password": PASSWORD}))["registered"] is False
    assert (await zoe.command("/nick zoe2"))["type"] == "welcome"
    mal = await WsClient.connect(server.port, "mal")
    assert (await mal.command("/nick zoe"))["type"] == "welcome"
    assert (await mal.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await mal.command("/room geheim"))["code"] == "not_invited"
    assert (await zoe.command("/room geheim"))["type"] == "ack"


async def test_those_in_the_room_when_it_turns_private_may_come_back(server: Server) -> None:
    """zoe watched before ``private on``: she may leave and come back; bob, who was never in, may not."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/join geheim"))["type"] == "ack"
    zoe = await WsClient.connect(server.port, "zoe")
    bob = await WsClient.connect(server.port, "bob")
    assert (await zoe.command("/room geheim"))["type"] == "ack"
    assert (await ann.command("/option private on"))["type"] == "ack"
    assert (await zoe.command("/leave"))["type"] == "ack"
    assert (await zoe.command("/room geheim"))["type"] == "ack"
    assert (await bob.command("/room geheim"))["code"] == "not_invited"


async def test_a_player_of_the_game_comes_back_by_name_and_by_token(make_server: ServerFactory) -> None:
    """bob, seated in a private room's game, leaves it (a bot plays on) and enters again by its
    name; after a lost connection his token brings him back to his seat."""
    server: Server = await make_server(resume_window=30)
    ann = await _private(server)
    bob = await WsClient.connect(server.port, "bob")
    assert (await ann.command("/invite bob"))["type"] == "ack"
    assert (await bob.command("/join geheim"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    assert (await bob.command("/leave"))["type"] == "ack"
    assert (await bob.command("/room geheim"))["type"] == "ack"
    token = bob.token
    await bob.close()  # (watching: his seat stays the bot's until he takes it back)
    await ann.next(lambda x: x["type"] == "presence" and x["name"] == "bob" and x["event"] == "left")
    back = await WsClient.connect(server.port, "bob", token=token)
    snapshot = await back.next("snapshot")
    assert snapshot["room"] == "geheim" and snapshot["view"]["seat"] == 1


async def test_outside_a_private_room_its_people_are_in_a_private_room(server: Server) -> None:
    """``/who``, ``/whereis`` and ``/friends`` show ann "in a private room" (``room`` null,
    ``private`` true) to everyone outside it, and its name to those in it; a terminal reads
    "(a private room)"."""
    ann = await _private(server)
    bob = await WsClient.connect(server.port, "bob")
    assert (await ann.command("/invite bob"))["type"] == "ack"
    assert (await bob.command("/room geheim"))["type"] == "ack"
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/room open"))["type"] == "ack"
    outside = {
        "name": "ann",
        "kind": "person",
        "room": None,
        "guest": True,
        "rating": None,
        "private": True,
        "role": None,
        "seeking": False,
    }
    inside = {**outside, "room": "geheim"}
    assert [p for p in (await zoe.command("/who"))["people"] if p["name"] == "ann"] == [outside]
    assert (await zoe.command("/whereis ann"))["people"] == [outside]
    assert (await bob.command("/whereis ann"))["people"] == [inside]
    assert (await zoe.command("/friend ann"))["type"] == "ack"
    assert (await zoe.command("/friends"))["friends"] == [
        {"name": "ann", "online": True, "room": None, "private": True}
    ]
    zoe_people = {p["name"]: p for p in (await zoe.command("/who"))["people"]}
    assert zoe_people["zoe"]["room"] == "open" and zoe_people["zoe"]["private"] is False
    assert server.line_port is not None
    cid = await LineClient.connect(server.line_port, "cid")
    await cid.line("/whereis ann")
    line = (await cid.expect("(a private room)")).splitlines()[-1]
    assert line.startswith("ann ") and "geheim" not in cid.text()
    await cid.line("/lang de")
    await cid.line("/whereis bob")
    line = (await cid.expect("(privater Raum)")).splitlines()[-1]
    assert line.startswith("bob ") and "geheim" not in cid.text()


async def test_a_friend_hears_of_a_game_in_a_private_room_without_its_name(server: Server) -> None:
    """zoe, ann's friend, is told that ann started a game in a private room, not in which."""
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/friend ann"))["type"] == "ack"
    ann = await _private(server)
    assert (await ann.command("/addbot"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    started = await zoe.next(lambda x: x["type"] == "notice" and "started" in x["text"])
    assert started["text"] == "Your friend ann started a game in a private room."
    await zoe.barrier()
    assert not [x for x in zoe.raw if "geheim" in x]


async def test_a_tell_to_a_gone_player_does_not_name_the_private_room(make_server: ServerFactory) -> None:
    """bob's seat in a private room's game waits for him: a tell to him says so, but not where."""
    server: Server = await make_server(resume_window=30)
    ann = await _private(server)
    bob = await WsClient.connect(server.port, "bob")
    assert (await ann.command("/invite bob"))["type"] == "ack"
    assert (await bob.command("/join geheim"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.close()
    await ann.next(lambda x: x["type"] == "presence" and x["name"] == "bob" and x["event"] == "away")
    zoe = await WsClient.connect(server.port, "zoe")
    answer = await zoe.command("/tell bob hi")
    assert answer["code"] == "not_connected"
    assert answer["message"] == "bob is not connected; their seat in a private room waits for them."


async def _registered(server: Server, name: str) -> WsClient:
    client = await WsClient.connect(server.port, name)
    welcome = await client.request({"type": "register", "password": PASSWORD})
    assert welcome["registered"] is True
    client.token = welcome["token"]  # (the one before is revoked)
    return client


async def _private_game_running(server: Server, *, turn_private: bool = False) -> tuple[WsClient, WsClient]:
    """Registered ann and bob play a game in room geheim (``absent drop``), private from the
    start, or from after it started."""
    ann, bob = await _registered(server, "ann"), await _registered(server, "bob")
    assert (await ann.command("/join geheim"))["type"] == "ack"
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    if not turn_private:
        assert (await ann.command("/option private on"))["type"] == "ack"
        assert (await ann.command("/invite bob"))["type"] == "ack"
    assert (await bob.command("/join geheim"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    if turn_private:
        assert (await ann.command("/option private on"))["type"] == "ack"
    return ann, bob


async def _private_game(server: Server, *, turn_private: bool = False) -> tuple[WsClient, WsClient, str]:
    """The game of :func:`_private_game_running`, which bob leaves: ann wins. The game's id."""
    ann, bob = await _private_game_running(server, turn_private=turn_private)
    assert (await bob.command("/leave"))["type"] == "ack"
    await ann.next("game_over")
    assert isinstance(server.store, Store)
    (game,) = server.store.games_named("ann")
    return ann, bob, game.game_id


async def test_a_private_rooms_game_is_readable_by_its_players_alone(server: Server) -> None:
    """The record, the replay and ``/games/ID`` answer ann and bob (their token as the bearer);
    anyone else, with a token or without, gets the 404 of a game that does not exist. Lists of
    ann's games leave it out for others."""
    ann, bob, game_id = await _private_game(server)
    zoe = await _registered(server, "zoe")
    unknown = await http_get(server.port, "/api/games/0000000000000000", accept=JSON)
    missing = (unknown.status, unknown.json())
    for path in (f"/api/games/{game_id}", f"/games/{game_id}", f"/api/games/{game_id}/replay"):
        for token in (None, zoe.token, "no-such-token"):
            answer = await http_get(server.port, path, token, JSON)
            assert answer.status == 404, (path, token)
            body = answer.json()
            assert (404, body) == missing or body == {"error": "no such finished game"}
        for player in (ann, bob):
            answer = await http_get(server.port, path, player.token, JSON)
            body = answer.json()
            assert answer.status == 200 and body["id"] == game_id and body["room"] == "geheim"
    assert game_id not in (await zoe.command("/history ann"))["text"]
    assert game_id in (await bob.command("/history ann"))["text"]
    assert game_id in (await ann.command("/history"))["text"]
    assert game_id not in (await zoe.command("/finger ann"))["text"]
    for token, shown in ((None, False), (zoe.token, False), (bob.token, True)):
        answer = await http_get(server.port, "/api/players/ann/games", token, JSON)
        assert answer.status == 200 and (game_id in [g["id"] for g in answer.json()["games"]]) is shown
        answer = await http_get(server.port, "/api/players/ann", token, JSON)
        assert answer.status == 200 and (game_id in [g["id"] for g in answer.json()["recent"]]) is shown
        assert answer.json()["games"] == int(shown)  # (nor does the count tell of it)
    assert "games 0 (" in (await zoe.command("/finger ann"))["text"]
    assert "games 1 (" in (await bob.command("/finger ann"))["text"]


async def test_a_game_whose_room_turns_private_while_it_runs_stays_private(server: Server) -> None:
    """``private on`` during a game is logged with it: the finished game is its players' alone."""
    ann, _, game_id = await _private_game(server, turn_private=True)
    assert isinstance(server.store, Store)
    stored = await server.store.game(game_id)
    assert stored is not None and stored.room_options["private"] is True
    assert (await http_get(server.port, f"/api/games/{game_id}", accept=JSON)).status == 404
    assert (await http_get(server.port, f"/api/games/{game_id}", ann.token, JSON)).status == 200


async def test_a_private_games_room_turns_public_only_once_it_is_over(server: Server) -> None:
    """While a private game runs its room stays private (``bad_option``, nothing changes): nobody
    outside may come in to watch the rest of it. Once the game is over the room may turn public,
    and a stranger may enter: the room has forgotten the game's board and its chat lines."""
    ann, bob = await _private_game_running(server)
    assert (await ann.command("/say the password is swordfish"))["type"] == "ack"
    refused = await ann.request({"type": "option", "key": "private", "value": False})
    assert (refused["type"], refused["code"]) == ("error", "bad_option"), refused
    assert "stays private" in refused["message"]
    assert (await ann.command("/option private off"))["code"] == "bad_option"
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/watch geheim"))["code"] == "not_invited"
    assert ann.view is not None and ann.view["options"]["private"] is True
    assert (await bob.command("/leave"))["type"] == "ack"
    await ann.next("game_over")
    assert ann.view is not None and ann.view["game"] is not None
    assert (await ann.command("/option private off"))["type"] == "ack"
    await ann.barrier()
    assert ann.view is not None and ann.view["game"] is None and ann.view["state"] == "waiting"
    assert (await zoe.command("/watch geheim"))["type"] == "ack"
    await zoe.barrier()
    assert zoe.view is not None and zoe.view["game"] is None, zoe.view
    assert not [x for x in zoe.messages if x["type"] == "chat"], zoe.messages


async def test_private_off_during_a_public_rooms_game_is_refused_too(server: Server) -> None:
    """``private`` off while a game runs is ``bad_option`` in a public room as well (it is off
    already): no notice tells the room it was made public."""
    ann, _ = await _private_game_running(server, turn_private=True)
    assert (await ann.command("/option private off"))["code"] == "bad_option"
    cid = await WsClient.connect(server.port, "cid")
    assert (await cid.command("/join open"))["type"] == "ack"
    assert (await cid.command("/addbot"))["type"] == "ack"
    assert (await cid.command("/start"))["type"] == "ack"
    refused = await cid.request({"type": "option", "key": "private", "value": False})
    assert (refused["code"], refused["message"]) == ("bad_option", "This room is public already.")
    await cid.barrier()
    assert not [x for x in cid.messages if x["type"] == "notice" and "public" in x["text"]]


async def test_a_profile_shows_where_a_player_is_as_its_reader_may_see_it(server: Server) -> None:
    """``GET /api/players/ann`` and ``/finger ann``: "in a private room" for outsiders, the room's
    name for someone in it (over HTTP, the one its token names)."""
    ann = await _registered(server, "ann")
    assert (await ann.command("/join geheim"))["type"] == "ack"
    assert (await ann.command("/option private on"))["type"] == "ack"
    zoe = await WsClient.connect(server.port, "zoe")
    answer = await http_get(server.port, "/api/players/ann", accept=JSON)
    profile = answer.json()
    assert answer.status == 200
    assert (profile["online"], profile["room"], profile["private"]) == (True, None, True)
    profile = (await http_get(server.port, "/api/players/ann", ann.token, JSON)).json()
    assert (profile["room"], profile["private"]) == ("geheim", True)
    finger = (await zoe.command("/finger ann"))["text"]
    assert "now in a private room" in finger and "geheim" not in finger
    assert "now in room geheim" in (await ann.command("/finger ann"))["text"]


def test_the_examples_of_the_privacy_rules_hold() -> None:
    """The examples of ``server.directory.privacy`` (who sees a private room's name, a bearer token)."""
    found = run_examples(privacy)
    assert found.attempted > 0 and found.failed == 0
