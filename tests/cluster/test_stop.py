"""A cluster node's start and graceful stop as the tests and operators see them: it says
``listening`` only once it hears the other nodes, and a SIGTERM sent at once ends it promptly."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import redis.asyncio as aioredis

from tests.server.process import ServerProcess

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
