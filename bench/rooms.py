"""What a room's work costs the server, in one process without sockets: starting many games at
once, and their moves.

``bench/load.py`` starts every room's game at the same moment: at 2,500 rooms the first moves
wait behind 2,500 seed options and starts. This script drives the lobby and the room actors the
server runs, on a SQLite log in a temporary folder, with sessions that do what a transport does
with a message but write nowhere (a WebSocket session makes each message's text with its sequence
number; one member in ten is a line session, which renders its text as a line client reads it).
Every room seats 4, then all set their seed at once, then all start at once, then each round
every room plays its next move (a random game drawn from the seed in advance). It prints the CPU
a room each phase took, the CPU a move, and, with ``--profile option``, ``start`` or ``moves``,
where that phase's time went (cProfile, in the last run).

    .venv/bin/python bench/rooms.py --rooms 2500 --moves 0 --repeat 3 --profile start
    .venv/bin/python bench/rooms.py --rooms 200 --moves 40 --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import compiled

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import random_game  # noqa: E402
from protocol import messages as m  # noqa: E402
from server import logs  # noqa: E402
from server.app import YoungPasses, collect_garbage_seldom  # noqa: E402
from server.config import Config  # noqa: E402
from server.directory import LocalDirectory  # noqa: E402
from server.lobby.lobby import Lobby  # noqa: E402
from server.log.sqlite.store import Store  # noqa: E402
from server.metrics import Metrics  # noqa: E402
from server.net.line import LineSession  # noqa: E402
from server.session import Outgoing, Session  # noqa: E402


class QuietWs(Session):
    """A WebSocket session's work for each message (its text with its sequence number), unsent."""

    transport = "ws"

    def __init__(self) -> None:
        super().__init__(outbox=10_000)
        self.written = 0

    def _write_now(self, batch: list[Outgoing], first: int) -> bool:
        for seq, out in enumerate(batch, first):
            head, tail = out.encoded(seq)
            self.written += len(head) + len(tail)
        return False


class Unsent:
    """A line session's writer that counts the bytes and sends nothing."""

    def __init__(self) -> None:
        self.written = 0
        self.transport = self

    def write(self, data: bytes) -> None:
        self.written += len(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str) -> Any:
        return None


def quiet_line() -> LineSession:
    """A line session's work for each message (the text a person reads), unsent."""
    return LineSession(Unsent(), peer="", outbox=10_000, slow_strikes=3, ascii_only=False)  # type: ignore[arg-type]


async def settle(lobby: Lobby) -> None:
    for room in list(lobby.rooms.values()):
        await room.settled()
    await asyncio.sleep(0)  # the sessions' writes run at the end of the loop's turn


SEED = 7


async def run(
    rooms: int, moves: int, profile: str | None, lines: int, sort: str = "cumulative"
) -> tuple[float, float, float, str]:
    folder = tempfile.mkdtemp(prefix="starts-")
    config = Config(
        data=f"{folder}/log.db",
        rate=1e9,
        burst=10**9,
        chat_rate=1e9,
        chat_burst=10**9,
        max_rooms=rooms + 10,
        max_connections=4 * rooms + 10,
    )
    metrics = Metrics()
    young = YoungPasses()  # as the server runs
    young.start()
    directory = LocalDirectory(config, Store(config.data), metrics)
    lobby = Lobby(config, directory, directory.log, metrics)
    hosts: list[Session] = []
    n = 0
    for r in range(rooms):
        for s in range(4):
            session: Session = quiet_line() if n % 10 == 9 else QuietWs()
            n += 1
            lobby.attach(session)
            session.start()
            await lobby.handle(session, m.Hello(name=f"p{r}x{s}"))
            await lobby.handle(session, m.Join(room=f"room{r}"))
            if s == 0:
                hosts.append(session)
        if r % 100 == 99:
            await settle(lobby)
    await settle(lobby)
    gc.collect()

    async def phase(message: Any) -> float:
        began = time.process_time()
        for host in hosts:
            await lobby.handle(host, message)
        await settle(lobby)
        return (time.process_time() - began) / rooms

    profiler = cProfile.Profile()
    if profile == "option":
        profiler.enable()
    option = await phase(m.SetOption(key="seed", value=SEED))
    profiler.disable()
    if profile == "start":
        profiler.enable()
    start = await phase(m.Start())
    profiler.disable()
    assert all(room.state == "playing" for room in lobby.rooms.values())
    sessions = {s.name: s for s in directory.sessions.values()}
    plans = {}
    for room in lobby.rooms.values():
        assert room.game is not None
        players = room.game.record.players
        plans[room.name] = random_game(players, SEED).moves
    played = 0
    if profile == "moves":
        profiler.enable()
    began = time.process_time()
    for number in range(moves):
        for room in lobby.rooms.values():
            game = room.game
            assert game is not None
            plan = plans[room.name]
            if number < len(plan) and game.moves == number:
                mover = sessions[game.position.players[game.position.to_move].name]
                await lobby.handle(mover, m.PlayMove(move=plan[number]))
                played += 1
        await settle(lobby)
    per_move = (time.process_time() - began) / played if played else 0.0
    profiler.disable()
    assert all(
        room.game is not None and room.game.moves == min(moves, len(plans[room.name]))
        for room in lobby.rooms.values()
    ), "every move planned was played"
    text = ""
    if profile:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(lines)
        text = out.getvalue()
    for room in list(lobby.rooms.values()):
        await room.stop()
    directory.log.close()
    young.stop()
    return option, start, per_move, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=1000, help="rooms of 4 starting at once")
    parser.add_argument("--repeat", type=int, default=3, help="runs, each in a fresh lobby and log")
    parser.add_argument("--moves", type=int, default=40, help="moves each room plays after the start")
    parser.add_argument("--profile", choices=["option", "start", "moves"], help="profile this phase")
    parser.add_argument("--lines", type=int, default=50, help="lines of the profile printed")
    parser.add_argument("--sort", default="cumulative", help="the profile's order (pstats' keys)")
    args = parser.parse_args()
    logs.configure("warning")  # as bench/load.py starts the server
    collect_garbage_seldom()  # the garbage collector's settings as the server's
    print(f"{args.rooms} rooms of 4 (one member in ten a line session), {args.moves} moves each")
    print("CPU: option and start ms a room, moves us a move")
    for i in range(args.repeat):
        profile = args.profile if i == args.repeat - 1 else None
        option, start, move, text = asyncio.run(run(args.rooms, args.moves, profile, args.lines, args.sort))
        print(f"run {i + 1}: option {option * 1e3:.3f}   start {start * 1e3:.3f}   move {move * 1e6:.0f}")
    if text:
        print(text)


if __name__ == "__main__":
    main()
