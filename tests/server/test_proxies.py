"""Behind a reverse proxy (``--trusted-proxies``): a connection from the proxy counts as the client
the proxy names, by ``X-Forwarded-For`` (WebSocket) or a PROXY protocol v1 header (line), so that
every rule that counts by address holds each client apart; a connection from anywhere else is its
own address, whatever it writes."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
from pathlib import Path

import pytest
import structlog
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.app import Server
from tests.server.clients import LineClient, WsClient, http_get, until
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]


async def _ws(port: int, name: str, forwarded: str | None, source: str = "127.0.0.1") -> WsClient:
    """A named WebSocket client from ``source``, its handshake carrying ``forwarded`` as
    ``X-Forwarded-For``."""
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    ws = await connect(
        f"ws://127.0.0.1:{port}/ws", additional_headers=headers, local_addr=(source, 0), max_queue=None
    )
    client = WsClient(ws)
    welcome = await client.request({"type": "hello", "name": name})
    assert welcome["type"] == "welcome", welcome
    return client


async def _refused_ws(port: int, forwarded: str) -> tuple[int | None, str | None]:
    async with connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"X-Forwarded-For": forwarded}) as ws:
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        return ws.close_code, ws.close_reason


def _address_of(server: Server, name: str) -> str:
    return next(s.address for s in server.lobby.all_sessions if s.name == name)


async def test_a_trusted_proxys_websocket_counts_as_the_client_it_names(make_server: ServerFactory) -> None:
    server: Server = await make_server(trusted_proxies="127.0.0.1", max_per_ip=1)
    await _ws(server.port, "ann", "203.0.113.7")
    # what the client wrote before the proxy's own address is not read
    await _ws(server.port, "bob", "203.0.113.7, 198.51.100.9")
    assert _address_of(server, "ann") == "203.0.113.7"
    assert _address_of(server, "bob") == "198.51.100.9"
    assert server.limits.per_address.count("127.0.0.1") == 0
    # the same client again: past its cap of one, though the proxy's address holds two already
    assert await _refused_ws(server.port, "198.51.100.1, 203.0.113.7") == (
        1013,
        "too many connections from your address",
    )
    # a request from the proxy that names nobody is the proxy's own
    await _ws(server.port, "cyd", None)
    assert _address_of(server, "cyd") == "127.0.0.1"


async def test_of_several_forwarded_headers_the_last_address_counts(make_server: ServerFactory) -> None:
    """A proxy adds a header line of its own after the client's: the client's lines are not read."""
    server: Server = await make_server(trusted_proxies="127.0.0.1")
    headers = [("X-Forwarded-For", "198.51.100.1"), ("X-Forwarded-For", "192.0.2.5, 203.0.113.7")]
    ws = await connect(f"ws://127.0.0.1:{server.port}/ws", additional_headers=headers, max_queue=None)
    client = WsClient(ws)
    assert (await client.request({"type": "hello", "name": "ann"}))["type"] == "welcome"
    assert _address_of(server, "ann") == "203.0.113.7"


async def test_a_forwarded_header_from_anyone_else_is_not_read(make_server: ServerFactory) -> None:
    server: Server = await make_server(trusted_proxies="127.0.0.1", max_per_ip=1)
    await _ws(server.port, "ann", "203.0.113.7", source="127.0.0.2")
    assert _address_of(server, "ann") == "127.0.0.2"
    # and without --trusted-proxies nobody's header is read
    plain: Server = await make_server(max_per_ip=1)
    await _ws(plain.port, "bob", "203.0.113.7")
    assert _address_of(plain, "bob") == "127.0.0.1"


async def _line(port: int, header: bytes, source: str = "127.0.0.1") -> LineClient:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(header)
    return LineClient(reader, writer)


async def test_a_trusted_proxys_line_connection_counts_as_its_proxy_header_names(
    make_server: ServerFactory,
) -> None:
    server: Server = await make_server(trusted_proxies="127.0.0.1", max_per_ip=1)
    assert server.line_port is not None
    client = await _line(server.line_port, b"PROXY TCP4 203.0.113.7 127.0.0.1 51000 2323\r\n")
    await client.expect("Your name")
    await client.line("ann")
    await client.expect("Hello ann!")
    assert _address_of(server, "ann") == "203.0.113.7"
    six = await _line(server.line_port, b"PROXY TCP6 2001:db8:1:2::7 ::1 51000 2323\r\nbob\r\n")
    await six.expect("Hello bob!")
    assert _address_of(server, "bob") == "2001:db8:1:2::/64"
    # the same client again is past its cap, WebSocket or line
    again = await _line(server.line_port, b"PROXY TCP4 203.0.113.7 127.0.0.1 51001 2323\r\n")
    await again.expect("Too many connections from your address")
    assert await _refused_ws(server.port, "203.0.113.7") == (1013, "too many connections from your address")
    # UNKNOWN (the proxy's own connection) is the proxy's address
    own = await _line(server.line_port, b"PROXY UNKNOWN\r\ncyd\r\n")
    await own.expect("Hello cyd!")
    assert _address_of(server, "cyd") == "127.0.0.1"


@pytest.mark.parametrize(
    "first",
    [b"ann\r\n", b"PROXY TCP4 2001:db8::7 127.0.0.1 51000 2323\r\n", b"PROXY TCP4 203.0.113.7\r\n"],
    ids=["no header", "wrong family", "short"],
)
async def test_a_trusted_proxys_line_connection_without_a_header_is_cut_off(
    make_server: ServerFactory, first: bytes
) -> None:
    server: Server = await make_server(trusted_proxies="127.0.0.0/30")
    assert server.line_port is not None
    with structlog.testing.capture_logs() as logged:
        client = await _line(server.line_port, first)
        assert await asyncio.wait_for(client.reader.read(), 10) == b""
    assert [e["event"] for e in logged if e.get("log_level") == "warning"] == ["proxy_header_refused"]
    assert len(server.limits.per_address) == 0


@pytest.mark.parametrize(
    "first", [b"", b"PROXY TCP4 203.0.113.7", b"A" * 2000], ids=["nothing", "half a header", "no end"]
)
async def test_a_trusted_proxys_line_connection_is_not_waited_for_past_the_hello_timeout(
    make_server: ServerFactory, first: bytes
) -> None:
    """A header that never comes (or never ends) within ``--hello-timeout`` does not hold its
    connection open: it is cut off and logged, as is a first line longer than ``--max-line``."""
    server: Server = await make_server(trusted_proxies="127.0.0.1", hello_timeout=0.5)
    assert server.line_port is not None
    with structlog.testing.capture_logs() as logged:
        client = await _line(server.line_port, first)  # (and the connection kept open)
        assert await asyncio.wait_for(client.reader.read(), 10) == b""
    assert [e["event"] for e in logged if e.get("log_level") == "warning"] == ["proxy_header_refused"]


async def test_a_trusted_proxys_empty_connection_is_no_security_event(make_server: ServerFactory) -> None:
    """A balancer's plain TCP check (connect, close) is closed quietly, not logged as a refusal."""
    server: Server = await make_server(trusted_proxies="127.0.0.1")
    assert server.line_port is not None
    with structlog.testing.capture_logs() as logged:
        for _ in range(3):
            _reader, writer = await asyncio.open_connection("127.0.0.1", server.line_port)
            writer.close()
            await writer.wait_closed()
        # a connection after them is served as usual, so the three were handled by then
        client = await _line(server.line_port, b"PROXY TCP4 203.0.113.7 127.0.0.1 51000 2323\r\nann\r\n")
        await client.expect("Hello ann!")
    assert [e["event"] for e in logged if e.get("log_level") == "warning"] == []
    assert len(server.limits.per_address) == 1


async def test_a_line_connection_from_elsewhere_is_its_own_address(make_server: ServerFactory) -> None:
    """A PROXY header from a connection that is no trusted proxy is a line like any other: here,
    a name the server refuses; the connection counts as its own address."""
    server: Server = await make_server(trusted_proxies="127.0.0.1")
    assert server.line_port is not None
    client = await _line(server.line_port, b"PROXY TCP4 203.0.113.7 127.0.0.1 51000 2323\r\n", "127.0.0.2")
    await client.expect("Your name")
    await until(lambda: server.limits.per_address.count("127.0.0.2") == 1, "counted as 127.0.0.2")
    await client.line("ann")
    await client.expect("Hello ann!")
    assert _address_of(server, "ann") == "127.0.0.2"


def _haproxy() -> str | None:
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if os.access(p, os.X_OK)), None)


def _local_haproxy_cfg(web: int, line: int, node_web: int, node_line: int) -> str:
    """deploy/haproxy.cfg as it runs here: listening on loopback ports, both nodes this test's one
    server, no Docker name resolver, and a hundred connections at most (whatever the file limit);
    every rule for clients as shipped."""
    text = (ROOT / "deploy" / "haproxy.cfg").read_text()
    text = re.sub(r"^resolvers docker\n(?:[ \t].*\n)*", "", text, flags=re.M).replace(" resolvers docker", "")
    text = text.replace("bind :8765", f"bind 127.0.0.1:{web}").replace("bind :2323", f"bind 127.0.0.1:{line}")
    for node in ("node1", "node2"):
        text = text.replace(f"{node}:2323 port 8765", f"127.0.0.1:{node_line} port {node_web}")
        text = text.replace(f"{node}:8765", f"127.0.0.1:{node_web}")
    assert "node1:" not in text and "node2:" not in text
    text = re.sub(r"maxconn \d+", "maxconn 100", text)
    return text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.skipif(_haproxy() is None, reason="needs haproxy (tests/system-packages.sh installs it)")
async def test_behind_the_shipped_haproxy_each_client_counts_as_itself(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    """A real HAProxy with the rules of deploy/haproxy.cfg in front of a server that trusts it:
    a WebSocket client (whatever X-Forwarded-For it writes itself) and a line client, each from an
    address of its own, count as themselves, not as the proxy; ``/metrics`` is refused there."""
    server: Server = await make_server(trusted_proxies="127.0.0.1")
    assert server.line_port is not None
    web, line = _free_port(), _free_port()
    config = tmp_path / "haproxy.cfg"
    config.write_text(_local_haproxy_cfg(web, line, server.port, server.line_port))
    haproxy = await asyncio.create_subprocess_exec(
        str(_haproxy()),
        "-db",
        "-f",
        str(config),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        for _ in range(100):  # until HAProxy listens
            try:
                answer = await http_get(web, "/readyz")
                if answer.status == 200:
                    break
            except OSError:
                pass
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"HAProxy never answered /readyz (exit status {haproxy.returncode})")
        headers = {"X-Forwarded-For": "198.51.100.9"}  # the client's own claim, not read
        ws = await connect(
            f"ws://127.0.0.1:{web}/ws",
            additional_headers=headers,
            local_addr=("127.0.0.2", 0),
            max_queue=None,
        )
        client = WsClient(ws)
        assert (await client.request({"type": "hello", "name": "ann"}))["type"] == "welcome"
        assert _address_of(server, "ann") == "127.0.0.2"
        reader, writer = await asyncio.open_connection("127.0.0.1", line, local_addr=("127.0.0.3", 0))
        terminal = LineClient(reader, writer)
        await terminal.expect("Your name")
        await terminal.line("bob")
        await terminal.expect("Hello bob!")
        assert _address_of(server, "bob") == "127.0.0.3"
        assert server.limits.per_address.count("127.0.0.1") == 0
        # the metrics are the operator's, not the public's
        assert (await http_get(web, "/metrics")).status == 403
        assert (await http_get(server.port, "/metrics")).status == 200
    finally:
        if haproxy.returncode is None:
            haproxy.terminate()
        await haproxy.wait()
