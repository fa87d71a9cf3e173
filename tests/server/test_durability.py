"""Never lose a game: a killed server, lost connections, absent players and abusive clients."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from engine import Position, legal_move_texts, new_position, play
from server.app import Server
from server.log.sqlite.store import Store
from tests.server.clients import MAX_TURNS, LineClient, WsClient
from tests.server.conftest import ServerFactory
from tests.server.process import ServerProcess


async def _seated(port: int, room: str, seed: int, *names: str) -> list[WsClient]:
    clients = [await WsClient.connect(port, n) for n in names]
    await clients[0].command(f"/join {room}")
    await clients[0].command(f"/option seed {seed}")
    for c in clients[1:]:
        await c.command(f"/join {room}")
    assert (await clients[0].command("/start"))["type"] == "ack"
    return clients


async def _play(
    clients: list[WsClient], position: Position, rng: random.Random, moves: int | None
) -> Position:
    """Play ``moves`` random moves (or to the end), each checked against the engine."""
    count = 0
    while count < (MAX_TURNS if moves is None else moves):
        result = play(position, rng.choice(legal_move_texts(position)))
        mover = clients[position.to_move]
        assert (await mover.request({"type": "move", "move": result.move}))["type"] == "ack"
        played = await clients[0].next("played")
        assert (played["move"], played["points"]) == (result.move, result.points)
        position = result.position
        count += 1
        if result.outcome is not None:
            break
    return position


async def test_sigkill_mid_game_loses_no_move_and_the_players_finish(tmp_path: Path) -> None:
    """Kill -9 mid-game, restart on the same log: every accepted move is there; tokens bring players back."""
    db = tmp_path / "cafe.db"
    first = await ServerProcess.start(db)
    ann, bob = await _seated(first.port, "durable", 33, "ann", "bob")
    position = await _play([ann, bob], new_position(["ann", "bob"], 33), random.Random(1), 12)
    tokens = [ann.token, bob.token]
    first.proc.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.proc.wait(), 10) == -signal.SIGKILL

    store = Store(str(db))
    (game,) = await store.unfinished_games()
    assert len(game.record.moves) == 12
    store.close()

    second = await ServerProcess.start(db)
    try:
        thief = await WsClient.connect(second.port)
        assert (await thief.request({"type": "hello", "name": "ann"}))["code"] == "name_taken"
        back = []
        for name, token in zip(["ann", "bob"], tokens, strict=True):
            client = await WsClient.connect(second.port, name, token=token)
            assert client.name == name
            snapshot = await client.next("snapshot")
            game_view = snapshot["view"]["game"]
            assert game_view["move_number"] == 12
            assert game_view["hand"] == [c.text for c in position.players[["ann", "bob"].index(name)].hand]
            back.append(client)
        final = await _play(back, position, random.Random(2), None)
        over = await back[0].next("game_over")
        assert over["final_scores"] == {p.name: p.score for p in final.players} or over["penalties"]
    finally:
        second.proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(second.proc.wait(), 20) == 0


async def test_after_sigkill_the_game_keeps_its_clock_and_absent_options(tmp_path: Path) -> None:
    """A game started with clock 1 and absent drop, killed -9 and restarted on the same log, keeps
    both: the room shows them, the clock plays for the players who do not come back, and when a
    resume window passes that player leaves the game (no bot), which ends it."""
    db = tmp_path / "cafe.db"
    first = await ServerProcess.start(db, "--clock-min", "0.1")
    ann, bob = [await WsClient.connect(first.port, n) for n in ("ann", "bob")]
    await ann.command("/join kept")
    for option in ("seed 21", "clock 1", "absent drop"):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    await bob.command("/join kept")
    assert (await ann.command("/start"))["type"] == "ack"
    await _play([ann, bob], new_position(["ann", "bob"], 21), random.Random(7), 4)
    assert ann.view is not None
    options = ann.view["options"]
    assert (options["clock"], options["absent"], options["seed"]) == (1, "drop", "set")
    first.proc.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.proc.wait(), 10) == -signal.SIGKILL

    # nobody comes back: the clock moves for each in turn, well before the windows pass
    second = await ServerProcess.start(db, "--clock-min", "0.1", "--resume-window", "2.5")
    try:
        zoe = await WsClient.connect(second.port, "zoe")
        await zoe.command("/room kept")
        assert zoe.view is not None and zoe.view["options"] == options
        await zoe.next(lambda m: zoe.view is not None and zoe.view["state"] == "over", timeout=30)
        assert zoe.view["game"]["result"]["reason"] == "last_player"
        assert zoe.view["options"] == {**options, "seed": None}  # a chosen seed deals one game
    finally:
        second.proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(second.proc.wait(), 20) == 0
    store = Store(str(db))
    (game,) = store.games_named("ann")
    store.close()
    after = game.record.moves[4:]
    assert after[-1] in ("leave ann", "leave bob")
    assert after[:-1] and not [move for move in after[:-1] if move.startswith("leave ")]


async def test_reconnecting_with_the_token_reclaims_name_and_seat(server: Server) -> None:
    """Within the window the name and seat wait; a wrong token is refused; the right one resumes."""
    ann, bob = await _seated(server.port, "back", 8, "ann", "bob")
    token = ann.token
    await ann.close()
    away = await bob.next(lambda m: m["type"] == "presence" and m["event"] == "away")
    assert away["name"] == "ann"
    other = await WsClient.connect(server.port)
    assert (await other.request({"type": "hello", "name": "Ann"}))["code"] == "name_taken"
    assert (await other.request({"type": "hello", "name": "x", "token": "f" * 32}))["code"] == "bad_token"
    # a token holds for the name it was issued for only
    assert (await other.request({"type": "hello", "name": "bob", "token": token}))["code"] == "bad_token"

    again = await WsClient.connect(server.port, "ANN", token=token)
    assert again.name == "ann"
    welcome = again.messages[0]
    assert welcome["resumed"] is True
    snapshot = await again.next("snapshot")
    assert snapshot["view"]["seat"] == 0 and "hand" in snapshot["view"]["game"]
    assert (await bob.next(lambda m: m["type"] == "presence" and m["event"] == "back"))["name"] == "ann"
    position = new_position(["ann", "bob"], 8)
    await _play([again, bob], position, random.Random(4), 4)


async def test_after_the_window_a_bot_takes_the_seat_until_the_player_returns(
    make_server: ServerFactory,
) -> None:
    """After the resume window a bot plays the absent player's turns; the token still brings them back."""
    server: Server = await make_server(resume_window=0.3)
    ann, bob = await _seated(server.port, "window", 8, "ann", "bob")
    token = ann.token
    await ann.close()
    taken = await bob.next(lambda m: m["type"] == "presence" and m["event"] == "replaced_by_bot")
    assert taken["name"] == "ann"
    position = new_position(["ann", "bob"], 8)
    rng = random.Random(6)
    for _ in range(6):  # bob plays; the bot answers for ann
        if position.to_move == 1:
            result = play(position, rng.choice(legal_move_texts(position)))
            assert (await bob.request({"type": "move", "move": result.move}))["type"] == "ack"
        played = await bob.next("played")
        result = play(position, played["move"])
        assert played["auto"] is (played["player"] == "ann")
        position = result.position
    again = await WsClient.connect(server.port, "ann", token=token)
    assert again.messages[0]["resumed"] is True
    await bob.next(lambda m: m["type"] == "presence" and m["event"] == "back")


async def test_the_clock_plays_for_the_absent_and_three_timeouts_hand_the_seat_to_a_bot(
    make_server: ServerFactory,
) -> None:
    """On timeout the server plays the greedy move and says so; after three in a row a bot takes over."""
    server: Server = await make_server(clock_min=0.1)
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join clock")
    await ann.request({"type": "option", "key": "clock", "value": 0.2})
    await ann.command("/addbot greedy")
    await ann.command("/start")
    timeouts = 0
    while timeouts < 3:
        message = await ann.next(lambda m: m["type"] == "notice" and "time ran out" in m["text"])
        timeouts += 1
        if timeouts == 3:  # the third in a row: a bot takes the seat, then the move is played
            taken = await ann.next(lambda m: m["type"] == "presence" and m["event"] == "replaced_by_bot")
            assert taken["name"] == "ann"
        played = await ann.next(lambda m: m["type"] == "played" and m["player"] == "ann")
        assert played["auto"] is True
        assert played["move"] in message["text"]
    played = await ann.next(lambda m: m["type"] == "played" and m["player"] == "ann")
    assert played["auto"] is True


async def test_flooding_is_refused_then_disconnected_with_1008(make_server: ServerFactory) -> None:
    """Past the rate limit each message gets rate_limited, then the connection closes with 1008:
    the tenth refusal is the last thing it reads, however many frames it sent at once."""
    server: Server = await make_server(rate=2.0, burst=5)
    flood = await WsClient.connect(server.port, "flood")
    calm = await WsClient.connect(server.port, "calm")
    for i in range(40):
        await flood.send({"type": "ping", "id": i})
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await flood.next("never", timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    answers = [m for m in flood.messages if m["type"] != "welcome"]
    refused = [m["id"] for m in answers if m.get("code") == "rate_limited"]
    assert len(refused) == 10 and answers[-1]["id"] == refused[-1], answers
    assert [m["type"] for m in answers if m["id"] not in refused] == ["pong"] * (len(answers) - 10)
    assert (await calm.request({"type": "ping"}))["type"] == "pong"
    assert (
        'cafe_security_events_total{event="rate_limit_close"} 1.0' in server.lobby.metrics.render().decode()
    )


async def test_the_tenth_refusal_closes_the_connection(make_server: ServerFactory) -> None:
    """Nine messages refused for the rate leave the connection open; the tenth closes it (1008)."""
    server: Server = await make_server(rate=0.001, burst=5)
    flood = await WsClient.connect(server.port, "flood")  # (its hello took one of the five)
    for _ in range(4 + 9):
        await flood.send({"type": "ping"})
    for _ in range(9):
        assert (await flood.next(lambda m: m.get("code") == "rate_limited"))["type"] == "error"
    await asyncio.sleep(0.3)
    assert flood.ws.state is State.OPEN
    await flood.send({"type": "ping", "id": "tenth"})
    tenth = await flood.next(lambda m: m.get("id") == "tenth")
    assert tenth["code"] == "rate_limited"  # it reads the tenth refusal, then the close
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await flood.next("never", timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


async def test_a_flood_at_the_line_prompt_is_refused_then_disconnected(make_server: ServerFactory) -> None:
    """The name prompt counts against the rate limit as every later line does: lines past it are
    refused with rate_limited, and the flood is closed."""
    server: Server = await make_server(rate=0.001, burst=5)
    flood = await LineClient.connect(server.line_port)
    flood.writer.write(b"".join(f"bob{i} {'0' * 32}\r\n".encode() for i in range(60)))
    await flood.writer.drain()
    with pytest.raises(ConnectionError):
        while True:
            await flood.expect("never", timeout=5)
    assert flood.text().count("[bad_token]") == 5, flood.text()
    assert flood.text().count("[rate_limited]") == 10, flood.text()
    metrics = server.lobby.metrics.render().decode()
    assert 'cafe_security_events_total{event="rate_limit_close"} 1.0' in metrics
    calm = await LineClient.connect(server.line_port, "calm")
    await calm.close()


async def test_lines_the_line_endpoint_answers_itself_count_too(make_server: ServerFactory) -> None:
    """After the name, /ascii and a bare /register (which the endpoint answers, not the lobby)
    count against the rate as every other line: past the burst they are refused, then closed."""
    server: Server = await make_server(rate=0.001, burst=5)
    flood = await LineClient.connect(server.line_port, "asciiman")  # the name: the first of five
    flood.writer.write(b"/ascii on\r\n" * 30 + b"/register\r\n" * 30)
    await flood.writer.drain()
    with pytest.raises(ConnectionError):
        while True:
            await flood.expect("never", timeout=5)
    assert flood.text().count("[rate_limited]") >= 3, flood.text()
    assert flood.text().count("plain ASCII") <= 4, flood.text()


async def test_a_message_past_the_rate_limit_is_refused_with_its_id(make_server: ServerFactory) -> None:
    """A client that numbers its messages learns which one the limit refused."""
    server: Server = await make_server(rate=0.001, burst=3)
    client = await WsClient.connect(server.port, "ann")  # hello: the first of the three
    assert (await client.request({"type": "ping"}))["type"] == "pong"
    assert (await client.request({"type": "ping"}))["type"] == "pong"
    refused = await client.request({"type": "ping"})
    assert (refused["type"], refused["code"]) == ("error", "rate_limited")
    await client.send({"type": "ping", "id": "last"})
    assert (await client.next("error"))["id"] == "last"
    await client.ws.send("not json")
    assert (await client.next("error"))["id"] is None


async def test_chat_flood_is_limited_separately(make_server: ServerFactory) -> None:
    """Chat has its own, tighter budget: the sixth line in a burst is refused."""
    server: Server = await make_server(rate=100.0, burst=100, chat_rate=0.5, chat_burst=5)
    talker = await WsClient.connect(server.port, "talker")
    await talker.command("/room chatty")
    answers = [await talker.request({"type": "say", "text": f"line {i}"}) for i in range(6)]
    assert [a["type"] for a in answers] == ["ack"] * 5 + ["error"]
    assert answers[-1]["code"] == "rate_limited"


async def test_comings_and_goings_are_limited_so_that_nobody_floods_a_room(
    make_server: ServerFactory,
) -> None:
    """Taking a seat and standing up (at a terminal, /join and /stand), each a line for everyone
    in the room, go at twice the chat's rate in bursts of 20: a toggler is refused
    ``rate_limited`` past them, and the room reads no more lines of it than that."""
    server: Server = await make_server(rate=100.0, burst=100, chat_rate=0.01)
    troll = await LineClient.connect(server.line_port or 0, "troll")
    watcher = await WsClient.connect(server.port, "watcher")
    await troll.line("/join busy")
    await troll.expect("You are in room busy")
    assert (await watcher.command("/watch busy"))["type"] == "ack"
    for _ in range(12):
        await troll.line("/join")
        await troll.line("/stand")
    await troll.line("/ping")
    await troll.expect("* pong")
    assert troll.text().count("[rate_limited]") == 5, troll.text()  # the first /join and 19 more pass
    await watcher.barrier()
    told = [x["event"] for x in watcher.messages if x["type"] == "presence" and x["name"] == "troll"]
    assert 0 < len(told) <= 19 and set(told) == {"joined", "unseated"}, told


async def test_an_oversize_frame_closes_with_1009_and_others_go_on(make_server: ServerFactory) -> None:
    """A frame over --max-frame is refused by closing with 1009; other clients are untouched."""
    server: Server = await make_server(max_frame=1024)
    big = await WsClient.connect(server.port, "big")
    calm = await WsClient.connect(server.port, "calm")
    await big.send({"type": "say", "text": "x" * 5000})
    with pytest.raises(ConnectionClosed) as closed:
        await big.next("never", timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert (await calm.request({"type": "ping"}))["type"] == "pong"


async def test_a_bot_client_that_never_returns_is_played_by_a_stand_in(make_server: ServerFactory) -> None:
    """A bot over a connection is held like a person: after the window a server bot finishes its
    game, and the moves it plays are marked as played for robo (``auto``, ``bot`` in the view's
    history and the record), as a person's would be; the server's own bot's are its own."""
    server: Server = await make_server(resume_window=0.2)
    robo = await WsClient.connect(server.port, "robo", kind="bot")
    watcher = await WsClient.connect(server.port, "eve")
    await robo.command("/join botroom")
    await robo.command("/addbot greedy")
    await watcher.command("/room botroom")
    assert (await robo.command("/start"))["type"] == "ack"
    await robo.close()
    taken = await watcher.next(lambda m: m["type"] == "presence" and m["event"] == "replaced_by_bot")
    assert taken["name"] == "robo"
    over = await watcher.next("game_over", timeout=60)
    assert set(over["final_scores"]) == {"robo", "greedy-bot1"}
    played = [m for m in watcher.messages if m["type"] == "played"]
    by_robo = [m["auto"] for m in played if m["player"] == "robo" and not m["move"].startswith("leave")]
    assert by_robo and all(by_robo)
    assert not any(m["auto"] for m in played if m["player"] == "greedy-bot1")
    assert watcher.view is not None
    history = watcher.view["game"]["history"]
    assert {h.get("auto") for h in history if h["player"] == "robo"} == {"bot"}
    assert {h.get("auto") for h in history if h["player"] == "greedy-bot1"} == {None}
    (record,) = server.store.games_named("robo")  # type: ignore[attr-defined]
    assert set(record.auto.values()) == {"bot"} and len(record.auto) == len(by_robo)


async def test_caps_on_connections_and_rooms(make_server: ServerFactory) -> None:
    """Past --max-connections a new client is turned away (1013); past --max-rooms no room is opened."""
    server: Server = await make_server(max_connections=2, max_rooms=1)
    first = await WsClient.connect(server.port, "one")
    await WsClient.connect(server.port, "two")
    third = await WsClient.connect(server.port)
    with pytest.raises(ConnectionClosed) as closed:
        await third.next("never", timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
    assert (await first.command("/room r1"))["type"] == "ack"
    assert (await first.command("/room r2"))["code"] == "too_many_rooms"
