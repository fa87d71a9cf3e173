"""A real server on free loopback ports for each test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from server import logs
from server.app import Server
from server.config import Config
from tests.server import clients
from tests.server.process import kill_leftovers

ServerFactory = Callable[..., Any]


@pytest.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[ServerFactory]:
    """Start servers with test settings (overridable); all are stopped at the end."""
    logs.configure("warning", "console")
    servers: list[Server] = []

    async def start(**overrides: Any) -> Server:
        # a server started while another of the test still runs gets a file of its own (one
        # server holds its file: a second on it is data_in_use); one started after the others
        # stopped reads what they kept
        running = sum(1 for s in servers if s.lobby.accepting)
        settings: dict[str, Any] = {
            "port": 0,
            "line_port": 0,
            "data": str(tmp_path / ("cafe.db" if not running else f"cafe-{len(servers)}.db")),
            "log_level": "warning",
            "rate": 1000.0,
            "burst": 1000,
            "chat_rate": 1000.0,
            "chat_burst": 1000,
            "hash_memory": 1024,  # argon2id with 1 MiB: the same code, a quicker hash
        }
        settings.update(overrides)
        server = Server(Config(**settings))
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        if server.lobby.accepting:
            await server.stop()


@pytest.fixture
async def server(make_server: ServerFactory) -> Server:
    result: Server = await make_server()
    return result


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    """Close every test client a test opened, on that test's own loop."""
    yield
    while clients.OPEN:
        await clients.OPEN.pop().close()
    await kill_leftovers()
