"""A real redis-server for each test, on a free loopback port, stopped at the end; the nodes the
tests start run with a lease of half the default's, and every timing that follows it."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.cluster.timings import ClusterTimings
from tests.server import clients
from tests.server.process import ServerProcess, kill_leftovers

#: the lease of the tests' nodes (``--lease``): a room moves, a dead node is forgotten and a node
#: is ready again in half the time of the default's, with half a second between heartbeats
LEASE = 1.5
TIMINGS = ClusterTimings.for_lease(LEASE)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """redis-server with an append-only log in a folder of the test, so it can be restarted."""

    def __init__(self, folder: Path, *extra: str) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None, "the cluster tests need redis-server (apt-get install -y redis-server)"
        self.binary = binary
        self.folder = folder
        self.port = _free_port()
        self.extra = list(extra)  # more redis-server arguments; the last of a repeated one wins
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--protected-mode",
                "no",
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
        )

    async def wait_ready(self) -> None:
        client = aioredis.from_url(self.url)
        try:
            for _ in range(200):
                try:
                    if await client.ping():
                        return
                except OSError:
                    pass
                except Exception:  # redis' own connection errors while it starts
                    pass
                await asyncio.sleep(0.05)
            raise RuntimeError("redis-server did not start")
        finally:
            await client.aclose()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # (a server with a replica may wait for it to catch up)
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def kill(self) -> None:
        """SIGKILL: no chance to write anything more to disk."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A client of the test's Redis, answering in text."""
    redis = aioredis.from_url(redis_url, decode_responses=True)
    yield redis
    await redis.aclose()


async def published(pubsub: aioredis.client.PubSub, what: str) -> dict[str, Any]:
    """The next message published on a channel ``pubsub`` listens to, within 10 s (``what`` says
    which, should none come)."""
    for _ in range(100):
        found = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
        if found is not None:
            return dict(found)
    raise AssertionError(f"{what} never came")


@pytest.fixture
async def redis_url(redis_server: RedisServer) -> AsyncIterator[str]:
    await redis_server.wait_ready()
    yield redis_server.url


@contextlib.asynccontextmanager
async def two_nodes(redis_url: str, folder: Path, *args: str) -> AsyncIterator[list[ServerProcess]]:
    """Server processes a and b on ``redis_url`` (with ``args``), stopped with SIGTERM after."""
    started = [
        await ServerProcess.start(folder / f"{n}.db", "--redis", redis_url, "--node-id", n, *args)
        for n in ("a", "b")
    ]
    try:
        yield started
    finally:
        for node in started:
            if node.proc.returncode is None:
                node.proc.send_signal(signal.SIGTERM)
        for node in started:
            for line in node.lines[-40:]:  # shown when the test fails
                print(line)
            try:
                await asyncio.wait_for(node.proc.wait(), 20)
            except TimeoutError:
                node.proc.kill()
                tail = "\n".join(str(line) for line in node.lines[-15:])
                raise AssertionError(f"a node did not stop on SIGTERM; its last log lines:\n{tail}") from None


@pytest.fixture
async def nodes(redis_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Two server processes, a and b, on the test's Redis."""
    async with two_nodes(redis_url, tmp_path) as started:
        yield started


#: argon2id with 1 MiB: the same code as the default's 64 MiB, a quicker hash
QUICK_HASH = ("--hash-memory", "1024")


@pytest.fixture
async def pair(redis_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Two nodes with a quick password hash and no bot worker processes."""
    async with two_nodes(redis_url, tmp_path, *QUICK_HASH, "--bot-workers", "0") as started:
        yield started


@pytest.fixture
async def quick(redis_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Two nodes with a quick password hash, whose lost players are dropped from their games after
    half a second."""
    async with two_nodes(redis_url, tmp_path, "--resume-window", "0.5", *QUICK_HASH) as started:
        yield started


@pytest.fixture(autouse=True)
def short_lease(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every node a test starts (a child process, reading ``CAFE_LEASE``) runs with ``LEASE``."""
    monkeypatch.setenv("CAFE_LEASE", str(LEASE))


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    """Close every test client a test opened, and kill the server processes it left running, on
    that test's own loop (a later test's loop cannot)."""
    yield
    while clients.OPEN:
        await clients.OPEN.pop().close()
    await kill_leftovers()
