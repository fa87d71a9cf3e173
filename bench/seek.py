"""Quick pairing under a stream of seekers: how long people wait, at what size they play, and how
close the ratings at a table are.

A server runs as its own process (``python -m server``, SQLite in a temporary folder). Each
seeker is a registered account with a rating drawn from a normal distribution (40 x OpenSkill's
mu, mean 1000, deviation ``--spread``, written into the log before anyone seeks), and a bot over
a real WebSocket: it arrives at a random moment within ``--over`` seconds, logs in, sends
``/seek`` with a wished size (any 40 %, 2: 30 %, 3: 15 %, 4: 15 %), rated (casual for one in
five), one in ten with ``bots``, and once seated plays its game (the first legal move, after a
second's thought). The run ends when everyone is seated, or ``--patience`` seconds after the
last arrival. It prints the median and worst wait until seated, the share seated at the size
they wished (any counts for every size), the mean rating spread of a table (highest minus
lowest of its people), and who was never seated.

    .venv/bin/python bench/seek.py --seekers 200 --over 60 --seed 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery"


@dataclass
class Seeker:
    name: str
    rating: float
    size: int | None
    rated: bool
    bots: bool
    arrive: float
    sought: float | None = None
    seated: float | None = None
    table: list[str] = field(default_factory=list)


async def _server(folder: Path) -> tuple[asyncio.subprocess.Process, int]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server",
        "--port",
        "0",
        "--line-port",
        "-1",
        "--data",
        str(folder / "cafe.db"),
        "--log-level",
        "info",
        "--hash-memory",
        "1024",
        "--max-per-ip",
        "1000",
        "--login-attempts",
        "1000",
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stderr is not None
    while True:
        line = await asyncio.wait_for(proc.stderr.readline(), 120)
        if not line:
            raise RuntimeError("the server exited before listening")
        event = json.loads(line)
        if event.get("event") == "listening":
            asyncio.get_running_loop().create_task(_drain(proc))
            return proc, int(event["port"])


async def _drain(proc: asyncio.subprocess.Process) -> None:
    assert proc.stderr is not None
    async for _ in proc.stderr:
        pass


class Client:
    """A JSON client that follows its room's view and answers nothing it was not asked."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = 0
        self.view: dict[str, Any] | None = None

    async def send(self, message: dict[str, Any]) -> int:
        self.ids += 1
        await self.ws.send(json.dumps({**message, "id": self.ids}))
        return self.ids

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        msg_id = await self.send(message)
        while True:
            got: dict[str, Any] = json.loads(await self.ws.recv())
            if got.get("id") == msg_id and got["type"] not in ("snapshot", "patch"):
                return got


async def _register(port: int, name: str) -> None:
    async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        client = Client(ws)
        assert (await client.answer({"type": "hello", "name": name}))["type"] == "welcome"
        answer = await client.answer({"type": "register", "password": PASSWORD})
        assert answer["type"] in ("ack", "welcome"), answer


async def _seek(port: int, seeker: Seeker, start: float, done: asyncio.Event) -> None:
    from protocol.diff import apply_patch

    await asyncio.sleep(max(0.0, start + seeker.arrive - time.monotonic()))
    async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        client = Client(ws)
        welcome = await client.answer({"type": "hello", "name": seeker.name, "password": PASSWORD})
        assert welcome["type"] == "welcome", welcome
        words = ["any" if seeker.size is None else str(seeker.size), "rated" if seeker.rated else "casual"]
        if seeker.bots:
            words.append("bots")
        seeker.sought = time.monotonic()
        answer = await client.answer({"type": "command", "text": "/seek " + " ".join(words)})
        assert answer["type"] == "seeking", answer
        playing = asyncio.get_running_loop().create_task(_play(client, seeker, apply_patch))
        await done.wait()
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await playing


async def _play(client: Client, seeker: Seeker, apply_patch: Any) -> None:
    """Read everything; once seated, play the first legal move when it is this seeker's turn."""
    moving = -1
    while True:
        got = json.loads(await client.ws.recv())
        kind = got["type"]
        if kind == "seated":
            seeker.seated = time.monotonic()
            seeker.table = list(got["players"])
        elif kind == "snapshot":
            client.view = got["view"]
        elif kind == "patch" and client.view is not None:
            client.view = apply_patch(client.view, got["ops"])
        elif kind == "legal_moves" and got["moves"]:
            await client.send({"type": "move", "move": got["moves"][0]})
        view = client.view
        game = None if view is None else view.get("game")
        if (
            game
            and game.get("to_move") == seeker.name
            and not game.get("over")
            and game["move_number"] != moving
        ):
            moving = game["move_number"]
            asyncio.get_running_loop().create_task(_ask(client))


async def _ask(client: Client) -> None:
    """A second's thought, then the legal moves (the answer is read by ``_play``)."""
    await asyncio.sleep(1.0)
    with contextlib.suppress(Exception):  # (the run ended and closed the connection meanwhile)
        await client.send({"type": "legal_moves"})


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seekers", type=int, default=200)
    parser.add_argument("--over", type=float, default=60.0, help="seconds over which they arrive")
    parser.add_argument("--patience", type=float, default=45.0, help="seconds after the last arrival")
    parser.add_argument("--spread", type=float, default=200.0, help="rating deviation of the seekers")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sizes = [None] * 40 + [2] * 30 + [3] * 15 + [4] * 15
    seekers = [
        Seeker(
            name=f"s{i:03d}",
            rating=rng.gauss(1000.0, args.spread),
            size=rng.choice(sizes),
            rated=rng.random() >= 0.2,
            bots=rng.random() < 0.1,
            arrive=rng.uniform(0.0, args.over),
        )
        for i in range(args.seekers)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        proc, port = await _server(folder)
        try:
            for seeker in seekers:
                await _register(port, seeker.name)
            db = sqlite3.connect(folder / "cafe.db", timeout=10)
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO ratings (key, name, mu, sigma, games, wins)"
                    " VALUES (?, ?, ?, ?, 20, 5)",
                    [(f"account:{s.name}", s.name, s.rating / 40.0, 2.0) for s in seekers],
                )
            db.close()
            done = asyncio.Event()
            start = time.monotonic()
            tasks = [asyncio.create_task(_seek(port, s, start, done)) for s in seekers]
            deadline = start + args.over + args.patience
            while time.monotonic() < deadline and not all(s.seated for s in seekers):
                await asyncio.sleep(0.5)
            done.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 20)
    _report(seekers, args)


def _report(seekers: list[Seeker], args: argparse.Namespace) -> None:
    seated = [s for s in seekers if s.seated is not None and s.sought is not None]
    waits = sorted(s.seated - s.sought for s in seated)  # type: ignore[operator]
    by_name = {s.name: s for s in seekers}
    wished = [s for s in seated if s.size is None or len(s.table) == s.size]
    tables: dict[tuple[str, ...], list[Seeker]] = {}
    for s in seated:
        tables.setdefault(tuple(sorted(s.table)), []).append(s)
    spreads = []
    for names in tables:
        people = [by_name[n].rating for n in names if n in by_name]
        if len(people) >= 2:
            spreads.append(max(people) - min(people))
    sizes = [len(t) for t in tables]
    with_bots = sum(1 for names in tables if any(n not in by_name for n in names))
    print(
        f"seekers {len(seekers)} arriving over {args.over:.0f} s"
        f" (seed {args.seed}, rating sd {args.spread:.0f})"
    )
    print(f"seated {len(seated)} ({100 * len(seated) / len(seekers):.0f} %) at {len(tables)} tables")
    print(f"  tables of 2/3/4: {sizes.count(2)}/{sizes.count(3)}/{sizes.count(4)}, with bots: {with_bots}")
    if waits:
        print(f"wait until seated: median {statistics.median(waits):.2f} s, worst {waits[-1]:.2f} s")
    print(f"seated at the size they wished: {100 * len(wished) / max(1, len(seated)):.0f} %")
    if spreads:
        print(
            f"rating spread of a table (people): mean {statistics.mean(spreads):.0f},"
            f" worst {max(spreads):.0f}"
        )
    never = [s for s in seekers if s.seated is None]
    if never:
        kinds = ", ".join(
            f"{s.name} ({'any' if s.size is None else s.size}, {'rated' if s.rated else 'casual'})"
            for s in never[:8]
        )
        print(f"never seated: {len(never)}: {kinds}{' ...' if len(never) > 8 else ''}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    asyncio.run(main())
