"""A bystander's ping while 20 logins hash at once: argon2id runs in worker threads, so the event
loop keeps answering. Prints the bystander's ping round trips (median and max) with and without
the logins, and how long the 20 logins took. Bounded: 20 logins, 40 pings, one server.

    PYTHONPATH=. python -m bench.logins
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time

from websockets.asyncio.client import connect

from server import logs
from server.app import Server
from server.config import Config

LOGINS = 20
PINGS = 40
PASSWORD = "correct horse battery"


async def _hello(port: int, name: str, **extra: str) -> object:
    ws = await connect(f"ws://127.0.0.1:{port}/ws")
    await ws.send(json.dumps({"type": "hello", "name": name, **extra}))
    return ws, json.loads(await ws.recv())


async def _pings(ws: object, count: int) -> list[float]:
    times = []
    for i in range(count):
        start = time.perf_counter()
        await ws.send(json.dumps({"type": "ping", "id": i}))  # type: ignore[attr-defined]
        while json.loads(await ws.recv())["type"] != "pong":  # type: ignore[attr-defined]
            pass
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.01)
    return times


async def main() -> None:
    logs.configure("error", "console")
    with tempfile.TemporaryDirectory() as tmp:
        # the pings must not meet the rate limit, nor the logins the per-address cap
        limits = {"max_per_ip": 100, "rate": 1000.0, "burst": 1000}
        config = Config(port=0, line_port=-1, data=f"{tmp}/cafe.db", log_level="error", **limits)
        server = Server(config)
        await server.start()
        for i in range(LOGINS):
            ws, _ = await _hello(server.port, f"p{i}")
            await ws.send(json.dumps({"type": "register", "password": PASSWORD}))  # type: ignore[attr-defined]
            await ws.recv()  # type: ignore[attr-defined]
            await ws.close()  # type: ignore[attr-defined]
        bystander, _ = await _hello(server.port, "bystander")
        quiet = await _pings(bystander, PINGS)
        start = time.perf_counter()
        logins = asyncio.gather(*(_hello(server.port, f"p{i}", password=PASSWORD) for i in range(LOGINS)))
        busy = await _pings(bystander, PINGS)
        done = await logins
        took = time.perf_counter() - start
        assert all(answer["type"] == "welcome" for _, answer in done)  # type: ignore[index]
        print(f"ping idle:        median {statistics.median(quiet):.2f} ms, max {max(quiet):.2f} ms")
        print(f"ping with logins: median {statistics.median(busy):.2f} ms, max {max(busy):.2f} ms")
        print(f"{LOGINS} argon2id logins (64 MiB, 2 threads) took {took:.2f} s in all")
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
