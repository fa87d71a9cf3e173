"""What an analysis costs the people playing: a bystander's ping while one runs on the server.

Writes a finished 4-player game of the greedy bot into a new SQLite log, starts the server on it
(``python -m server``, its default analysis settings unless told), and connects two clients over
WebSocket: ``ann`` asks for the game's analysis, ``zoe`` pings every ``--every`` seconds. It prints
zoe's round trips first with nothing running, then while the analysis runs (until ``ann`` is told
it is ready), and how long the analysis took.

    python bench/analysis_ping.py [--budget 0.75] [--seed 1] [--every 0.05] [--quiet 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# run as a script, this file's folder comes first on the path and bench/engine.py would hide the
# package; the repository's root goes there instead, for the engine and bench.analysis
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.analysis import greedy_game  # noqa: E402
from engine import new_position, outcome, play  # noqa: E402
from server.log.sqlite.store import Store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAME = "0123456789abcdef"


async def write_game(path: Path, seed: int) -> None:
    """A finished 4-player greedy game, as the server logs one."""
    record = greedy_game(4, seed)
    store = Store(str(path))
    try:
        await store.game_started(GAME, "bench", record, ["person"] * 4)
        position = new_position(record.players, record.seed)
        for number, move in enumerate(record.moves, 1):
            await store.move_played(GAME, number, move)
            position = play(position, move).position
        await asyncio.sleep(0.05)  # the moves' group commit
        result = outcome(position)
        assert result is not None
        await store.game_finished(GAME, result)
    finally:
        store.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def hello(port: int, name: str) -> ClientConnection:
    ws = await connect(f"ws://127.0.0.1:{port}/ws", max_size=2**22)
    await ws.send(json.dumps({"type": "hello", "name": name}))
    while json.loads(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def ping(ws: ClientConnection, number: int) -> float:
    started = time.perf_counter()
    await ws.send(json.dumps({"type": "ping", "id": number}))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "pong" and message.get("id") == number:
            return time.perf_counter() - started


def figures(trips: list[float]) -> str:
    ms = sorted(1000 * t for t in trips)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    return f"{len(ms)} pings: p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms"


async def measure(args: argparse.Namespace, folder: Path) -> None:
    data = folder / "cafe.db"
    await write_game(data, args.seed)
    port = free_port()
    command = [sys.executable, "-m", "server", "--port", str(port), "--line-port", str(free_port())]
    command += ["--data", str(data), "--log-level", "warning"]
    if args.budget is not None:
        command += ["--analysis-budget", str(args.budget)]
    server = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        zoe, ann = await hello(port, "zoe"), await hello(port, "ann")
        quiet: list[float] = []
        for number in range(int(args.quiet / args.every)):
            quiet.append(await ping(zoe, number))
            await asyncio.sleep(args.every)
        ready = asyncio.Event()

        async def wait_ready() -> None:
            while True:
                message = json.loads(await ann.recv())
                if message["type"] == "analysis" and message["state"] == "ready":
                    ready.set()
                    return

        started = time.perf_counter()
        await ann.send(json.dumps({"type": "analyse", "id": 1, "game": GAME}))
        waiter = asyncio.ensure_future(wait_ready())
        busy: list[float] = []
        worst: list[tuple[float, float]] = []  # (round trip, seconds since the analysis was asked)
        number = 10_000
        while not ready.is_set() and time.perf_counter() - started < args.limit:
            sent = time.perf_counter() - started
            busy.append(await ping(zoe, number))
            worst = sorted([*worst, (busy[-1], sent)], reverse=True)[:3]
            number += 1
            await asyncio.sleep(args.every)
        took = time.perf_counter() - started
        waiter.cancel()
        print(f"nothing running: {figures(quiet)}")
        state = "ready" if ready.is_set() else "not ready"
        print(f"while the analysis ran ({took:.1f} s, {state}): {figures(busy)}")
        print("  the slowest: " + ", ".join(f"{1000 * t:.0f} ms at {at:.1f} s" for t, at in worst))
        await zoe.close()
        await ann.close()
    finally:
        server.terminate()
        server.wait(20)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=float, help="the server's --analysis-budget (default: its own)")
    parser.add_argument("--seed", type=int, default=1, help="the game's seed")
    parser.add_argument("--every", type=float, default=0.05, help="seconds between two pings")
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds of pings before the analysis")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds the analysis may take at most")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(measure(args, Path(folder)))


if __name__ == "__main__":
    main()
