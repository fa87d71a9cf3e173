"""``--connections-only N``: N WebSocket connections that say hello and then nothing, held for
``--seconds``; what they cost the server in memory and in CPU a minute while idle.

The connections are opened from this process (an idle connection costs the generator almost
nothing once open: it answers the server's keep-alive pings). The server is started as for the
game phase, or given with ``--url`` and ``--pid``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.loadgen.phases import server_argv
from bench.loadgen.plan import CONNECT_TIMEOUT
from bench.loadgen.target import Target, cpu_seconds, free_port, machine_busy
from bench.loadgen.wire import WebSocket


class _Errors:
    """What the WebSocket client reports that it did not expect (the ``Tally`` part it uses)."""

    def __init__(self) -> None:
        self.errors = 0

    def error(self, what: str, count: int = 1) -> None:
        self.errors += count
        print(f"[idle] {what}", file=sys.stderr)


class _Idle:
    """A client that says hello, waits for its welcome, and then only answers pings."""

    def __init__(self, name: str, worker: _Errors) -> None:
        self.name = name
        self.worker = worker
        self.welcomed = asyncio.get_running_loop().create_future()
        self.closed = False

    def on_text(self, text: str) -> None:
        if not self.welcomed.done():
            message = json.loads(text)
            if message.get("type") == "welcome":
                self.welcomed.set_result(None)
            else:
                self.welcomed.set_exception(ConnectionError(f"{self.name}: {text[:120]}"))

    def on_line(self, line: str) -> None:  # a WebSocket client reads no lines
        pass

    def lost(self, why: str) -> None:
        self.closed = True
        if not self.welcomed.done():
            self.welcomed.set_exception(ConnectionError(f"{self.name}: {why}"))


async def _open(
    port: int, path: str, n: int, concurrency: int, tally: _Errors
) -> list[tuple[WebSocket, _Idle]]:
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(concurrency)
    held: list[tuple[WebSocket, _Idle]] = []
    failed = 0

    async def one(i: int) -> None:
        nonlocal failed
        async with gate:
            client = _Idle(f"idle{i}", tally)
            try:
                _, conn = await loop.create_connection(
                    lambda: WebSocket(client, "127.0.0.1", port, path), "127.0.0.1", port
                )
                await asyncio.wait_for(conn.ready, CONNECT_TIMEOUT)
                conn.send_text(json.dumps({"type": "hello", "name": client.name}))
                await asyncio.wait_for(client.welcomed, CONNECT_TIMEOUT)
                held.append((conn, client))
            except (OSError, TimeoutError, ConnectionError):
                failed += 1

    await asyncio.gather(*(one(i) for i in range(n)))
    if failed:
        print(f"[idle] {failed} connections failed", file=sys.stderr)
    return held


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def _hold(args: argparse.Namespace, target: Target) -> dict[str, Any]:
    assert target.pid is not None
    pid = target.pid
    port = target.port
    path = "/" + args.url.split("//", 1)[1].partition("/")[2] if args.url else "/ws"
    await asyncio.sleep(0.5)
    idle_rss = _rss(pid)
    tally = _Errors()
    t = time.monotonic()
    held = await _open(port, path, args.connections_only, args.connect_concurrency, tally)
    opened = time.monotonic() - t
    await asyncio.sleep(min(5.0, args.warmup))  # the first handshakes' garbage, the hello timers
    connected_rss = _rss(pid)
    cpu0, busy0, t0 = cpu_seconds(pid), machine_busy(), time.monotonic()
    own0 = time.process_time()
    await asyncio.sleep(args.seconds)
    cpu1, busy1, t1 = cpu_seconds(pid), machine_busy(), time.monotonic()
    own1 = time.process_time()
    end_rss = _rss(pid)
    lost = sum(1 for _, c in held if c.closed)
    for conn, _ in held:
        conn.close()
    await asyncio.sleep(0.5)
    n = len(held)
    window = t1 - t0
    return {
        "connections": n,
        "open_seconds": opened,
        "seconds": window,
        "rss_mb": {"idle": idle_rss / 2**20, "connected": connected_rss / 2**20, "end": end_rss / 2**20},
        "per_connection_kb": (connected_rss - idle_rss) / max(1, n) / 1024,
        "server_cpu_s_per_min": (cpu1 - cpu0) / window * 60,
        "server_cpu_us_per_connection_s": (cpu1 - cpu0) / window / max(1, n) * 1e6,
        "generator_cpu": (own1 - own0) / window,
        "other_cpu": (busy1 - busy0) / window - (cpu1 - cpu0) / window - (own1 - own0) / window,
        "lost": lost,
        "errors": tally.errors,
    }


def connections_phase(args: argparse.Namespace) -> dict[str, Any]:
    """Hold ``args.connections_only`` idle connections for ``args.seconds``; the figures."""
    n = args.connections_only
    if args.url:
        port = int(args.url.rsplit(":", 1)[1].split("/")[0])
        target = Target(None, port, args.line_port, args.pid)
    else:
        port = free_port()
        data = str(Path(tempfile.mkdtemp(prefix="cafe-idle-")) / "idle.db")
        argv = server_argv(args, port, -1, data, n)
        target = Target(argv, port, None, None, args.profile)
    try:
        return asyncio.run(_hold(args, target))
    finally:
        target.stop()


def report_connections(f: dict[str, Any]) -> None:
    """Print what ``connections_phase`` measured."""
    rss = f["rss_mb"]
    print(
        f"\n{f['connections']:,} idle connections (opened in {f['open_seconds']:.1f} s),"
        f" held {f['seconds']:.0f} s"
    )
    figures = f"{rss['idle']:.0f} / {rss['connected']:.0f} / {rss['end']:.0f}"
    print(f"{'server RSS idle / connected / end MB':<40}{figures}")
    print(f"{'memory per connection KB':<40}{f['per_connection_kb']:.1f}")
    print(f"{'server CPU a minute, s':<40}{f['server_cpu_s_per_min']:.2f}")
    print(f"{'server CPU per connection, us/s':<40}{f['server_cpu_us_per_connection_s']:.2f}")
    print(f"{'generator CPU (cores)':<40}{f['generator_cpu']:.2f}")
    print(f"{'other processes CPU (cores)':<40}{f['other_cpu']:.2f}")
    print(f"{'connections lost / errors':<40}{f['lost']} / {f['errors']}")
