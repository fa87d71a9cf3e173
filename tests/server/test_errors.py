"""Every error path answers the sender alone, with a stable code, and changes nothing."""

from __future__ import annotations

import json

from engine import legal_move_texts, new_position
from server.app import Server
from tests.server.clients import LineClient, WsClient


async def _two_player_game(server: Server, seed: int = 21) -> tuple[WsClient, WsClient, WsClient]:
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/join cafe")
    await ann.command(f"/option seed {seed}")
    await bob.command("/join cafe")
    await zoe.command("/room cafe")
    assert (await ann.command("/start"))["type"] == "ack"
    return ann, bob, zoe


async def test_bad_json_gets_bad_json_and_the_connection_stays(server: Server) -> None:
    """A frame that is not JSON is answered with bad_json; the next ping still gets a pong."""
    client = await WsClient.connect(server.port, "ann")
    await client.ws.send("{not json")
    error = await client.next("error")
    assert error["code"] == "bad_json"
    assert (await client.request({"type": "ping"}))["type"] == "pong"


async def test_a_field_given_twice_counts_with_its_last_value(server: Server) -> None:
    """As PROTOCOL.md says: ``{"type":"say","type":"ping"}`` is a ping, and a ``text`` given
    twice says the last."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/room twice")
    await ann.ws.send('{"type":"say","text":"x","type":"ping","id":7}')
    error = await ann.next(lambda x: x.get("id") == 7)
    assert (error["type"], error["code"]) == ("error", "bad_field") and "text" in error["message"]
    await ann.ws.send('{"type":"say","text":"first","text":"last","id":8}')
    said = await ann.next("chat")
    assert said["text"] == "last"


async def test_unknown_type_and_bad_field_echo_the_id(server: Server) -> None:
    """An unknown type and a malformed field name the problem and echo the client's id."""
    client = await WsClient.connect(server.port, "ann")
    await client.ws.send(json.dumps({"type": "dance", "id": 41}))
    error = await client.next("error")
    assert (error["code"], error["id"]) == ("unknown_type", 41)
    await client.ws.send(json.dumps({"type": "move", "id": 42, "move": 5}))
    error = await client.next("error")
    assert (error["code"], error["id"]) == ("bad_field", 42)
    assert "move" in error["message"]


async def test_unknown_chat_command_suggests_the_closest(server: Server) -> None:
    """/jion is unknown_command, and the answer names /join."""
    client = await WsClient.connect(server.port, "ann")
    error = await client.command("/jion cafe")
    assert error["code"] == "unknown_command"
    assert "/join" in error["message"]


async def test_hello_is_needed_first_and_names_are_unique(server: Server) -> None:
    """Commands before hello are refused; a taken name and a bad name get their codes."""
    anon = await WsClient.connect(server.port)
    assert (await anon.request({"type": "who"}))["code"] == "hello_first"
    await WsClient.connect(server.port, "ann")
    assert (await anon.request({"type": "hello", "name": "ANN"}))["code"] == "name_taken"
    assert (await anon.request({"type": "hello", "name": "9lives"}))["code"] == "bad_name"
    assert (await anon.request({"type": "hello", "name": "x", "token": "0" * 32}))["code"] == "bad_token"


async def test_a_move_before_hello_or_outside_a_room_is_refused(server: Server) -> None:
    """A move goes to the sender's room only once it has a name and a room: before hello it is
    ``hello_first``, in the lobby ``not_in_room``, each with the move's id."""
    anon = await WsClient.connect(server.port)
    await anon.send({"type": "move", "move": "FRf@FR1s", "id": 7})
    early = await anon.next("error")
    assert (early["type"], early["code"], early["id"]) == ("error", "hello_first", 7)
    # whatever else is wrong with it: a message of another type came first
    malformed_first = (
        {"type": "analyse", "game": "bad/id", "id": 9},
        {"type": "move", "id": 10},
        {"type": "say", "text": "   ", "id": 13},  # (its own refusal would be empty_message)
    )
    for bad in malformed_first:
        await anon.send(bad)
        assert (await anon.next("error"))["code"] == "hello_first", bad
    for malformed in ({"type": "hello", "id": 11}, {"type": "command", "id": 12}):  # its own error
        await anon.send(malformed)
        assert (await anon.next("error"))["code"] == "bad_field", malformed
    ann = await WsClient.connect(server.port, "ann")
    await ann.send({"type": "move", "move": "FRf@FR1s", "id": 8})
    lobby = await ann.next("error")
    assert (lobby["type"], lobby["code"], lobby["id"]) == ("error", "not_in_room", 8)


async def test_move_out_of_turn_by_spectator_and_against_the_rules(server: Server) -> None:
    """not_your_turn, not_seated and the rule codes go to the sender alone; nothing changes."""
    ann, bob, zoe = await _two_player_game(server)
    position = new_position(["ann", "bob"], 21)
    mover, waiter = (ann, bob) if position.to_move == 0 else (bob, ann)
    for client in (mover, waiter, zoe):
        await client.barrier()
    before = [len(c.messages) for c in (ann, bob, zoe)]
    move = legal_move_texts(position)[0]

    assert (await waiter.request({"type": "move", "move": move}))["code"] == "not_your_turn"
    assert (await zoe.request({"type": "move", "move": move}))["code"] == "not_seated"
    assert (await mover.request({"type": "move", "move": "FRf@XX9n"}))["code"] == "unknown_chair"
    assert (await mover.request({"type": "move", "move": "hello"}))["code"] == "bad_notation"
    hand = {c.text for c in position.players[position.to_move].hand}
    missing = next(c for c in ("FRf", "FRm", "DEf", "DEm", "ITf") if c not in hand)
    assert (await mover.request({"type": "move", "move": f"{missing}@bar"}))["code"] == "not_in_hand"
    card = next(iter(sorted(hand)))
    assert (await mover.request({"type": "move", "move": f"{card}@FR1s {card}@FR1s {card}@FR1s"}))[
        "code"
    ] == "too_many_cards"
    error = await mover.command("/play Jm@FR1s")
    assert error["code"] in ("joker_nation", "not_in_hand")

    # each heard only its own errors, and the game did not move
    for client, count in zip((ann, bob, zoe), before, strict=True):
        await client.barrier()
        assert {m["type"] for m in client.messages[count:]} - {"pong"} == {"error"}
    assert [m["code"] for m in zoe.messages[before[2] :] if m["type"] == "error"] == ["not_seated"]
    waiter_got = waiter.messages[before[(ann, bob).index(waiter)] :]
    assert [m["code"] for m in waiter_got if m["type"] == "error"] == ["not_your_turn"]
    assert ann.view is not None and ann.view["game"]["move_number"] == 0


async def test_joining_a_full_or_running_game_and_starting_alone(server: Server) -> None:
    """room_full for a fifth player, game_running once started, not_enough_players alone."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join solo")
    assert (await ann.command("/start"))["code"] == "not_enough_players"
    for _ in range(3):
        assert (await ann.command("/addbot random"))["type"] == "ack"
    eve = await WsClient.connect(server.port, "eve")
    assert (await eve.command("/join solo"))["code"] == "room_full"
    assert (await ann.command("/addbot"))["code"] == "room_full"

    bob = await WsClient.connect(server.port, "bob")
    cem = await WsClient.connect(server.port, "cem")
    await bob.command("/join duo")
    await bob.command("/addbot greedy")
    assert (await bob.command("/start"))["type"] == "ack"
    assert (await cem.command("/join duo"))["code"] == "game_running"
    assert (await bob.command("/option stammtisch on"))["code"] == "game_running"
    assert (await cem.command("/start"))["code"] == "not_seated"


async def test_line_client_gets_errors_as_text(server: Server) -> None:
    """A line client reads an error line with its code, and stays connected."""
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "lin")
    await line.line("/jion x")
    assert "did you mean /join?" in await line.expect("[unknown_command]")
    await line.line("/who")
    await line.expect("lin")


async def test_option_values_have_their_json_types_and_words_any_case(server: Server) -> None:
    """Over the socket: "seed": "7", "stammtisch": "on" and "id": true are refused and change
    nothing; absent "DROP" is the word drop; /option still converts typed text."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join cafe")
    for value, key in [("7", "seed"), ("on", "stammtisch"), ("60", "clock"), ("sometimes", "absent")]:
        answer = await ann.request({"type": "option", "key": key, "value": value})
        assert (answer["type"], answer["code"]) == ("error", "bad_option"), answer
    await ann.send({"type": "ping", "id": True})
    error = await ann.next("error")
    assert (error["code"], error["id"]) == ("bad_field", None) and "'id'" in error["message"]
    await ann.settle(0.1)
    assert ann.view is not None
    assert ann.view["options"] == {
        **{"seed": None, "stammtisch": False, "clock": None, "absent": "bot"},
        **{"host": True, "private": False, "drawseat": False, "start": None},
    }
    assert (await ann.request({"type": "option", "key": "absent", "value": "DROP"}))["type"] == "ack"
    assert (await ann.command("/option seed 42"))["type"] == "ack"
    assert (await ann.command("/option stammtisch ON"))["type"] == "ack"
    await ann.settle(0.1)
    assert ann.view["options"] == {
        **{"seed": "set", "stammtisch": True, "clock": None, "absent": "drop"},
        **{"host": True, "private": False, "drawseat": False, "start": None},
    }


async def test_unknown_type_lists_every_client_message_type(server: Server) -> None:
    """``unknown_type`` names every type a client may send, ``seek`` and ``unseek`` among them,
    exactly as the protocol's union of client messages has them."""
    from typing import get_args

    from protocol.messages import ClientMessage

    types = sorted(cls.model_fields["type"].default for cls in get_args(get_args(ClientMessage)[0]))
    client = await WsClient.connect(server.port, "ann")
    await client.ws.send(json.dumps({"type": "mvoe", "id": 6}))
    error = await client.next("error")
    assert error["code"] == "unknown_type" and {"seek", "unseek"} <= set(types)
    assert error["message"] == f"Expected a 'type' field, one of: {', '.join(types)}."
