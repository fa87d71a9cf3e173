"""What keeps a page alive: the lobby told of room changes, the game's moves in every view, the
turn's deadline, and the warnings and words of the clock."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref

from server.app import Server
from server.directory.roomlist import LOBBY_EVERY
from tests.server.clients import LineClient, WsClient, until
from tests.server.conftest import ServerFactory


def _names(message: dict[str, object]) -> list[str]:
    rooms = message["rooms"]
    assert isinstance(rooms, list)
    return [r["name"] for r in rooms]


async def test_people_in_the_lobby_are_told_when_rooms_open_change_and_empty(server: Server) -> None:
    """A room opened, filled, started and emptied elsewhere reaches the lobby as unasked `rooms`."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    assert (await ann.request({"type": "list_rooms"}))["rooms"] == []  # ann looks at the room list
    await bob.command("/join pub")
    told = await ann.next(lambda m: m["type"] == "rooms" and m["id"] is None and "pub" in _names(m))
    assert [s["name"] for s in told["rooms"][0]["seats"]] == ["bob"]
    await bob.command("/addbot greedy")
    await ann.next(lambda m: m["type"] == "rooms" and m["id"] is None and len(m["rooms"][0]["seats"]) == 2)
    await bob.command("/start")
    await ann.next(lambda m: m["type"] == "rooms" and m["id"] is None and m["rooms"][0]["state"] == "playing")
    await bob.command("/join other")  # bob sits in a second room, which stays
    await ann.next(lambda m: m["type"] == "rooms" and m["id"] is None and "other" in _names(m))
    await bob.close()
    # the game goes on with its bot while bob's seat waits; the waiting room "other" empties and goes
    told = await ann.next(lambda m: m["type"] == "rooms" and m["id"] is None and "other" not in _names(m))
    assert "pub" in _names(told)


async def test_a_private_rooms_doings_send_the_lobby_nothing(server: Server) -> None:
    """Activity in a private room changes no line the lobby sees: its watchers are sent no
    ``rooms`` for it (nothing to time it by); a public room's change still reaches them."""
    ann = await WsClient.connect(server.port, "ann")
    pam = await WsClient.connect(server.port, "pam")
    assert (await pam.command("/join hidden"))["type"] == "ack"
    assert (await pam.command("/option private on"))["type"] == "ack"
    assert (await ann.request({"type": "list_rooms"}))["rooms"] == []
    for command in ("/addbot greedy", "/option clock 30", "/start"):
        assert (await pam.command(command))["type"] == "ack"
    await asyncio.sleep(3 * LOBBY_EVERY)
    await ann.barrier()
    assert [x for x in ann.messages if x["type"] == "rooms" and x["id"] is None] == []
    bob = await WsClient.connect(server.port, "bob")
    await bob.command("/join open")
    told = await ann.next(lambda x: x["type"] == "rooms" and x["id"] is None)
    assert _names(told) == ["open"]


async def test_people_in_a_room_are_not_sent_the_room_list(server: Server) -> None:
    """Only the lobby hears room-list changes: a player in a room gets no unasked `rooms`."""
    cid = await WsClient.connect(server.port, "cid")
    await cid.command("/join quiet")
    dan = await WsClient.connect(server.port, "dan")
    await dan.command("/join loud")
    await dan.command("/addbot random")
    await cid.command("/ping")
    assert not [m for m in cid.take_all() if m["type"] == "rooms"]


async def test_a_snapshot_carries_every_move_played(server: Server) -> None:
    """Someone who comes in (or reloads) mid-game gets all the moves so far in the view's history."""
    eve = await WsClient.connect(server.port, "eve")
    await eve.command("/join hist")
    await eve.command("/addbot greedy")
    await eve.command("/start")
    played = []
    while len(played) < 4:
        message = await eve.next(lambda m: m["type"] in ("played", "patch"))
        if message["type"] == "played":
            played.append({k: message[k] for k in ("player", "move", "points")})
        game = eve.view["game"] if eve.view else None
        if game and game["to_move"] == "eve" and len(played) < 4:
            legal = (await eve.request({"type": "legal_moves"}))["moves"]
            await eve.request({"type": "move", "move": legal[0]})
    zoe = await WsClient.connect(server.port, "zoe")
    await zoe.request({"type": "watch", "room": "hist"})
    snapshot = await zoe.next("snapshot")
    history = snapshot["view"]["game"]["history"]
    assert history[: len(played)] == played
    assert len(history) == snapshot["view"]["game"]["move_number"]
    assert eve.view is not None and eve.view["game"]["history"][: len(played)] == played


async def test_the_view_carries_the_turns_deadline(server: Server) -> None:
    """With a clock, the view's deadline is when the player to move runs out (Unix time); without, null."""
    fay = await WsClient.connect(server.port, "fay")
    await fay.command("/join timed")
    await fay.request({"type": "option", "key": "clock", "value": 60})
    await fay.command("/addbot greedy")
    before = time.time()
    await fay.command("/start")
    game = await _my_turn(fay)
    assert before + 59 <= game["deadline"] <= time.time() + 60.5
    first = game["deadline"]
    legal = (await fay.request({"type": "legal_moves"}))["moves"]
    await fay.request({"type": "move", "move": legal[0]})
    game = await _my_turn(fay, after=game["move_number"])
    assert game["deadline"] > first


async def _my_turn(client: WsClient, after: int = -1) -> dict[str, object]:
    while True:
        game = client.view["game"] if client.view else None
        if game and game["to_move"] == client.name and game["move_number"] > after and game["deadline"]:
            return game
        await client.next(lambda m: m["type"] in ("patch", "snapshot"))


async def test_without_a_clock_there_is_no_deadline(server: Server) -> None:
    """A room without a clock shows deadline null."""
    gus = await WsClient.connect(server.port, "gus")
    await gus.command("/join untimed")
    await gus.command("/addbot greedy")
    await gus.command("/start")
    await gus.next(lambda m: m["type"] == "game_started")
    assert gus.view is not None and gus.view["game"]["deadline"] is None


async def test_a_line_client_is_told_when_ten_seconds_are_left(server: Server) -> None:
    """With an 11-second clock, the player to move hears "10 seconds left" after about a second."""
    line = await LineClient.connect(server.line_port, "hal")
    await line.line("/join warn")
    await line.line("/option clock 11")
    await line.line("/addbot greedy")
    await line.line("/option seed 3")
    await line.line("/start")
    await line.expect("10 seconds left to move, hal.")


async def test_a_player_back_after_the_warning_fell_due_is_warned_then(server: Server) -> None:
    """hal drops as their 11-second turn begins; the warning falls due (at 1 s) while hal is
    away. Back with the token, hal reads it then, with the seconds left."""
    hal = await WsClient.connect(server.port, "hal")
    await hal.command("/join warnback")
    await hal.command("/option clock 11")
    await hal.command("/option start 1")
    await hal.command("/addbot greedy")
    await hal.command("/start")
    await hal.next("game_started")
    token = hal.token
    await hal.ws.close()
    await asyncio.sleep(1.5)
    back = await WsClient.connect(server.port, "hal", token=token)
    notice = await back.next(lambda x: x["type"] == "notice" and "left to move" in x["text"])
    seconds = int(notice["text"].split()[0])
    assert 1 <= seconds <= 9 and notice["text"].endswith("left to move, hal."), notice


async def test_a_move_the_clock_played_says_so(make_server: ServerFactory) -> None:
    """When the clock runs out, `played` carries clock true (and auto); a move by hand carries clock false."""
    server: Server = await make_server(clock_min=0.1)
    ivy = await WsClient.connect(server.port, "ivy")
    line = await LineClient.connect(server.line_port, "jon")
    await ivy.command("/join ranout")
    await ivy.request({"type": "option", "key": "clock", "value": 0.3})
    await line.line("/join ranout")
    await line.expect("jon takes a seat")
    await ivy.command("/start")
    played = await ivy.next(lambda m: m["type"] == "played" and m["clock"])
    assert played["auto"] is True
    assert not [m for m in ivy.take_all() if m["type"] == "played" and not m["clock"] and m["auto"]]


async def test_a_closed_connection_is_not_kept_among_the_room_lists_watchers(server: Server) -> None:
    """A connection that watched the room list and then closed is let go at once: nothing keeps
    it, the room list's watchers included (no room has changed since to prune them)."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "list_rooms"})
    session = server.lobby.directory.session("ann")
    assert session is not None
    gone = weakref.ref(session)
    del session
    await ann.close()
    await until(lambda: server.lobby.directory.session("ann") is None, "ann's connection gone")

    def let_go() -> bool:
        gc.collect()
        return gone() is None

    await until(let_go, "ann's connection let go")
