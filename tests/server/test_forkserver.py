"""The tests' fork server starts a server as the command does, and reports its end as asyncio does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.clients import WsClient
from tests.server.forkserver import ForkServer, main_path
from tests.server.process import ServerProcess

#: what a server's ``listening`` line says that does not depend on its ports or its clock
SAME = ("host", "event_loop", "compiled", "node", "level")


async def test_a_forked_server_starts_as_the_command_does_and_ends_as_its_signal_says(
    tmp_path: Path,
) -> None:
    """Forked and run as ``python -m server`` with the same arguments, two servers say the same in
    their ``listening`` line, each welcomes a client, and each ends with the code asyncio would
    give: 0 after SIGTERM, -9 after SIGKILL; a signal to a server that has ended is refused with
    ``ProcessLookupError``."""
    listening = []
    for fork in (True, False):
        server = await ServerProcess.start(tmp_path / f"{fork}.db", "--bot-workers", "0", fork=fork)
        listening.append({k: server.lines[-1].get(k) for k in SAME})
        client = await WsClient.connect(server.port, "ann")
        assert client.name == "ann"
        await client.close()
        server.proc.send_signal(signal.SIGTERM)
        assert await server.proc.wait() == 0
        assert server.proc.returncode == 0
        with pytest.raises(ProcessLookupError):  # (ended and reaped: nothing to signal)
            server.proc.kill()
        [line] = [e for e in await server.logs() if e.get("event") == "stopped"]
        assert line["level"] == "info"
    assert listening[0] == listening[1]
    assert listening[0]["event_loop"] == "uvloop"

    killed = await ServerProcess.start(tmp_path / "killed.db", "--bot-workers", "0", fork=True)
    killed.proc.kill()
    assert await killed.proc.wait() == -signal.SIGKILL


async def test_a_forked_server_refused_its_settings_says_so_and_exits_2_as_the_command_does(
    tmp_path: Path,
) -> None:
    """A setting the server refuses: the forked server writes the command's very message on its
    standard error and ends with code 2, as ``python -m server`` does."""
    argv = ["--port", "0", "--line-port", "0", "--data", str(tmp_path / "x.db"), "--resume-window", "-1"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = subprocess.run(
        [sys.executable, "-m", "server", *argv], capture_output=True, text=True, env=env, timeout=30
    )
    forked = await ForkServer.get().start([main_path(), *argv], env)
    said = (await forked.stderr.read()).decode()
    assert await forked.wait() == command.returncode == 2
    assert said == command.stderr
    assert "--resume-window: '-1' is not a number of 0 or more" in said


async def test_a_forked_cafe_admin_prints_what_the_command_prints(tmp_path: Path) -> None:
    """``cafe-admin`` forked and run as ``python -m server.admin``: the same standard output,
    standard error and code, for a command that succeeds and for one that is refused."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    for args in (["--data", str(tmp_path / "a.db"), "reports"], ["--data", str(tmp_path / "a.db"), "ban"]):
        command = subprocess.run(
            [sys.executable, "-m", "server.admin", *args], capture_output=True, text=True, env=env, timeout=30
        )
        forked = await ForkServer.get().start(
            [main_path("server.admin"), *args], env, main="server.admin.cli:main", stdout=True
        )
        assert forked.stdout is not None
        out, err = await forked.stdout.read(), await forked.stderr.read()
        assert (await forked.wait(), out.decode(), err.decode()) == (
            command.returncode,
            command.stdout,
            command.stderr,
        )
    assert command.returncode == 2 and "cafe-admin ban: error: " in command.stderr
