"""A hand is read only by the person who plays its seat now: whoever loses a seat (voted out,
taken over, left, or away while a bot plays it) reads the game as a spectator until the seat is
theirs to play again. Each way a seat changes hands, over real sockets on one server; the same
scenarios run on two nodes in ``tests/cluster/test_seat_holding.py``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from server.app import Server
from tests.server.clients import MAX_TURNS, LineClient, WsClient
from tests.server.conftest import ServerFactory

#: connects a client by name (the cluster's tests put some names on the other node)
Connect = Callable[..., Awaitable[WsClient]]

ROOM = "cafe"
FOUR = ("ann", "bob", "cid", "dan")


async def seated(connect: Connect, names: tuple[str, ...] = FOUR) -> dict[str, WsClient]:
    """``names`` seated in room cafe, in that order, and the game started (the first is host)."""
    clients = {n: await connect(n) for n in names}
    first, *others = clients.values()
    assert (await first.command(f"/join {ROOM}"))["type"] == "ack"
    assert (await first.command("/option seed 8"))["type"] == "ack"
    for client in others:
        assert (await client.command(f"/join {ROOM}"))["type"] == "ack"
    assert (await first.command("/start"))["type"] == "ack"
    return clients


def _carries_a_hand(value: Any) -> bool:
    """Whether a JSON value holds a ``hand`` anywhere."""
    if isinstance(value, dict):
        return "hand" in value or any(_carries_a_hand(v) for v in value.values())
    if isinstance(value, list):
        return any(_carries_a_hand(v) for v in value)
    return False


def assert_watches(client: WsClient, since: int = 0) -> None:
    """``client`` reads the room as a spectator: its view has no seat and no hand and lists it
    among the spectators, and nothing it received from message ``since`` on held a hand or a seat."""
    view = client.view
    assert view is not None
    assert view["seat"] is None and not _carries_a_hand(view), view
    assert client.name in view["spectators"], view["spectators"]
    for message in client.messages[since:]:
        if message["type"] == "snapshot":
            assert message["view"]["seat"] is None and not _carries_a_hand(message["view"]), message
        elif message["type"] == "patch":
            for op in message["ops"]:
                assert op["path"] != "/seat" and not op["path"].startswith("/game/hand"), message
                assert not _carries_a_hand(op.get("value")), message


async def assert_refused_as_spectator(client: WsClient) -> None:
    """``legal_moves``, ``hint`` and ``move`` are refused with ``not_seated``."""
    for request in ({"type": "legal_moves"}, {"type": "hint"}, {"type": "move", "move": "FRf@FR1s"}):
        answer = await client.request(request)
        assert (answer["type"], answer.get("code")) == ("error", "not_seated"), (request, answer)


def _played(client: WsClient) -> int:
    """How many moves ``client`` has received."""
    return sum(1 for m in client.messages if m["type"] == "played")


async def play_on(players: dict[str, WsClient], observer: WsClient, seat: str, moves: int) -> None:
    """Play until the bot playing ``seat`` has made ``moves`` more moves: each person plays the
    first legal move on their turn; ``observer`` (a player) follows the game."""
    before = sum(1 for m in observer.messages if m["type"] == "played" and m["player"] == seat)
    for _ in range(MAX_TURNS):
        made = sum(1 for m in observer.messages if m["type"] == "played" and m["player"] == seat)
        if made - before >= moves:
            return
        await observer.barrier()
        assert observer.view is not None and observer.view["state"] == "playing", "the game ended early"
        mover = observer.view["game"]["to_move"]
        count = _played(observer)
        if mover in players:
            offered = await players[mover].request({"type": "legal_moves"})
            assert offered["type"] == "legal_moves", offered
            played = await players[mover].request({"type": "move", "move": offered["moves"][0]})
            assert played["type"] == "ack", played
        while _played(observer) == count:  # the move of this turn, whoever made it
            await observer.next(lambda m: m["type"] == "played", timeout=20)
    raise AssertionError(f"{seat} did not move {moves} times")


async def reaches(client: WsClient, test: Callable[[dict[str, Any]], bool]) -> None:
    """Read on until ``client``'s view passes ``test`` (in a cluster a view's patches come from
    the room's node, and may come after the answers of the client's own)."""
    for _ in range(MAX_TURNS):
        if client.view is not None and test(client.view):
            return
        await client.next(lambda m: True, timeout=20)
    raise AssertionError(f"{client.name}'s view never passed the test: {client.view}")


def moves_of(client: WsClient) -> int:
    """How many moves the game in ``client``'s view has had."""
    assert client.view is not None and client.view["game"] is not None
    return int(client.view["game"]["move_number"])


def at_move(number: int) -> Callable[[dict[str, Any]], bool]:
    """Whether a view shows the game after move ``number``."""
    return lambda view: view["game"] is not None and view["game"]["move_number"] == number


async def await_bot(client: WsClient, name: str) -> dict[str, Any]:
    """The ``replaced_by_bot`` of ``name``'s seat, as ``client`` heard it."""

    def taken(message: dict[str, Any]) -> bool:
        said = (message["type"], message.get("event"), message.get("name"))
        return said == ("presence", "replaced_by_bot", name)

    return await client.next(taken, timeout=20)


# --- the scenarios, for one node and for a cluster ---------------------------------------------


async def voted_out(connect: Connect) -> None:
    """dan drops; ann's ``/remove dan`` passes with bob's yes; a bot plays seat 4 ("voted out").
    dan comes back with his token: ``resumed``, but he watches: no seat, no hand in the snapshot
    or in any patch while the bot plays his old seat; ``legal_moves``, ``hint``, ``move`` and
    ``/join 4`` are refused."""
    people = await seated(connect)
    ann, bob, dan = people["ann"], people["bob"], people["dan"]
    token = dan.token
    await dan.close()
    await ann.next(lambda m: m["type"] == "presence" and m["event"] == "away" and m["name"] == "dan")
    assert (await ann.command("/remove dan"))["type"] == "ack"
    await bob.next(lambda m: m["type"] == "vote" and m["state"] == "open")
    assert (await bob.command("/accept"))["type"] == "ack"
    taken = await await_bot(ann, "dan")
    assert taken["detail"] == "voted out"
    again = await connect("dan", token=token)
    assert again.messages[0]["resumed"] is True
    await again.next("snapshot")
    assert_watches(again)
    await assert_refused_as_spectator(again)
    assert (await again.command("/join 4"))["code"] == "voted_out"
    await play_on({n: people[n] for n in ("ann", "bob", "cid")}, ann, "dan", 2)
    await reaches(again, at_move(moves_of(ann)))
    assert_watches(again)
    await assert_refused_as_spectator(again)


async def takes_seat_4(connect: Connect, ann: WsClient, bob: WsClient) -> WsClient:
    """zoe comes to watch and asks for seat 4 (``/join 4``), ann and bob accept: she is told she
    took it (``joined``), holds the seat and reads its hand."""
    zoe = await connect("zoe")
    assert (await zoe.command(f"/room {ROOM}"))["type"] == "ack"
    assert (await zoe.command("/join 4"))["type"] == "ack"
    await ann.next(lambda m: m["type"] == "vote" and m["state"] == "open")
    assert (await ann.command("/accept"))["type"] == "ack"
    assert (await bob.command("/accept"))["type"] == "ack"
    await zoe.next(lambda m: m["type"] == "presence" and m["event"] == "joined" and m["name"] == "zoe")
    await reaches(zoe, lambda view: view["seat"] == 3 and bool(view["game"].get("hand")))
    return zoe


async def taken_over(connect: Connect) -> None:
    """dan leaves the room during the game (a bot plays his seat) and comes back to watch; zoe
    asks for seat 4 and the players let her have it. dan read no hand at any point, reads none
    after, and cannot take the seat back; zoe reads its hand and plays it."""
    people = await seated(connect)
    ann, bob, dan = people["ann"], people["bob"], people["dan"]
    assert (await dan.command("/leave"))["type"] == "ack"
    await await_bot(ann, "dan")
    mark = len(dan.messages)
    assert (await dan.command(f"/room {ROOM}"))["type"] == "ack"
    zoe = await takes_seat_4(connect, ann, bob)
    await reaches(dan, lambda view: view["seats"][3]["name"] == "zoe")
    assert_watches(dan, mark)
    await assert_refused_as_spectator(dan)
    assert (await dan.command("/join 4"))["code"] == "voted_out"
    await play_on({n: people[n] for n in ("ann", "bob", "cid")} | {"zoe": zoe}, ann, "zoe", 1)
    await reaches(dan, at_move(moves_of(ann)))
    assert_watches(dan, mark)


async def left_and_watching(connect: Connect) -> None:
    """With ``absent bot``, dan leaves the room during the game and a bot plays his seat from
    then on. Entering again he watches (no seat, no hand, in the snapshot and the patches of the
    bot's moves; ``legal_moves``, ``hint`` and ``move`` refused) until ``/join 4`` takes his own
    seat back: then the snapshot or patch gives him seat 4 and its hand, and he plays it."""
    people = await seated(connect)
    ann, dan = people["ann"], people["dan"]
    assert (await dan.command("/leave"))["type"] == "ack"
    taken = await await_bot(ann, "dan")
    assert taken["detail"] == "left the game"
    mark = len(dan.messages)
    assert (await dan.command(f"/room {ROOM}"))["type"] == "ack"
    assert_watches(dan, mark)
    await assert_refused_as_spectator(dan)
    await play_on({n: people[n] for n in ("ann", "bob", "cid")}, ann, "dan", 1)
    await reaches(dan, at_move(moves_of(ann)))
    assert_watches(dan, mark)
    await assert_refused_as_spectator(dan)
    assert (await dan.command("/join 4"))["type"] == "ack"
    await reaches(dan, lambda view: view["seat"] == 3)
    assert dan.view is not None and dan.view["game"]["hand"] and "dan" not in dan.view["spectators"]
    people["dan"] = dan
    await play_on(people, ann, "dan", 1)  # dan's own move now, by legal_moves


async def back_after_the_window(connect: Connect) -> None:
    """With ``absent bot``, dan's connection drops and his resume window passes: a bot keeps his
    seat ("did not come back in time"), and nobody else reads its hand meanwhile. dan comes back
    with his token: the seat is his again, with its hand, and he plays it."""
    people = await seated(connect)
    ann, dan = people["ann"], people["dan"]
    zoe = await connect("zoe")
    assert (await zoe.command(f"/room {ROOM}"))["type"] == "ack"
    token = dan.token
    await dan.close()
    taken = await await_bot(ann, "dan")
    assert taken["detail"] == "did not come back in time"
    await play_on({n: people[n] for n in ("ann", "bob", "cid")}, ann, "dan", 1)
    await reaches(zoe, at_move(moves_of(ann)))
    assert_watches(zoe)
    for name in ("ann", "bob", "cid"):
        await reaches(people[name], at_move(moves_of(ann)))
        view = people[name].view
        assert view is not None and view["seat"] == FOUR.index(name)
        assert view["game"]["hand"] and _carries_a_hand(view["game"]["players"]) is False
    again = await connect("dan", token=token)
    assert again.messages[0]["resumed"] is True
    snapshot = (await again.next("snapshot"))["view"]
    assert snapshot["seat"] == 3 and snapshot["game"]["hand"] and "dan" not in snapshot["spectators"]
    await ann.next(lambda m: m["type"] == "presence" and m["event"] == "back" and m["name"] == "dan")
    people["dan"] = again
    await play_on(people, ann, "dan", 1)  # dan's own move now, by legal_moves


# --- on one node ------------------------------------------------------------------------------


def _on(server: Server) -> Connect:
    async def connect(name: str, **hello: Any) -> WsClient:
        return await WsClient.connect(server.port, name, **hello)

    return connect


async def test_a_player_voted_out_watches_after_coming_back(make_server: ServerFactory) -> None:
    """``/remove``: back with the token, the voted-out player reads no hand and is refused
    ``legal_moves``, ``hint`` and ``move`` (``not_seated``) while the bot plays the seat."""
    await voted_out(_on(await make_server()))


async def test_a_player_whose_seat_was_taken_over_watches(make_server: ServerFactory) -> None:
    """``/join N``: the seat's old player, watching in the room, never reads its hand; the new
    player does."""
    await taken_over(_on(await make_server()))


async def test_a_player_whose_seat_was_taken_over_comes_back_to_watch_it(make_server: ServerFactory) -> None:
    """dan drops and zoe takes his seat by a vote; dan back with his token is ``resumed`` into
    the room to watch (its snapshot, no seat, no hand), as a voted-out player is, and ``/join 4``
    is ``voted_out``."""
    connect = _on(await make_server())
    people = await seated(connect)
    ann, bob, dan = people["ann"], people["bob"], people["dan"]
    token = dan.token
    await dan.close()
    await ann.next(lambda m: m["type"] == "presence" and m["event"] == "away" and m["name"] == "dan")
    await takes_seat_4(connect, ann, bob)
    again = await connect("dan", token=token)
    assert again.messages[0]["resumed"] is True
    snapshot = await again.next("snapshot")
    assert snapshot["room"] == ROOM
    assert_watches(again)
    assert (await again.command("/join 4"))["code"] == "voted_out"


async def test_a_player_who_left_watches_until_taking_the_seat_back(make_server: ServerFactory) -> None:
    """``/leave`` with ``absent bot``: back in the room the player only watches; ``/join N`` of
    the own seat gives the hand back."""
    await left_and_watching(_on(await make_server()))


async def test_a_player_back_after_the_window_plays_the_seat_the_bot_kept(make_server: ServerFactory) -> None:
    """``absent bot``, a resume after the window: the bot kept the seat for its player, who reads
    its hand again, and nobody else read it meanwhile."""
    await back_after_the_window(_on(await make_server(resume_window=0.3)))


async def test_a_line_client_watching_its_old_seat_is_not_told_it_is_its_turn(
    make_server: ServerFactory,
) -> None:
    """At a terminal: dan leaves the room during the game and comes back to watch while a bot
    plays his seat. At the bot's turns he reads no "It is your turn." and no hand; ``/hand`` says
    he watches and ``/moves`` is ``not_seated``."""
    server = await make_server()
    ann, bob = WsClient.connect(server.port, "ann"), WsClient.connect(server.port, "bob")
    people = {"ann": await ann, "bob": await bob}
    dan = await LineClient.connect(server.line_port, "dan")
    assert (await people["ann"].command(f"/join {ROOM}"))["type"] == "ack"
    assert (await people["bob"].command(f"/join {ROOM}"))["type"] == "ack"
    await dan.line(f"/join {ROOM}")
    await people["ann"].next(
        lambda m: m["type"] == "presence" and m["event"] == "joined" and m["name"] == "dan"
    )
    assert (await people["ann"].command("/start"))["type"] == "ack"
    await dan.line("/leave")
    await await_bot(people["ann"], "dan")
    await dan.line(f"/room {ROOM}")
    await dan.expect(f"You are in room {ROOM}")
    mark = len(dan.received)
    await play_on(people, people["ann"], "dan", 2)
    await dan.line("/hand")
    await dan.expect("You are watching: you hold no cards.")
    await dan.line("/moves")
    await dan.expect("[not_seated]")
    watched = dan.received[mark:].decode()
    assert "dan seats" in watched or "dan sends" in watched or "dan swaps" in watched  # the bot's moves
    assert "It is your turn." not in watched and "Your hand" not in watched
    assert "/moves lists your legal moves" not in watched  # no picture at the bot's turns
