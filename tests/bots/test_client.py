"""The socket bots: ``cafe-bot`` over WebSocket and over the line endpoint, and the README's example,
each playing whole games on a real server over real sockets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import websockets.asyncio.server

from bots import example
from bots.client import (
    BotSettings,
    LineBot,
    ServerUnreachable,
    WsBot,
    bot_view_from_room,
    main,
    parse_move_list,
)
from bots.strategy import bot_view
from engine import legal_move_texts, new_position, play, replay
from engine.position import Options
from protocol import messages as m
from protocol.view import SeatInfo, room_view
from server import logs
from server.app import Server
from server.config import Config
from server.log.contract import StoreUnavailable
from server.net.line import LineSession
from tests.server.clients import WsClient

pytestmark = pytest.mark.websocket_api

T = TypeVar("T")
#: a bound on every wait, so that a broken bot fails the test instead of hanging it
LIMIT = 45.0


#: a message rate for bots on ``fast_server``, so that whole games take little time
FAST = 200.0


@pytest.fixture(autouse=True)
def _quiet_logs() -> None:
    """Warnings only, written to this test's captured stderr (``main`` configures logging too)."""
    logs.configure("warning", "console")


async def _serve(tmp_path: Path, **settings: Any) -> AsyncIterator[Server]:
    s = Server(Config(port=0, line_port=0, data=str(tmp_path / "c.db"), log_level="warning", **settings))
    await s.start()
    yield s
    await s.stop()


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """A server on free loopback ports, with its default limits."""
    async for s in _serve(tmp_path):
        yield s


@pytest.fixture
async def fast_server(tmp_path: Path) -> AsyncIterator[Server]:
    """A server whose rate limits let bots paced at ``FAST`` play at full speed."""
    async for s in _serve(tmp_path, rate=1000.0, burst=1000):
        yield s


def _url(server: Server) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


def _line(server: Server) -> str:
    return f"127.0.0.1:{server.line_port}"


async def _within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, LIMIT)


async def _until(condition: Any) -> None:
    """Wait until ``condition()`` holds (checked as the event loop runs)."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.005)

    await _within(poll())


async def _room_with_bots(server: Server, room: str, seed: int, *strategies: str) -> WsClient:
    """A host who opens ``room``, takes a seat to fix its seed and seat server-side bots (only the
    seated may), lets any player start (``host off``), then stands up to watch."""
    host = await WsClient.connect(server.port, "host")
    assert (await host.request({"type": "join", "room": room}))["type"] == "ack"
    assert (await host.request({"type": "option", "key": "seed", "value": seed}))["type"] == "ack"
    for strategy in strategies:
        assert (await host.request({"type": "add_bot", "strategy": strategy}))["type"] == "ack"
    assert (await host.request({"type": "option", "key": "host", "value": False}))["type"] == "ack"
    assert (await host.request({"type": "leave_game"}))["type"] == "ack"
    return host


def _played(host: WsClient) -> list[dict[str, Any]]:
    return [msg for msg in host.messages if msg["type"] == "played"]


def _watch(host: WsClient, games: int = 1) -> asyncio.Task[list[dict[str, Any]]]:
    """The spectator reads as the games go (a client that stops reading is cut off as too slow);
    the task's result is the ``game_over`` messages."""

    async def read() -> list[dict[str, Any]]:
        return [await host.next("game_over", timeout=LIMIT) for _ in range(games)]

    return asyncio.create_task(read())


# --- the view a bot decides from -----------------------------------------------------------------


def test_bot_view_from_room_view_is_the_engine_view_of_that_player() -> None:
    """A player's room view gives the same BotView as the engine's position seen from that seat."""
    for seed in range(6):
        names = ["ann", "bob", "cem", "dan"][: 2 + seed % 3]
        position = new_position(names, seed, options=Options(stammtisch=seed % 2 == 1))
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 30)):
            result = play(position, rng.choice(legal_move_texts(position)))
            if result.outcome is not None:
                break
            position = result.position
        seats = [SeatInfo(n, "person", True) for n in names]
        for seat, name in enumerate(names):
            view = room_view(
                room="cafe",
                state="playing",
                seats=seats,
                spectators=[],
                options={"stammtisch": seed % 2 == 1},
                position=position,
                recipient=name,
                last_move=None,
                outcome=None,
                move_number=0,
            )
            assert bot_view_from_room(view) == bot_view(position, seat)


def test_bot_view_from_room_view_refuses_a_spectators_view() -> None:
    """A spectator's view has no hand, so no bot can decide from it."""
    position = new_position(["ann", "bob"], 1)
    view = room_view(
        room="cafe",
        state="playing",
        seats=[SeatInfo("ann", "person", True), SeatInfo("bob", "bot", True)],
        spectators=["zoe"],
        options={},
        position=position,
        recipient="zoe",
        last_move=None,
        outcome=None,
        move_number=0,
    )
    with pytest.raises(ValueError, match="hand"):
        bot_view_from_room(view)


# --- the list of legal moves as the line endpoint writes it ------------------------------------


class _NoPeer:
    def get_extra_info(self, name: str) -> None:
        return None


def _line_listing(moves: list[str]) -> list[str]:
    """The lines the line endpoint writes for a ``legal_moves`` answer."""
    session = LineSession(_NoPeer(), peer="", outbox=8, slow_strikes=1, ascii_only=False)  # type: ignore[arg-type]
    return session.render(m.LegalMoves(moves=moves))


def test_parse_move_list_reads_back_every_move_the_line_endpoint_lists() -> None:
    """From the line endpoint's text of a legal-move list, the bot reads every move, in order."""
    for seed in range(30):
        names = ["ann", "bob", "cem"][: 2 + seed % 2]
        position = new_position(names, seed, options=Options(stammtisch=seed % 3 == 0))
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 25)):
            result = play(position, rng.choice(legal_move_texts(position)))
            if result.outcome is not None:
                break
            position = result.position
        legal = legal_move_texts(position)
        header, *lines = _line_listing(legal)
        assert header == f"{len(legal)} legal moves:"
        assert parse_move_list(lines) == legal


# --- the README's example ---------------------------------------------------------------------------


@pytest.mark.timeout(300)  # a whole game through a bot process
async def test_example_bot_plays_the_first_legal_move_until_the_game_is_over(server: Server) -> None:
    """The example finishes a game against a server-side bot, always playing the first move offered."""
    over = await _within(example.play(_url(server), "example", "ann"))
    assert over["type"] == "game_over"
    assert "ann" in over["ranking"] and len(over["ranking"]) == 2
    (stored,) = server.store.games_named("ann")
    assert stored.result is not None and stored.result["ranking"] == over["ranking"]
    seat = stored.record.players.index("ann")
    position = stored.record.start()
    mine = 0
    for result in replay(stored.record).results:
        if result.player == seat:
            assert result.move == legal_move_texts(position)[0]
            mine += 1
        position = result.position
    assert mine > 0


async def test_example_bot_stops_with_the_reason_when_its_name_is_refused(server: Server) -> None:
    """A name someone holds: the example stops with the server's error (it sent on, unanswered,
    until the server closed it for want of a hello, and died with a traceback)."""
    holder = await WsClient.connect(server.port, "ann")
    refused = await _within(example.play(_url(server), "example", "ann"))
    assert (refused["type"], refused["code"]) == ("error", "name_taken")
    await holder.close()


def _readme_python_blocks() -> list[str]:
    readme = (Path(__file__).parents[2] / "bots" / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", readme, flags=re.S)


def test_readme_shows_the_example_bot_as_it_is_in_its_file() -> None:
    """The README's complete example is bots/example.py, character for character."""
    example_file = Path(example.__file__).read_text(encoding="utf-8")
    assert _readme_python_blocks()[0] == example_file


def test_readme_strategy_snippet_chooses_a_legal_move_from_a_room_view() -> None:
    """The README's snippet, given a player's room view, picks one of that player's legal moves."""
    position = new_position(["ann", "bob"], 4)
    me = position.players[position.to_move].name
    view = room_view(
        room="cafe",
        state="playing",
        seats=[SeatInfo("ann", "bot", True), SeatInfo("bob", "bot", True)],
        spectators=[],
        options={},
        position=position,
        recipient=me,
        last_move=None,
        outcome=None,
        move_number=0,
    )
    scope: dict[str, Any] = {"view": view}
    exec(_readme_python_blocks()[1], scope)
    assert scope["move"] in legal_move_texts(position)


# --- cafe-bot -----------------------------------------------------------------------------------------


def _ws_bot(server: Server, name: str, room: str, strategy: str = "greedy", **settings: Any) -> WsBot:
    return WsBot(
        BotSettings(name=name, room=room, strategy=strategy, url=_url(server), rate=FAST, **settings)
    )


def _line_bot(server: Server, name: str, room: str, strategy: str = "random", **settings: Any) -> LineBot:
    return LineBot(
        BotSettings(name=name, room=room, strategy=strategy, line=_line(server), rate=FAST, **settings)
    )


async def test_four_bots_two_server_side_one_websocket_one_line_finish_a_game(fast_server: Server) -> None:
    """A WebSocket bot and a line bot play a whole game with two server-side bots; all agree on the end."""
    host = await _room_with_bots(fast_server, "four", 7, "random", "greedy")
    watching = _watch(host)
    ws_bot = _ws_bot(fast_server, "wendy", "four", "greedy", start=4, seed=1)
    line_bot = _line_bot(fast_server, "lars", "four", "random", seed=2)
    ws_results, line_results = await _within(asyncio.gather(ws_bot.run(), line_bot.run()))
    (over,) = await watching
    assert set(over["ranking"]) == {"wendy", "lars", "random-bot1", "greedy-bot2"}
    for (result,) in (ws_results, line_results):
        assert list(result.ranking) == over["ranking"]
        assert dict(result.final_scores) == over["final_scores"]
    played = _played(host)
    assert not any(p["auto"] for p in played)
    for name, bot in (("wendy", ws_bot), ("lars", line_bot)):
        assert 0 < bot.moves_sent == sum(1 for p in played if p["player"] == name)
    await host.close()


@pytest.mark.parametrize("transport", ["ws", "line"])
async def test_bot_takes_its_seat_back_after_its_connection_drops(
    fast_server: Server, transport: str
) -> None:
    """Its connection cut mid-game, the bot comes back with its token, keeps its seat and finishes."""
    host = await _room_with_bots(fast_server, "drop", 3, "greedy")
    watching = _watch(host)
    bot: WsBot | LineBot
    if transport == "ws":
        bot = _ws_bot(fast_server, "wendy", "drop", "greedy", start=2, seed=1, backoff=0.01)
    else:
        bot = _line_bot(fast_server, "wendy", "drop", "first", start=2, seed=1, backoff=0.01)
    run = asyncio.create_task(bot.run())
    await _until(lambda: bot.moves_sent >= 2)
    if isinstance(bot, WsBot):
        assert bot.connection is not None
        bot.connection.transport.abort()
    else:
        assert bot.writer is not None
        bot.writer.transport.abort()
    at_drop = bot.moves_sent
    (result,) = await _within(run)
    assert bot.reconnects == 1
    assert bot.moves_sent > at_drop
    (over,) = await watching
    assert list(result.ranking) == over["ranking"] and "wendy" in over["ranking"]
    assert dict(result.final_scores) == over["final_scores"]
    mine = [p for p in _played(host) if p["player"] == "wendy"]
    assert not any(p["auto"] for p in mine)
    # a move sent as the connection was cut may have been lost, and was then sent again
    assert bot.moves_sent - 1 <= len(mine) <= bot.moves_sent
    await host.close()


class _HeldBackLineBot(LineBot):
    """A line bot whose reconnection waits until the test lets it go."""

    def __init__(self, settings: BotSettings) -> None:
        super().__init__(settings)
        self.gate = asyncio.Event()

    async def _connection(self) -> None:
        if self.reconnects:
            await self.gate.wait()
        await super()._connection()


@pytest.fixture
async def no_wait_server(tmp_path: Path) -> AsyncIterator[Server]:
    """A fast server that hands a lost player's seat to a stand-in bot at once."""
    async for s in _serve(tmp_path, rate=1000.0, burst=1000, resume_window=0.0):
        yield s


async def test_line_bot_back_after_its_game_ended_counts_that_game(no_wait_server: Server) -> None:
    """A bot that returns after the game it played ended without it (played for it by the server)
    reads the result from the room's picture and stops after its one game."""
    host = await _room_with_bots(no_wait_server, "late", 6, "random")
    watching = _watch(host)
    bot = _HeldBackLineBot(
        BotSettings(
            name="lars",
            room="late",
            strategy="first",
            line=_line(no_wait_server),
            start=2,
            rate=FAST,
            backoff=0.01,
        )
    )
    run = asyncio.create_task(bot.run())
    await _until(lambda: bot.moves_sent >= 1)
    assert bot.writer is not None
    bot.writer.transport.abort()
    (over,) = await watching
    bot.gate.set()
    (result,) = await _within(run)
    assert list(result.ranking) == over["ranking"]
    assert dict(result.final_scores) == over["final_scores"]
    assert any(p["auto"] for p in _played(host) if p["player"] == "lars")
    await host.close()


async def test_websocket_bot_plays_as_many_games_as_asked(fast_server: Server) -> None:
    """With ``games=2`` and ``start``, the bot starts a second game after the first and then leaves."""
    host = await _room_with_bots(fast_server, "twice", 5, "random")
    watching = _watch(host, games=2)
    bot = _ws_bot(fast_server, "wendy", "twice", "first", start=2, games=2)
    results = await _within(bot.run())
    assert len(results) == 2
    overs = await watching
    assert [list(r.ranking) for r in results] == [o["ranking"] for o in overs]
    await host.close()


async def test_cafe_bot_command_plays_a_game_within_the_default_rate_limit(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cafe-bot --url ... --start`` plays a game against a server bot on a server with its default
    limits, is never refused for sending too fast, and exits 0."""
    host = await _room_with_bots(server, "cli", 9, "greedy")
    watching = _watch(host)
    argv = [
        "--url",
        _url(server),
        "--room",
        "cli",
        "--name",
        "clio",
        "--strategy",
        "random",
        "--start",
        "--seed",
        "3",
        "--log-level",
        "warning",
    ]
    assert await _within(asyncio.to_thread(main, argv)) == 0
    (over,) = await watching
    assert "clio" in over["ranking"]
    warnings = capsys.readouterr().err
    assert "rate_limited" not in warnings and "refused" not in warnings, warnings
    await host.close()


def test_cafe_bot_refuses_a_strategy_that_needs_the_whole_view_over_the_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Over the line endpoint only first and random can play; greedy is refused with a reason."""
    assert main(["--line", "127.0.0.1:2323", "--room", "cafe", "--strategy", "greedy"]) == 2
    assert "--url" in capsys.readouterr().err


async def test_bot_gives_up_after_its_retries_when_no_server_answers() -> None:
    """Against a port nobody listens on, the bot tries ``retries`` more times, then gives up."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bot = WsBot(
        BotSettings(name="wendy", room="cafe", url=f"ws://127.0.0.1:{port}/ws", retries=2, backoff=0.001)
    )
    with pytest.raises(ServerUnreachable):
        await _within(bot.run())
    assert bot.reconnects == 2


#: what a scripted server's test sends the bot with (``_scripted``)
Send = Callable[[dict[str, Any]], Awaitable[None]]


@contextlib.asynccontextmanager
async def _scripted(answer: Callable[[Send, dict[str, Any], int], Awaitable[bool]]) -> AsyncIterator[str]:
    """The URL of a WebSocket server whose answers the test writes, for a bot to connect to. The
    server numbers what it sends (``seq``) and welcomes a ``hello``; every other message goes to
    ``answer`` with the connection's number (0 for the first), which sends what it will and returns
    ``False`` to close that connection."""
    connections = 0

    async def serve(ws: Any) -> None:
        nonlocal connections
        number, connections = connections, connections + 1
        seq = 0

        async def send(message: dict[str, Any]) -> None:
            nonlocal seq
            seq += 1
            await ws.send(json.dumps({**message, "seq": seq}))

        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "hello":
                welcome = {"name": message["name"], "token": "t" * 32, "resumed": number > 0}
                await send({"type": "welcome", **welcome})
            elif not await answer(send, message, number):
                await ws.close()
                return

    async with websockets.asyncio.server.serve(serve, "127.0.0.1", 0) as listening:
        yield f"ws://127.0.0.1:{listening.sockets[0].getsockname()[1]}/ws"


async def _bot_until(url: str, condition: Callable[[], bool], **settings: Any) -> None:
    """Run a WebSocket bot ``robo`` in room ``cafe`` against ``url`` until ``condition()`` holds."""
    run = asyncio.create_task(WsBot(BotSettings(name="robo", room="cafe", url=url, **settings)).run())
    try:
        await _until(condition)
    finally:
        run.cancel()


def _view(state: str, position: Any = None, move_number: int = 0, **options: Any) -> dict[str, Any]:
    """``robo``'s view of room ``cafe``, seated beside ``ann``, with the given options."""
    return room_view(
        room="cafe",
        state=state,
        seats=[SeatInfo("ann", "person", True), SeatInfo("robo", "bot", True)],
        spectators=[],
        options=options,
        position=position,
        recipient="robo",
        last_move=None,
        outcome=None,
        move_number=move_number,
    )


def _robo_to_move(seed: int) -> tuple[Any, dict[str, Any]]:
    """The first position of game ``seed`` (``ann`` and ``robo``) after at least three moves
    where ``robo`` is to move, and ``robo``'s view of it."""
    position = new_position(["ann", "robo"], seed)
    rng = random.Random(seed)
    played = 0
    while played < 3 or position.players[position.to_move].name != "robo":
        position = play(position, rng.choice(legal_move_texts(position))).position
        played += 1
    return position, _view("playing", position, played)


async def test_websocket_bot_back_on_a_new_connection_moves_from_its_snapshot_only() -> None:
    """The patches last sent on a lost connection may be lost with it: back on a new one, the
    bot does not move from the view it had. A message before the new snapshot moves nothing; its
    move comes after the snapshot, and is one of that position's."""
    _, old_view = _robo_to_move(1)
    position, new_view = _robo_to_move(2)
    talk: list[list[tuple[str, dict[str, Any]]]] = [[], []]  # each connection's, in order

    async def answer(send: Send, message: dict[str, Any], number: int) -> bool:
        async def say(reply: dict[str, Any]) -> None:
            talk[number].append(("sent", reply))
            await send(reply)

        talk[number].append(("came", message))
        if message["type"] == "join" and number == 0:
            await say({"type": "snapshot", "room": "cafe", "view": old_view})
            await say({"type": "ack", "id": message["id"]})
        elif message["type"] == "join":
            await say({"type": "chat", "room": "cafe", "name": "ann", "text": "back?"})
            await asyncio.sleep(0.2)  # (time enough to move, were the old view taken)
            await say({"type": "snapshot", "room": "cafe", "view": new_view})
            await say({"type": "ack", "id": message["id"]})
        # the first connection's move: its answer and patch are lost with the connection
        return not (message["type"] == "move" and number == 0)

    async with _scripted(answer) as url:
        await _bot_until(url, lambda: any(x["type"] == "move" for _, x in talk[1]), backoff=0.01)
    second = talk[1]
    moves = [i for i, (way, x) in enumerate(second) if way == "came" and x["type"] == "move"]
    snapshot = next(i for i, (way, x) in enumerate(second) if way == "sent" and x["type"] == "snapshot")
    assert len(moves) == 1 and moves[0] > snapshot, second
    assert second[moves[0]][1]["move"] in legal_move_texts(position)


async def test_websocket_bot_starts_again_once_the_host_lets_anyone_start() -> None:
    """A bot's ``start`` refused ``not_host`` is sent again when the room's ``host`` option turns
    off, with nothing else in the room changed (in a cluster, a host's ``/option host off`` may
    come after the other seats' starts)."""
    starts: list[int] = []

    async def answer(send: Send, message: dict[str, Any], number: int) -> bool:
        if message["type"] == "join":
            await send({"type": "snapshot", "room": "cafe", "view": _view("waiting", host=True)})
            await send({"type": "ack", "id": message["id"]})
        elif message["type"] == "start":
            starts.append(message["id"])
            if len(starts) == 1:
                text = "Only the host may do that."
                await send({"type": "error", "id": message["id"], "code": "not_host", "message": text})
                await asyncio.sleep(0.2)  # (time enough to ask again, were it to)
                ops = [{"op": "replace", "path": "/options/host", "value": False}]
                await send({"type": "patch", "room": "cafe", "ops": ops})
        elif "id" in message:
            await send({"type": "error", "id": message["id"], "code": "not_host", "message": "No."})
        return True

    async with _scripted(answer) as url:
        await _bot_until(url, lambda: len(starts) == 2, start=2)


async def test_websocket_bot_starts_again_after_a_game_that_ended_at_the_same_move_number() -> None:
    """Two games in a row may end at the same move number with the same seats: the bot that
    started the first asks to start again after the second."""
    over = _view("over", host=False)
    starts: list[int] = []

    async def answer(send: Send, message: dict[str, Any], number: int) -> bool:
        if message["type"] == "join":
            await send({"type": "snapshot", "room": "cafe", "view": over})
            await send({"type": "ack", "id": message["id"]})
        elif message["type"] == "start":
            starts.append(message["id"])
            await send({"type": "ack", "id": message["id"]})
            started = {"room": "cafe", "game": "0" * 16, "players": ["ann", "robo"], "start_player": "ann"}
            await send({"type": "game_started", **started, "seed_hash": "0" * 64})
            await send({"type": "snapshot", "room": "cafe", "view": over})  # over, as before
        elif "id" in message:
            await send({"type": "ack", "id": message["id"]})
        return True

    async with _scripted(answer) as url:
        await _bot_until(url, lambda: len(starts) >= 2, start=2)


@pytest.mark.parametrize("transport", ["ws", "line"])
async def test_bot_plays_again_after_the_log_was_unavailable_for_its_move(
    fast_server: Server, transport: str
) -> None:
    """A move answered ``unavailable`` (the log could not be written; nothing changed) is tried again
    after a pause, and the game goes on to its end instead of waiting for a turn that never comes."""
    store = fast_server.lobby.store
    original = store.move_played
    refused: list[int] = []

    async def once_unavailable(game_id: str, number: int, move: str) -> None:
        stored = await store.game(game_id)
        assert stored is not None
        mover = stored.record.players[replay(stored.record).position.to_move]
        if not refused and mover == "robo":
            refused.append(number)
            raise StoreUnavailable("the log is away for a moment")
        await original(game_id, number, move)

    store.move_played = once_unavailable  # type: ignore[method-assign]
    host = await _room_with_bots(fast_server, "flaky", 5, "random")
    where = {"url": _url(fast_server)} if transport == "ws" else {"line": _line(fast_server)}
    strategy = "greedy" if transport == "ws" else "first"
    settings = BotSettings(name="robo", room="flaky", strategy=strategy, start=2, rate=FAST, **where)
    bot = WsBot(settings) if transport == "ws" else LineBot(settings)
    watching = _watch(host)
    results = await _within(bot.run())
    assert len(refused) == 1
    assert [r.reason for r in results] == [(await _within(watching))[0]["reason"]]


async def test_websocket_bot_moves_again_after_unavailable_only_from_a_fresh_snapshot() -> None:
    """A move answered ``unavailable`` may have been played all the same, and the patches of the
    moves after it lost (a cluster's Redis gone for a moment): the bot asks for a snapshot (again,
    if that too is ``unavailable``) and moves only from it, though a chat comes meanwhile."""
    _, old_view = _robo_to_move(1)
    position, new_view = _robo_to_move(2)
    talk: list[tuple[str, dict[str, Any]]] = []
    resyncs: list[int] = []

    async def answer(send: Send, message: dict[str, Any], number: int) -> bool:
        async def say(reply: dict[str, Any]) -> None:
            talk.append(("sent", reply))
            await send(reply)

        talk.append(("came", message))
        unavailable = {"type": "error", "id": message.get("id"), "code": "unavailable", "message": "Later."}
        if message["type"] == "join":
            await say({"type": "snapshot", "room": "cafe", "view": old_view})
            await say({"type": "ack", "id": message["id"]})
        elif message["type"] == "move" and not resyncs:
            await say(unavailable)
        elif message["type"] == "resync":
            resyncs.append(message["id"])
            if len(resyncs) == 1:
                await say(unavailable)
                return True
            await say({"type": "chat", "room": "cafe", "name": "ann", "text": "still there?"})
            await asyncio.sleep(0.2)  # (time enough to move, were the old view taken)
            await say({"type": "snapshot", "room": "cafe", "view": new_view})
            await say({"type": "ack", "id": message["id"]})
        return True

    async with _scripted(answer) as url:
        await _bot_until(
            url, lambda: len([x for way, x in talk if x["type"] == "move"]) >= 2, strategy="greedy"
        )
    moves = [i for i, (way, x) in enumerate(talk) if way == "came" and x["type"] == "move"]
    snapshots = [i for i, (way, x) in enumerate(talk) if way == "sent" and x["type"] == "snapshot"]
    assert len(resyncs) == 2 and len(moves) == 2 and moves[1] > snapshots[1], talk
    assert talk[moves[1]][1]["move"] in legal_move_texts(position)


async def test_a_line_bot_that_starts_games_types_again_what_a_lower_limit_refused(tmp_path: Path) -> None:
    """Against a server whose limit (2 a second, 3 at once) is below the bots' pace (10), a line
    bot that starts games has its /rooms or /option host off refused (``rate_limited``, which
    says not which): it types them again, paces itself at half the rate, and the game starts (it
    waited for ever); so does the WebSocket bot's pace."""
    async for server in _serve(tmp_path, rate=2.0, burst=3):
        watcher = await WsClient.connect(server.port, "watch")
        assert (await watcher.request({"type": "enter_room", "room": "q4"}))["type"] == "ack"
        where = {"line": _line(server)}
        starter = LineBot(BotSettings(name="qa", room="q4", strategy="random", start=2, rate=10.0, **where))
        other = LineBot(BotSettings(name="qb", room="q4", strategy="first", rate=10.0, **where))
        running = [asyncio.create_task(starter.run())]
        await asyncio.sleep(1.0)
        running.append(asyncio.create_task(other.run()))
        try:
            started = await watcher.next("game_started", timeout=LIMIT)
            assert sorted(started["players"]) == ["qa", "qb"]
            assert starter._pacer.rate < 10.0 or other._pacer.rate < 10.0  # (refused: slower now)
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
        await watcher.close()


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--start", "5"), ("--start", "1"), ("--start", "-1"), ("--games", "-1"), ("--budget", "-1"),
     ("--rate", "0"), ("--retries", "-2")],
)  # fmt: skip
def test_cafe_bot_refuses_a_flag_value_it_cannot_play_by(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A room seats 2 to 4 (a bot told to start at 5 waited for ever, at 1 had its start refused
    again and again); games, retries, a budget and a rate are not negative: argparse's error,
    status 2, before anything connects."""
    with pytest.raises(SystemExit) as done:
        main(["--url", "ws://127.0.0.1:9/ws", "--room", "cafe", flag, value])
    assert done.value.code == 2
    assert f"argument {flag}" in capsys.readouterr().err
