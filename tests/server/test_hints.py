"""Fair play over real sockets: no hints in a rated game, on either transport and after a restart;
hints in practice and casual games; the legal moves, which show only the rules, in any game."""

from __future__ import annotations

from typing import Any

from server.app import Server
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory

PASSWORD = "correct horse"
NO_HINTS = "No hints in a rated game: hints are for practice and casual games."


async def _account(server: Server, name: str) -> WsClient:
    client = await WsClient.connect(server.port, name)
    welcome = await client.request({"type": "register", "password": PASSWORD})
    assert welcome["registered"] is True
    client.token = welcome["token"]
    return client


async def _started(*players: WsClient, seed: int | None = None) -> dict[str, WsClient]:
    """``players`` seated in room ``fair`` in that order, the game started by the first."""
    for client in players:
        assert (await client.command("/join fair"))["type"] == "ack"
    if seed is not None:
        assert (await players[0].command(f"/option seed {seed}"))["type"] == "ack"
    assert (await players[0].command("/start"))["type"] == "ack"
    for client in players:
        await client.next("game_started")
    return {str(c.name): c for c in players}


def _to_move(clients: dict[str, WsClient]) -> str:
    first = next(iter(clients.values()))
    assert first.view is not None
    mover: str = first.view["game"]["to_move"]
    return mover


async def test_a_rated_game_refuses_hints_and_lists_the_legal_moves(server: Server) -> None:
    """ann and bob registered, the seed drawn: ``hint`` is ``no_hints`` for both, to the asker
    alone; the player to move still gets ``legal_moves``; a spectator's hint is ``not_seated``."""
    ann, bob = await _account(server, "ann"), await _account(server, "bob")
    clients = await _started(ann, bob)
    for client in clients.values():
        answer = await client.request({"type": "hint"})
        assert (answer["type"], answer["code"]) == ("error", "no_hints")
        assert answer["message"] == NO_HINTS
    mover = clients[_to_move(clients)]
    legal = await mover.request({"type": "legal_moves"})
    assert legal["type"] == "legal_moves" and legal["moves"]
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/room fair"))["type"] == "ack"
    assert (await zoe.request({"type": "hint"}))["code"] == "not_seated"
    for client in (ann, bob):
        await client.barrier()
        assert [m["code"] for m in client.messages if m["type"] == "error"] == ["no_hints"]


async def test_a_terminal_reads_the_refusal_with_its_code(server: Server) -> None:
    """At the terminal, a rated game's turn tip names ``/moves`` and not ``/hint``; ``/hint``
    answers with the sentence and ``[no_hints]``."""
    ann = await _account(server, "ann")
    assert server.line_port is not None
    bob = await LineClient.connect(server.line_port)
    await bob.line("bob")
    await bob.expect("Hello bob!")
    await bob.line("/register")
    for prompt in ("Password: ", "Password again: "):
        await bob.expect(prompt)
        await bob.line(PASSWORD)
    await bob.expect("Hello bob!")
    assert (await ann.command("/join fair"))["type"] == "ack"
    await bob.line("/join fair")
    await bob.expect("* bob takes a seat")
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.expect("The game starts")
    await ann.next("game_started")
    await ann.barrier()
    assert ann.view is not None
    tip = "* /moves lists your legal moves.\r\n"  # alone: the game gives no hints
    if ann.view["game"]["to_move"] == "ann":
        legal = (await ann.request({"type": "legal_moves"}))["moves"]
        assert (await ann.request({"type": "move", "move": legal[0]}))["type"] == "ack"
        await bob.expect(tip)
    else:  # (bob's turn came before the line that the game starts)
        assert tip in bob.text()
    assert "/hint" not in bob.text()
    await bob.line("/hint")
    refused = await bob.expect(f"! {NO_HINTS} [no_hints]\r\n")
    assert refused.endswith(f"\n! {NO_HINTS} [no_hints]\r\n") or refused == f"! {NO_HINTS} [no_hints]\r\n"


async def _hint_is_given(clients: dict[str, WsClient]) -> dict[str, Any]:
    answer = await clients[_to_move(clients)].request({"type": "hint"})
    assert answer["type"] == "hint" and answer["move"], answer
    return answer


async def test_practice_and_casual_games_give_hints(server: Server) -> None:
    """Registered players in a game whose seed the room chose, or one registered player with a
    guest: the player to move gets a hint."""
    ann, bob = await _account(server, "ann"), await _account(server, "bob")
    await _hint_is_given(await _started(ann, bob, seed=5))
    cem = await _account(server, "cem")
    dan = await WsClient.connect(server.port, "dan")
    for client in (cem, dan):
        assert (await client.command("/join casual"))["type"] == "ack"
    assert (await cem.command("/start"))["type"] == "ack"
    for client in (cem, dan):
        await client.next("game_started")
    await _hint_is_given({"cem": cem, "dan": dan})


async def test_a_rated_game_stays_without_hints_after_a_restart(make_server: ServerFactory) -> None:
    """The server stops mid-game and starts again from its log; ann and bob come back with their
    tokens: the game is still rated, and ``hint`` still ``no_hints``."""
    first = await make_server()
    ann, bob = await _account(first, "ann"), await _account(first, "bob")
    await _started(ann, bob)
    tokens = {"ann": ann.token, "bob": bob.token}
    await first.stop()
    second = await make_server()
    back = {name: await WsClient.connect(second.port, name, token=token) for name, token in tokens.items()}
    for client in back.values():
        await client.next("snapshot")
    for client in back.values():
        assert (await client.request({"type": "hint"}))["code"] == "no_hints"
