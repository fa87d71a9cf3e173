"""Connection limits over real sockets: the hello deadline and the cap per address, for WebSocket
and line clients alike."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from pathlib import Path

import pytest
import structlog
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidMessage

from server.app import Server
from server.limits import PerAddress, security_event
from server.metrics import Metrics
from tests.server.clients import LineClient, WsClient, raw_websocket
from tests.server.conftest import ServerFactory

pytestmark = pytest.mark.websocket_api


def _security_events(server: Server, event: str) -> float:
    text = server.lobby.metrics.render().decode()
    found = re.search(rf'cafe_security_events_total\{{event="{event}"\}} ([0-9.]+)', text)
    return float(found[1]) if found else 0.0


def test_per_address_counts_to_the_cap_and_back() -> None:
    """acquire succeeds up to the cap for one address, others are counted apart, release frees one."""
    limit = PerAddress(2)
    assert limit.acquire("a") and limit.acquire("a") and not limit.acquire("a")
    assert limit.acquire("b")
    limit.release("a")
    assert limit.count("a") == 1 and limit.acquire("a")
    limit.release("b")
    assert limit.count("b") == 0


def test_an_address_with_nothing_open_is_forgotten() -> None:
    """Memory stays bounded by the addresses connected now: one whose last connection closed is
    no longer kept."""
    limit = PerAddress(3)
    for address in ("a", "a", "b"):
        assert limit.acquire(address)
    assert len(limit) == 2
    limit.release("a")
    assert len(limit) == 2
    limit.release("a")
    limit.release("b")
    assert len(limit) == 0 and limit.count("a") == 0


def test_a_security_event_is_logged_with_its_fields_and_counted() -> None:
    """``security_event`` writes one warning named for the event, with its fields, and counts it
    under that name in ``/metrics``."""
    metrics = Metrics()
    with structlog.testing.capture_logs() as logged:
        security_event(metrics, "per_ip_cap", transport="line", address="192.0.2.1")
    assert logged == [
        {"event": "per_ip_cap", "transport": "line", "address": "192.0.2.1", "log_level": "warning"}
    ]
    text = metrics.render().decode()
    assert 'cafe_security_events_total{event="per_ip_cap"} 1.0' in text


def test_a_flood_of_one_kind_from_one_address_is_logged_ten_times_then_once_a_second() -> None:
    """Every security event is counted; one kind from one address (whatever port each of its
    connections has) is logged ten times in a row, then at one a second, the first after a pause
    saying how many it left out. Another address, or another kind, keeps its own pace."""
    metrics = Metrics()
    with structlog.testing.capture_logs() as logged:
        for port in range(25):
            security_event(metrics, "method_refused", method="POST", peer=f"192.0.2.1:{50000 + port}")
        security_event(metrics, "method_refused", method="POST", peer="192.0.2.2:50000")
        security_event(metrics, "per_ip_cap", transport="ws", address="192.0.2.1")
        time.sleep(1.1)
        security_event(metrics, "method_refused", method="POST", peer="192.0.2.1:51000")
    where = [(x["event"], x.get("peer", x.get("address")).split(":")[0], x.get("left_out")) for x in logged]
    assert where == [
        *[("method_refused", "192.0.2.1", None)] * 10,
        ("method_refused", "192.0.2.2", None),
        ("per_ip_cap", "192.0.2.1", None),
        ("method_refused", "192.0.2.1", 15),
    ]
    text = metrics.render().decode()
    assert 'cafe_security_events_total{event="method_refused"} 27.0' in text


async def test_a_websocket_without_hello_is_closed_with_1008(make_server: ServerFactory) -> None:
    """A WebSocket that says no hello within the timeout is closed with 1008 and a reason."""
    server: Server = await make_server(hello_timeout=0.2)
    async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == 1008
        assert ws.close_reason == "no hello within 0.2 seconds"
    assert _security_events(server, "hello_timeout") == 1


async def test_a_websocket_that_said_hello_stays(make_server: ServerFactory) -> None:
    """A connection that said hello in time is not closed when the timeout passes."""
    server: Server = await make_server(hello_timeout=0.2)
    client = await WsClient.connect(server.port, "ann")
    await asyncio.sleep(0.5)
    assert (await client.request({"type": "ping"}))["type"] == "pong"
    assert _security_events(server, "hello_timeout") == 0


async def test_a_line_client_without_a_name_is_told_and_closed(make_server: ServerFactory) -> None:
    """A line client that gives no name within the timeout gets a line, then the server hangs up."""
    server: Server = await make_server(hello_timeout=0.2)
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("")  # an empty answer is no name
    # on a line of its own, not after the prompt's (which ends none)
    await client.expect("(or NAME TOKEN to come back): \r\n* No name given within 0.2 seconds; goodbye.\r\n")
    assert await asyncio.wait_for(client.reader.read(), 10) == b""
    assert _security_events(server, "hello_timeout") == 1


async def test_a_registered_names_password_prompt_has_a_window_of_its_own(make_server: ServerFactory) -> None:
    """The name given just in time, the ``Password:`` prompt waits one more hello timeout; then
    the terminal's echo is turned on again and it reads that no password came, and the server
    hangs up."""
    server: Server = await make_server(hello_timeout=1.0)
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": "correct horse"}))["registered"] is True
    await ann.close()
    assert server.line_port is not None
    loop = asyncio.get_running_loop()
    connected = loop.time()
    client = await LineClient.connect(server.line_port)
    await asyncio.sleep(0.8)  # most of the first window gone
    await client.line("ann")
    await client.expect("Password: ")
    await client.expect("\r\n* No password given within 1 seconds; goodbye.\r\n", timeout=10)
    assert loop.time() - connected >= 1.5  # the prompt outlived the first window by its own
    prompt = client.received.index(b"Password: ")
    assert client.received.find(b"\xff\xfc\x01", prompt) > prompt  # IAC WONT ECHO: echo back on
    assert await asyncio.wait_for(client.reader.read(), 10) == b""
    assert _security_events(server, "hello_timeout") == 1


async def test_connections_past_the_cap_per_address_are_refused(make_server: ServerFactory) -> None:
    """Past --max-per-ip, a WebSocket is closed with 1013 and a line client gets a line and the
    close; WebSocket and line connections count together, and a closed one frees its place."""
    server: Server = await make_server(max_per_ip=2)
    assert server.line_port is not None
    first = await WsClient.connect(server.port, "ann")
    await LineClient.connect(server.line_port, "bob")
    async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        assert (ws.close_code, ws.close_reason) == (1013, "too many connections from your address")
    reader, writer = await asyncio.open_connection("127.0.0.1", server.line_port)
    refused = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    assert refused == b"* Too many connections from your address; try again later.\r\n"
    assert _security_events(server, "per_ip_cap") == 2
    await first.close()
    for _ in range(200):  # the server notices the close on its own time
        if server.limits.per_address.count("127.0.0.1") < 2:
            break
        await asyncio.sleep(0.01)
    await WsClient.connect(server.port, "cyd")


async def test_requests_sent_in_part_are_held_only_to_the_cap(make_server: ServerFactory) -> None:
    """Connections whose HTTP request is not all sent yet count from the TCP accept: with
    ``--max-per-ip 3`` an address holds three of them and the others are closed at once (logged
    ``opening_cap``), where they were held until the handshake's timeout; another address is let
    in meanwhile, and once they go the address is let in again."""
    server: Server = await make_server(max_per_ip=3)
    partial = b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    held = []
    for _ in range(8):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port, local_addr=("127.0.0.9", 0))
        writer.write(partial)
        held.append((reader, writer))

    async def closed(reader: asyncio.StreamReader) -> bool:
        try:
            return await asyncio.wait_for(reader.read(), 1.0) == b""
        except TimeoutError:
            return False  # (still open: the server waits for the rest of the request)
        except ConnectionError:
            return True

    shut = [await closed(reader) for reader, _ in held]
    assert shut.count(False) == 3 and shut[:3] == [False] * 3, shut
    assert _security_events(server, "opening_cap") == 5
    async with connect(f"ws://127.0.0.1:{server.port}/ws", local_addr=("127.0.0.10", 0)) as other:
        await other.send('{"type": "hello", "name": "ann"}')
        assert '"welcome"' in await asyncio.wait_for(other.recv(), 10)
    for _, writer in held:
        writer.close()
    for _ in range(200):  # the server notices the closes on its own time (refused meanwhile)
        with contextlib.suppress(ConnectionClosed, InvalidMessage):
            async with connect(f"ws://127.0.0.1:{server.port}/ws", local_addr=("127.0.0.9", 0)) as again:
                await again.send('{"type": "hello", "name": "bob"}')
                if '"welcome"' in await asyncio.wait_for(again.recv(), 10):
                    break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the address was never let in again")


async def test_an_ipv6_client_is_counted_by_its_64(make_server: ServerFactory) -> None:
    """Over IPv6 the cap counts the client's /64, where one subscriber may take a new address for
    every connection: a client on ``::1`` is held and logged as ``::/64``, WebSocket and line
    together."""
    server: Server = await make_server(host="::1", max_per_ip=1)
    assert server.line_port is not None
    first = await WsClient.connect(server.port, "ann", host="::1")
    assert server.limits.per_address.count("::/64") == 1
    with structlog.testing.capture_logs() as logged:
        reader, writer = await asyncio.open_connection("::1", server.line_port)
        refused = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    assert refused == b"* Too many connections from your address; try again later.\r\n"
    assert [e["address"] for e in logged if e["event"] == "per_ip_cap"] == ["::/64"]
    await first.close()


async def test_closing_a_line_connection_frees_its_place(make_server: ServerFactory) -> None:
    """With ``--max-per-ip 1``: a line connection opens, closes, and another one from the same
    address is greeted (not refused), once the server has seen the close; so is a third after a
    named one closes."""
    server: Server = await make_server(max_per_ip=1)
    assert server.line_port is not None
    await (await LineClient.connect(server.line_port)).close()  # at the name prompt
    again = await _greeted(server.line_port)
    await again.line("ann")
    await again.expect("Hello ann!")
    await again.close()  # named
    await _greeted(server.line_port)


async def _greeted(port: int) -> LineClient:
    """A line connection that reads the name prompt: a refused one is closed and tried again while
    the server may not have seen the last close yet (up to 5 seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while True:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        first = await asyncio.wait_for(reader.readline(), 10)
        if first.startswith(b"Welcome"):
            client = LineClient(reader, writer)
            await client.expect("Your name")
            return client
        writer.close()
        assert first.startswith(b"* Too many connections"), first
        assert loop.time() < deadline, "the closed connection's place was never freed"
        await asyncio.sleep(0.05)


#: a masked ping with 125 bytes (a client's frames are masked; the mask is zeros)
PING = bytes([0x89, 0x80 | 125]) + b"\0\0\0\0" + b"p" * 125


def _rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status)[1])  # type: ignore[index]


async def test_a_flood_of_pings_is_closed_as_flooding_and_others_go_on(make_server: ServerFactory) -> None:
    """Pings are answered by websockets below the messages' rate limit; sent as fast as a socket
    takes them, they pass what any use of the protocol sends a second (``--rate`` KiB, in
    bursts): the connection is closed 1008 ``flooding``, nothing more of it is read, and a
    bystander's ping stays quick."""
    server: Server = await make_server(rate=20.0, burst=40)  # (the defaults: 20 KiB a second, 40 at once)
    calm = await WsClient.connect(server.port, "calm")
    reader, writer = await raw_websocket(server.port)
    writer.write(PING * 2000)  # 262 KB at once
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    read = b""
    with contextlib.suppress(ConnectionError, TimeoutError):
        async with asyncio.timeout(5):
            while chunk := await reader.read(65536):
                read += chunk
    close = read.rfind(b"\x88")
    assert close >= 0 and read[close + 2 : close + 4] == (1008).to_bytes(2, "big"), read[-40:]
    assert b"flooding" in read[close:]
    assert _security_events(server, "rate_limit_close") >= 1
    started = time.monotonic()
    assert (await calm.request({"type": "ping"}))["type"] == "pong"
    assert time.monotonic() - started < 1.0
    writer.close()


async def test_a_peer_that_leaves_the_pongs_to_its_pings_unread_is_cut_off(
    make_server: ServerFactory,
) -> None:
    """Within a budget raised high, a client that sends pings and reads none of the pongs: what
    it leaves unread is held up to twice the outbox's megabyte, then the socket goes; the
    server's memory does not grow with what it sends."""
    server: Server = await make_server(rate=10_000.0, burst=20_000)
    _, writer = await raw_websocket(server.port)
    before = _rss_kb(os.getpid())
    cut = False
    for _ in range(400):  # up to 52 MB of pings, 1 MB of pongs answered at a time
        try:
            writer.write(PING * 8000)
            async with asyncio.timeout(2):
                await writer.drain()
        except (ConnectionError, TimeoutError):
            cut = True
            break
        await asyncio.sleep(0)
    assert cut
    assert _rss_kb(os.getpid()) - before < 40_000  # (the server runs in this process)
    writer.close()
