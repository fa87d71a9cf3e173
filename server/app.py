"""The server process: the HTTP/WebSocket and line endpoints around one lobby, start-up recovery of
unfinished games from the log, and a graceful stop."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Sequence

import structlog
from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import serve

from engine import replay
from protocol import messages as m
from protocol.view import LastMove
from server import logs
from server.config import Config, load_config
from server.http import HttpRoutes
from server.line import LineSession, serve_line_client
from server.lobby import Lobby
from server.room import Game, Seat
from server.store import Store
from server.ws import CLOSE_GOING_AWAY, serve_connection

log = structlog.get_logger("cafe.server")


class Server:
    """One server process. ``await start()``, then ``await stop()``."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store = Store(config.data)
        self.lobby = Lobby(config, self.store)
        self._ws: WsServer | None = None
        self._line: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self._ws is not None
        return int(next(iter(self._ws.sockets)).getsockname()[1])

    @property
    def line_port(self) -> int | None:
        if self._line is None:
            return None
        return int(self._line.sockets[0].getsockname()[1])

    async def start(self) -> None:
        await self.restore()
        config = self.config
        self._ws = await serve(
            lambda connection: serve_connection(self.lobby, connection),
            config.host,
            config.port,
            process_request=HttpRoutes(self.lobby, config.static_dir),
            max_size=config.max_frame,
            ping_interval=20,
            ping_timeout=20,
        )
        if config.line_port >= 0:
            self._line = await asyncio.start_server(
                lambda r, w: serve_line_client(self.lobby, r, w),
                config.host,
                config.line_port,
                limit=config.max_line,
            )
        log.info("listening", host=config.host, port=self.port, line_port=self.line_port, data=config.data)

    async def restore(self) -> None:
        """Bring back every unfinished game of the log, as its players left it."""
        for stored in await self.store.unfinished_games():
            record = stored.record
            replayed = replay(record)
            room = self.lobby.rooms.get(stored.room.casefold()) or self.lobby.create_room(stored.room)
            seats = []
            for name, kind in zip(record.players, stored.kinds, strict=True):
                if kind.startswith("bot:"):
                    seats.append(Seat(name=name, kind="bot", strategy=kind.removeprefix("bot:")))
                    self.lobby.bot_names.add(name.casefold())
                else:
                    seats.append(Seat(name=name, kind="person"))
                    room.hold(name)
            last = replayed.results[-1] if replayed.results else None
            room.seats = seats
            room.game = Game(
                game_id=stored.game_id,
                seed=record.seed,
                record=record,
                position=replayed.position,
                last_move=None
                if last is None
                else LastMove(record.players[last.player], last.move, last.points),
                moves=len(record.moves),
            )
            if replayed.outcome is not None:
                await room.finish_restored(replayed.outcome)
            else:
                room.resume()
            log.info("restored", room=room.name, game=stored.game_id, moves=len(record.moves))

    async def stop(self) -> None:
        """Stop accepting, finish the moves already received, tell every client, close."""
        lobby = self.lobby
        lobby.accepting = False
        if self._line is not None:
            self._line.close()
        if self._ws is not None:
            self._ws.close(close_connections=False)
        for room in list(lobby.rooms.values()):
            await room.stop()
        sessions = list(lobby.all_sessions)
        for session in sessions:
            session.send(m.Bye(reason="The server is stopping. Come back soon!"))
        await asyncio.gather(*(s.drain(2.0) for s in sessions), return_exceptions=True)
        await asyncio.gather(
            *(
                s.close(CLOSE_GOING_AWAY, "server stopping" if not isinstance(s, LineSession) else "")
                for s in sessions
            ),
            return_exceptions=True,
        )
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ws.wait_closed(), 5)
        if self._line is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._line.wait_closed(), 5)
        self.store.close()
        log.info("stopped")


async def serve_until_signalled(config: Config) -> None:
    server = Server(config)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping")
    await server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    config = load_config(argv)
    logs.configure(config.log_level, config.log_format)
    asyncio.run(serve_until_signalled(config))
    return 0
