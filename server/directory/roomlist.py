"""The room list as people in the lobby watch it: once someone asked for it (``list_rooms``), its
changes are sent to them unasked until they enter a room or go."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from protocol import messages as m
from protocol.outgoing import Outgoing
from server.room import Room
from server.session import Session

#: seconds between two room lists sent to the people watching it, however many rooms change
LOBBY_EVERY = 0.5


def listed(rooms: list[m.RoomSummary]) -> list[m.RoomSummary]:
    """The rooms a list shows: all but the private ones (people come in by name or invitation)."""
    return [r for r in rooms if not r.options.get("private")]


class RoomListWatchers:
    """The people watching the room list of this process's ``rooms``, and what they were told."""

    def __init__(self, rooms: Callable[[], list[Room]]) -> None:
        self._rooms = rooms
        #: the line of each room the watchers were last told of, by casefolded name
        self._told: dict[str, tuple[Any, ...]] = {}
        self._watchers: set[Session] = set()
        self._telling: asyncio.TimerHandle | None = None

    def watch(self, session: Session) -> None:
        """``session``, in the lobby, asked for the room list: it is sent the list's changes until
        it enters a room or goes."""
        self._watchers.add(session)

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

    def _tell(self) -> None:
        """Send the room list, unasked (no ``id``), to everyone watching it: at most once every
        ``LOBBY_EVERY`` seconds, however many rooms change meanwhile."""
        if self._telling is None:
            self._telling = asyncio.get_running_loop().call_later(LOBBY_EVERY, self._told_lobby)

    def _told_lobby(self) -> None:
        self._telling = None
        watchers = [s for s in self._watchers if s.room is None and not s.closed]
        self._watchers = set(watchers)
        if watchers:
            message = Outgoing(m.Rooms(rooms=listed([r.summary() for r in self._rooms()])))
            for session in watchers:
                session.send(message)
