"""The server's bot workers: they think in processes of their own, and end with the server however
it ends (a server killed outright cannot shut its pool down)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.server.clients import WsClient
from tests.server.process import ServerProcess


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # the command may hold spaces and parentheses: the fields after its last ")" are fixed
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # it ended meanwhile
        return b""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_bot_workers_end_when_the_server_is_killed(tmp_path: Path) -> None:
    """SIGKILL the server while its bot worker runs: the worker ends by itself soon after."""
    server = await ServerProcess.start(tmp_path / "a.db", "--bot-workers", "1")
    ann = await WsClient.connect(server.port, "ann")
    for command in ("/join cafe", "/addbot greedy", "/start"):
        assert (await ann.command(command))["type"] == "ack", command
    workers: set[int] = set()
    for _ in range(200):  # the pool starts when the bot first thinks: ann's move makes it think
        workers = {p for p in _children(server.proc.pid) if b"multiprocessing" in _cmdline(p)}
        if workers:
            break
        hint = await ann.request({"type": "hint"})
        if hint["type"] == "hint":
            await ann.request({"type": "move", "move": hint["move"]})
        await asyncio.sleep(0.05)
    assert workers, "no bot worker process started"
    server.proc.send_signal(signal.SIGKILL)
    await server.proc.wait()
    for _ in range(200):
        if not any(_alive(p) for p in workers):
            break
        await asyncio.sleep(0.05)
    assert not any(_alive(p) for p in workers), "a bot worker outlived its server"
    await asyncio.wait_for(server.logs(), 10)  # and nothing holds the server's log open any more
    assert {line.get("event") for line in server.lines} >= {"listening", "game_started"}
