"""A cluster node's start and graceful stop as the tests and operators see them: it says
``listening`` only once it hears the other nodes, a SIGTERM sent at once ends it promptly, and a
node that cannot start exits."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import redis.asyncio as aioredis

from tests.server.process import ServerProcess
from tests.server.test_config_errors import run_server

#: nodes started and stopped in a row (a stop that waited for a lost cancel hung in 1 of 3 before)
ROUNDS = 3


async def test_a_node_hears_at_once_and_stops_at_once_on_sigterm(redis_url: str, tmp_path: Path) -> None:
    """Each of ``ROUNDS`` nodes gets a message published the moment it says ``listening`` (one
    subscriber hears it), is sent SIGTERM at once, logs ``stopped`` and exits 0 within 5 s."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        for i in range(ROUNDS):
            node = await ServerProcess.start(tmp_path / f"{i}.db", "--redis", redis_url, "--node-id", "a")
            assert await client.publish("cafe:to:a", "not json") == 1
            node.proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(node.proc.wait(), 5) == 0
            events = [line.get("event") for line in await node.logs()]
            assert events.index("subscribed") < events.index("listening")
            assert "stopping" in events and events[-1] == "stopped"
    finally:
        await client.aclose()


def test_a_node_that_cannot_listen_logs_it_and_exits_2(redis_url: str) -> None:
    """A node whose port is taken logs ``cannot_listen`` alone and exits 2 at once, three times
    in a row, however far its cluster parts had started (they used to keep it running for ever,
    deaf to SIGTERM: a cancel lost in a Redis call)."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    with taken:
        argv = ["--port", str(taken.getsockname()[1]), "--line-port", "-1", "--bot-workers", "0"]
        for run in range(3):
            done = run_server([*argv, "--redis", redis_url, "--node-id", f"taken{run}"], {})
            assert done.returncode == 2, done.stderr
            errors = [json.loads(line) for line in done.stderr.splitlines() if '"level": "error"' in line]
            assert [e["event"] for e in errors] == ["cannot_listen"], done.stderr


def test_a_sigterm_while_the_node_waits_for_postgresql_ends_it_at_once(redis_url: str) -> None:
    """A node waits up to 30 s for PostgreSQL at its start; a SIGTERM meanwhile ends the wait:
    the node stops what started and exits 0 within seconds, without ``listening``."""
    with socket.socket() as unused:  # a port nobody listens on: every connection is refused
        unused.bind(("127.0.0.1", 0))
        database = f"postgresql://cafe@127.0.0.1:{unused.getsockname()[1]}/cafe"
    argv = ["--port", "0", "--line-port", "-1", "--bot-workers", "0", "--log-format", "json"]
    argv += ["--redis", redis_url, "--node-id", "waiting", "--database", database]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**clean, "CAFE_DATA": ":memory:"},
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the node says it waits for PostgreSQL before it does
            if '"records_opening"' in line:
                break
        else:
            raise AssertionError("the node ended without waiting for PostgreSQL")
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        rest = proc.communicate(timeout=20)[1]
        took = time.monotonic() - sent
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, rest[-2000:]
    assert took < 10, took  # PostgreSQL's wait alone would have taken 30 s
    events = [json.loads(line)["event"] for line in rest.splitlines() if line.startswith("{")]
    assert "stop_signal_while_starting" in events and events[-1] == "stopped", events
    assert "listening" not in events and "records_unavailable" not in events
