"""The directory: who is connected under which name, the rooms and where they run.

The lobby asks the directory and never the cluster: :class:`LocalDirectory` answers for one
process; ``server.cluster.ClusterDirectory`` answers the same questions for several nodes sharing
Redis. The local directory also holds this process's room actors and is their host
(:class:`~server.room.RoomHost`): it gives them the log, the settings and the bot names, and hears
when a room changed or emptied.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import structlog

from protocol import messages as m
from protocol.names import alike
from protocol.outgoing import Outgoing
from server.botpool import BotPool
from server.config import Config
from server.log.contract import GameLog, StoredGame
from server.metrics import Metrics
from server.names import Held, Names, NameTable, own_alike, strongest
from server.privacy import Admission
from server.ratings import is_guest
from server.room import BotNameList, Member, Room, RoomSettings, Seat
from server.session import RoomRef, Session

log = structlog.get_logger("cafe.directory")

#: seconds between two room lists sent to the people watching it, however many rooms change
LOBBY_EVERY = 0.5


def listed(rooms: list[m.RoomSummary]) -> list[m.RoomSummary]:
    """The rooms a list shows: all but the private ones (people come in by name or invitation)."""
    return [r for r in rooms if not r.options.get("private")]


class Directory(Protocol):
    """What the lobby needs to know of names and rooms, here or across a cluster."""

    @property
    def rooms(self) -> Mapping[str, Room]:
        """The room actors of this process, by casefolded name."""

    @property
    def ready(self) -> bool:
        """Whether the directory can answer now (a cluster node reaches Redis)."""

    def session(self, name: str) -> Session | None:
        """This process's connection holding ``name``, if any."""

    def attach(self, session: Session) -> None:
        """A new connection."""

    def detach(self, session: Session) -> None:
        """A connection is gone (its name, if it had one, is unbound first)."""

    async def claim_name(self, name: str, own: str | None = None) -> Held | None:
        """Take ``name`` for a connection (``None``), unless it or a look-alike belongs to someone
        else, here or anywhere (see :data:`Held`): someone connected, a name held for the resume
        window, or a seat in a running game. ``own`` is a name proved to be the claimant's (a
        resume token's, an account's, the connection's own): what holds it is not someone else."""

    def away(self, name: str, until: float) -> None:
        """``name``'s connection closed with its token good until ``until`` (Unix time): nobody
        but the token's holder takes the name or a look-alike until then. Called before
        :meth:`unbind`."""

    def bind(self, session: Session) -> None:
        """``session.name`` now names this connection."""

    def unbind(self, session: Session, name: str) -> None:
        """``name`` no longer names ``session``."""

    def moved(self, session: Session) -> None:
        """``session`` entered or left a room."""

    def watch_rooms(self, session: Session) -> None:
        """``session``, in the lobby, asked for the room list: send it the list's changes."""

    async def people(self) -> list[m.Person]:
        """Everyone connected, by name."""

    async def room_list(self) -> list[m.RoomSummary]:
        """Every room, by name."""

    async def resolve(self, name: str) -> RoomRef:
        """The room called ``name``, made when nobody holds it."""

    async def seat_room(self, name: str) -> RoomRef | None:
        """The room whose running game ``name`` has a seat in, if any."""

    async def invite(self, room: str, identity: str) -> None:
        """The player ``identity`` is invited to ``room``: on its guest list until the room closes."""

    async def admission(self, room: RoomRef, session: Session) -> Admission:
        """Whether ``session`` may enter ``room``: ``"guest"`` (on its guest list, or a player of
        its game), ``"open"`` (the room is not private) or ``"closed"``."""

    async def private_rooms(self) -> set[str]:
        """The private rooms, by casefolded name."""


class LocalDirectory:
    """The directory of a single process, and the host of its rooms."""

    def __init__(self, config: Config, store: GameLog, metrics: Metrics) -> None:
        self.config = config
        self.log = store
        self.metrics = metrics
        self.settings = RoomSettings(
            resume_window=config.resume_window,
            clock_min=config.clock_min,
            bot_budget=config.bot_budget,
            max_bot_games=config.max_bot_games,
        )
        self.names = Names()
        self.sessions = self.names.sessions  # casefolded name -> session
        self.rooms: dict[str, Room] = {}  # casefolded room name -> room
        self.bot_names = BotNameList(taken=self.name_in_use)
        self.bots = BotPool(config.bot_workers)
        #: each room's line as the lobby was last told it, by casefolded name
        #: the line of each room the watchers of the room list were last told of
        self._told: dict[str, tuple[Any, ...]] = {}
        self._watchers: set[Session] = set()
        self._telling: asyncio.TimerHandle | None = None
        #: a seated player's name -> the game that left memory with nobody in its room
        self._unloaded: NameTable[str] = NameTable()
        #: the rooms whose game is running, as room_changed last saw them
        self._playing: set[str] = set()
        #: called with a room's name (``None`` for a private room) and players when its game starts
        self.on_game_start: Callable[[str | None, list[str]], None] = lambda room, players: None
        #: each room's guest list: the players (identities) invited, or in it when it became private
        self._guests: dict[str, set[str]] = {}
        #: the rooms that are private, as room_changed last saw them
        self._private: set[str] = set()
        metrics.rooms.set_function(lambda: len(self.rooms))
        metrics.games_running.set_function(
            lambda: sum(1 for room in self.rooms.values() if room.state == "playing")
        )

    # --- names ---------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return True  # everything is in this process

    def session(self, name: str) -> Session | None:
        return self.names.session(name)

    def attach(self, session: Session) -> None:
        pass

    def detach(self, session: Session) -> None:
        self._watchers.discard(session)

    def name_in_use(self, name: str) -> bool:
        """Someone here holds ``name`` or one like it: a connection, a name held for the window,
        a bot, or a held seat."""
        return self.name_held(name) is not None

    def name_held(self, name: str, own: str | None = None) -> Held | None:
        """Whether someone here holds ``name`` or a name that looks like it: a connection, a name
        held for the resume window, a bot (a bot's look-alikes are reserved names), or a seat in a
        running game, here or in a game that left memory. ``own``, a name proved to be the
        claimant's, and whatever holds it, are not someone else."""
        own = own_alike(name, own)
        bot: Held | None = "taken" if name in self.bot_names else None
        return strongest(
            (self.names.held(name, own), bot, self._unloaded.held(name, own), self._seat_held(name, own))
        )

    def _seat_held(self, name: str, own: str | None) -> Held | None:
        """Whether a seat of a running game here holds ``name`` or a look-alike, ``own`` aside."""
        key, form, mine = name.casefold(), alike(name), None if own is None else own.casefold()
        found: Held | None = None
        for room in self.rooms.values():  # (as many as the running games)
            if room.state != "playing":
                continue
            for seat in room.seats:
                seat_key = seat.name.casefold()
                if seat.strategy is not None or seat_key == mine:
                    continue
                if seat_key == key:
                    return "taken"
                if alike(seat_key) == form:
                    found = "alike"
        return found

    async def claim_name(self, name: str, own: str | None = None) -> Held | None:
        return self.name_held(name, own)

    def away(self, name: str, until: float) -> None:
        self.names.away(name, until)

    def bind(self, session: Session) -> None:
        self.names.bind(session)

    def unbind(self, session: Session, name: str) -> None:
        self.names.unbind(session, name)

    def moved(self, session: Session) -> None:
        if session.room is not None:
            self._watchers.discard(session)

    async def people(self) -> list[m.Person]:
        private = await self.private_rooms()
        return [
            m.Person(
                name=s.name or "",
                kind=s.kind,
                room=s.room.name if s.room else None,
                guest=is_guest(s.kind, s.identity),
                private=s.room is not None and s.room.name.casefold() in private,
            )
            for s in sorted(self.sessions.values(), key=lambda s: (s.name or "").casefold())
        ]

    # --- private rooms -------------------------------------------------------------------------

    async def invite(self, room: str, identity: str) -> None:
        self._guests.setdefault(room.casefold(), set()).add(identity)

    async def admission(self, room: RoomRef, session: Session) -> Admission:
        if await self._is_guest(room.name, session.identity) or await self._holds_seat(room, session.name):
            return "guest"
        return "closed" if await self._is_private(room) else "open"

    async def _is_guest(self, room: str, identity: str | None) -> bool:
        return identity is not None and identity in self._guests.get(room.casefold(), ())

    async def _holds_seat(self, room: RoomRef, name: str | None) -> bool:
        return isinstance(room, Room) and name is not None and room.core.seat_of(name) is not None

    async def _is_private(self, room: RoomRef) -> bool:
        return isinstance(room, Room) and room.options.private

    async def private_rooms(self) -> set[str]:
        return {key for key, room in self.rooms.items() if room.options.private}

    def _privacy_changed(self, room: Room, private: bool) -> None:
        """``room`` became private (its members are its guests from now on), or public again."""
        if private:
            guests = self._guests.setdefault(room.name.casefold(), set())
            guests.update(member.identity for member in room.members if member.identity is not None)

    def refused_entry(self, room: Room, member: Member) -> None:
        if isinstance(member, Session) and member.room is room:
            member.room = None
            self.moved(member)

    # --- rooms ---------------------------------------------------------------------------------

    async def room_list(self) -> list[m.RoomSummary]:
        return [r.summary() for r in self._sorted_rooms()]

    def _sorted_rooms(self) -> list[Room]:
        return sorted(self.rooms.values(), key=lambda r: r.name.casefold())

    async def resolve(self, name: str) -> RoomRef:
        return self.rooms.get(name.casefold()) or self.create_room(name)

    async def seat_room(self, name: str) -> RoomRef | None:
        for room in self.rooms.values():
            if self._running_seat(room, name) is not None:
                return room
        return await self._reload(name)

    async def _reload(self, name: str) -> Room | None:
        """Take up again the game that waited with nobody in its room until it left memory, for
        one of its players who came back."""
        game_id = self._unloaded.pop(name.casefold(), None)
        if game_id is None:
            return None
        for key in [k for k, g in self._unloaded.items() if g == game_id]:
            del self._unloaded[key]
        stored = await self.log.game(game_id)
        if stored is None or stored.finished is not None or stored.room.casefold() in self.rooms:
            return None  # (its room's name was taken by a new room meanwhile: the game stays logged)
        room = self.create_room(stored.room)
        await room.restore(stored)
        return room

    def create_room(self, name: str) -> Room:
        """A new room actor here, running."""
        room = Room(name, self)
        self.rooms[name.casefold()] = room
        room.start()
        return room

    async def restore(self, games: list[StoredGame]) -> None:
        """Bring back unfinished games from the log, as their players left them."""
        for stored in games:
            room = self.rooms.get(stored.room.casefold()) or self.create_room(stored.room)
            await room.restore(stored)

    @staticmethod
    def _running_seat(room: Room, name: str) -> Seat | None:
        if room.state != "playing":
            return None
        seat = room.core.seat_of(name)
        return seat if seat is not None and seat.strategy is None else None  # over a connection

    # --- the rooms' host ------------------------------------------------------------------------

    def room_changed(self, room: Room) -> None:
        """Tell the people watching the room list, when this room's line in it changed (checked
        only while someone watches: this runs after every command a room handles), and the
        players' friends, when its game started."""
        key = room.name.casefold()
        private = room.options.private
        if private != (key in self._private):
            if private:
                self._private.add(key)
            else:
                self._private.discard(key)
            self._privacy_changed(room, private)
        playing = room.state == "playing"
        if playing != (key in self._playing):
            if playing:
                self._playing.add(key)
                players = [s.name for s in room.seats if s.kind == "person"]
                self.on_game_start(None if private else room.name, players)
            else:
                self._playing.discard(key)
        if not self._watchers:
            return
        line = room.core.listing()
        if self._told.get(key) != line:
            self._told[key] = line
            self._tell_lobby()

    def room_empty(self, room: Room) -> None:
        if self.rooms.get(room.name.casefold()) is room:
            del self.rooms[room.name.casefold()]
            if room.core.unloaded and room.game is not None:
                for seat in room.seats:  # their seats wait in the log: a player's return takes it up
                    if seat.strategy is None:
                        self._unloaded[seat.name.casefold()] = room.game.game_id
            self._playing.discard(room.name.casefold())
            self._private.discard(room.name.casefold())
            self._guests.pop(room.name.casefold(), None)  # invitations end with their room
            for seat in room.seats:
                if seat.kind == "bot":
                    self.bot_names.release(seat.name)
            if self._told.pop(room.name.casefold(), None) is not None or self._watchers:
                self._tell_lobby()

    def watch_rooms(self, session: Session) -> None:
        """``session``, in the lobby, asked for the room list: it is sent the list's changes until
        it enters a room or goes."""
        self._watchers.add(session)

    def _tell_lobby(self) -> None:
        """Send the room list, unasked (no ``id``), to everyone watching it: at most once every
        ``LOBBY_EVERY`` seconds, however many rooms change meanwhile."""
        if self._telling is None:
            self._telling = asyncio.get_running_loop().call_later(LOBBY_EVERY, self._told_lobby)

    def _told_lobby(self) -> None:
        self._telling = None
        watchers = [s for s in self._watchers if s.room is None and not s.closed]
        self._watchers = set(watchers)
        if watchers:
            message = Outgoing(m.Rooms(rooms=listed([r.summary() for r in self._sorted_rooms()])))
            for session in watchers:
                session.send(message)

    def bot_games(self, name: str) -> int:
        key = name.casefold()
        count = 0
        for room in self.rooms.values():
            if room.state == "playing":
                seats = room.seats
                mine = [s for s in seats if s.name.casefold() == key and s.strategy is None]
                if mine and all(s.strategy is not None for s in seats if s not in mine):
                    count += 1
        return count

    def lease_lost(self, room: Room) -> None:
        self.rooms.pop(room.name.casefold(), None)
