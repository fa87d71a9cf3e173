"""Whole games over real sockets: scores match the engine, hands stay hidden, patches add up."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from engine import Position, legal_move_texts, new_position, outcome, play
from server.app import Server
from tests.server.clients import MAX_TURNS, LineClient, WsClient, chat_form, http_get


async def test_websocket_and_line_client_play_a_seeded_game_to_game_over(server: Server) -> None:
    """A WebSocket client and a line client finish a seeded game; every score is the engine's."""
    ann = await WsClient.connect(server.port, "ann")
    assert server.line_port is not None
    bob = await LineClient.connect(server.line_port, "bob")
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/option seed 11"))["type"] == "ack"
    assert (await ann.command("/option host off"))["type"] == "ack"  # so that bob may start
    await bob.line("/join cafe")
    await ann.next(lambda m: m["type"] == "presence" and m["name"] == "bob" and m["event"] == "joined")
    await bob.line("/start")
    started = await ann.next("game_started")
    assert started["players"] == ["ann", "bob"]

    position = new_position(["ann", "bob"], 11)
    assert started["start_player"] == ["ann", "bob"][position.to_move]
    rng = random.Random(5)
    moves = 0
    asked_line_moves = False
    for _ in range(MAX_TURNS):
        legal = legal_move_texts(position)
        move = rng.choice(legal)
        if position.to_move == 0:
            offered = await ann.request({"type": "legal_moves"})
            assert offered["moves"] == legal
            assert (await ann.request({"type": "move", "move": move}))["type"] == "ack"
        else:
            if not asked_line_moves:
                await bob.line("/moves")
                await bob.expect(f"{len(legal)} legal moves:")
                asked_line_moves = True
            await bob.line(chat_form(move))
        expected = play(position, move)
        played = await ann.next("played")
        assert (played["player"], played["move"], played["points"]) == (
            position.players[position.to_move].name,
            expected.move,
            expected.points,
        )
        await bob.expect(f"{played['player']} ")
        position = expected.position
        moves += 1
        if expected.outcome is not None:
            break
    else:
        raise AssertionError("the game did not end")
    over = await ann.next("game_over")
    final = outcome(position)
    assert final is not None
    assert over["final_scores"] == dict(final.final_scores)
    assert over["ranking"] == list(final.ranking)
    assert over["seed"] == 11
    await bob.expect("Game over")
    assert ann.view is not None and ann.view["state"] == "over"
    assert [p["score"] for p in ann.view["game"]["players"]] == [p.score for p in position.players]
    assert moves == ann.view["game"]["move_number"]
    await ann.close()
    await bob.close()


def _hands_in(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every (path, value) under a key called "hand" in a JSON value."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "hand":
                found.append((f"{path}/{key}", item))
            found.extend(_hands_in(item, f"{path}/{key}"))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_hands_in(item, f"{path}/{i}"))
    return found


async def test_no_client_ever_receives_another_hand_or_the_deck(server: Server) -> None:
    """Players see only their own hand, spectators none, and nobody the deck or its order."""
    names = ["ann", "bob", "cem"]
    players = [await WsClient.connect(server.port, n) for n in names]
    zoe = await WsClient.connect(server.port, "zoe")
    assert server.line_port is not None
    lin = await LineClient.connect(server.line_port, "lin")
    for client in players:
        assert (await client.command("/join table"))["type"] == "ack"
    await players[0].command("/option seed 4")
    assert (await zoe.command("/watch table"))["type"] == "ack"
    await lin.line("/room table")
    assert (await players[0].command("/start"))["type"] == "ack"

    position: Position = new_position(names, 4)
    hands_seen: list[set[str]] = [{json.dumps([c.text for c in p.hand])} for p in position.players]
    decks_seen = [position.deck]
    rng = random.Random(9)
    for _ in range(MAX_TURNS):
        mover = players[position.to_move]
        result = play(position, rng.choice(legal_move_texts(position)))
        assert (await mover.request({"type": "move", "move": result.move}))["type"] == "ack"
        position = result.position
        for i, p in enumerate(position.players):
            hands_seen[i].add(json.dumps([c.text for c in p.hand]))
        decks_seen.append(position.deck)
        if result.outcome is not None:
            break
    else:
        raise AssertionError("the game did not end")
    for client in [*players, zoe]:
        await client.next("game_over")
        await client.barrier()
    await lin.expect("Game over")

    for i, client in enumerate(players):
        for message in client.messages:
            assert '"drawn"' not in json.dumps(message)  # the engine's cards drawn (not seed_drawn)
            for path, hand in _hands_in(message):
                # the one place a hand may appear: the recipient's view, under game.hand
                op = re.fullmatch(r"/ops/(\d+)/value/hand", path)
                assert path == "/view/game/hand" or (
                    op is not None and message["ops"][int(op.group(1))]["path"] == "/game"
                ), path
                assert json.dumps(hand) in hands_seen[i], f"{names[i]} got a hand that is not theirs"
        for j in range(len(players)):
            if j != i:
                other_hands = hands_seen[j] - hands_seen[i]
                assert not any(h in raw for raw in client.raw for h in other_hands if len(h) > 9)
    for message in zoe.messages:
        assert _hands_in(message) == [], "a spectator received a hand"
    everything = "".join(c for client in [*players, zoe] for c in client.raw) + lin.text()
    assert '"deck"' not in everything
    for deck in decks_seen:
        if len(deck) >= 5:
            order = [c.text for c in deck[:5]]
            assert json.dumps(order) not in everything
            assert " ".join(order) not in everything
    assert "Your hand" not in lin.text()
    for client in [*players, zoe]:
        await client.close()
    await lin.close()


async def test_patches_applied_in_order_equal_the_final_snapshot(server: Server) -> None:
    """For each client, its first snapshot plus every patch in order equals a fresh snapshot, which
    answers ``resync`` with its ``id`` (a snapshot on entering has ``id`` null). ``game_started``
    and ``game_over`` name the game, whose record the id reads once it is over."""
    ann = await WsClient.connect(server.port, "ann")
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/join room1")
    await zoe.command("/room room1")
    assert [m["id"] for m in ann.messages if m["type"] == "snapshot"] == [None]
    await ann.command("/addbot random")
    await ann.command("/addbot greedy")
    await ann.command("/start")
    started = await zoe.next("game_started")
    assert re.fullmatch(r"[0-9a-f]{16}", started["game"])
    rng = random.Random(3)
    for _ in range(MAX_TURNS):
        message = await ann.next(lambda m: m["type"] in ("game_over", "patch"))
        if message["type"] == "game_over":
            break
        view = ann.view
        assert view is not None
        game = view["game"]
        if game and game["to_move"] == "ann" and game["over"] is None:
            legal = (await ann.request({"type": "legal_moves"}))["moves"]
            answer = await ann.request({"type": "move", "move": rng.choice(legal)})
            assert answer["type"] == "ack"
    else:
        raise AssertionError("the game did not end")
    over = await zoe.next("game_over")
    assert over["game"] == started["game"]
    record = (await http_get(server.port, f"/api/games/{over['game']}")).json()
    assert record["id"] == started["game"] and record["players"] == started["players"]
    for client in (ann, zoe):
        await client.barrier()
        tracked = client.view
        client.take_all()
        await client.send({"type": "resync", "id": f"again-{client.name}"})
        fresh = await client.next("snapshot")
        assert fresh["id"] == f"again-{client.name}"
        assert fresh["view"] == tracked
        assert sum(1 for m in client.messages if m["type"] == "patch") > 10
    assert re.fullmatch(r"[0-9a-f]{32}", ann.token or "")
    await ann.close()
    await zoe.close()
