"""The directory: who is connected under which name, the rooms and where they run.

The lobby asks the directory and never the cluster: :class:`LocalDirectory` answers for one
process; ``server.cluster.ClusterDirectory`` answers the same questions for several nodes sharing
Redis. Each is made of parts with one job each: the names held here
(:mod:`server.directory.names`), the rooms of this process and their host
(:mod:`server.directory.rooms`), the people watching the room list (:mod:`server.directory.roomlist`)
and, in one process, the private rooms' guest lists (:mod:`server.directory.guests`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from protocol import messages as m
from server.botpool import BotPool
from server.config import Config
from server.directory.guests import GuestLists
from server.directory.names import Held, Names, NameTable, own_alike, strongest
from server.directory.privacy import Admission
from server.directory.roomlist import RoomListWatchers
from server.directory.rooms import LocalRooms
from server.log.contract import GameLog, StoredGame
from server.metrics import Metrics
from server.ratings import is_guest
from server.room import Member, Room
from server.session import RoomRef, Session


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

    def unclaim(self, name: str) -> None:
        """A claim of ``name`` (:meth:`claim_name`, for a new name) came to nothing: the hello
        failed after it, and the name is free again at once."""

    def away(self, name: str, until: float, token: str) -> None:
        """``name``'s connection closed with its ``token`` good until ``until`` (Unix time):
        nobody but the token's holder takes the name or a look-alike until then, or until the
        token no longer holds. Called before :meth:`unbind`."""

    def bind(self, session: Session) -> None:
        """``session.name`` now names this connection."""

    async def published(self) -> None:
        """Wait until every node sees what this process has changed so far of who is connected
        where (a cluster node's writes to Redis; at most a moment)."""

    def unbind(self, session: Session, name: str) -> None:
        """``name`` no longer names ``session``."""

    def moved(self, session: Session) -> None:
        """``session`` entered or left a room, or what is known of it changed (its identity, a
        seek)."""

    def watch_rooms(self, session: Session, answered: list[m.RoomSummary] | None) -> None:
        """``session``, in the lobby, asked for the room list and was ``answered`` it (``None``:
        before the list is read): send it the list's changes."""

    async def people(self) -> list[m.Person]:
        """Everyone connected, by name."""

    async def room_list(self) -> list[m.RoomSummary]:
        """Every room, by name."""

    async def resolve(self, name: str) -> RoomRef:
        """The room called ``name``, made when nobody holds it."""

    async def make_way(self) -> bool:
        """At ``--max-rooms``: whether a room here whose game waits with nobody in it left memory
        to make way for a new one (:meth:`LocalRooms.make_way`)."""

    async def seat_room(self, name: str) -> RoomRef | None:
        """The room whose running game ``name`` has a seat in, if any."""

    async def back_room(self, name: str) -> RoomRef | None:
        """The room ``name`` comes back to with their token: the one whose running game has their
        seat, or one whose game ended while they were away (its result is there)."""

    async def replaced(self, name: str) -> bool:
        """A connection here took ``name`` back (a resume token, a login): any other process's
        connection of that name is the old one, and goes. Whether another process had one."""

    async def plays_in(self, name: str, room: str) -> bool:
        """Whether ``name`` holds a seat of the running game in ``room`` (the room they are in),
        played over their connection: they are playing there now. Takes up no game."""

    async def expire(self, before: float) -> int:
        """End the games that wait with nobody in their rooms, out of memory, and began before
        ``before`` (Unix time): ``closed``, unrated. How many this process took up to end."""

    async def invite(self, room: str, identity: str) -> None:
        """The player ``identity`` is invited to ``room``: on its guest list until the room closes."""

    async def identity_changed(self, old: str, new: str) -> None:
        """The player ``old`` is ``new`` from now on (they registered, or deleted their account):
        their invitations go with them, and whoever is ``old`` later (a name registered again)
        finds none of them."""

    async def admission(self, room: RoomRef, session: Session) -> Admission:
        """Whether ``session`` may enter ``room``: ``"guest"`` (on its guest list, or a player of
        its game), ``"open"`` (the room is not private) or ``"closed"``."""

    async def private_rooms(self) -> set[str]:
        """The private rooms, by casefolded name."""


class LocalDirectory:
    """The directory of a single process: its names, its rooms (whose owner it is), the people
    watching the room list and the private rooms' guest lists."""

    def __init__(self, config: Config, store: GameLog, metrics: Metrics) -> None:
        self.config = config
        self.names = Names()
        self.local = LocalRooms(config, store, metrics, owner=self, taken=self.name_in_use)
        self.watchers = RoomListWatchers(self.room_list)
        self.guests = GuestLists()
        #: each person as ``who`` lists them, by what the list says of them (a message is frozen:
        #: one serves every list until they change), so that a list of N people builds only those
        #: who changed since the last, not N (every page in the lobby asks every ten seconds)
        self._persons: dict[tuple[str, str, str | None, bool, bool, bool], m.Person] = {}

    @property
    def log(self) -> GameLog:
        """The game log."""
        return self.local.log

    @property
    def rooms(self) -> dict[str, Room]:
        """The room actors of this process, by casefolded name."""
        return self.local.rooms

    @property
    def bots(self) -> BotPool:
        """Where the server's bots think."""
        return self.local.bots

    @property
    def sessions(self) -> NameTable[Session]:
        """This process's connections, by casefolded name."""
        return self.names.sessions

    @property
    def on_game_start(self) -> Callable[[str | None, list[str]], None]:
        """Called with a room's name (``None`` for a private room) and players when its game starts."""
        return self.local.on_game_start

    @on_game_start.setter
    def on_game_start(self, call: Callable[[str | None, list[str]], None]) -> None:
        self.local.on_game_start = call

    async def restore(self, games: list[StoredGame]) -> None:
        """Bring back unfinished games from the log, as their players left them."""
        await self.local.restore(games)

    # --- names ---------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return True  # everything is in this process

    def session(self, name: str) -> Session | None:
        return self.names.session(name)

    def attach(self, session: Session) -> None:
        pass

    def detach(self, session: Session) -> None:
        self.watchers.gone(session)

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
        return strongest((self.names.held(name, own), self.local.name_held(name, own)))

    async def claim_name(self, name: str, own: str | None = None) -> Held | None:
        return self.name_held(name, own)

    def unclaim(self, name: str) -> None:
        pass  # (one process claims nothing ahead: a name is taken when bound)

    def away(self, name: str, until: float, token: str) -> None:
        self.names.away(name, until, token)

    def bind(self, session: Session) -> None:
        self.names.bind(session)

    async def published(self) -> None:
        pass  # (one process: its names are seen at once)

    def unbind(self, session: Session, name: str) -> None:
        self.names.unbind(session, name)

    def moved(self, session: Session) -> None:
        self.watchers.moved(session)

    def watch_rooms(self, session: Session, answered: list[m.RoomSummary] | None) -> None:
        self.watchers.watch(session, answered)

    async def people(self) -> list[m.Person]:
        private = await self.private_rooms()
        persons = self._persons
        if len(persons) > 2 * len(self.sessions) + 100:  # (the people who left, forgotten)
            persons.clear()
        listed = []
        for s in sorted(self.sessions.values(), key=lambda s: (s.name or "").casefold()):
            room = s.room.name if s.room else None
            key = (
                s.name or "",
                s.kind,
                room,
                is_guest(s.kind, s.identity),
                room is not None and room.casefold() in private,
                s.seeking,
            )
            person = persons.get(key)
            if person is None:
                name, kind, room, guest, hidden, seeking = key
                person = persons[key] = m.Person(
                    name=name, kind=kind, room=room, guest=guest, private=hidden, seeking=seeking
                )
            listed.append(person)
        return listed

    # --- rooms ---------------------------------------------------------------------------------

    async def room_list(self) -> list[m.RoomSummary]:
        return [r.summary() for r in self.local.sorted()]

    async def resolve(self, name: str) -> RoomRef:
        # (a room whose game left memory is that game's: it comes back rather than a new room)
        key = name.casefold()
        room = self.rooms.get(key) or await self.local.taken_up(name)
        return room or self.rooms.get(key) or self.local.create_room(name)

    async def make_way(self) -> bool:
        return await self.local.make_way()

    async def seat_room(self, name: str) -> RoomRef | None:
        return await self.local.seat_room(name)

    async def back_room(self, name: str) -> RoomRef | None:
        return await self.local.seat_room(name) or self.local.ended_away(name)

    async def replaced(self, name: str) -> bool:
        return False  # (one process: its lobby closed the old connection itself)

    async def plays_in(self, name: str, room: str) -> bool:
        found = self.rooms.get(room.casefold())
        return found is not None and self.local.running_seat(found, name) is not None

    async def expire(self, before: float) -> int:
        return await self.local.expire(before)

    # --- private rooms -------------------------------------------------------------------------

    async def invite(self, room: str, identity: str) -> None:
        self.guests.invite(room, identity)

    async def identity_changed(self, old: str, new: str) -> None:
        self.guests.follow(old, new)

    async def admission(self, room: RoomRef, session: Session) -> Admission:
        if self.guests.is_guest(room.name, session.identity) or (
            isinstance(room, Room) and session.name is not None and self.local.holds_seat(room, session.name)
        ):
            return "guest"
        return "closed" if isinstance(room, Room) and room.options.private else "open"

    async def private_rooms(self) -> set[str]:
        return self.local.private()

    # --- what the rooms tell (their owner) ---------------------------------------------------------

    def room_changed(self, room: Room) -> None:
        self.watchers.changed(room)

    def privacy_changed(self, room: Room, private: bool) -> None:
        if private:
            self.guests.became_private(room)

    def room_gone(self, room: Room) -> None:
        self.guests.closed(room)
        self.watchers.gone_room(room)

    def lease_lost(self, room: Room) -> None:
        self.local.lost(room.name.casefold())

    def refused_entry(self, room: Room, member: Member) -> None:
        if isinstance(member, Session) and member.room is room:
            member.room = None
            self.moved(member)
