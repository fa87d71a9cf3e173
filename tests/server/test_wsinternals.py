"""websockets beneath its documented API: every part the server uses is checked at start-up, named
when missing, and works over real sockets on the versions ``pyproject.toml`` allows."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
import websockets
from websockets.server import ServerProtocol

from server.app import Server
from server.net import wsinternals
from server.net.ws import WsSession
from server.net.wsinternals import NON_PUBLIC, WebsocketsMismatch, check
from tests.server.clients import WsClient, raw_websocket, until
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api

ROOT = Path(__file__).resolve().parents[2]


async def _drain() -> None:
    """Stands for a connection's ``drain``."""


def _connection_without(attribute: str | None) -> SimpleNamespace:
    """A stand-in for a connection holding every part of ``NON_PUBLIC`` in its form, but
    ``attribute``."""
    protocol = ServerProtocol()
    connection = SimpleNamespace(
        protocol=protocol, transport=asyncio.Transport(), paused=False, drain=_drain, pending_pings={}
    )
    if attribute is not None:
        holder, name = attribute.split(".")
        delattr(protocol if holder == "Protocol" else connection, name)
    return connection


async def test_the_installed_websockets_has_every_part_used(make_server: ServerFactory) -> None:
    """The start-up check passes on the websockets installed, and so does the connection of a
    client the server serves."""
    await wsinternals.check_installed()
    server: Server = await make_server()
    await WsClient.connect(server.port, "ann")
    [session] = [s for s in server.lobby.all_sessions if isinstance(s, WsSession)]
    check(session.connection)


def test_a_stand_in_with_every_part_passes() -> None:
    """The stand-in the next test takes parts from passes the check whole."""
    check(_connection_without(None))


@pytest.mark.parametrize("attribute", list(NON_PUBLIC))
def test_a_connection_lacking_a_part_is_refused_naming_it_and_the_version(attribute: str) -> None:
    """Without any one of the parts, the check fails, naming that part, the websockets version
    installed and the versions to install."""
    with pytest.raises(WebsocketsMismatch) as failure:
        check(_connection_without(attribute))
    assert failure.value.attribute == attribute
    message = str(failure.value)
    assert f"websockets {websockets.version.version} has no {attribute} " in message
    assert wsinternals.REQUIREMENT in message


def test_a_part_in_another_form_is_refused() -> None:
    """A part that is there in another form (the pings awaiting a pong as a list) is refused too."""
    connection = _connection_without(None)
    connection.pending_pings = []
    with pytest.raises(WebsocketsMismatch) as failure:
        check(connection)
    assert failure.value.attribute == "ServerConnection.pending_pings"


def test_the_server_does_not_start_on_a_websockets_without_a_part(tmp_path: Path) -> None:
    """A server process on a websockets that lacks a part exits with code 2 before listening,
    logging ``websockets_unsupported`` with the part's name."""
    script = (
        "import sys; from websockets.asyncio.connection import Connection; del Connection.drain; "
        "from server.app import main; sys.exit(main(sys.argv[1:]))"
    )
    args = ["--port", "0", "--line-port", "-1", "--data", str(tmp_path / "cafe.db"), "--log-format", "json"]
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 2, done.stderr
    assert "websockets_unsupported" in done.stderr
    assert "ServerConnection.drain" in done.stderr
    assert '"listening"' not in done.stderr


def test_the_requirement_is_the_one_pyproject_asks_for() -> None:
    """The range of websockets versions the module names is the one the package depends on."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert [d for d in project["dependencies"] if d.startswith("websockets")] == [wsinternals.REQUIREMENT]


async def test_a_ping_is_cleared_by_the_pong_a_client_answers(make_server: ServerFactory) -> None:
    """A ping sent through the module awaits its pong until a client that reads answers it."""
    server: Server = await make_server(ping_interval=3600)
    await WsClient.connect(server.port, "ann")
    [session] = [s for s in server.lobby.all_sessions if isinstance(s, WsSession)]
    connection = session.connection
    wsinternals.ping(connection, b"probe-01", asyncio.get_running_loop())
    assert wsinternals.unanswered(connection, b"probe-01")
    await until(lambda: not wsinternals.unanswered(connection, b"probe-01"), "the pong received")


async def test_a_silent_peer_keeps_its_ping_unanswered_and_is_cut_off(make_server: ServerFactory) -> None:
    """A peer that reads nothing leaves its ping unanswered; cut off, its socket ends after the
    ping's frame, and the server forgets its session."""
    server: Server = await make_server(ping_interval=3600, hello_timeout=60)
    reader, writer = await raw_websocket(server.port)
    await until(lambda: len(server.lobby.all_sessions) == 1, "the silent peer served")
    [session] = list(server.lobby.all_sessions)
    assert isinstance(session, WsSession)
    wsinternals.ping(session.connection, b"probe-02", asyncio.get_running_loop())
    await asyncio.sleep(0.2)
    assert wsinternals.unanswered(session.connection, b"probe-02")
    wsinternals.cut(session.connection)
    rest = await asyncio.wait_for(reader.read(), 10)
    assert rest == b"\x89\x08probe-02"  # the ping, and then the end of the stream
    await until(lambda: not server.lobby.all_sessions, "the cut connection forgotten")
    writer.close()
