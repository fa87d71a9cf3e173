"""Run the server as a real process, as operators do."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path


class ServerProcess:
    def __init__(self, proc: asyncio.subprocess.Process, port: int, line_port: int) -> None:
        self.proc = proc
        self.port = port
        self.line_port = line_port

    @classmethod
    async def start(cls, data: Path, *args: str) -> ServerProcess:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server",
            "--port",
            "0",
            "--line-port",
            "0",
            "--data",
            str(data),
            "--log-format",
            "json",
            *args,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        assert proc.stderr is not None
        while True:
            line = await asyncio.wait_for(proc.stderr.readline(), 30)
            if not line:
                raise RuntimeError("the server exited before listening")
            event = json.loads(line)
            if event.get("event") == "listening":
                return cls(proc, event["port"], event["line_port"])

    async def logs(self) -> list[dict[str, object]]:
        assert self.proc.stderr is not None
        return [json.loads(line) for line in (await self.proc.stderr.read()).splitlines() if line.strip()]
