"""The room list as people in the lobby watch it: once someone asked for it (``list_rooms``), its
changes are sent to them unasked until they enter a room or go."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

from protocol import messages as m
from protocol.outgoing import Outgoing
from server.log.contract import StoreUnavailable
from server.room import Room
from server.session import Session

log = structlog.get_logger("cafe.directory")

#: seconds between two room lists sent to the people watching it, however many rooms change
LOBBY_EVERY = 0.5


def listed(rooms: list[m.RoomSummary]) -> list[m.RoomSummary]:
    """The rooms a list shows: all but the private ones (people come in by name or invitation)."""
    return [r for r in rooms if not r.options.get("private")]


class RoomListWatchers:
    """The people watching the room list, and what they were told. ``rooms`` reads the list as
    ``list_rooms`` answers it (a cluster's: every node's rooms)."""

    def __init__(self, rooms: Callable[[], Awaitable[list[m.RoomSummary]]]) -> None:
        self._rooms = rooms
        #: the line of each room here the watchers were last told of, by casefolded name
        self._told: dict[str, tuple[object, ...]] = {}
        self._watchers: set[Session] = set()
        self._telling: asyncio.TimerHandle | None = None
        self._sending: asyncio.Task[None] | None = None
        #: the list every watcher holds (``None``: they hold different ones, and the next list
        #: goes to all of them whatever it shows)
        self._sent: list[m.RoomSummary] | None = None

    def watch(self, session: Session, answered: list[m.RoomSummary] | None = None) -> None:
        """``session``, in the lobby, asked for the room list and was ``answered`` it: it is sent
        the list's changes until it enters a room or goes. Called first without ``answered``,
        before the list is read, so that a change while it is read is told after it."""
        others = bool(self._watchers - {session})
        self._watchers.add(session)
        if answered is None:
            return
        if not others:
            self._sent = answered
        elif answered != self._sent:  # (a change on its way to the others): all of them hear it
            self._sent = None
            self._tell()

    def moved(self, session: Session) -> None:
        """``session`` entered or left a room."""
        if session.room is not None:
            self._watchers.discard(session)

    def gone(self, session: Session) -> None:
        """``session``'s connection is gone."""
        self._watchers.discard(session)

    def changed(self, room: Room) -> None:
        """``room`` handled something: the watchers hear of it when its line changed (checked only
        while someone watches: this runs after every command a room handles)."""
        if not self._watchers:
            return
        key = room.name.casefold()
        line = room.core.listing()
        if self._told.get(key) != line:
            self._told[key] = line
            self._tell()

    def gone_room(self, room: Room) -> None:
        """``room`` went: the watchers hear of it."""
        if self._told.pop(room.name.casefold(), None) is not None or self._watchers:
            self._tell()

    def reread(self) -> None:
        """The list may read otherwise now: a cluster's shared list took a line of this node's
        rooms, or another node's rooms changed theirs."""
        if self._watchers:
            self._tell()

    def _tell(self) -> None:
        """Send the room list, unasked (no ``id``), to everyone watching it: at most once every
        ``LOBBY_EVERY`` seconds, however many rooms change meanwhile, and only when what the list
        shows changed (a private room's line changes too, and its watchers must not hear when)."""
        if self._telling is None:
            self._telling = asyncio.get_running_loop().call_later(LOBBY_EVERY, self._told_lobby)

    def _told_lobby(self) -> None:
        self._telling = None
        if self._sending is not None and not self._sending.done():
            self._tell()  # (the last list is still being read: this one follows it)
            return
        self._sending = asyncio.get_running_loop().create_task(self._send(), name="room-list")

    async def _send(self) -> None:
        try:
            rooms = listed(await self._rooms())
        except StoreUnavailable as e:  # (the next change tells them)
            log.warning("room_list_unread", error=str(e))
            return
        watchers = [s for s in self._watchers if s.room is None and not s.closed]
        self._watchers = set(watchers)
        if not watchers or rooms == self._sent:
            return
        self._sent = rooms
        message = Outgoing(m.Rooms(rooms=rooms))
        for session in watchers:
            session.send(message)
