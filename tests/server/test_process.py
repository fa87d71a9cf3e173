"""The server process: configuration, --help, and a graceful stop on SIGTERM."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

import compiled
from server.config import Config, load_config
from server.log.sqlite.store import Store
from tests.server.clients import LineClient, WsClient, until
from tests.server.process import ServerProcess

pytestmark = pytest.mark.websocket_api


def test_help_documents_every_setting_and_its_environment_variable() -> None:
    """cafe-server --help names each flag, its CAFE_ variable and its default."""
    out = subprocess.run(
        [sys.executable, "-m", "server", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "200", "PATH": ""},
    ).stdout
    for name, field in Config.model_fields.items():
        assert "--" + name.replace("_", "-") in out
        assert "CAFE_" + name.upper() in out
        assert f"default {field.default}" in out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_while_the_modules_load_stops_it_once_started(tmp_path: Path, sig: int) -> None:
    """A stop signal that comes while ``python -m server`` still loads its modules, before its
    event loop's handlers, stops it as one that comes later in its start does: the start ends
    there, what started stops, and it exits 0 without ``listening``."""
    command = [sys.executable, "-m", "server", "--port", "0", "--line-port", "-1", "--bot-workers", "0"]
    proc = subprocess.Popen(
        [*command, "--data", str(tmp_path / "cafe.db")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": "", "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    # sent as soon as the process takes SIGTERM (it takes SIGINT and SIGHUP before), while the
    # modules load
    deadline = time.monotonic() + 30
    while not _catches(proc.pid, signal.SIGTERM):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.001)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    names = [e["event"] for e in events]
    assert names[-2:] == ["stop_signal_while_loading", "stopped"], names
    assert events[-2]["signals"] == [signal.Signals(sig).name]


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``sig`` (Linux: ``SigCgt``)."""
    with contextlib.suppress(FileNotFoundError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


def test_flags_win_over_environment_over_defaults() -> None:
    """A flag beats CAFE_*, which beats the embedded default."""
    env = {"CAFE_PORT": "9000", "CAFE_LINE_PORT": "2400"}
    config = load_config(["--port", "9100"], env)
    assert (config.port, config.line_port, config.host) == (9100, 2400, "127.0.0.1")


def test_a_data_flag_leaves_a_clusters_stores_in_the_environment_unread() -> None:
    """``--data FILE`` names a SQLite file, however the environment names a cluster's Redis and
    PostgreSQL (a shell that loaded them); ``--redis`` on the command line still reads
    CAFE_DATABASE, as the compose file's nodes do."""
    env = {"CAFE_REDIS": "redis://127.0.0.1:1/0", "CAFE_DATABASE": "postgresql://x/y", "CAFE_DATA": "env.db"}
    config = load_config(["--data", "flag.db"], env)
    assert (config.data, config.redis, config.database) == ("flag.db", None, None)
    config = load_config(["--redis", "redis://127.0.0.1:2/0"], env)
    assert (config.redis, config.database) == ("redis://127.0.0.1:2/0", "postgresql://x/y")
    assert load_config([], env).redis == "redis://127.0.0.1:1/0"


async def test_a_stop_closes_a_request_sent_in_part_at_once(tmp_path: Path) -> None:
    """A connection that sent half an HTTP request is closed by the stop, which then ends without
    waiting for the handshake's timeout (10 s; the stop took 6.5 s with one such connection,
    1.2 s without)."""
    server = await ServerProcess.start(tmp_path / "cafe.db", fork=False)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /ws HTTP/1.1\r\n")
    await writer.drain()
    await asyncio.sleep(0.2)
    started = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(reader.read(), 10) == b""  # closed by the server
    assert await asyncio.wait_for(server.proc.wait(), 20) == 0
    took = time.monotonic() - started
    writer.close()
    assert took < 4.0, f"the stop took {took:.1f} s"
    assert [e["event"] for e in await server.logs()][-1] == "stopped"


async def test_a_hangup_stops_the_server_gracefully(tmp_path: Path) -> None:
    """SIGHUP (the terminal the server ran in closing) stops it as SIGTERM does: its clients are
    told (close 1001), it exits 0, its log ends with ``stopped``."""
    server = await ServerProcess.start(tmp_path / "cafe.db", fork=False)
    ann = await WsClient.connect(server.port, "ann")
    server.proc.send_signal(signal.SIGHUP)
    with pytest.raises(ConnectionClosed) as closed:
        await ann.next("never", timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
    assert await asyncio.wait_for(server.proc.wait(), 20) == 0
    assert [e["event"] for e in await server.logs()][-1] == "stopped"


async def test_a_server_killed_outright_leaves_only_json_lines(tmp_path: Path) -> None:
    """Killed with SIGKILL once its bots' worker runs, the server leaves its log as JSON lines:
    the resource tracker multiprocessing started beside the worker, which writes to the same
    stderr, no longer adds its plain warning of the semaphores left (an audit saw one a kill)."""
    server = await ServerProcess.start(tmp_path / "cafe.db", "--bot-workers", "1", fork=False)
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join killed")
    await ann.command("/option start 2")  # (the bot begins: its worker runs before the kill)
    await ann.command("/addbot greedy")
    await ann.command("/start")
    await ann.next(lambda m: m["type"] == "played" and m["player"] != "ann")
    server.proc.send_signal(signal.SIGKILL)
    lines = await server.logs()  # (read to the end: the tracker's end too, which shares the pipe)
    assert [line["text"] for line in lines if line["event"] == "not_json"] == []


async def test_a_stop_ends_a_connection_whose_peer_never_closes(tmp_path: Path) -> None:
    """A client refused for a frame too large (1009) that never answers the closing handshake
    waits in its handler: the stop ends it after the close timeout, its person leaving before
    the store closes (a store write after ``stopped`` failed, and the stop waited 5 s)."""
    server = await ServerProcess.start(tmp_path / "cafe.db", "--max-frame", "1024", fork=False)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")

    def frame(payload: bytes) -> bytes:  # a masked text frame, as a client sends it
        mask = os.urandom(4)
        size = len(payload)
        length = bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + size.to_bytes(2, "big")
        head = b"\x81" + length
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    writer.write(frame(b'{"type":"hello","name":"quiet"}'))
    await until(lambda: any(e.get("event") == "hello" for e in server.lines), "quiet said hello")
    writer.write(frame(b'{"type":"ping"}' + b" " * 2000))
    await asyncio.wait_for(reader.read(2), 10)  # the close frame (1009) comes; it is never answered
    server.proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(server.proc.wait(), 20) == 0
    events = [e["event"] for e in await server.logs()]
    writer.close()
    assert events[-1] == "stopped", events[-5:]
    assert "background_failed" not in events


@pytest.mark.parametrize("event_loop", ["uvloop", "asyncio"])
async def test_sigterm_finishes_moves_tells_clients_and_exits_zero(tmp_path: Path, event_loop: str) -> None:
    """On either event loop: the move in flight is kept, WebSocket clients get 1001, line clients a line,
    exit 0 on SIGTERM."""
    server = await ServerProcess.start(tmp_path / "cafe.db", "--event-loop", event_loop, fork=False)
    ann = await WsClient.connect(server.port, "ann")
    line = await LineClient.connect(server.line_port, "lin")
    await ann.command("/join stop")
    await ann.command("/option seed 5")
    await ann.command("/addbot greedy")
    await ann.command("/start")
    await line.line("/room stop")
    await line.expect("You are in room stop")
    started = await ann.next("game_started")
    if started["start_player"] != "ann":
        await ann.next("played")
    await ann.next(lambda m: m["type"] == "patch")
    legal = (await ann.request({"type": "legal_moves"}))["moves"]
    await ann.send({"type": "move", "move": legal[0], "id": 999})
    server.proc.send_signal(signal.SIGTERM)

    answer = await ann.next(lambda m: m.get("id") == 999)
    assert answer["type"] == "ack"
    bye = await ann.next("bye")
    assert "stopping" in bye["reason"]
    try:
        await ann.next("never")
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 1001
    await line.expect("The server is stopping")
    assert await asyncio.wait_for(server.proc.wait(), 20) == 0
    logs = await server.logs()
    events = [e["event"] for e in logs]
    assert "stopping" in events and "stopped" in events
    moves = [e for e in logs if e["event"] == "move"]
    assert moves and all(e["room"] == "stop" for e in moves) and "ann" in {e["player"] for e in moves}
    (listening,) = [e for e in logs if e["event"] == "listening"]
    assert listening["event_loop"] == event_loop
    # the server runs the modules as the tests do: compiled where a fresh build is there
    assert listening["compiled"] is compiled.active()

    store = Store(str(tmp_path / "cafe.db"))
    (game,) = store.games_named("ann")
    assert legal[0] in game.record.moves
    store.close()
