"""The server process: the HTTP/WebSocket and line endpoints around one lobby, start-up recovery of
unfinished games from the log, and a graceful stop."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

import structlog
from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import serve

import compiled
from protocol import messages as m
from protocol.errors import Close
from protocol.i18n import _
from protocol.options import RoomOptions
from server import logs
from server.config import Config, ConfigError, load_config
from server.directory import LocalDirectory
from server.limits import Limits
from server.lobby.lobby import Lobby
from server.lobby.tables import Player
from server.log.contract import (
    LogTooNew,
    NotDurable,
    RecordsTooNew,
    RecordsUnavailable,
    RecordsUnreadable,
    StoreUnavailable,
)
from server.log.sqlite.store import DataInUse, Store
from server.metrics import Metrics
from server.net import wsinternals
from server.net.http import HttpRoutes
from server.net.keepalive import KeepAlive
from server.net.line import LineSession, serve_line_client
from server.net.ws import Opening, serve_connection
from server.tournament.director import Director

if TYPE_CHECKING:
    from server.cluster.node import ClusterDirectory
    from server.cluster.tournaments import TournamentLease

log = structlog.get_logger("cafe.server")

#: seconds between two prunings of expired resume tokens
TOKEN_PRUNING = 600.0
#: seconds between two looks for games that waited longer than ``--game-max-age``: a tenth of it,
#: within these bounds
EXPIRING = (1.0, 600.0)
#: seconds a start that failed gives what started to stop, before the process exits anyway
STOP_AFTER_FAILED_START = 10.0
#: seconds a WebSocket client has to answer the closing handshake before it is cut off
CLOSE_TIMEOUT = 2.0


class Server:
    """One server process. ``await start()``, then ``await stop()``."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.metrics = Metrics()
        self.cluster: ClusterDirectory | None = None
        self.directory: LocalDirectory | ClusterDirectory
        if config.redis:
            from server.cluster import wiring  # (a cluster's alone: see its docstring)

            self.directory = self.cluster = wiring.directory(config, self.metrics)
        else:
            try:
                store = Store(config.data, exclusive=True)
            except DataInUse as e:
                raise CannotStart("data_in_use", str(e)) from e
            # not a SQLite file, or a damaged one; or its folder cannot be made (a file stands
            # in its path, no permission)
            except (sqlite3.DatabaseError, OSError) as e:
                raise CannotStart("data_unreadable", f"{config.data}: {e}") from e
            self.directory = LocalDirectory(config, store, self.metrics)
        self.store = self.directory.log
        self.lobby = Lobby(config, self.directory, self.store, self.metrics)
        self.directory.on_game_start = self.lobby.social.game_started
        self.lease: TournamentLease | None = None
        if self.cluster is not None:
            wiring.join(self.cluster, self.lobby)
            self.lease = wiring.tournament_lease(self.cluster)
        self.tournaments = self._director()
        self._ws: WsServer | None = None
        #: the WebSocket connections' handlers running now (a stop ends those that outlast it)
        self._handlers: set[asyncio.Task[None]] = set()
        self._opening: Opening | None = None
        self._pruning: asyncio.Task[None] | None = None
        self._expiring: asyncio.Task[None] | None = None
        self._line: asyncio.Server | None = None
        self.limits = Limits(config.max_per_ip, config.hello_timeout, config.trusted_proxies)
        self.keepalive = KeepAlive(config.ping_interval)
        self.young_passes = YoungPasses()

    def _director(self) -> Director:
        """The tournaments' director: it makes its tables as quick pairing does; in a cluster it
        directs while this node holds the tournaments' lease."""
        lobby, directory = self.lobby, self.directory

        async def open_table(
            players: Sequence[tuple[str, str | None]], options: RoomOptions, prefix: str
        ) -> tuple[str, str]:
            seated = [Player(name, identity) for name, identity in players]
            opened = await lobby.tables.open(seated, options=options, prefix=prefix, listed=True)
            return opened.room, opened.game_id

        async def people() -> dict[str, str | None]:
            return {person.name.casefold(): person.room for person in await directory.people()}

        director = Director(
            self.store,
            open_table,
            people=people,
            plays_in=directory.plays_in,
            tell=lobby.tables.tell,
            lease=self.lease,
        )
        lobby.tournaments = director
        return director

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
        # the parts of websockets used beneath its documented API, there before anything starts
        await wsinternals.check_installed()
        if self.cluster is not None:  # rooms come back when someone enters them or the watcher finds them
            try:
                await self.cluster.start()
            except StoreUnavailable as e:
                raise CannotStart("redis_unavailable", str(e)) from e
        else:
            await self.directory.restore(await self.store.unfinished_games())
            if isinstance(self.store, Store):
                # every connection ended with the last run: their tokens hold for the resume window
                self.store.tokens_released(time.time() + self.config.resume_window)
                self._pruning = asyncio.get_running_loop().create_task(self._prune_tokens(self.store))
        if self.config.game_max_age > 0:
            self._expiring = asyncio.get_running_loop().create_task(self._expire_games())
        await self.lobby.moderation.start()
        self.tournaments.start()
        config = self.config
        routes = HttpRoutes(self.lobby, config.static_dir, self.limits.proxies)
        self.keepalive.start()
        self.lobby.seeks.start()
        self.young_passes.start()
        try:
            opening = self._opening = Opening(self.lobby, self.limits)
            self._ws = await serve(
                lambda connection: self._handled(
                    serve_connection(self.lobby, connection, self.limits, self.keepalive, opening)
                ),
                config.host,
                config.port,
                process_request=routes,
                process_response=routes.process_response,
                max_size=config.max_frame,
                compression=None if config.compression == "none" else "deflate",
                ping_interval=None,  # one task pings every connection (server.net.keepalive)
                close_timeout=CLOSE_TIMEOUT,  # a client that does not answer the closing handshake is cut off
                create_connection=opening.connection_class(),
            )
            if config.line_port >= 0:
                self._line = await asyncio.start_server(
                    lambda r, w: serve_line_client(self.lobby, r, w, self.limits),
                    config.host,
                    config.line_port,
                    limit=config.max_line,
                )
        except OSError as e:  # the port taken, the host not one of this machine's
            where = f"{config.host} ({config.port}, {config.line_port})"
            raise CannotStart("cannot_listen", f"{where}: {e}") from e
        log.info(
            "listening",
            host=config.host,
            port=self.port,
            line_port=self.line_port,
            data=config.data_shown,  # (not a password in --redis)
            node=self.cluster.node if self.cluster else None,
            event_loop=type(asyncio.get_running_loop()).__module__.split(".")[0],
            compiled=compiled.active(),  # the rules, views and text (compiled/__init__.py)
        )

    @staticmethod
    async def _prune_tokens(store: Store) -> None:
        """Forget expired resume tokens now and then, and the lists of guests whose names they held
        (Redis expires its own)."""
        while True:
            pruned = store.tokens_pruned(time.time())
            if pruned:
                log.info("tokens_pruned", count=pruned)
            lists = store.lists_pruned()
            if lists:
                log.info("lists_pruned", entries=lists)
            await asyncio.sleep(TOKEN_PRUNING)

    async def _expire_games(self) -> None:
        """End the games that waited with nobody in their rooms, out of memory, since longer ago
        than ``--game-max-age`` after their start: looked for every tenth of it (within
        :data:`EXPIRING`)."""
        max_age = self.config.game_max_age
        shortest, longest = EXPIRING
        while True:
            await asyncio.sleep(max(shortest, min(longest, max_age / 10)))
            try:
                ended = await self.directory.expire(time.time() - max_age)
            except StoreUnavailable as e:  # (looked for again next time)
                log.warning("expiry_postponed", error=str(e))
                continue
            except Exception:  # (a fault of one look stops none of the next)
                log.exception("expiry_failed")
                continue
            if ended:
                log.info("games_expired", count=ended)

    async def _handled(self, handler: Coroutine[Any, Any, None]) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await handler
        finally:
            self._handlers.discard(task)

    async def stop(self) -> None:
        """Stop accepting, finish the moves already received, tell every client, close."""
        await self.lobby.seeks.stop()
        for task in (self._pruning, self._expiring):
            if task is not None:
                task.cancel()
        self.young_passes.stop()
        await self.tournaments.stop()
        if self.lease is not None:
            await self.lease.release()
        await self.keepalive.stop()
        lobby = self.lobby
        lobby.accepting = False
        if self._line is not None:
            self._line.close()
        if self._ws is not None:
            self._ws.close(close_connections=False)
        if self._opening is not None:
            self._opening.close()
        for room in list(self.directory.rooms.values()):
            await room.stop()
        sessions = list(lobby.all_sessions)
        for session in sessions:
            session.send(m.Bye(reason=_("The server is stopping. Come back soon!")))
        await asyncio.gather(*(s.drain(2.0) for s in sessions), return_exceptions=True)
        await asyncio.gather(
            *(
                s.close(Close.GOING_AWAY, _("server stopping") if not isinstance(s, LineSession) else "")
                for s in sessions
            ),
            return_exceptions=True,
        )
        if self._ws is not None:
            closed = asyncio.ensure_future(self._ws.wait_closed())
            if not (await asyncio.wait({closed}, timeout=CLOSE_TIMEOUT + 0.5))[0]:
                # a connection whose peer never answered its closing (one closed for a frame too
                # large, say) still waits in its handler: it ends now, its person leaving first
                for task in list(self._handlers):
                    task.cancel()
                await asyncio.wait({closed}, timeout=CLOSE_TIMEOUT + 0.5)
            closed.cancel()
        if self._line is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._line.wait_closed(), 5)
        if self.cluster is not None:
            await self.cluster.stop()
        self.directory.bots.close()
        self.lobby.analyses.close()
        self.store.close()
        log.info("stopped")


class CannotStart(Exception):
    """The server cannot start: ``event`` names why in the log (``data_unreadable``,
    ``redis_unavailable``, ``cannot_listen``), ``reason`` says what failed."""

    def __init__(self, event: str, reason: str) -> None:
        super().__init__(reason)
        self.event = event
        self.reason = reason


async def serve_until_signalled(config: Config, early: Sequence[int] = ()) -> None:
    server = Server(config)
    # the handlers first: a SIGTERM sent as soon as the log says ``listening`` stops the server
    # gracefully, and one that comes while it starts (waiting up to 30 s for PostgreSQL, say) ends
    # the start there; so does one that came while its modules loaded (``early``)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # (SIGHUP: its terminal closed)
        loop.add_signal_handler(sig, stop.set)
    if early:
        log.info("stop_signal_while_loading", signals=[signal.Signals(s).name for s in early])
        stop.set()
    starting = loop.create_task(server.start(), name="start")
    signalled = loop.create_task(stop.wait(), name="stop signal")
    await asyncio.wait((starting, signalled), return_when=asyncio.FIRST_COMPLETED)
    signalled.cancel()
    if not starting.done():
        if not early:
            log.info("stop_signal_while_starting")
        starting.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await starting
        await _stop_after_start(server)
        return
    try:
        starting.result()
    except CannotStart:
        await _stop_after_start(server)
        raise
    await stop.wait()
    log.info("stopping")
    await server.stop()


async def _stop_after_start(server: Server) -> None:
    """Stop a server whose start failed or was ended by a signal: what started stops as in a stop
    (the event loop's own cancel at its close comes once, and a cancel lost in a Redis call left a
    loop of a node running for ever), within ``STOP_AFTER_FAILED_START`` (Redis away may not
    answer)."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(STOP_AFTER_FAILED_START):
            await server.stop()


def collect_garbage_seldom() -> None:
    """Make the cyclic garbage collector's full passes rare, and its passes over the middle
    generation too (see ``YoungPasses``).

    A busy server holds a few hundred thousand objects (connections, rooms, views) and makes
    short-lived ones for every move; with the default thresholds those that live through a few
    moves reach the oldest generation, whose collection scans every object: about 200 ms at
    2,000 connections, several times a minute. Wider young generations let them die young; the
    objects of the start-up are frozen out of every pass, and the collector is on from here
    (``server.__main__`` loads the modules with it off).

    The first threshold is only a bound for a burst of allocations: in play the timed passes come
    first. At 5,000 net allocations it started a young pass about nine times a second at 2,000
    connections, each scanning the state of the rooms that moved since the pass before.
    """
    gc.freeze()
    gc.set_threshold(100_000, 250, 100)
    gc.enable()


#: seconds between two passes of ``YoungPasses``
YOUNG_PERIOD = 1.0


class YoungPasses:
    """Collect the youngest generation every ``period`` seconds, whatever its count says.

    The collector starts a young pass when allocations outnumber deallocations by the first
    threshold; but every move frees state that lives in older generations (the views of a room's
    move before), so at 10,000 connections the young generation grew to tens of thousands of
    objects between two passes, and each pass stopped the loop for 70-135 ms. A pass a second
    keeps it to the objects made in that second and still alive: what a room keeps lives until its
    next move, so a room that moved several times since the pass before is scanned once, not once
    a move. Each pass also counts towards a pass over the middle generation, which scans the live
    state of every room: its threshold is set to match (``collect_garbage_seldom``).
    """

    def __init__(self, period: float = YOUNG_PERIOD) -> None:
        self.period = period
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Begin (on the running loop)."""
        self._arm(asyncio.get_running_loop())

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @property
    def armed(self) -> bool:
        """Whether a pass is due."""
        return self._timer is not None

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = loop.call_later(self.period, self._pass, loop)

    def _pass(self, loop: asyncio.AbstractEventLoop) -> None:
        gc.collect(0)
        self._arm(loop)


def main(argv: Sequence[str] | None = None, early: Sequence[int] = ()) -> int:
    try:
        config = load_config(argv)
    except ConfigError as e:  # one line and status 2, as argparse answers a flag it does not know
        print(f"cafe-server: error: {e}", file=sys.stderr)
        return 2
    if config.static_dir and not os.path.isdir(config.static_dir):  # else 404s for the page
        print(
            f"cafe-server: error: --static-dir (CAFE_STATIC_DIR): {config.static_dir!r} is not a folder",
            file=sys.stderr,
        )
        return 2
    logs.configure(config.log_level, config.log_format)
    collect_garbage_seldom()
    with asyncio.Runner(loop_factory=loop_factory(config.event_loop)) as runner:
        try:
            runner.run(serve_until_signalled(config, early))
        except NotDurable as e:
            log.error("redis_not_durable", reason=str(e))
            return 2
        except LogTooNew as e:
            log.error("log_too_new", path=config.data, reason=str(e))
            return 2
        except RecordsTooNew as e:
            log.error("records_too_new", version=e.version, reason=str(e))
            return 2
        except RecordsUnavailable as e:
            log.error("records_unavailable", reason=str(e))
            return 2
        except RecordsUnreadable as e:
            log.error("records_unreadable", reason=str(e))
            return 2
        except wsinternals.WebsocketsMismatch as e:
            log.error("websockets_unsupported", reason=str(e))
            return 2
        except CannotStart as e:
            log.error(e.event, reason=e.reason)
            return 2
    return 0


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when asked for and installed (it is not on Windows), else asyncio's."""
    if name == "uvloop":
        with contextlib.suppress(ImportError):
            import uvloop

            return uvloop.new_event_loop
    return None
