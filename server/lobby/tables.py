"""Tables the server makes: a new room for given people, with given options, its seats drawn and
its game started at once, each player moved to their seat and told where.

Quick pairing (:mod:`server.lobby.seeking`) and tournaments make their games here. The room is
made on this node (in a cluster this node takes its lease, as for any new room); its players may
be connected to any node, or to none: a seat waits for its player as for one who lost the
connection, so someone who does not come is handled by the room's ``absent`` rule.

In the lobby's process, on its event loop::

    table = await lobby.tables.open(
        [Player("ann", ann.identity), Player("bob", None)],
        options=RoomOptions(clock=60, drawseat=True),
        prefix="seek",
    )
    table.room, table.game_id, table.players  # 'seek-3fa9c1', '9e0c…', ('bob', 'ann')
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import structlog

from protocol import messages as m
from protocol.names import ROOM_MAX, is_room_name
from protocol.options import RoomOptions
from server.directory import Directory
from server.room import Leave, Returned, Room
from server.room.items import Table
from server.session import RoomRef, Session

log = structlog.get_logger("cafe.tables")

#: how many fresh room names are tried before giving up (each is new with near certainty)
_NAME_TRIES = 5


@dataclass(frozen=True, slots=True)
class Player:
    """A person to seat: their name, and the player behind it (``Session.identity``; an account's
    is ``server.ratings.account_key(name)``), so that the game is logged and rated as theirs."""

    name: str
    identity: str | None


@dataclass(frozen=True, slots=True)
class OpenedTable:
    """A table that was made: its room, its game, and its players in their seats' order."""

    room: str
    game_id: str
    players: tuple[str, ...]


class TableRefused(Exception):
    """No table could be made (the log or Redis out of reach, or no fresh room name)."""


class Elsewhere(Protocol):
    """What takes a player connected to another node to their seat (a cluster's nodes)."""

    async def seat(
        self, name: str, room: str, game_id: str, players: Sequence[str], identity: str | None = None
    ) -> bool:
        """Ask the node ``name`` is connected to to move them to their seat in ``room`` (if the
        connection there is ``identity``'s); ``False`` when they are connected to no other node."""

    async def tell(self, name: str, identity: str | None, text: str) -> bool:
        """Send ``name`` (``identity``'s connection) the notice ``text`` through the node they are
        connected to; ``False`` when they are connected to no other node."""


class Tables:
    """The tables of one lobby (``Lobby.tables``)."""

    def __init__(self, directory: Directory, max_rooms: int) -> None:
        self.directory = directory
        #: the rooms this process may hold (``--max-rooms``): a table is a room like any other
        self.max_rooms = max_rooms
        #: players on other nodes (set in a cluster)
        self.elsewhere: Elsewhere | None = None
        #: called with each connection seated (seeking ends there)
        self.on_seated: Callable[[Session], None] = lambda session: None
        self._tasks: set[asyncio.Task[None]] = set()

    async def open(
        self,
        players: Sequence[Player],
        *,
        options: RoomOptions | None = None,
        bots: Sequence[str] = (),
        prefix: str = "table",
        listed: bool = False,
    ) -> OpenedTable:
        """Make a new room called ``PREFIX-xxxxxx`` for ``players`` and the server's ``bots``
        (strategies: ``random``, ``greedy``, ``strong``), 2 to 4 in all, with ``options`` (the
        seats are shuffled when ``drawseat`` is on), start its game at once, and move each
        player who is connected (here or on another node) to their seat, telling them where
        (``seated``). A player not connected finds the seat waiting when they come back with
        their token; after the resume window the room's ``absent`` rule plays it. A ``listed``
        game (quick pairing's, a tournament's) stays public: its room may not turn private while
        it runs.

        Raises :class:`TableRefused` when no table could be made; nobody was moved then."""
        if not 2 <= len(players) + len(bots) <= 4:
            raise ValueError("a table seats 2 to 4 players")
        room = await self._fresh_room(prefix)
        started: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def told(game_id: str | None) -> None:
            if not started.done():
                started.set_result(game_id)

        seats = tuple((p.name, p.identity) for p in players)
        room.post(None, Table(seats, tuple(bots), options or RoomOptions(drawseat=True), told, listed))
        game_id = await started
        if game_id is None:
            raise TableRefused(f"room {room.name} did not start")
        order = tuple(seat.name for seat in room.seats)
        log.info("table_opened", room=room.name, game=game_id, players=list(order))
        for player in players:
            await self.seat(player.name, room.name, game_id, order, player.identity)
        return OpenedTable(room.name, game_id, order)

    async def _fresh_room(self, prefix: str) -> Room:
        """A new room of this node, nobody in it; at ``max_rooms``, one that waits with nobody in it
        makes way for it, or none is made (the players wait: their seeks, the tournament's next
        look)."""
        if len(self.directory.rooms) >= self.max_rooms and not await self.directory.make_way():
            raise TableRefused("the server holds as many rooms as it may")
        prefix = prefix[: ROOM_MAX - 7]
        for _ in range(_NAME_TRIES):
            name = f"{prefix}-{secrets.token_hex(3)}"
            if not is_room_name(name) or name.casefold() in self.directory.rooms:
                continue
            room = await self.directory.resolve(name)
            fresh = isinstance(room, Room) and room.state == "waiting" and not room.members
            if fresh and isinstance(room, Room) and not len(room.seats):
                return room
        raise TableRefused("no fresh room name")

    async def seat(
        self, name: str, room: str, game_id: str, players: Sequence[str], identity: str | None = None
    ) -> bool:
        """Move ``name`` to their seat in ``room`` wherever they are connected; ``False`` when
        they are connected nowhere (their seat waits for them). With ``identity`` (the seat's
        player's), only a connection of that identity is moved: someone else who now holds the
        name is left where they are."""
        if await self.seat_here(name, room, game_id, players, identity):
            return True
        if self.elsewhere is None:
            return False
        try:
            return await self.elsewhere.seat(name, room, game_id, players, identity)
        except Exception as e:  # (Redis away: the seat waits, as for anyone not connected)
            log.warning("seat_unsent", player=name, room=room, error=repr(e))
            return False

    async def seat_here(
        self, name: str, room: str, game_id: str, players: Sequence[str], identity: str | None = None
    ) -> bool:
        """Move ``name``'s connection on this node, if any (and ``identity``'s, if given), to
        their seat in ``room``: it leaves the room it was in, takes the seat (as a player coming
        back does) and is told ``seated``."""
        session = self.directory.session(name)
        if session is None or session.name is None or session.closed:
            return False
        if identity is not None and session.identity != identity:
            log.warning("seat_not_theirs", player=name, room=room)
            return False
        ref = await self.directory.resolve(room)
        self._move(session, ref, game_id, players)
        return True

    async def tell(self, name: str, identity: str | None, text: str) -> bool:
        """Tell ``name`` ``text`` (a notice: a tournament's word to its player) wherever they are
        connected, if the connection is ``identity``'s (when given); whether it reached them."""
        if self.tell_here(name, identity, text):
            return True
        if self.elsewhere is None:
            return False
        try:
            return await self.elsewhere.tell(name, identity, text)
        except Exception as e:  # (Redis away: a notice is lost, as to someone not connected)
            log.warning("notice_unsent", player=name, error=repr(e))
            return False

    def tell_here(self, name: str, identity: str | None, text: str) -> bool:
        """``tell`` to a connection on this node; whether ``name`` is connected here."""
        session = self.directory.session(name)
        if session is None or session.closed or (identity is not None and session.identity != identity):
            return False
        session.send(m.Notice(text=text))
        return True

    def seat_soon(
        self, name: str, room: str, game_id: str, players: Sequence[str], identity: str | None = None
    ) -> bool:
        """``seat_here`` in the background (a request from another node); whether ``name`` is
        connected here."""
        if self.directory.session(name) is None:
            return False
        task = asyncio.get_running_loop().create_task(
            self._seat_logged(name, room, game_id, players, identity)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _seat_logged(
        self, name: str, room: str, game_id: str, players: Sequence[str], identity: str | None
    ) -> None:
        try:
            await self.seat_here(name, room, game_id, players, identity)
        except Exception as e:
            log.warning("seat_failed", player=name, room=room, error=repr(e))

    def _move(self, session: Session, room: RoomRef, game_id: str, players: Sequence[str]) -> None:
        current = session.room
        if current is not None and current.name.casefold() != room.name.casefold():
            current.post(session, Leave(disconnected=False, id=None, name=session.name, asked=False))
        session.room = room
        session.send(m.Seated(room=room.name, game=game_id, players=list(players)))
        room.post(session, Returned())
        self.directory.moved(session)
        self.on_seated(session)


__all__ = ["Elsewhere", "OpenedTable", "Player", "TableRefused", "Tables"]
