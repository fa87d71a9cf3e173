"""The room actors of this process and their host (:class:`~server.room.RoomHost`): what the rooms
need of the process (the log, the settings, the bot names, the pool where bots think, the metrics,
and the rooms' gauges in it), and the seats their running games hold.

Its owner, a directory, hears what the rooms tell (:class:`RoomsOwner`): a line of the room list
changed, a room became private, went, lost its lease, refused someone.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable
from typing import Protocol

import structlog

from engine.errors import EngineError
from protocol.names import alike
from server.botpool import BotPool
from server.config import Config
from server.directory.names import Held, NameTable, strongest
from server.log.contract import GameLog, StoredGame
from server.metrics import Metrics
from server.room import BotNameList, Member, Room, RoomSettings, Seat
from server.room.items import Expired, MakeWay

log = structlog.get_logger("cafe.rooms")


class RoomsOwner(Protocol):
    """What the owner of the rooms hears from them."""

    def room_changed(self, room: Room) -> None:
        """``room`` handled something: its line in the room list may have changed."""

    def privacy_changed(self, room: Room, private: bool) -> None:
        """``room`` became private (its members are its guests from now on), or public again."""

    def room_gone(self, room: Room) -> None:
        """``room`` emptied and left this process."""

    def lease_lost(self, room: Room) -> None:
        """Another node owns ``room`` now."""

    def refused_entry(self, room: Room, member: Member) -> None:
        """``room`` refused ``member`` entry: wherever it is connected, it is in no room."""


class LocalRooms:
    """The rooms of this process, by casefolded name, and the host every one of them is given."""

    def __init__(
        self,
        config: Config,
        log: GameLog,
        metrics: Metrics,
        owner: RoomsOwner,
        taken: Callable[[str], bool],
        *,
        keeps_unloaded: bool = True,
    ) -> None:
        self.log = log
        #: whether the games that left memory are remembered here, for their players' return and
        #: ``expire`` (a cluster keeps them in Redis instead: its idle rooms)
        self.keeps_unloaded = keeps_unloaded
        self.metrics = metrics
        self.owner = owner
        self.settings = RoomSettings(
            resume_window=config.resume_window,
            clock_min=config.clock_min,
            bot_budget=config.bot_budget,
            max_bot_games=config.max_bot_games,
        )
        self.rooms: dict[str, Room] = {}  # casefolded room name -> room
        #: the rooms asked to make way for a new one, until they have gone (``make_way``)
        self._making_way: set[Room] = set()
        #: the names of the server's bots in this process's rooms (``taken``: names people hold)
        self.bot_names = BotNameList(taken=taken)
        self.bots = BotPool(config.bot_workers)
        #: a seated player's name -> the game that left memory with nobody in its room
        self._unloaded: NameTable[str] = NameTable()
        #: the casefolded name of a room whose game left memory -> that game
        self._unloaded_rooms: dict[str, str] = {}
        #: when such a game began, once ``expire`` read it (``-inf``: it no longer runs)
        self._started: dict[str, float] = {}
        self._taking_up = asyncio.Lock()
        #: the rooms whose game is running, as room_changed last saw them
        self._playing: set[str] = set()
        #: the rooms that are private, as room_changed last saw them
        self._private: set[str] = set()
        #: called with a room's name (``None`` for a private room) and players when its game starts
        self.on_game_start: Callable[[str | None, list[str]], None] = lambda room, players: None
        metrics.rooms.set_function(lambda: len(self.rooms))
        metrics.games_running.set_function(
            lambda: sum(1 for room in self.rooms.values() if room.state == "playing")
        )

    # --- rooms ---------------------------------------------------------------------------------

    def sorted(self) -> list[Room]:
        """The rooms, by name."""
        return sorted(self.rooms.values(), key=lambda r: r.name.casefold())

    def create_room(self, name: str) -> Room:
        """A new room actor here, running."""
        room = Room(name, self)
        self.rooms[name.casefold()] = room
        room.start()
        return room

    async def restore(self, games: list[StoredGame]) -> None:
        """Bring back unfinished games from the log, as their players left them. One that no
        longer replays by the rules (a log edited by hand) keeps no other from being played: it
        stays in the log as it is, not taken up, and is logged (``cafe-admin check`` names it)."""
        for stored in games:
            await self._restored(stored, self.rooms.get(stored.room.casefold()))

    async def _restored(self, stored: StoredGame, room: Room | None = None) -> Room | None:
        """``stored`` taken up in ``room``, or in a new room of its name: the room, or ``None``
        when the game no longer replays (logged; a room made for it goes again)."""
        made = room is None
        room = room or self.create_room(stored.room)
        try:
            await room.restore(stored)
        except EngineError as e:
            log.error("game_unrestorable", game=stored.game_id, room=stored.room, error=str(e))
            if made:
                del self.rooms[stored.room.casefold()]
                room.abandon()
            return None
        return room

    async def make_way(self) -> bool:
        """Make room for one more: a room whose game waits with nobody in it and nobody's resume
        window running (its players left it, or their windows passed) leaves memory now rather
        than after the resume window, its game kept in the log, where a player's return takes it
        up as it was. Whether one did (none waits: the rooms are all in use). Games against the
        bots left by however many names one machine starts them under never keep a room from the
        people here."""
        # (not a game whose player's resume window runs: someone who lost the connection a moment
        # ago finds their room as they left it)
        waiting = [
            room
            for room in self.rooms.values()
            if not room.core.members
            and (
                (room.state == "playing" and not room.core.unloaded and not room.core.clock.windows)
                or (room.state == "over" and room.core.lingering)  # (its game over and in the log)
            )
            and room not in self._making_way  # (another new room's: one each)
        ]
        # games over first, then bots waiting
        for room in sorted(waiting, key=lambda r: (r.state == "playing", not r.core.clock.suspended)):
            self._making_way.add(room)
            try:
                room.post(None, MakeWay())
                await room.settled()
            finally:
                self._making_way.discard(room)
            if self.rooms.get(room.name.casefold()) is not room:
                return True
        return False

    def lost(self, key: str) -> Room | None:
        """The room of casefolded name ``key`` is no longer this process's: forgotten here."""
        self._private.discard(key)
        return self.rooms.pop(key, None)

    def private(self) -> set[str]:
        """The private rooms here, by casefolded name (the rooms themselves say)."""
        return {key for key, room in self.rooms.items() if room.options.private}

    # --- seats ---------------------------------------------------------------------------------

    async def seat_room(self, name: str) -> Room | None:
        """The room here whose running game ``name`` has a seat in, or lost it in (voted out, or
        their seat taken over: they come back to watch it), taking up again a game that left
        memory for one of its players who came back."""
        for room in self.rooms.values():
            if self.running_seat(room, name) is not None:
                return room
            game = room.game
            if room.state == "playing" and game is not None and room.core.seats.barred(game.game_id, name):
                return room
        return await self._reload(name)

    def ended_away(self, name: str) -> Room | None:
        """The room here whose game ended while ``name``, one of its players, was away (their seat
        waited for them): back, they find its result there."""
        key, now = name.casefold(), asyncio.get_running_loop().time()
        for room in self.rooms.values():
            play = room.core.play
            if room.state == "over" and key in play.away_at_end and now < play.away_until:
                return room
        return None

    async def _reload(self, name: str) -> Room | None:
        return await self._take_up(self._unloaded.get(name.casefold()))

    async def taken_up(self, room: str) -> Room | None:
        """The room ``room`` with the game that left memory in it, taken up again (someone wants
        a room of that name: it is that game's, which its players come back to), if there is one."""
        return await self._take_up(self._unloaded_rooms.get(room.casefold()))

    async def _take_up(self, game_id: str | None, *, fresh: bool = False) -> Room | None:
        """The room of ``game_id``, a game that left memory, taken up again (or already: ``None``
        with ``fresh``)."""
        if game_id is None:
            return None
        async with self._taking_up:  # (one at a time: two asking for one game get its one room)
            for room in self.rooms.values():
                if room.game is not None and room.game.game_id == game_id:
                    return None if fresh else room
            stored = await self.log.game(game_id)
            taken: Room | None = None
            if stored is not None and stored.finished is None and stored.room.casefold() not in self.rooms:
                taken = await self._restored(stored)  # (else a game the log holds running no longer)
            # forgotten once its room is there: whoever asks meanwhile finds it, or waits here
            for key in [k for k, g in self._unloaded.items() if g == game_id]:
                del self._unloaded[key]
            for key in [k for k, g in self._unloaded_rooms.items() if g == game_id]:
                del self._unloaded_rooms[key]
            self._started.pop(game_id, None)
            return taken

    async def expire(self, before: float) -> int:
        """End the games that left memory with nobody in their rooms and began before ``before``
        (Unix time): each is taken up again and, still with nobody in its room, ends as when the
        staff close it (``closed``, unrated); how many were taken up to end."""
        ended = 0
        for game_id in sorted(set(self._unloaded_rooms.values())):
            try:
                started = self._started.get(game_id)
                if started is None:
                    stored = await self.log.game(game_id)
                    started = stored.started if stored is not None and stored.finished is None else -math.inf
                    self._started[game_id] = started
                if started >= before:
                    continue
                # (one a returning player took up meanwhile is theirs; one no longer running or
                # replaying is only forgotten)
                room = await self._take_up(game_id, fresh=True)
            except Exception:  # (one game's fault keeps no other from ending)
                log.exception("expiry_failed", game=game_id)
                continue
            if room is not None:
                room.post(None, Expired())
                ended += 1
        return ended

    @staticmethod
    def running_seat(room: Room, name: str) -> Seat | None:
        if room.state != "playing":
            return None
        seat = room.core.seat_of(name)
        return seat if seat is not None and seat.strategy is None else None  # over a connection

    def holds_seat(self, room: Room, name: str) -> bool:
        """Whether ``name`` has a seat in ``room``."""
        return room.core.seat_of(name) is not None

    def name_held(self, name: str, own: str | None) -> Held | None:
        """Whether a bot here is called ``name`` (a bot's look-alikes are reserved names), or a
        seat of a running game (here, or in a game that left memory) holds ``name`` or a
        look-alike; ``own``, a look-alike proved to be the claimant's, aside."""
        bot: Held | None = "taken" if name in self.bot_names else None
        return strongest((bot, self._unloaded.held(name, own), self._seat_held(name, own)))

    def _seat_held(self, name: str, own: str | None) -> Held | None:
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

    def seated(self, connected: Callable[[str], bool]) -> list[str]:
        """The names of the players whose seats this process's running games hold, but those
        ``connected`` says are connected here."""
        return [
            seat.name
            for room in list(self.rooms.values())
            if room.state == "playing"
            for seat in room.seats
            if seat.strategy is None and not connected(seat.name)
        ]

    # --- the rooms' host -------------------------------------------------------------------------

    def room_changed(self, room: Room) -> None:
        """A room handled something: its owner hears when it became private or public, its
        players' friends (``on_game_start``) when its game started, and the owner that it changed."""
        key = room.name.casefold()
        private = room.options.private
        if private != (key in self._private):
            if private:
                self._private.add(key)
            else:
                self._private.discard(key)
            self.owner.privacy_changed(room, private)
        playing = room.state == "playing"
        if playing != (key in self._playing):
            if playing:
                self._playing.add(key)
                players = [s.name for s in room.seats if s.kind == "person"]
                self.on_game_start(None if private else room.name, players)
            else:
                self._playing.discard(key)
        self.owner.room_changed(room)

    def room_empty(self, room: Room) -> None:
        """A room emptied: it goes (its game's seats wait in the log when it left memory)."""
        if self.rooms.get(room.name.casefold()) is not room:
            return
        del self.rooms[room.name.casefold()]
        if room.core.unloaded and room.game is not None and self.keeps_unloaded:
            for seat in room.seats:  # their seats wait in the log: a player's return takes it up
                if seat.strategy is None:
                    self._unloaded[seat.name.casefold()] = room.game.game_id
            self._unloaded_rooms[room.name.casefold()] = room.game.game_id
        self._playing.discard(room.name.casefold())
        self._private.discard(room.name.casefold())
        for seat in room.seats:
            if seat.kind == "bot":
                self.bot_names.release(seat.name)
        self.owner.room_gone(room)

    def lease_lost(self, room: Room) -> None:
        self.owner.lease_lost(room)

    def refused_entry(self, room: Room, member: Member) -> None:
        self.owner.refused_entry(room, member)

    def bot_games(self, name: str, identity: str | None) -> int:
        """How many games here the person ``name`` (or ``identity``) plays against the server's
        bots alone (:func:`bot_games`)."""
        return bot_games(self.rooms.values(), name, identity)


def bot_games(rooms: Iterable[Room], name: str, identity: str | None) -> int:
    """How many of ``rooms`` play a game of the person ``name`` against the server's bots alone:
    seats under the name, or of the player behind it (``identity``), so that a new name (``/nick``)
    or a new identity (``/register``, ``/unregister``) alone does not start the count afresh."""
    key = name.casefold()
    count = 0
    for room in rooms:
        if room.state == "playing":
            seats = room.seats
            mine = [
                s
                for s in seats
                if s.strategy is None
                and (s.name.casefold() == key or (identity is not None and s.identity == identity))
            ]
            if mine and all(s.strategy is not None for s in seats if s not in mine):
                count += 1
    return count
