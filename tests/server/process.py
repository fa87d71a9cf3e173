"""Run the server as a real process of its own: forked from one that has already imported it
(``tests.server.forkserver``), or as operators do, ``python -m server``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.server.forkserver import ForkedProcess, ForkServer, forking, main_path


class ServerProcess:
    """A server process on free ports; its JSON log lines are collected as they come."""

    #: every process started and not yet reaped, so that a failing test leaves none behind
    started: list[ServerProcess] = []  # noqa: RUF012

    def __init__(
        self,
        proc: asyncio.subprocess.Process | ForkedProcess,
        port: int,
        line_port: int,
        lines: list[dict[str, Any]],
    ) -> None:
        self.proc = proc
        self.port = port
        self.line_port = line_port
        self.lines = lines
        #: the event loop of the test that started it: only that loop can wait for it
        self.loop = asyncio.get_running_loop()
        self._reader = self.loop.create_task(self._read())
        ServerProcess.started.append(self)

    @classmethod
    async def start(cls, data: Path, *args: str, fork: bool | None = None) -> ServerProcess:
        """A server on free ports with ``data`` and ``args``: forked from this test process's fork
        server (``tests.server.forkserver``: the same start, less the imports), or with ``fork``
        false run as the command itself (every one, with ``CAFE_TEST_FORK=0`` in the environment)."""
        if fork is None:
            fork = forking()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        argv = ["--port", "0", "--line-port", "0", "--data", str(data), "--log-format", "json", *args]
        proc: asyncio.subprocess.Process | ForkedProcess
        if fork:
            proc = await ForkServer.get().start([main_path(), *argv], env)
        else:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "server", *argv, stderr=asyncio.subprocess.PIPE, env=env
            )
        assert proc.stderr is not None
        lines: list[dict[str, Any]] = []
        while True:
            line = await asyncio.wait_for(proc.stderr.readline(), 30)
            if not line:
                raise RuntimeError("the server exited before listening")
            event = json.loads(line)
            lines.append(event)
            if event.get("event") == "listening":
                return cls(proc, event["port"], event["line_port"], lines)

    async def _read(self) -> None:
        """Keep reading the log, so a full pipe never blocks the server."""
        assert self.proc.stderr is not None
        async for line in self.proc.stderr:
            if line.strip():
                try:
                    self.lines.append(json.loads(line))
                except ValueError:  # not the server's own (a child process' warning after a kill)
                    self.lines.append({"event": "not_json", "text": line.decode(errors="replace")})

    async def logs(self) -> list[dict[str, Any]]:
        """Every log line, once the process has ended."""
        await self.proc.wait()
        await self._reader
        return self.lines


async def kill_leftovers() -> None:
    """Kill the server processes a test left running (it failed before stopping them), and wait
    for them. Called at the end of each test, on its own loop (the fixtures ``close_clients``): a
    process is waited for on the loop that started it, as asyncio's subprocesses must be; one
    started on another loop (whose wait would fail, "attached to a different loop") is only
    killed (``kill`` signals through its ``Popen``, which knows whether it was reaped)."""
    loop = asyncio.get_running_loop()
    while ServerProcess.started:
        process = ServerProcess.started.pop()
        if process.loop is not loop:
            with contextlib.suppress(ProcessLookupError):
                process.proc.kill()
        else:
            if process.proc.returncode is None:
                process.proc.kill()
            await process.proc.wait()  # (ended already: a forked one's pipe is closed by then)
