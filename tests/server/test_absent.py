"""The room option ``absent``: after the resume window a bot plays the seat (``bot``, the default)
or the lost player leaves the game (``drop``), logged as ``leave NAME`` like a move."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path

import pytest

from engine import Position, leave, legal_move_texts, new_position, play
from server.app import Server
from server.log.contract import StoreUnavailable
from server.room import clock as room_clock
from tests.server.clients import WsClient, bot_game, end_reason, game_result, http_get, until
from tests.server.conftest import ServerFactory

SEED = 8
THREE = ("ann", "bob", "cem")


async def _seated(port: int, room: str, names: tuple[str, ...], *options: str) -> list[WsClient]:
    """``names`` seated in ``room`` with the seed and ``options`` set, the game started."""
    clients = [await WsClient.connect(port, n) for n in names]
    await clients[0].command(f"/join {room}")
    for option in (f"seed {SEED}", *options):
        assert (await clients[0].command(f"/option {option}"))["type"] == "ack"
    for c in clients[1:]:
        assert (await c.command(f"/join {room}"))["type"] == "ack"
    assert (await clients[0].command("/start"))["type"] == "ack"
    return clients


async def _play_on(
    clients: dict[str, WsClient], watcher: WsClient, position: Position, moves: int
) -> Position:
    """Play ``moves`` random moves, each by the client whose turn the engine says it is."""
    rng = random.Random(3)
    for _ in range(moves):
        mover = position.players[position.to_move].name
        result = play(position, rng.choice(legal_move_texts(position)))
        assert (await clients[mover].request({"type": "move", "move": result.move}))["type"] == "ack"
        played = await watcher.next("played")
        assert (played["player"], played["move"]) == (mover, result.move)
        position = result.position
    return position


def _left(name: str) -> dict[str, object]:
    """The fields of the ``played`` message for ``name`` taken out of the game."""
    return {
        "player": name,
        "move": f"leave {name}",
        "points": 0,
        "events": [{"type": "left", "player": name}],
    }


async def test_with_drop_a_lost_player_leaves_after_the_window_and_the_game_goes_on(
    make_server: ServerFactory,
) -> None:
    """Three players, absent drop: cem's window passes, everyone is told ``leave cem`` (logged
    first), cem's seat stays out of play with no bot, and ann and bob play on."""
    server: Server = await make_server(resume_window=0.3)
    ann, bob, cem = await _seated(server.port, "drop3", THREE, "absent drop")
    await cem.close()
    played = await ann.next("played")
    # the entry is in the log by the time anyone hears of it
    (stored,) = await server.store.unfinished_games()
    assert stored.record.moves == ("leave cem",)
    assert {k: played[k] for k in ("player", "move", "points", "events")} == _left("cem")
    assert played["auto"] is True
    told = await bob.next("played")
    assert {k: told[k] for k in ("player", "move", "points", "events")} == _left("cem")
    position = leave(new_position(THREE, SEED), "cem").position
    game = ann.view["game"] if ann.view else None
    assert game is not None and [p["eliminated"] for p in game["players"]] == [False, False, True]
    assert game["to_move"] == position.players[position.to_move].name != "cem"
    position = await _play_on({"ann": ann, "bob": bob}, ann, position, 4)
    assert position.eliminated == (2,)
    assert not [m for m in ann.messages if m["type"] == "presence" and m["event"] == "replaced_by_bot"]
    (stored,) = await server.store.unfinished_games()
    assert len(stored.record.moves) == 5 and stored.record.moves[0] == "leave cem"


async def test_with_drop_two_players_the_drop_ends_the_game_and_the_record_replays(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    """Two players, absent drop: bob's leaving ends the game (one player left), ranked last; the
    record of GET /games/ID replays and verifies with cafe-engine."""
    server: Server = await make_server(resume_window=0.3)
    ann, bob = await _seated(server.port, "drop2", ("ann", "bob"), "absent drop")
    await bob.close()
    played = await ann.next("played")
    assert {k: played[k] for k in ("player", "move", "points", "events")} == _left("bob")
    over = await ann.next("game_over")
    assert (over["reason"], over["ranking"], over["places"]) == (
        "last_player",
        ["ann", "bob"],
        {"ann": 1, "bob": 2},
    )
    assert over["penalties"]["bob"] == 0 and over["penalties"]["ann"] > 0
    (finished,) = server.store.games_named("ann")
    status, _, body = await http_get(server.port, f"/games/{finished.game_id}")
    assert status == 200 and json.loads(body)["moves"] == ["leave bob"]
    path = tmp_path / "record.json"
    path.write_bytes(body)
    for command in ("replay", "verify"):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "engine", command, str(path), stdout=asyncio.subprocess.PIPE
        )
        out, _ = await proc.communicate()
        assert proc.returncode == 0, command
        printed = json.loads(out)
        if command == "replay":
            assert printed["eliminated"] == ["bob"]
        else:
            assert printed["ok"] is True


async def test_a_game_with_a_player_who_left_restores_after_a_restart(make_server: ServerFactory) -> None:
    """The log's ``leave cem`` replays on restart: the players come back to a game without cem."""
    first: Server = await make_server(resume_window=0.3)
    ann, bob, cem = await _seated(first.port, "restart", THREE, "absent drop")
    await cem.close()
    await ann.next("played")
    tokens = {"ann": ann.token, "bob": bob.token}
    await first.stop()

    second: Server = await make_server()
    back = {name: await WsClient.connect(second.port, name, token=token) for name, token in tokens.items()}
    snapshot = await back["ann"].next("snapshot")
    game = snapshot["view"]["game"]
    assert game["move_number"] == 1
    assert game["last_move"] == {"player": "cem", "move": "leave cem", "points": 0}
    assert [p["eliminated"] for p in game["players"]] == [False, False, True]
    position = leave(new_position(THREE, SEED), "cem").position
    await back["bob"].next("snapshot")
    position = await _play_on(back, back["ann"], position, 3)
    assert position.players[position.to_move].name != "cem"


async def test_the_absent_option_takes_bot_or_drop_before_the_start_only(server: Server) -> None:
    """absent is bot by default and shown with the options; a wrong value is bad_option (as a
    frame) or bad_arguments (as a chat command); during a game options are fixed."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join opts")
    await ann.command("/addbot greedy")
    assert ann.view is not None and ann.view["options"]["absent"] == "bot"
    for key, value in (("absent", True), ("absent", 5), ("absent", None), ("seed", "drop"), ("clock", "bot")):
        answer = await ann.request({"type": "option", "key": key, "value": value})
        assert (answer["type"], answer.get("code")) == ("error", "bad_option"), (key, value)
    assert (await ann.command("/option absent maybe"))["code"] == "bad_arguments"
    assert ann.view["options"]["absent"] == "bot"
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    await ann.next(lambda m: m["type"] == "patch" and any(op["path"] == "/options/absent" for op in m["ops"]))
    assert ann.view["options"]["absent"] == "drop"
    assert (await ann.command("/start"))["type"] == "ack"
    assert (await ann.command("/option absent bot"))["code"] == "game_running"


async def test_with_drop_leaving_the_room_mid_game_leaves_the_game_at_once(server: Server) -> None:
    """absent drop: a player who sends leave_room during the game is out of it at once, through
    the same ``leave NAME`` as the window (logged first), with no bot; the others play on."""
    ann, bob, cem = await _seated(server.port, "gone3", THREE, "absent drop")
    assert (await cem.request({"type": "leave_room"}))["type"] == "ack"
    (stored,) = await server.store.unfinished_games()
    assert stored.record.moves == ("leave cem",)
    played = await ann.next("played")
    assert {k: played[k] for k in ("player", "move", "points", "events")} == _left("cem")
    left = await ann.next(
        lambda m: m["type"] == "presence" and m["name"] == "cem" and m["event"] in ("away", "left")
    )
    assert left["event"] == "left"
    assert ann.view is not None and ann.view["seats"][2] == {
        "name": "cem",
        "kind": "person",
        "connected": False,
    }
    position = leave(new_position(THREE, SEED), "cem").position
    await _play_on({"ann": ann, "bob": bob}, ann, position, 3)
    assert not [
        m for m in ann.messages if m["type"] == "presence" and m["event"] in ("away", "replaced_by_bot")
    ]


async def test_with_drop_standing_up_mid_game_leaves_the_game_and_stays_to_watch(server: Server) -> None:
    """absent drop: /stand during the game takes the player out of it (here that ends a two-player
    game); they stay in the room, cannot move, and the seat is gone once the game is over."""
    ann, bob = await _seated(server.port, "stand2", ("ann", "bob"), "absent drop")
    position = new_position(["ann", "bob"], SEED)
    assert (await bob.command("/stand"))["type"] == "ack"
    played = await bob.next("played")
    assert {k: played[k] for k in ("player", "move", "points", "events")} == _left("bob")
    over = await ann.next("game_over")
    assert (over["reason"], over["ranking"]) == ("last_player", ["ann", "bob"])
    await bob.next("game_over")
    await bob.next(lambda m: bob.view is not None and len(bob.view["seats"]) == 1)
    assert bob.view is not None and bob.view["state"] == "over"
    assert [s["name"] for s in bob.view["seats"]] == ["ann"] and bob.view["spectators"] == ["bob"]
    (finished,) = server.store.games_named("bob")
    assert finished.record.moves == ("leave bob",)
    move = legal_move_texts(position)[0]
    assert (await bob.request({"type": "move", "move": move}))["code"] in ("not_seated", "game_over")


async def test_with_drop_a_player_who_stood_up_cannot_move_while_the_game_goes_on(server: Server) -> None:
    """absent drop, three players: after /stand the player watches (no seat, no hand in the view);
    a move or another /stand from them is refused: not_seated; /join of the seat that was theirs
    is bad_seat (it has no turns), and nobody reads that they are back."""
    ann, bob, cem = await _seated(server.port, "stand3", THREE, "absent drop")
    assert (await ann.command("/stand"))["type"] == "ack"
    await bob.next("played")
    position = leave(new_position(THREE, SEED), "ann").position
    assert ann.view is not None and ann.view["state"] == "playing"
    assert ann.view["seat"] is None and "hand" not in ann.view["game"] and ann.view["spectators"] == ["ann"]
    answer = await ann.request({"type": "move", "move": legal_move_texts(position)[0]})
    assert answer["code"] == "not_seated"
    assert (await ann.command("/stand"))["code"] == "not_seated"  # out already: nothing to give up
    back = await ann.command("/join 1")  # the seat that was hers has no turns: she stays out
    assert (back["type"], back["code"]) == ("error", "bad_seat")
    assert back["message"] == "You are out of this game: seat 1 has no turns."
    assert ann.view is not None and ann.view["seat"] is None
    assert not [m for m in bob.messages if m["type"] == "presence" and m["event"] == "back"]
    await _play_on({"bob": bob, "cem": cem}, bob, position, 2)


async def test_with_drop_a_player_out_of_the_game_comes_back_with_the_token_only_to_watch(
    server: Server,
) -> None:
    """absent drop, three players: one who stood up (out of the game) and then lost the connection
    says ``hello`` with the token: ``welcome`` (resumed) and a spectator's view (no seat, no hand,
    among the spectators), nobody reads that they are back, and a move is ``not_seated``."""
    ann, bob, cem = await _seated(server.port, "out3", THREE, "absent drop")
    assert (await ann.command("/stand"))["type"] == "ack"
    await bob.next(lambda m: m["type"] == "played" and m["move"] == "leave ann")
    await ann.close()
    back = await WsClient.connect(server.port, "ann", token=ann.token)
    await back.next("snapshot")
    await back.barrier()
    assert back.view is not None and back.view["state"] == "playing"
    assert back.view["seat"] is None and "hand" not in back.view["game"] and "ann" in back.view["spectators"]
    position = leave(new_position(THREE, SEED), "ann").position
    move = legal_move_texts(position)[0]
    assert (await back.request({"type": "move", "move": move}))["code"] == "not_seated"
    await bob.barrier()
    assert not [m for m in bob.messages if m["type"] == "presence" and m["event"] == "back"]
    await _play_on({"bob": bob, "cem": cem}, bob, position, 2)


async def test_a_room_whose_game_is_over_stays_the_window_for_a_reload(make_server: ServerFactory) -> None:
    """A game ends (bob stands up: ann is the last player) and both lose their connections: the
    room stays for the resume window, so that ann, back with her token (a reload of the page),
    enters it and reads the result and every move; once the window has passed with nobody in
    it, the room goes (its game is in the log)."""
    server: Server = await make_server(resume_window=1.0)
    ann, bob = await _seated(server.port, "over2", ("ann", "bob"), "absent drop")
    assert (await bob.command("/stand"))["type"] == "ack"
    over = await ann.next("game_over")
    for client in (ann, bob):
        await client.close()
    back = await WsClient.connect(server.port, "ann", token=ann.token)
    assert (await back.command("/room over2"))["type"] == "ack"
    await back.barrier()
    assert back.view is not None and back.view["state"] == "over"
    game = back.view["game"]
    assert game["result"]["ranking"] == over["ranking"]
    assert [h["move"] for h in game["history"]] == ["leave bob"]
    await back.close()
    rooms = server.lobby.directory.rooms
    assert "over2" in rooms  # (nobody in it: it stays the window)
    await until(lambda: "over2" not in rooms, "the room gone after the window")


async def test_a_game_that_ends_while_a_player_is_away_greets_them_with_its_result(
    make_server: ServerFactory,
) -> None:
    """absent drop: ann's connection is lost, and bob leaves the room, which ends the game (ann is
    the last player) with nobody in the room. The room stays the window: a newcomer finds the
    result there, and ann, back with her token, is in it at once with the result and every move
    (before, the room went as bob left, and ann came back to the lobby, told nothing)."""
    server: Server = await make_server(resume_window=6.0)
    ann, bob = await _seated(server.port, "away2", ("ann", "bob"), "absent drop")
    await ann.close()
    await bob.next(lambda m: m["type"] == "presence" and m["event"] == "away")
    assert (await bob.command("/leave"))["type"] == "ack"
    cem = await WsClient.connect(server.port, "cem")
    assert (await cem.command("/room away2"))["type"] == "ack"
    await cem.barrier()
    assert cem.view is not None and cem.view["state"] == "over"
    assert cem.view["game"]["result"]["reason"] == "last_player"
    back = await WsClient.connect(server.port, "ann", token=ann.token)
    snapshot = await back.next("snapshot")
    assert snapshot["view"]["room"] == "away2" and snapshot["view"]["state"] == "over"
    game = snapshot["view"]["game"]
    assert game["result"]["reason"] == "last_player" and game["result"]["ranking"][0] == "ann"
    assert [h["move"] for h in game["history"]] == ["leave bob"]


async def test_a_token_that_expired_after_a_game_ended_while_away_is_refused(
    make_server: ServerFactory,
) -> None:
    """The others leave the game (``/stand``), which ends it while ann is away, and stay in the
    room: the room keeps its result for them, but ann's token holds only the resume window after
    the end; past it, ``bad_token``, as for any token that expired."""
    server: Server = await make_server(resume_window=1.0)
    ann, bob, cem = await _seated(server.port, "kept3", THREE, "absent drop")
    await ann.close()
    await bob.next(lambda m: m["type"] == "presence" and m["event"] == "away")
    for client in (bob, cem):
        assert (await client.command("/stand"))["type"] == "ack"
    await bob.next("game_over")
    await asyncio.sleep(1.5)
    late = await WsClient.connect(server.port)
    answer = await late.request({"type": "hello", "name": "ann", "token": ann.token})
    assert (answer["type"], answer["code"]) == ("error", "bad_token"), answer


async def test_a_room_whose_game_is_over_makes_way_for_a_new_one(make_server: ServerFactory) -> None:
    """At the server's room cap, a room staying after its game is over (nobody in it) goes at once
    for a new room."""
    server: Server = await make_server(max_rooms=1)
    ann, bob = await _seated(server.port, "over1", ("ann", "bob"), "absent drop")
    assert (await bob.command("/stand"))["type"] == "ack"
    await ann.next("game_over")
    for client in (ann, bob):
        assert (await client.command("/leave"))["type"] == "ack"
    assert "over1" in server.lobby.directory.rooms
    assert (await ann.command("/join next"))["type"] == "ack"
    assert list(server.lobby.directory.rooms) == ["next"]


async def test_with_bot_leaving_mid_game_hands_the_seat_to_a_bot_and_standing_is_refused(
    server: Server,
) -> None:
    """absent bot (the default): /stand during the game is game_running; /leave hands the seat to
    a bot at once and nothing is logged for the player."""
    ann, bob = await _seated(server.port, "keep2", ("ann", "bob"))
    assert (await bob.command("/stand"))["code"] == "game_running"
    assert (await bob.command("/leave"))["type"] == "ack"
    taken = await ann.next(lambda m: m["type"] == "presence" and m["event"] == "replaced_by_bot")
    assert taken["name"] == "bob"
    (stored,) = await server.store.unfinished_games()
    assert not [move for move in stored.record.moves if move.startswith("leave ")]


async def test_a_drop_the_log_refuses_is_tried_again_until_it_is_logged(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With absent drop, when the log cannot take ``leave cem`` as the window passes, nothing
    changes and nobody is told; the drop is tried again and goes through once the log is back."""
    monkeypatch.setattr(room_clock, "RETRY", 0.2)
    server: Server = await make_server(resume_window=0.2)
    ann, _bob, cem = await _seated(server.port, "retry", THREE, "absent drop")
    store = server.lobby.store
    logged = store.move_played
    refused: list[str] = []

    async def unavailable_once(game_id: str, number: int, move: str) -> None:
        if not refused:
            refused.append(move)
            raise StoreUnavailable("the disk is away")
        await logged(game_id, number, move)

    monkeypatch.setattr(store, "move_played", unavailable_once)
    await cem.close()
    played = await ann.next("played")
    assert refused == ["leave cem"]
    assert {k: played[k] for k in ("player", "move", "points", "events")} == _left("cem")
    assert [m for m in ann.messages if m["type"] == "played"] == [played]  # told once, when logged
    (stored,) = await server.store.unfinished_games()
    assert stored.record.moves == ("leave cem",)


async def test_a_seat_a_bot_played_is_played_on_at_once_after_a_restart(make_server: ServerFactory) -> None:
    """bob quits mid-game, so a bot plays his seat; the server stops and starts again from its
    log: the bot plays on for him at his next turn, rather than the seat waiting a whole resume
    window for someone who left. The view's history marks the moves the bot played for him
    (``auto`` ``bot``), before the restart and after it."""
    first: Server = await make_server(resume_window=60)
    ann, bob = await _seated(first.port, "quitters", ("ann", "bob"))
    assert (await bob.command("/quit"))["type"] == "ack"
    bot_moved = False
    while not bot_moved or ann.view is None or ann.view["game"]["to_move"] != "ann":
        await ann.barrier()
        assert ann.view is not None
        if ann.view["game"]["to_move"] == "ann" and not bot_moved:
            legal = (await ann.request({"type": "legal_moves"}))["moves"]
            assert (await ann.request({"type": "move", "move": legal[0]}))["type"] == "ack"
            played = await ann.next(lambda m: m["type"] == "played" and m["player"] == "bob", timeout=10)
            bot_moved = True
            assert played["auto"] is True and not played["clock"]
    token = ann.token
    assert ann.view is not None
    marked = [h for h in ann.view["game"]["history"] if "auto" in h]
    assert marked and {h["player"] for h in marked} == {"bob"} and {h["auto"] for h in marked} == {"bot"}
    await first.stop()

    second: Server = await make_server(resume_window=60)
    back = await WsClient.connect(second.port, "ann", token=token)
    snapshot = await back.next("snapshot")
    assert [h for h in snapshot["view"]["game"]["history"] if "auto" in h] == marked
    legal = (await back.request({"type": "legal_moves"}))["moves"]
    assert (await back.request({"type": "move", "move": legal[0]}))["type"] == "ack"
    played = await back.next(lambda m: m["type"] == "played" and m["player"] == "bob", timeout=10)
    assert played["auto"] is True and not played["clock"]


async def test_a_guest_who_quits_a_game_against_the_bots_alone_ends_it_and_frees_the_name(
    make_server: ServerFactory,
) -> None:
    """With nobody else in the room the bots wait for someone to come, and a guest who gave up
    the token could never come back to the seat: so amy, a guest, ends a game against the server's
    bots alone when she quits, as the staff's close does (``closed``, unrated), and her name is
    free at once. A registered player's seat goes to a bot as ever: the account logs in again and
    has it back."""
    server: Server = await make_server(resume_window=60)
    for bots, room in ((2, "solo2"), (1, "solo1")):
        amy = await WsClient.connect(server.port, "amy")
        assert (await amy.command(f"/join {room}"))["type"] == "ack"
        for _ in range(bots):
            assert (await amy.command("/addbot greedy"))["type"] == "ack"
        assert (await amy.command("/start"))["type"] == "ack"
        game = (await amy.next("game_started"))["game"]
        assert (await amy.command("/quit"))["type"] == "ack"
        await amy.close()
        again = await WsClient.connect(server.port, "amy")  # (refused as name_taken before)
        record = (await http_get(server.port, f"/api/games/{game}")).json()
        assert record["result"]["reason"] == "closed"
        assert (await again.command("/quit"))["type"] == "ack"
        await again.close()
    assert await server.store.leaderboard(10) == []
    bea = await WsClient.connect(server.port, "bea")
    assert (await bea.request({"type": "register", "password": "correct horse battery"}))["registered"]
    assert (await bea.command("/join solo3"))["type"] == "ack"
    assert (await bea.command("/addbot greedy"))["type"] == "ack"
    assert (await bea.command("/start"))["type"] == "ack"
    game = (await bea.next("game_started"))["game"]
    assert (await bea.command("/quit"))["type"] == "ack"
    await bea.close()
    back = await WsClient.connect(server.port, "bea", password="correct horse battery")
    snapshot = await back.next("snapshot")
    assert snapshot["view"]["room"] == "solo3" and snapshot["view"]["seat"] is not None
    assert (await http_get(server.port, f"/api/games/{game}")).json()["result"] is None


async def test_a_guest_who_left_the_room_and_quits_from_the_lobby_ends_the_bots_game(
    make_server: ServerFactory,
) -> None:
    """amy, a guest, leaves her game against a bot (the bot plays her seat, and the game waits with
    nobody in its room, holding her name for her return), then quits in the lobby: nobody can
    come back to her seat any more, so the game ends (``closed``) and her name is free. ben, a
    guest who left his the same way and stays in the lobby, keeps his game."""
    server: Server = await make_server(resume_window=60)
    games = {}
    clients = {}
    for name in ("amy", "ben"):
        client = clients[name] = await WsClient.connect(server.port, name)
        games[name] = await bot_game(client, f"room{name}")
        assert (await client.command("/leave"))["type"] == "ack"
    thief = await WsClient.connect(server.port)
    assert (await thief.request({"type": "hello", "name": "amy"}))["code"] == "name_taken"
    amy = clients["amy"]
    assert (await amy.command("/quit"))["type"] == "ack"
    await amy.close()
    assert await end_reason(server.port, games["amy"]) == "closed"
    again = await WsClient.connect(server.port, "amy")  # (refused as name_taken before)
    assert (await again.command("/quit"))["type"] == "ack"
    assert await game_result(server.port, games["ben"]) is None
    ben = clients["ben"]
    assert (await ben.command("/room roomben"))["type"] == "ack"
    await ben.barrier()
    assert ben.view is not None and ben.view["state"] == "playing" and ben.view["game"]["result"] is None


async def test_a_game_nobody_can_come_back_to_ends_when_its_last_watcher_goes(
    make_server: ServerFactory,
) -> None:
    """Two guests play against a bot and quit one after the other; then a spectator, the last
    person in the room, goes: the game, whose every seat is the bot's or a guest's who gave up the
    token, ends then (``closed``), and both names are free."""
    server: Server = await make_server(resume_window=60)
    amy, ben, cat = [await WsClient.connect(server.port, name) for name in ("amy", "ben", "cat")]
    for player in (amy, ben):
        assert (await player.command("/join trio"))["type"] == "ack"
    assert (await amy.command("/addbot greedy"))["type"] == "ack"
    assert (await cat.command("/room trio"))["type"] == "ack"
    assert (await amy.command("/start"))["type"] == "ack"
    game = (await cat.next("game_started"))["game"]
    for quitter in (amy, ben):
        assert (await quitter.command("/quit"))["type"] == "ack"
        await quitter.close()
    assert (await http_get(server.port, f"/api/games/{game}")).json()["result"] is None
    assert (await cat.command("/leave"))["type"] == "ack"
    for _ in range(50):
        if (await http_get(server.port, f"/api/games/{game}")).json()["result"] is not None:
            break
        await asyncio.sleep(0.05)
    assert (await http_get(server.port, f"/api/games/{game}")).json()["result"]["reason"] == "closed"
    for name in ("amy", "ben"):
        await WsClient.connect(server.port, name)


async def test_a_game_waiting_with_nobody_longer_than_the_max_age_ends(make_server: ServerFactory) -> None:
    """``--game-max-age``: ann, registered, leaves her game against a bot; with nobody in its room
    the game leaves memory after the resume window, and once it began longer ago than the max age
    it ends (``closed``, unrated) without anyone's doing. She logs in again to no seat; the room
    is free for a new game."""
    server: Server = await make_server(resume_window=0.2, game_max_age=1.5)
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": "correct horse battery"}))["registered"]
    game = await bot_game(ann, "den")
    assert (await ann.command("/leave"))["type"] == "ack"
    assert await game_result(server.port, game) is None
    assert await end_reason(server.port, game) == "closed"
    assert await server.store.leaderboard(10) == []
    await ann.close()
    back = await WsClient.connect(server.port, "ann", password="correct horse battery")
    assert back.messages[0]["resumed"] is False
    assert (await back.command("/join den"))["type"] == "ack"
    await back.barrier()
    assert back.view is not None and back.view["state"] == "waiting" and back.view["game"] is None


async def test_only_games_older_than_the_max_age_and_out_of_memory_end(make_server: ServerFactory) -> None:
    """A game that left memory but began after the cutoff stays; so does one whose room has
    someone in it, however old; the look after the cutoff passed ends the first."""
    server: Server = await make_server(resume_window=0.1)  # (the default max age: a week)
    games = {}
    for name in ("ann", "bob"):
        client = await WsClient.connect(server.port, name)
        assert (await client.request({"type": "register", "password": "correct horse battery"}))["registered"]
        games[name] = await bot_game(client, f"room{name}")
        if name == "ann":
            assert (await client.command("/leave"))["type"] == "ack"
    await until(lambda: "roomann" not in server.directory.rooms, "ann's game leaving memory")
    assert await server.directory.expire(time.time() - 60) == 0
    assert await game_result(server.port, games["ann"]) is None
    assert await server.directory.expire(time.time() + 60) == 1
    assert await end_reason(server.port, games["ann"]) == "closed"
    assert await game_result(server.port, games["bob"]) is None
    assert await server.directory.expire(time.time() + 60) == 0


async def test_a_game_the_look_cannot_read_keeps_no_other_from_ending(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two games left memory; reading one fails (the store's fault): the look ends the other, logs
    the failure, and ends the first once it can be read."""
    server: Server = await make_server(resume_window=0.1)
    games = []
    for room in ("alpha", "beta"):
        client = await WsClient.connect(server.port, f"ann{room}")
        assert (await client.request({"type": "register", "password": "correct horse battery"}))["registered"]
        games.append(await bot_game(client, room))
        assert (await client.command("/leave"))["type"] == "ack"
    await until(lambda: not {"alpha", "beta"} & set(server.directory.rooms), "both games leaving memory")
    read = server.store.game

    async def failing(game_id: str) -> object:
        if game_id == min(games):
            raise OSError("disk on fire")
        return await read(game_id)

    monkeypatch.setattr(server.store, "game", failing)
    assert await server.directory.expire(time.time() + 60) == 1
    monkeypatch.setattr(server.store, "game", read)
    assert await server.directory.expire(time.time() + 60) == 1
    for game in games:
        assert await end_reason(server.port, game) == "closed"


async def test_a_guests_game_left_with_nobody_ends_when_the_window_passes(make_server: ServerFactory) -> None:
    """amy, a guest, loses her connection in a game against a bot: her seat waits the resume
    window, then, with nobody in the room and no account among the seats, the game ends
    (``closed``, unrated) rather than waiting a week, and her name is free again."""
    server: Server = await make_server(resume_window=0.3)
    amy = await WsClient.connect(server.port, "amy")
    game = await bot_game(amy, "den")
    await amy.close()
    thief = await WsClient.connect(server.port)
    assert (await thief.request({"type": "hello", "name": "amy"}))["code"] == "name_taken"
    assert await end_reason(server.port, game) == "closed"
    again = await WsClient.connect(server.port, "amy")
    assert again.messages[0]["type"] == "welcome"
