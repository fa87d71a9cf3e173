"""The WebSocket endpoint: JSON text frames at ``/ws``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import cast

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from protocol import messages as m
from protocol.errors import Close
from protocol.i18n import _, number
from server.limits import Limits, PerAddress, hello_deadline, security_event
from server.lobby.lobby import Lobby
from server.metrics import Metrics
from server.net import wsinternals
from server.net.keepalive import KeepAlive
from server.peers import address_key, http_client, network
from server.ratelimit import TokenBucket
from server.session import OUTBOX_BYTES, Outgoing, Session

log = structlog.get_logger("cafe.ws")


class EarlyData(logging.Filter):
    """A client that sends a second HTTP request behind its first, before the answer: websockets
    (up to 17.4 at least) reads those bytes as frames at once, fails the connection for them (it
    is closed unanswered: this server reads one request a connection), and then asserts in
    sending the answer to the first, which it logs as its own internal error with a traceback.
    That record is the client's doing, not the server's: it becomes one ``early_data`` event at
    info level."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, AssertionError) or error.__traceback__ is None:
            return True
        last = error.__traceback__
        while last.tb_next is not None:
            last = last.tb_next
        code = last.tb_frame.f_code
        if code.co_name != "send_eof" or not code.co_filename.endswith("protocol.py"):
            return True
        connection = getattr(record, "websocket", None)
        address = getattr(connection, "remote_address", None)
        log.info("early_data", peer=str(address[0]) if address else None)
        return False


logging.getLogger("websockets.server").addFilter(EarlyData())


class WsSession(Session):
    transport = "ws"

    def __init__(self, connection: ServerConnection, *, peer: str, outbox: int, slow_strikes: int) -> None:
        super().__init__(outbox=outbox, slow_strikes=slow_strikes, peer=peer)
        self.connection = connection

    def _write_now(self, batch: list[Outgoing], first: int) -> bool:
        return wsinternals.write_texts(self.connection, batch, first)

    async def _writable(self) -> None:
        await wsinternals.drain(self.connection)

    async def _close(self, code: int, reason: str) -> None:
        await self.connection.close(code, close_reason(self.lang(reason)))


def close_reason(text: str) -> str:
    """``text`` cut to the 123 bytes of UTF-8 a close frame's reason may hold (RFC 6455, 5.5)."""
    data = text.encode()
    if len(data) <= MAX_CLOSE_REASON:
        return text
    return data[: MAX_CLOSE_REASON - 3].decode(errors="ignore") + "..."


#: the longest reason a close frame may carry, in bytes
MAX_CLOSE_REASON = 123


class Opening:
    """The connections whose HTTP request is not read yet, counted from the TCP accept: an address
    (a trusted proxy's aside: its clients are counted once they are known) holds at most
    ``--max-per-ip`` of them, and the server at most ``--max-connections``; another is cut off at
    once. Without it a request sent in part held a socket until the handshake's timeout (10 s),
    whatever the limits (2,000 such from one address were all held)."""

    def __init__(self, lobby: Lobby, limits: Limits) -> None:
        self.lobby = lobby
        self.limits = limits
        self.per_address = PerAddress(limits.per_address.cap)
        #: the address each opening connection is counted under ("": not per address)
        self.opening: dict[ServerConnection, str] = {}
        self._transports: dict[ServerConnection, asyncio.BaseTransport] = {}

    def connection_class(self) -> type[ServerConnection]:
        """The ``create_connection`` of ``serve``: websockets' connection, counted here, and held
        to what it may send and leave unread (``Guarded``)."""
        opening = self
        config = self.lobby.config
        rate = config.rate * BYTES_A_MESSAGE
        burst = max(config.burst * BYTES_A_MESSAGE, 2 * config.max_frame)

        class Counted(ServerConnection):
            """Bytes read at most ``rate`` a second, in bursts of ``burst``: what no use of the
            protocol needs (pings and pongs, which websockets answers by itself below the
            messages' rate limit, sent as fast as a socket takes them) closes it as flooding, and
            nothing more of it is read. And what the peer leaves unread past ``UNREAD_MOST`` (the
            pongs to its pings, which no outbox counts) cuts it off."""

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                # (a stream's transport: asyncio's or uvloop's, which reads and writes)
                self.guard = Guarded(cast(asyncio.Transport, transport), rate, burst, opening.lobby.metrics)
                if not opening.opened(self, transport.get_extra_info("peername")):
                    transport.close()  # (the handshake then ends at once, and its handler with it)
                else:
                    opening._transports[self] = transport

            def data_received(self, data: bytes) -> None:
                if self.guard.flooding:
                    return
                if not self.guard.budget.take(len(data)):
                    self.guard.flooded()
                    # (held: the loop keeps only a weak reference to a task)
                    self.guard.closing = asyncio.get_running_loop().create_task(
                        self.close(Close.POLICY, "flooding")
                    )
                    return
                super().data_received(data)
                if self.guard.unread() > UNREAD_MOST:
                    self.guard.cut()

            def connection_lost(self, exc: Exception | None) -> None:
                opening.done(self)
                super().connection_lost(exc)

        return Counted

    def opened(self, connection: ServerConnection, peername: object) -> bool:
        host = peername[0] if isinstance(peername, tuple) and peername else ""
        address = "" if not isinstance(host, str) or self.limits.proxies.trusts(host) else network(host)
        if len(self.opening) >= self.lobby.config.max_connections:
            security_event(self.lobby.metrics, "opening_cap", transport="ws", address=address or host)
            return False
        if address and not self.per_address.acquire(address):
            security_event(self.lobby.metrics, "opening_cap", transport="ws", address=address)
            return False
        self.opening[connection] = address
        return True

    def done(self, connection: ServerConnection) -> None:
        """``connection`` is open (its handler runs), refused or gone: no longer opening."""
        self._transports.pop(connection, None)
        address = self.opening.pop(connection, None)
        if address:
            self.per_address.release(address)

    def close(self) -> None:
        """The server stops: the connections whose request is not read yet are closed (they would
        hold the stop until the handshake's timeout, 10 s)."""
        for transport in list(self._transports.values()):
            transport.close()


#: the bytes a second one message may bring on average, of the messages a connection may send a
#: second (``--rate``): what a client reads as at most ``--rate`` times this, in bursts of
#: ``--burst`` times it (two of the largest frames at least)
BYTES_A_MESSAGE = 1024
#: bytes written to a connection and not yet taken by its peer past which it is cut off: twice
#: what its outbox may hold before it counts as slow (the pongs to its pings come on top of that)
UNREAD_MOST = 2 * OUTBOX_BYTES


class Guarded:
    """What a connection may send (``budget``, bytes) and leave unread (its transport's buffer)."""

    def __init__(self, transport: asyncio.Transport, rate: float, burst: int, metrics: Metrics) -> None:
        self.transport = transport
        self.budget = TokenBucket(rate, burst)
        self.metrics = metrics
        #: past its budget: nothing more is read of it while its close goes out
        self.flooding = False
        self.closing: asyncio.Task[None] | None = None

    def _told(self) -> None:
        peer = self.transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        security_event(self.metrics, "rate_limit_close", transport="ws", peer=address)

    def flooded(self) -> None:
        """Past its budget: nothing more is read (what it sends waits in its own socket)."""
        self.flooding = True
        self._told()
        self.transport.pause_reading()

    def unread(self) -> int:
        """Bytes written to the peer that it has not taken yet."""
        return self.transport.get_write_buffer_size()

    def cut(self) -> None:
        """A peer that leaves it all unread reads no close frame either: the socket goes."""
        self.flooding = True
        self._told()
        self.transport.abort()


def forget_handshake(connection: ServerConnection) -> None:
    """Drop the handshake's headers, which the connection keeps for its whole life and nothing
    reads once it is open: about 3 KB of the 18 KB an idle connection costs."""
    for message in (connection.request, connection.response):
        if message is not None:
            message.headers.clear()


def turned_away(lobby: Lobby) -> m.Error:
    """The error a client gets when the server cannot take it: full, or stopping."""
    if lobby.accepting:
        return m.Error(code="server_full", message=_("The server is full; try again later."))
    return m.Error(code="shutting_down", message=_("The server is stopping; try again later."))


async def serve_connection(
    lobby: Lobby,
    connection: ServerConnection,
    limits: Limits,
    keepalive: KeepAlive | None = None,
    opening: Opening | None = None,
) -> None:
    """Run one WebSocket client until it goes (pinged by ``keepalive`` meanwhile)."""
    if opening is not None:
        opening.done(connection)
    request = connection.request
    forwarded = request.headers.get_all("X-Forwarded-For") if request is not None else []
    peer = http_client(connection.remote_address, forwarded, limits.proxies)
    forget_handshake(connection)
    if not lobby.can_accept():
        error = turned_away(lobby)
        # the error says why to a client that reads frames; the close code to one that does not
        with contextlib.suppress(ConnectionClosed):
            await connection.send(Outgoing(error).with_seq(1))
        await connection.close(Close.TRY_AGAIN, error.message)
        return
    address = address_key(peer)  # (an IPv6 address counts by its /64)
    if not limits.per_address.acquire(address):
        security_event(lobby.metrics, "per_ip_cap", transport="ws", address=address)
        await connection.close(Close.TRY_AGAIN, "too many connections from your address")
        return
    if keepalive is not None:
        keepalive.add(connection)
    try:
        await _serve(lobby, connection, limits, peer)
    finally:
        if keepalive is not None:
            keepalive.remove(connection)
        limits.per_address.release(address)


async def _serve(lobby: Lobby, connection: ServerConnection, limits: Limits, peer: str) -> None:
    session = WsSession(
        connection, peer=peer, outbox=lobby.config.outbox, slow_strikes=lobby.config.slow_strikes
    )
    lobby.attach(session)
    session.start()

    async def too_late() -> None:
        security_event(lobby.metrics, "hello_timeout", transport="ws", peer=session.peer)
        await session.close(
            Close.POLICY, _("no hello within {seconds} seconds", seconds=number(limits.hello_timeout))
        )

    deadline: asyncio.TimerHandle | None = hello_deadline(
        limits.hello_timeout, lambda: session.name is not None, too_late
    )
    recv = connection.recv
    try:
        # recv() rather than ``async for``: the same frames and the same end (a closed connection
        # raises), without an async generator's step around each frame
        while True:
            frame = await recv()
            if session.closed:
                break
            await lobby.receive(session, frame)
            if deadline is not None and session.name is not None:
                # the deadline's closures would otherwise stay as long as the connection (1 KB)
                deadline.cancel()
                deadline = None
    except ConnectionClosed:
        pass
    finally:
        if deadline is not None:
            deadline.cancel()
        lobby.detach(session)
        session.closed = True
        await session.wait_closed()
        with contextlib.suppress(Exception):
            await connection.close()
