"""The WebSocket endpoint: JSON text frames at ``/ws``."""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections import deque
from collections.abc import Iterable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol import messages as m
from protocol.errors import Close
from protocol.i18n import _
from server.keepalive import KeepAlive
from server.limits import Limits, hello_deadline, security_event
from server.lobby import Lobby
from server.session import Outgoing, Session


class WsSession(Session):
    transport = "ws"

    def __init__(self, connection: ServerConnection, *, outbox: int, slow_strikes: int) -> None:
        peer = connection.remote_address
        super().__init__(
            outbox=outbox, slow_strikes=slow_strikes, peer=f"{peer[0]}:{peer[1]}" if peer else ""
        )
        self.connection = connection

    def _write_now(self, batch: list[Outgoing], first: int) -> bool:
        connection = self.connection
        protocol = connection.protocol
        if protocol.state is not State.OPEN:
            raise ConnectionError("the connection is closing")
        # One write to the socket for all the frames: send() makes a system call for each frame,
        # which costs more than framing it, and enters its locking context for each. drain() is
        # the flow control send() waits on.
        if protocol.extensions or protocol.expect_continuation_frame:
            # frames as websockets' broadcast() makes them (compressed, when that was agreed)
            for seq, out in enumerate(batch, first):
                protocol.send_text(out.with_seq(seq).encode())
            connection.transport.write(b"".join(protocol.data_to_send()))
        else:
            # a server's frame without extensions is a 2-to-10-byte header and the text as it is:
            # made here, it costs a third of websockets' Frame and its serialize()
            parts = protocol.data_to_send()  # anything the protocol queued goes first (a pong)
            for seq, out in enumerate(batch, first):
                head, tail = out.encoded(seq)
                parts += (text_frame_header(len(head) + len(tail)), head, tail)
            connection.transport.write(b"".join(parts))
        return connection.paused

    async def _writable(self) -> None:
        await self.connection.drain()

    async def _close(self, code: int, reason: str) -> None:
        await self.connection.close(code, close_reason(self.lang(reason)))


def close_reason(text: str) -> str:
    """``text`` cut to the 123 bytes of UTF-8 a close frame's reason may hold (RFC 6455, 5.5)."""
    data = text.encode()
    if len(data) <= MAX_CLOSE_REASON:
        return text
    return data[: MAX_CLOSE_REASON - 3].decode(errors="ignore") + "..."


def text_frame_header(length: int) -> bytes:
    """The header of an unmasked, final text frame of ``length`` bytes (RFC 6455, 5.2)."""
    if length < 126:
        return _SHORT[length]
    if length < 65536:
        return struct.pack("!BBH", 0x81, 126, length)
    return struct.pack("!BBQ", 0x81, 127, length)


#: the longest reason a close frame may carry, in bytes
MAX_CLOSE_REASON = 123
_SHORT = [bytes((0x81, n)) for n in range(126)]


def forget_handshake(connection: ServerConnection) -> None:
    """Drop the handshake's headers, which the connection keeps for its whole life and nothing
    reads once it is open: about 3 KB of the 18 KB an idle connection costs."""
    for message in (connection.request, connection.response):
        if message is not None:
            message.headers.clear()


class _ShortQueue(list[Any]):
    """The deque operations websockets' frame queue uses, on a list: it holds the frames of one
    message at most, and an empty deque takes a 600-byte block, a list 56 bytes."""

    __slots__ = ()

    def popleft(self) -> Any:
        return self.pop(0)

    def extendleft(self, items: Iterable[Any]) -> None:
        # deque.extendleft puts each item first in turn: the last one given ends up first
        self[:0] = list(items)[::-1]


def slim_queues(connection: ServerConnection) -> None:
    """Swap two of websockets' per-connection deques, empty nearly always, for lists: the
    waiters for the socket to drain (only appended, removed and walked) and the queue of frames
    received and not yet read (see ``_ShortQueue``). About 1.1 KB of an idle connection; left as
    they are if websockets holds them otherwise."""
    waiters = getattr(connection, "drain_waiters", None)
    if type(waiters) is deque and not waiters:
        connection.drain_waiters = []  # type: ignore[assignment]
    frames = getattr(getattr(connection, "recv_messages", None), "frames", None)
    if type(getattr(frames, "queue", None)) is deque and not frames.queue:  # type: ignore[union-attr]
        frames.queue = _ShortQueue()  # type: ignore[union-attr]


def turned_away(lobby: Lobby) -> m.Error:
    """The error a client gets when the server cannot take it: full, or stopping."""
    if lobby.accepting:
        return m.Error(code="server_full", message=_("The server is full; try again later."))
    return m.Error(code="shutting_down", message=_("The server is stopping; try again later."))


async def serve_connection(
    lobby: Lobby, connection: ServerConnection, limits: Limits, keepalive: KeepAlive | None = None
) -> None:
    """Run one WebSocket client until it goes (pinged by ``keepalive`` meanwhile)."""
    forget_handshake(connection)
    slim_queues(connection)
    if not lobby.can_accept():
        error = turned_away(lobby)
        # the error says why to a client that reads frames; the close code to one that does not
        with contextlib.suppress(ConnectionClosed):
            await connection.send(Outgoing(error).with_seq(1))
        await connection.close(Close.TRY_AGAIN, error.message)
        return
    peer = connection.remote_address
    address = str(peer[0]) if peer else ""
    if not limits.per_address.acquire(address):
        security_event(lobby.metrics, "per_ip_cap", transport="ws", address=address)
        await connection.close(Close.TRY_AGAIN, "too many connections from your address")
        return
    if keepalive is not None:
        keepalive.add(connection)
    try:
        await _serve(lobby, connection, limits)
    finally:
        if keepalive is not None:
            keepalive.remove(connection)
        limits.per_address.release(address)


async def _serve(lobby: Lobby, connection: ServerConnection, limits: Limits) -> None:
    session = WsSession(connection, outbox=lobby.config.outbox, slow_strikes=lobby.config.slow_strikes)
    lobby.attach(session)
    session.start()

    async def too_late() -> None:
        security_event(lobby.metrics, "hello_timeout", transport="ws", peer=session.peer)
        await session.close(
            Close.POLICY, _("no hello within {seconds} seconds", seconds=f"{limits.hello_timeout:g}")
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
