"""The WebSocket endpoint: JSON text frames at ``/ws``."""

from __future__ import annotations

import contextlib

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from server.lobby import Lobby
from server.session import Outgoing, Session

CLOSE_GOING_AWAY = 1001
CLOSE_TRY_AGAIN = 1013


class WsSession(Session):
    transport = "ws"

    def __init__(self, connection: ServerConnection, *, outbox: int, slow_strikes: int) -> None:
        peer = connection.remote_address
        super().__init__(
            outbox=outbox, slow_strikes=slow_strikes, peer=f"{peer[0]}:{peer[1]}" if peer else ""
        )
        self.connection = connection

    async def _write(self, out: Outgoing, seq: int) -> None:
        await self.connection.send(out.with_seq(seq))

    async def _close(self, code: int, reason: str) -> None:
        await self.connection.close(code, reason)


async def serve_connection(lobby: Lobby, connection: ServerConnection) -> None:
    """Run one WebSocket client until it goes."""
    if not lobby.can_accept():
        reason = "the server is stopping" if not lobby.accepting else "the server is full"
        await connection.close(CLOSE_TRY_AGAIN, reason)
        return
    session = WsSession(connection, outbox=lobby.config.outbox, slow_strikes=lobby.config.slow_strikes)
    lobby.attach(session)
    session.start()
    try:
        async for frame in connection:
            if session.closed:
                break
            await lobby.receive(session, frame)
    except ConnectionClosed:
        pass
    finally:
        lobby.detach(session)
        session.closed = True
        await session.wait_closed()
        with contextlib.suppress(Exception):
            await connection.close()
