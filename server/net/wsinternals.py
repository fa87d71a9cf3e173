"""What the server uses of websockets beneath its documented API, in one place, checked at start-up.

websockets documents a connection's ``recv``, ``send``, ``close``, ``ping``, ``state`` and the
like, and the sans-I/O ``Protocol`` that frames its messages (``send_text``, ``send_ping``,
``data_to_send``). Two jobs cost less a level further down, and only this module goes there:

- **writing**: all the frames a session has due in one turn of the event loop go out in one write
  to the socket (``send()`` makes a system call and enters its lock for each frame), framed here
  when no extension was agreed, and a full socket is waited on as ``send()`` waits on it;
- **keep-alive** (``server.net.keepalive``): one task pings every connection, the pings entered in the
  connection's table of pings awaiting a pong, which websockets then clears as it clears its own;
  a connection that leaves a ping unanswered is cut off.

``NON_PUBLIC`` names every attribute used that websockets does not document. ``check_installed``
looks for each on a connection of the installed websockets when the server starts, and the server
refuses to start without one (there is no second, slower way to fall back to). ``REQUIREMENT`` is
the range of versions this module is tested with, the one ``pyproject.toml`` asks for.
"""

from __future__ import annotations

import asyncio
import inspect
import socket
import struct
from collections.abc import Callable

import websockets
from websockets.asyncio.connection import Connection
from websockets.asyncio.server import ServerConnection
from websockets.protocol import State
from websockets.server import ServerProtocol

from protocol.outgoing import Outgoing

__all__ = [
    "NON_PUBLIC",
    "REQUIREMENT",
    "WebsocketsMismatch",
    "check",
    "check_installed",
    "cut",
    "drain",
    "ping",
    "text_frame_header",
    "unanswered",
    "write_texts",
]

#: the versions of websockets this module is tested with (the lowest in ``make test-lowest``)
REQUIREMENT = "websockets>=17.0,<18"


def _is_transport(value: object) -> bool:
    return callable(getattr(value, "write", None)) and callable(getattr(value, "abort", None))


#: each attribute used here that websockets does not document: the form it must have, and what for
NON_PUBLIC: dict[str, tuple[str, Callable[[object], bool]]] = {
    "ServerConnection.protocol": (
        "its sans-I/O Protocol: frames pings, and text when an extension was agreed",
        lambda v: isinstance(v, ServerProtocol),
    ),
    "ServerConnection.transport": (
        "its asyncio transport: the frames due written at once; a silent peer cut off",
        _is_transport,
    ),
    "ServerConnection.paused": (
        "a bool, whether the socket's buffer is full",
        lambda v: isinstance(v, bool),
    ),
    "ServerConnection.drain": (
        "a coroutine function that waits until the buffer is not full",
        inspect.iscoroutinefunction,
    ),
    "ServerConnection.pending_pings": (
        "a dict of the pings awaiting a pong, by payload, cleared as pongs arrive",
        lambda v: isinstance(v, dict),
    ),
    "Protocol.extensions": (
        "a list of the extensions agreed (compression): if any, frames are made by the Protocol",
        lambda v: isinstance(v, list),
    ),
    "Protocol.expect_continuation_frame": (
        "a bool, whether a fragmented message is being sent: if so, the same",
        lambda v: isinstance(v, bool),
    ),
}


class WebsocketsMismatch(RuntimeError):
    """The websockets installed lacks an attribute of ``NON_PUBLIC``, or holds it in another form."""

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute
        form = NON_PUBLIC[attribute][0]
        super().__init__(
            f"websockets {websockets.version.version} has no {attribute} as the server uses it "
            f"({form}; server/net/wsinternals.py); install {REQUIREMENT}"
        )


def check(connection: object) -> None:
    """Raise ``WebsocketsMismatch`` naming the first attribute of ``NON_PUBLIC`` that
    ``connection`` (a websockets connection, open or not) lacks or holds in another form."""
    holders = {"ServerConnection": connection, "Protocol": getattr(connection, "protocol", None)}
    for attribute, (_form, fits) in NON_PUBLIC.items():
        holder, name = attribute.split(".")
        if not fits(getattr(holders[holder], name, None)):
            raise WebsocketsMismatch(attribute)


async def check_installed() -> None:
    """``check`` a connection of the installed websockets, made over a socket pair as a server's
    is made over its socket (websockets' ``Connection``, which ``ServerConnection`` extends, with a
    ``ServerProtocol``; no handshake), then closed."""
    loop = asyncio.get_running_loop()
    near, far = socket.socketpair()
    with far:
        connection = Connection(ServerProtocol())
        transport, _ = await loop.connect_accepted_socket(lambda: connection, near)
        try:
            check(connection)
        finally:
            transport.abort()
            await connection.wait_closed()


# Writing


def write_texts(connection: ServerConnection, batch: list[Outgoing], first: int) -> bool:
    """Write ``batch``, numbered from ``first``, as text frames in one write to the socket;
    whether the socket's buffer is full now (``drain`` waits until it is not). Raises
    ``ConnectionError`` if the connection is closing."""
    protocol = connection.protocol
    if protocol.state is not State.OPEN:
        raise ConnectionError("the connection is closing")
    # One write to the socket for all the frames: send() makes a system call for each frame,
    # which costs more than framing it, and enters its locking context for each.
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


async def drain(connection: ServerConnection) -> None:
    """Wait until the connection's socket can take more (what ``send()`` waits on)."""
    await connection.drain()


def text_frame_header(length: int) -> bytes:
    """The header of an unmasked, final text frame of ``length`` bytes (RFC 6455, 5.2)."""
    if length < 126:
        return _SHORT[length]
    if length < 65536:
        return struct.pack("!BBH", 0x81, 126, length)
    return struct.pack("!BBQ", 0x81, 127, length)


_SHORT = [bytes((0x81, n)) for n in range(126)]


# Keep-alive


def ping(connection: ServerConnection, data: bytes, loop: asyncio.AbstractEventLoop) -> None:
    """Send an open connection a ping of ``data``, entered in its table of pings awaiting a pong,
    which websockets clears when the pong comes, as it clears its own pings (``loop``: the
    connection's)."""
    protocol = connection.protocol
    protocol.send_ping(data)
    connection.transport.write(b"".join(protocol.data_to_send()))
    connection.pending_pings[data] = (loop.create_future(), loop.time())


def unanswered(connection: ServerConnection, data: bytes) -> bool:
    """Whether the ping of ``data`` still awaits its pong."""
    return data in connection.pending_pings


def cut(connection: ServerConnection) -> None:
    """Drop the connection's socket at once: its reader sees the connection closed, and cleans up."""
    connection.transport.abort()
