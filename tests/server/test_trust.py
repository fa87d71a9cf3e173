"""Nobody takes what is not theirs, over real sockets: answers carry their ids, a newer connection
replaces an older one cleanly, a chosen seed stays secret, and only the seated change a room."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from structlog.testing import capture_logs
from websockets.exceptions import ConnectionClosed

from engine import GameRecord
from server.app import Server
from server.log.contract import TokenInfo
from server.log.sqlite.store import Store
from tests.server.clients import LineClient, WsClient, until
from tests.server.conftest import ServerFactory


@pytest.mark.parametrize("text", ["/help", "/help play", "/history", "/board", "/hand", "/score"])
async def test_text_answers_carry_the_id_of_the_command(server: Server, text: str) -> None:
    """/help, /history, /board, /hand and /score answer with a ``text`` that echoes the id."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    await ann.command("/join ids")
    await bob.command("/join ids")
    assert (await ann.command("/start"))["type"] == "ack"
    await ann.send({"type": "command", "text": text, "id": 1000})
    answer = await ann.next(lambda m: m["type"] in ("text", "error"))
    assert (answer["type"], answer["id"]) == ("text", 1000), answer


async def test_a_newer_connection_replaces_the_older_one_cleanly(server: Server) -> None:
    """Resuming while the old connection is open: the old one is closed with 1008 and gets nothing
    more, the room hears nothing of it (neither ``away`` nor ``back``: ann was never away), and
    the new one owns the seat."""
    with capture_logs() as logs:
        await _replace(server, logs)


async def _replace(server: Server, logs: list[dict[str, object]]) -> None:
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    await ann.command("/join swap")
    await ann.command("/option host off")  # so that bob may set the seed and start
    await bob.command("/join swap")
    await bob.command("/option seed 5")
    assert (await bob.command("/start"))["type"] == "ack"
    await ann.next("game_started")
    assert (await ann.request({"type": "ping"}))["type"] == "pong"  # all before it has arrived
    ann.take_all()
    await bob.barrier()
    bob.take_all()
    new = await WsClient.connect(server.port, "ann", token=ann.token)
    assert new.messages[-1]["resumed"] is True
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await ann._receive(5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert closed.value.rcvd.reason == "replaced"
    assert ann.take_all() == []
    await new.next("snapshot")
    await bob.barrier()
    assert not [m for m in bob.take_all() if m["type"] == "presence"]
    assert new.view is not None and new.view["seat"] is not None
    to_move = new.view["game"]["to_move"]
    mover = new if to_move == "ann" else bob
    moves = await mover.request({"type": "legal_moves"})
    assert (await mover.request({"type": "move", "move": moves["moves"][0]}))["type"] == "ack"
    room = server.lobby.rooms["swap"]
    assert [s.session is not None for s in room.seats] == [True, True]
    assert not [e for e in logs if e["event"] == "room_failed"]


async def test_a_chosen_seed_stays_secret_and_makes_a_practice_game(server: Server) -> None:
    """Others see only that a seed was chosen; game_started says practice; game_over reveals it."""
    ann = await WsClient.connect(server.port, "ann")
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/join secret")
    await zoe.command("/room secret")
    assert (await ann.command("/option seed 987654321"))["type"] == "ack"
    notice = await zoe.next("notice")
    assert "987654321" not in notice["text"] and "practice" in notice["text"]
    await zoe.settle(0.1)
    assert zoe.view is not None and zoe.view["options"]["seed"] == "set"
    assert all("987654321" not in raw for raw in zoe.raw)
    rooms = await zoe.request({"type": "list_rooms"})
    assert rooms["rooms"][0]["options"]["seed"] == "set"
    await ann.command("/addbot random")
    await ann.command("/start")
    started = await zoe.next("game_started")
    assert started["practice"] is True
    assert (await ann.command("/option seed random"))["code"] == "game_running"


async def test_a_random_seed_is_no_practice_game(server: Server) -> None:
    """Without a chosen seed the game is not a practice game."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join real")
    await ann.command("/addbot random")
    await ann.command("/start")
    assert (await ann.next("game_started"))["practice"] is False


@pytest.mark.parametrize(
    "message",
    [
        {"type": "option", "key": "clock", "value": 60},
        {"type": "option", "key": "seed", "value": 1},
        {"type": "add_bot", "strategy": "strong"},
        {"type": "remove_bot", "name": "random-bot1"},
    ],
)
async def test_spectators_change_nothing_in_a_room(server: Server, message: dict[str, object]) -> None:
    """A spectator may not set options or seat or remove bots: ``not_seated``, and nothing changes."""
    ann = await WsClient.connect(server.port, "ann")
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/join mine")
    await ann.command("/addbot random")
    await zoe.command("/room mine")
    await zoe.settle(0.1)
    before = zoe.view
    answer = await zoe.request(message)
    assert (answer["type"], answer["code"]) == ("error", "not_seated")
    await asyncio.sleep(0.05)
    await zoe.settle(0.1)
    assert zoe.view == before


# --- resume tokens ---------------------------------------------------------------------------------


async def _refused(port: int, name: str, token: str | None) -> str:
    client = await WsClient.connect(port)
    answer = await client.request({"type": "hello", "name": name, "token": token})
    assert answer["type"] == "error", answer
    return str(answer["code"])


async def test_an_old_token_takes_over_nobody(server: Server) -> None:
    """A token given up with /quit brings nobody back: the name's new holder plays on undisturbed."""
    thief = await WsClient.connect(server.port, "victim")
    old = thief.token
    assert old is not None
    assert (await thief.command("/quit"))["type"] == "ack"
    await thief.close()
    victim = await WsClient.connect(server.port, "victim")
    await victim.command("/join mine")
    for name in ("victim", "x"):
        assert await _refused(server.port, name, old) == "bad_token"
    assert (await victim.request({"type": "ping"}))["type"] == "pong"  # still connected
    assert server.lobby.directory.session("victim") is not None


async def test_quit_gives_up_the_token_even_while_the_name_is_free(server: Server) -> None:
    """After /quit nobody comes back with the token, although nobody has taken the name since."""
    zed = await WsClient.connect(server.port, "zed")
    assert (await zed.command("/quit"))["type"] == "ack"
    await zed.close()
    await until(lambda: server.lobby.directory.session("zed") is None, "zed's connection gone")
    assert await _refused(server.port, "zed", zed.token) == "bad_token"


async def test_a_resume_with_the_old_connection_open_keeps_the_seat_of_a_drop_room(server: Server) -> None:
    """In a room whose absent players leave the game, a resume while the old connection is still
    open is no leaving: the seat is held and comes back to the new connection, still in the game."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    await ann.command("/join stay")
    for option in ("seed 5", "absent drop"):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    await bob.command("/join stay")
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    new = await WsClient.connect(server.port, "ann", token=ann.token)
    await new.next("snapshot")
    assert new.view is not None and new.view["seat"] is not None
    assert [p["name"] for p in new.view["game"]["players"]] == ["ann", "bob"]
    await bob.barrier()
    assert not [msg for msg in bob.messages if msg["type"] in ("played", "game_over")]  # nobody left
    room = server.lobby.rooms["stay"]
    assert [s.session is not None for s in room.seats] == [True, True]


async def test_a_new_hello_for_a_name_revokes_its_earlier_token(make_server: ServerFactory) -> None:
    """Someone who takes a freed name gets a new token; the previous holder's token is refused.
    (A lost connection's name is held for the window; a restart frees a guest's in no game.)"""
    server: Server = await make_server()
    first = await WsClient.connect(server.port, "kim")
    token = first.token
    assert token is not None
    await server.stop()
    server = await make_server()
    second = await WsClient.connect(server.port, "kim")
    assert await _refused(server.port, "kim", token) == "bad_token"
    assert (await second.request({"type": "ping"}))["type"] == "pong"


async def test_a_resume_and_a_nick_issue_a_new_token_and_revoke_the_old(server: Server) -> None:
    """Each resume and each /nick hands out a new token; the one before it no longer works."""
    kim = await WsClient.connect(server.port, "kim")
    first = kim.token
    assert first is not None
    again = await WsClient.connect(server.port, "kim", token=first)
    assert again.token not in (None, first)
    assert await _refused(server.port, "kim", first) == "bad_token"
    renamed = await again.command("/nick kam")
    assert renamed["type"] == "welcome" and renamed["token"] != again.token
    for name in ("kim", "kam"):
        assert await _refused(server.port, name, str(again.token)) == "bad_token"
    back = await WsClient.connect(server.port, "kam", token=renamed["token"])
    assert back.name == "kam"


async def test_a_nick_is_refused_with_its_code_and_id_or_keeps_the_player(server: Server) -> None:
    """/nick to a bad name, to another's name, or from a room is refused with its code and the
    command's id, and changes nothing; a new case of one's own name is no clash; a rename keeps
    the player behind the name, and its token is like every other."""
    kim = await WsClient.connect(server.port, "kim")
    await WsClient.connect(server.port, "ann")
    refusals = {"/nick 9lives": "bad_name", "/nick ANN": "name_taken"}
    for text, code in refusals.items():
        answer = await kim.command(text)  # the answer that carries the command's id
        assert (answer["type"], answer["code"]) == ("error", code), answer
        assert isinstance(answer["message"], str) and answer["message"]
    await kim.command("/room here")
    answer = await kim.command("/nick bea")
    assert (answer["type"], answer["code"]) == ("error", "not_in_lobby"), answer
    assert isinstance(answer["message"], str) and answer["message"]
    await kim.command("/leave")
    identity = server.lobby.directory.session("kim").identity  # type: ignore[union-attr]
    renamed = await kim.command("/nick KIM")
    assert renamed["type"] == "welcome" and renamed["name"] == "KIM"
    assert re.fullmatch(r"[0-9a-f]{32}", renamed["token"])
    await kim.close()
    back = await WsClient.connect(server.port, "kim", token=renamed["token"])
    assert back.name == "KIM"
    assert server.lobby.directory.session("KIM").identity == identity  # type: ignore[union-attr]


async def test_a_nick_while_holding_a_seat_in_a_running_game_is_refused(server: Server) -> None:
    """ann holds a seat in a running game and leaves its room (a bot plays it): ``/nick`` is
    ``already_playing`` naming the room, so that the game, which knows her by name, keeps her;
    she takes her seat back at once."""
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    for client in (ann, bob):
        assert (await client.command("/join nj"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.next("game_started")
    assert (await ann.command("/leave"))["type"] == "ack"
    refused = await ann.command("/nick zed")
    assert (refused["type"], refused["code"]) == ("error", "already_playing") and "nj" in refused["message"]
    assert ann.name == "ann" and server.lobby.directory.session("zed") is None
    assert (await ann.command("/room nj"))["type"] == "ack"
    assert (await ann.command("/join 1"))["type"] == "ack"
    await bob.barrier()
    assert not [x for x in bob.messages if x["type"] == "vote"]  # her own seat: no vote asked
    await ann.barrier()
    assert ann.view is not None and ann.view["seat"] == 0 and ann.view["game"]["hand"]


async def test_the_token_table_keeps_one_row_a_name(server: Server) -> None:
    """Hellos, resumes and renames do not pile up tokens: one row for each name in use."""
    kim = await WsClient.connect(server.port, "kim")
    for _ in range(3):
        kim = await WsClient.connect(server.port, "kim", token=kim.token)
    for name in ("kam", "kom", "kim"):
        reply = await kim.command(f"/nick {name}")
        kim.token = reply["token"]
    rows = server.store._db.execute("SELECT name FROM tokens").fetchall()  # type: ignore[attr-defined]
    assert rows == [("kim",)]


async def test_a_token_expires_with_the_window_unless_a_seat_is_held(make_server: ServerFactory) -> None:
    """After the resume window a lobby player's token is refused; a player seated in a running game
    comes back with theirs however long they were away."""
    server = await make_server(resume_window=0.2)
    lone = await WsClient.connect(server.port, "lone")
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")  # stays, and does not move: the game runs on
    await ann.command("/join held")
    await bob.command("/join held")
    assert (await ann.command("/start"))["type"] == "ack"  # a bot plays ann's turns, not bob's
    tokens = {"lone": lone.token, "ann": ann.token}
    await lone.close()
    await ann.close()
    await asyncio.sleep(0.5)
    assert await _refused(server.port, "lone", tokens["lone"]) == "bad_token"
    back = await WsClient.connect(server.port, "ann", token=tokens["ann"])
    assert back.messages[0]["resumed"] is True


async def test_tokens_survive_a_restart(make_server: ServerFactory) -> None:
    """A restart ends every connection: the tokens hold for the resume window from then on."""
    first = await make_server()
    ann = await WsClient.connect(first.port, "ann")
    lone = await WsClient.connect(first.port, "lone")
    await ann.command("/join kept")
    await ann.command("/addbot random")
    await ann.command("/start")
    tokens = {"ann": ann.token, "lone": lone.token}
    await first.stop()
    second = await make_server()
    back = await WsClient.connect(second.port, "ann", token=tokens["ann"])
    assert (await back.next("snapshot"))["view"]["seat"] == 0
    assert (await WsClient.connect(second.port, "lone", token=tokens["lone"])).name == "lone"
    released = second.store._db.execute("SELECT COUNT(*) FROM tokens WHERE expires IS NULL")  # type: ignore[attr-defined]
    assert released.fetchone() == (2,)  # the two new connections' tokens, the old ones revoked


async def test_expired_tokens_are_pruned_but_not_those_of_held_seats(tmp_path: Path) -> None:
    """Pruning forgets expired tokens, keeps live ones and those of players in unfinished games."""
    store = Store(str(tmp_path / "t.db"))
    try:
        await store.token_issued("t-old", "old", "i1")
        await store.token_issued("t-live", "live", "i2")
        await store.token_issued("t-seat", "ann", "i3")
        await store.game_started(
            "g", "r", GameRecord(("ann", "bob"), 1), ["person", "person"], {}, ["i3", None]
        )
        for token in ("t-old", "t-seat"):
            await store.token_released(token, 10.0)
        assert store.tokens_pruned(100.0) == 1
        assert await store.token("t-old") is None
        assert await store.token("t-live") == TokenInfo("live", "i2", None)
        assert await store.token("t-seat") == TokenInfo("ann", "i3", 10.0)
    finally:
        store.close()


async def test_history_shows_ones_own_games_not_a_names(server: Server) -> None:
    """Whoever takes a freed name does not see the games its previous holder played."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join past")
    await ann.command("/addbot random")
    await ann.command("/start")
    room = server.lobby.rooms["past"]
    assert room.game is not None
    await ann.command("/quit")
    await ann.close()
    await asyncio.sleep(0.05)
    other = await WsClient.connect(server.port, "ann2")
    assert (await other.command("/nick ann"))["type"] in ("welcome", "error")
    newcomer = await WsClient.connect(server.port, "zed")
    history = await newcomer.command("/history")
    assert history["text"] == "No games yet."
    owner_history = server.store.games_named("ann")  # type: ignore[attr-defined]
    assert [g.game_id for g in owner_history] == [room.game.game_id]


# --- bots cost their owner -------------------------------------------------------------------------


async def _bot_game(client: WsClient, room: str) -> dict[str, object]:
    await client.command(f"/join {room}")
    await client.command("/addbot strong")
    return await client.command("/start")


async def test_a_person_has_only_so_many_games_against_bots(make_server: ServerFactory) -> None:
    """Past --max-bot-games games against the server's bots alone, /start is ``too_many_bot_games``;
    leaving a game does not free its place while it runs; a new identity under the same name
    (/register) and a new name (/nick) wait until the games are over; a game with another person
    does not count."""
    server = await make_server(max_bot_games=2, bot_workers=0)
    burn = await WsClient.connect(server.port, "burn")
    for room in ("b1", "b2"):
        assert (await _bot_game(burn, room))["type"] == "ack"
        assert (await burn.command("/leave"))["type"] == "ack"
    refused = await _bot_game(burn, "b3")
    assert (refused["type"], refused["code"]) == ("error", "too_many_bot_games")
    assert server.lobby.rooms["b3"].state == "waiting"
    assert (await burn.command("/leave"))["type"] == "ack"
    assert (await burn.request({"type": "register", "password": "correct horse"}))[
        "code"
    ] == "already_playing"
    assert (await _bot_game(burn, "b4"))["code"] == "too_many_bot_games"
    assert (await burn.command("/leave"))["type"] == "ack"
    other = await WsClient.connect(server.port, "other")
    for room in ("o1", "o2"):
        assert (await _bot_game(other, room))["type"] == "ack"
        assert (await other.command("/leave"))["type"] == "ack"
    assert (await other.command("/nick other2"))["code"] == "already_playing"
    assert (await _bot_game(other, "o3"))["code"] == "too_many_bot_games"
    assert (await burn.command("/join b3"))["type"] == "ack"
    pal = await WsClient.connect(server.port, "pal")
    await pal.command("/join b3")
    assert (await burn.command("/start"))["type"] == "ack"  # with a person beside them: no bot game


async def test_games_nobody_plays_make_way_for_new_rooms(make_server: ServerFactory) -> None:
    """Guests from one machine, each under a new name, start games against the server's bots and
    go, until the server holds --max-rooms: the next person's new room is made all the same, a
    room whose game waits with nobody in it leaving memory for it. A room whose player lost the
    connection a moment ago (their resume window runs) stays, and rooms in use refuse one
    (``too_many_rooms``). The game that left memory is in the log: its player, back with the
    token, finds it as it was."""
    server = await make_server(max_rooms=4, bot_workers=0)
    ana = await WsClient.connect(server.port, "ana")
    assert (await _bot_game(ana, "ra"))["type"] == "ack"
    await ana.barrier()
    assert ana.view is not None and ana.view["game"] is not None
    hand, token = ana.view["game"]["hand"], ana.token
    assert (await ana.command("/leave"))["type"] == "ack"  # (a bot plays her seat until she is back)
    await ana.close()
    dropped = await WsClient.connect(server.port, "hal")  # lost the connection: its window runs
    assert (await _bot_game(dropped, "rhal"))["type"] == "ack"
    await dropped.close()
    for name in ("bo", "cy"):
        guest = await WsClient.connect(server.port, name)
        assert (await _bot_game(guest, f"r{name}"))["type"] == "ack"
        await guest.command("/quit")
        await guest.close()
    # three rooms wait with nobody in them: each makes way, one for each new room, also for two
    # asked for at once
    newcomers = {name: await WsClient.connect(server.port, name) for name in ("dee", "eve", "fay")}
    assert (await newcomers["dee"].command("/join rdee"))["type"] == "ack"
    both = await asyncio.gather(*(newcomers[name].command(f"/join r{name}") for name in ("eve", "fay")))
    assert [joined["type"] for joined in both] == ["ack", "ack"], both
    assert sorted(server.lobby.directory.rooms) == ["rdee", "reve", "rfay", "rhal"]
    gus = await WsClient.connect(server.port, "gus")  # (hal's window runs: his room stays)
    assert (await gus.command("/join rgus"))["code"] == "too_many_rooms"
    back = await WsClient.connect(server.port, "ana", token=token)
    await back.barrier()
    assert back.view is not None and back.view["room"] == "ra" and back.view["game"]["hand"] == hand


async def test_a_room_whose_game_left_memory_comes_back_with_it(make_server: ServerFactory) -> None:
    """ana's game against a bot leaves memory once she (registered) has gone for the resume window; someone
    who then enters a room of that name enters her game's room, not a new one, and ana, back with
    her token, takes her seat in it."""
    server = await make_server(resume_window=0.3, bot_workers=0)
    ana = await WsClient.connect(server.port, "ana")
    token = (await ana.request({"type": "register", "password": "correct horse battery"}))["token"]
    assert (await _bot_game(ana, "ra"))["type"] == "ack"
    await ana.close()
    await until(lambda: "ra" not in server.lobby.directory.rooms, "ana's game leaving memory")
    zed, yan = await WsClient.connect(server.port, "zed"), await WsClient.connect(server.port, "yan")
    entered = await asyncio.gather(zed.command("/room ra"), yan.command("/room ra"))  # (at once)
    assert [answer["type"] for answer in entered] == ["ack", "ack"]
    for watcher in (zed, yan):
        await watcher.barrier()
        assert (
            watcher.view is not None and watcher.view["state"] == "playing" and watcher.view["seat"] is None
        )
        assert watcher.view["seats"][0]["name"] == "ana"
        assert sorted(watcher.view["spectators"]) == ["yan", "zed"]  # (one room, both in it)
    back = await WsClient.connect(server.port, "ana", token=token)
    await back.barrier()
    assert back.view is not None and back.view["room"] == "ra" and back.view["seat"] == 0


async def test_a_game_nobody_watches_waits_for_someone(make_server: ServerFactory) -> None:
    """When the last person leaves the room, the server's bots stop moving; when someone enters
    again, they go on."""
    server = await make_server(bot_workers=0)
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join idle")
    await ann.command("/option absent drop")
    await ann.command("/addbot random")
    await ann.command("/addbot random")
    assert (await ann.command("/start"))["type"] == "ack"
    assert (await ann.command("/leave"))["type"] == "ack"  # with drop, ann leaves the game too
    room = server.lobby.rooms["idle"]
    await room.settled()
    assert room.core.suspended and room.state == "playing"
    moves = room.game.moves if room.game else -1
    await asyncio.sleep(0.3)
    await room.settled()
    assert room.game is not None and room.game.moves == moves  # nobody here: nothing is played
    zoe = await WsClient.connect(server.port, "zoe")
    await zoe.command("/room idle")
    over = await zoe.next("game_over", timeout=60)
    assert over["reason"]


async def test_a_game_left_alone_leaves_memory_and_comes_back_with_its_player(
    make_server: ServerFactory,
) -> None:
    """A game that waited the resume window with nobody in its room leaves memory (so that such
    games cannot fill the server's rooms); its player's token brings it back, as it was. (A game of
    guests alone ends instead: ``tests/server/test_absent.py``.)"""
    server = await make_server(resume_window=0.3, bot_workers=0)
    ann = await WsClient.connect(server.port, "ann")
    token = (await ann.request({"type": "register", "password": "correct horse battery"}))["token"]
    await ann.command("/join alone")
    await ann.command("/addbot random")
    assert (await ann.command("/start"))["type"] == "ack"
    await ann.close()
    for _ in range(100):  # bounded: 5 s
        if "alone" not in server.lobby.rooms:
            break
        await asyncio.sleep(0.05)
    assert "alone" not in server.lobby.rooms
    thief = await WsClient.connect(server.port)
    assert (await thief.request({"type": "hello", "name": "ann"}))["code"] == "name_registered"
    back = await WsClient.connect(server.port, "ann", token=token)
    snapshot = await back.next("snapshot")
    assert snapshot["view"]["seat"] == 0 and snapshot["view"]["state"] == "playing"
    assert server.lobby.rooms["alone"].game is not None


async def test_leaving_then_renaming_at_once_frees_the_seat(server: Server) -> None:
    """/leave and /nick in one write: the room frees the seat of the name it knew, no ghost stays."""
    assert server.line_port is not None
    bob = await WsClient.connect(server.port, "bob")
    await bob.command("/join ghost")
    line = await LineClient.connect(server.line_port, "ann")
    await line.line("/join ghost")
    await line.expect("ghost")
    await bob.next(lambda m: m["type"] == "presence" and m["event"] == "joined" and m["name"] == "ann")
    line.writer.write(b"/leave\r\n/nick zed\r\n")
    await line.writer.drain()
    await bob.next(lambda m: m["type"] == "presence" and m["event"] == "unseated" and m["name"] == "ann")
    await bob.barrier()
    assert bob.view is not None and [s["name"] for s in bob.view["seats"]] == ["bob"]
