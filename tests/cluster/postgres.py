"""A real PostgreSQL server for the tests, as ``conftest.py`` starts redis-server: Debian's
``postgresql`` (its binaries under ``/usr/lib/postgresql/VERSION/bin``), a data folder of its own
made by ``initdb``, listening on a free loopback port, stopped at the end. ``initdb`` runs once a
test process (half a second of CPU): each server's folder starts as a copy of what it made.

PostgreSQL refuses to run as root: run as root (as CI does), the server runs as the ``postgres``
system user (``runuser``), in a folder outside pytest's (which only root may enter).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import psycopg
import pytest
import redis.asyncio as aioredis

from server.log.postgres.records import Records
from server.log.postgres.store import PostgresStore

#: where Debian puts each PostgreSQL version's binaries
DEBIAN = Path("/usr/lib/postgresql")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def binaries() -> Path:
    """The folder of the newest PostgreSQL installed (``initdb``, ``pg_ctl``, ``postgres``)."""
    found = shutil.which("initdb")
    if found is not None:
        return Path(found).resolve().parent
    versions = sorted(
        DEBIAN.glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0
    )
    assert versions, "the cluster tests need PostgreSQL (apt-get install -y postgresql)"
    return versions[-1].parent


def _folder(user: str | None) -> Path:
    """A new temporary folder, ``user``'s (``None``: this process's)."""
    folder = Path(tempfile.mkdtemp(prefix="cafe-pg-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    return folder


def _run(user: str | None, *command: str) -> None:
    """Run ``command`` as ``user`` (``None``: as this process); it must succeed."""
    prefix = ["runuser", "-u", user, "--"] if user else []
    done = subprocess.run([*prefix, *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    assert done.returncode == 0, f"{command[0]}: {done.stderr.decode(errors='replace')}"


@functools.cache
def _initdb(bin: Path, user: str | None) -> Path:
    """The data folder ``initdb`` made, once a process: each server's starts as a copy of it."""
    made = _folder(user) / "data"
    _run(user, str(bin / "initdb"), "-D", str(made), "-U", "cafe", "-A", "trust", "-E", "UTF8",
         "--no-sync", "--locale", "C")  # fmt: skip
    atexit.register(shutil.rmtree, made.parent, ignore_errors=True)
    return made


class PostgresServer:
    """A PostgreSQL server in a data folder of its own; ``stop`` then ``start`` keeps its data.

    It never syncs to disk (the machine does not crash under a test). Unless ``durable``, a commit
    does not wait for its WAL either, so ``stop("immediate")`` loses the last moment's commits;
    ``durable`` makes each commit wait for its WAL's write, so that a server killed keeps every
    commit it answered, as a real one does."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        self.bin = binaries()
        self.user: str | None = "postgres" if os.geteuid() == 0 else None  # it will not run as root
        self.folder = _folder(self.user)
        self.data = self.folder / "data"
        self.port = _free_port()
        #: whether it ever started: a URL with its port has been handed out since
        self.started = False
        self._run("cp", "-a", str(_initdb(self.bin, self.user)), str(self.data))

    @property
    def url(self) -> str:
        return f"postgresql://cafe@127.0.0.1:{self.port}/cafe"

    def _run(self, *command: str) -> None:
        _run(self.user, *command)

    def start(self) -> None:
        """Start it (unless ``durable``, a commit lives only once the server has written it: one
        stopped with ``-m immediate`` may lose the last ones). A first start that fails (the free
        port taken meanwhile by another test's server) is tried again on another port, and a
        start that fails every time (or a restart that fails) says what the server's log says."""
        for attempt in range(3):
            try:
                self._start()
                self.started = True
                return
            except AssertionError as e:
                if self.started and self._accepting(10.0):
                    # a restart that pg_ctl gave up waiting for on a busy machine, though the
                    # server's log says it is ready: it is
                    return
                # (a restart keeps its port: its URL is known)
                if attempt == 2 or self.started or (self.data / "postmaster.pid").exists():
                    log = self.folder / "log"
                    tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
                    raise AssertionError(f"{e}\nthe server's log:\n{tail}") from None
                self.port = _free_port()

    def _accepting(self, timeout: float) -> bool:
        """Whether the server takes connections within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
            time.sleep(0.2)
        return False

    def _start(self) -> None:
        commit = "on" if self.durable else "off"
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='{self.folder}'"
            f" -c fsync=off -c synchronous_commit={commit} -c full_page_writes=off -c max_connections=60"
        )
        log = str(self.folder / "log")
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            log,
            "-w",
            "-t",
            "30",
            "start",
        )

    def create_database(self, name: str = "cafe") -> str:
        """An empty database ``name``; its URL."""
        self._run(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "cafe", name)
        return f"postgresql://cafe@127.0.0.1:{self.port}/{name}"

    def stop(self, mode: str = "fast") -> None:
        """``fast``: connections are cut and the server shuts down cleanly; ``immediate``: as a crash."""
        if (self.data / "postmaster.pid").exists():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop")

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


async def wait_accepting(server: PostgresServer, timeout: float = 30.0) -> None:
    """Until the server takes connections (``pg_ctl -w`` waits too; this is for a restart in a test)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.close()
            return
        except OSError:
            assert loop.time() < deadline, "PostgreSQL did not start"
            await asyncio.sleep(0.1)


@contextlib.contextmanager
def running_postgres() -> Iterator[PostgresServer]:
    """A running PostgreSQL server with an empty database ``cafe``, removed after."""
    server = PostgresServer()
    try:
        server.start()
        server.create_database()
        yield server
    finally:
        server.remove()


@contextlib.asynccontextmanager
async def records_store(
    server: PostgresServer, client: aioredis.Redis, fence: Callable[[str], str | None]
) -> AsyncIterator[PostgresStore]:
    """A store on ``client`` with its records in ``server``'s database, emptied first (every table
    dropped: the moderation log refuses to be emptied otherwise) and made again by its schema steps."""
    async with await psycopg.AsyncConnection.connect(server.url, autocommit=True) as conn:
        await conn.execute(b"DROP SCHEMA public CASCADE")
        await conn.execute(b"CREATE SCHEMA public")
    records = Records(server.url)
    await records.open()
    try:
        yield PostgresStore(client, fence, records)
    finally:
        await records.close()


@pytest.fixture(scope="module")
def postgres_for_module() -> Iterator[PostgresServer]:
    """A running PostgreSQL server for the tests of a module (each empties it: ``records_store``)."""
    with running_postgres() as server:
        yield server


@pytest.fixture
def postgres_server() -> Iterator[PostgresServer]:
    """A running PostgreSQL server with an empty database ``cafe``, for one test."""
    with running_postgres() as server:
        yield server
