"""What one connection starting bot games as fast as it can costs everyone else.

A bystander pings the server every 20 ms, first alone, then while an abuser, on one connection,
repeats ``/join burnN``, ``/addbot strong`` ×3, ``/start``, ``/leave`` twenty times. Run once with
the server's defaults (``--max-bot-games 2``, ``--bot-workers 1``: bot games are limited per
person, a game nobody is in waits, bots think in a process of their own) and once without those
guards (``--max-bot-games 1000 --bot-workers 0``: every game starts, its strong bots think in the
server's own process), and print the bystander's ping before and during, side by side.

    python bench/abuse.py [--seconds 8]

Every loop is bounded in count and time; connections go to loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
GUARDED: tuple[str, ...] = ()
UNGUARDED = ("--max-bot-games", "1000", "--bot-workers", "0")
GAMES = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Client:
    """A JSON client that matches answers to requests by id."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            message = json.loads(frame)
            future = self.waiting.pop(message.get("id") or 0, None)
            if future is not None and not future.done():
                future.set_result(message)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        msg_id = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[msg_id] = future
        await self.ws.send(json.dumps({**message, "id": msg_id}))
        return await asyncio.wait_for(future, 10)


async def _pings(client: Client, seconds: float) -> list[float]:
    times = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(times) < 1000:
        t0 = time.perf_counter()
        await client.request({"type": "ping"})
        times.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(0.02)
    return times


async def _abuse(client: Client, stop: asyncio.Event) -> dict[str, int]:
    started = refused = 0
    for i in range(GAMES):
        if stop.is_set():
            break
        await client.request({"type": "join", "room": f"burn{i}"})
        for _ in range(3):
            await client.request({"type": "add_bot", "strategy": "strong"})
        answer = await client.request({"type": "start"})
        started += answer["type"] == "ack"
        refused += answer.get("code") == "too_many_bot_games"
        await client.request({"type": "leave_room"})
    return {"started": started, "refused": refused}


async def _run(flags: tuple[str, ...], seconds: float) -> dict[str, Any]:
    port = _free_port()
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, "-m", "server", "--port", str(port), "--line-port", "-1"]
        argv += ["--data", f"{folder}/cafe.db", "--log-level", "error", "--rate", "1000", "--burst", "1000"]
        proc = await asyncio.create_subprocess_exec(
            *argv, *flags, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), 0.2).close()
                    break
                except OSError:
                    await asyncio.sleep(0.1)
            url = f"ws://127.0.0.1:{port}/ws"
            async with connect(url) as by_ws, connect(url) as ab_ws:
                bystander, abuser = Client(by_ws), Client(ab_ws)
                await bystander.request({"type": "hello", "name": "bystander"})
                await abuser.request({"type": "hello", "name": "burner"})
                alone = await _pings(bystander, 2.0)
                stop = asyncio.Event()
                abuse = asyncio.create_task(_abuse(abuser, stop))
                during = await _pings(bystander, seconds)
                stop.set()
                games = await asyncio.wait_for(abuse, 30)
        finally:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), 20)
    return {"alone": alone, "during": during, **games}


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else float("nan")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds of pings during the abuse")
    args = parser.parse_args()
    rows = {}
    for label, flags in (("guarded (defaults)", GUARDED), ("unguarded", UNGUARDED)):
        rows[label] = await _run(flags, args.seconds)
    print(f"{'':34}" + "".join(f"{label:>22}" for label in rows))
    lines = [
        ("bot games started / refused", lambda r: f"{r['started']} / {r['refused']}"),
        ("bystander ping p50 alone, ms", lambda r: f"{statistics.median(r['alone']):.2f}"),
        ("bystander ping p50 during, ms", lambda r: f"{statistics.median(r['during']):.2f}"),
        ("bystander ping p95 during, ms", lambda r: f"{_p(r['during'], 95):.2f}"),
        ("pings during", lambda r: str(len(r["during"]))),
    ]
    for title, cell in lines:
        print(f"{title:34}" + "".join(f"{cell(r):>22}" for r in rows.values()))
    print(f"({os.cpu_count()} cores; the abuser, the bystander and the server share them)")


if __name__ == "__main__":
    asyncio.run(main())
