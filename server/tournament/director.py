"""The director: runs the tournaments on a live server, on the event loop (a round's pairing,
which may take a tenth of a second, in a thread).

Every tick (a second, or sooner when a command changed one) it reads each tournament that is not
over from the store, takes the results of its games that ended from the game log, asks the state
what is due (:meth:`~server.tournament.state.Tournament.due`) and writes it back over the version
it read; then it makes the rooms of the tables that have none yet (:class:`Opener`: a new room,
its players seated, the game started) and writes their rooms and games. The store is the only
memory: a restart, or ``kill -9`` at any instant, loses nothing, and a table written but not yet
made is made after it. Commands change a tournament the same way, read and written over the
version (:meth:`Director.change`), so that no change is lost between two writers.

In a cluster one node directs, the one that holds the tournaments' lease (:class:`Lease`); any
node answers the commands.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Protocol, TypeVar

import structlog

from engine import parse_leave
from protocol.i18n import _
from protocol.limits import TOURNAMENT_JOINS_PER_HOUR, TOURNAMENTS_MADE_PER_HOUR
from protocol.options import RoomOptions
from server.log.contract import GameLog, StoredTournament, StoreUnavailable
from server.tournament.state import OVER, Tournament

log = structlog.get_logger("cafe.tournament")


def _bye(t: Tournament) -> str:
    return _(
        "Tournament {name}, round {round}: you have a bye, counted as a win.", name=t.name, round=t.round
    )


def _over(t: Tournament) -> str:
    lines = t.standings()
    if not lines:
        return _("Tournament {name} is over.", name=t.name)
    return _("Tournament {name} is over. Winner: {winner}.", name=t.name, winner=lines[0].name)


def _cancelled(t: Tournament) -> str:
    return _("Tournament {name} is cancelled: fewer than two players were in it at its start.", name=t.name)


#: seconds between two ticks of the director
TICK = 1.0
#: how many times a change is read and tried again when another writer came first
_TRIES = 8

T = TypeVar("T")


class Opener(Protocol):
    """What makes a table (the lobby's ``tables``, as the server wires it): a new room named
    after ``prefix`` for ``players`` (name and identity) with ``options``, its game started and
    its players seated; its room's name and game id. Raises when no table could be made."""

    async def __call__(
        self, players: Sequence[tuple[str, str | None]], options: RoomOptions, prefix: str
    ) -> tuple[str, str]: ...


class Lease(Protocol):
    """Whether this node directs the tournaments now (renewed at each call)."""

    async def holds(self) -> bool: ...


class Joins:
    """How many tournament joins (or tournaments made) each address made in the last hour, on
    this node: at most ``per_hour``. The oldest addresses are forgotten past ``addresses`` of them."""

    def __init__(self, per_hour: int = TOURNAMENT_JOINS_PER_HOUR, addresses: int = 10_000) -> None:
        self.per_hour = per_hour
        self.addresses = addresses
        self._times: dict[str, collections.deque[float]] = {}

    def allow(self, address: str, now: float) -> bool:
        """Count a join from ``address`` at ``now``; ``False`` (and not counted) past the bound."""
        times = self._times.get(address)
        if times is None:
            if len(self._times) >= self.addresses:
                del self._times[next(iter(self._times))]
            times = self._times[address] = collections.deque()
        while times and times[0] <= now - 3600.0:
            times.popleft()
        if len(times) >= self.per_hour:
            return False
        times.append(now)
        return True

    def give_back(self, address: str) -> None:
        """Uncount the latest join :meth:`allow` counted for ``address``: it did not enter anyone."""
        times = self._times.get(address)
        if times:
            times.pop()


#: everyone connected: each casefolded name, and the room they are in (``None``: the lobby)
People = Mapping[str, str | None]


class _Present:
    """Everyone connected, asked of ``people`` at the first call only: one tick's look, shared by
    its tournaments."""

    def __init__(self, people: Callable[[], Awaitable[People]]) -> None:
        self._people = people
        self._names: People | None = None

    async def __call__(self) -> People:
        if self._names is None:
            self._names = await self._people()
        return self._names


async def _tells_nobody(name: str, identity: str | None, text: str) -> bool:
    return False


async def _plays_nowhere(name: str, room: str) -> bool:
    return False


class Conflict(Exception):
    """A change lost to other writers too many times in a row; nothing of it was kept."""


def table_options(t: Tournament) -> RoomOptions:
    """A tournament game's room: the tournament's clock, seats drawn, and a player whose resume
    window passes leaves the game (no bot plays for them in a tournament)."""
    return RoomOptions(clock=t.clock, absent="drop", drawseat=True)


class Director:
    """The tournaments of a server (see the module)."""

    def __init__(
        self,
        store: GameLog,
        opener: Opener,
        *,
        people: Callable[[], Awaitable[People]],
        plays_in: Callable[[str, str], Awaitable[bool]] = _plays_nowhere,
        tell: Callable[[str, str | None, str], Awaitable[bool]] = _tells_nobody,
        lease: Lease | None = None,
        clock: Callable[[], float] = time.time,
        tick: float = TICK,
    ) -> None:
        self.store = store
        self.opener = opener
        #: everyone connected and the room they are in (a round or an arena seats only those) ...
        self.people = people
        #: ... less those playing a game in the room they are in (``plays_in(name, room)``): a
        #: tournament does not take a player from a game they are playing
        self.plays_in = plays_in
        #: a notice to an entrant (name, identity, text) wherever they are connected: a bye, the
        #: end, a close (a table tells its players by seating them)
        self.tell = tell
        self.lease = lease
        self.clock = clock
        self.tick_every = tick
        #: the joins of each address this hour
        self.joins = Joins()
        #: the tournaments made from each address in the last hour (closed ones count: an address
        #: making and closing them in a loop would fill the list of recent ones)
        self.made = Joins(TOURNAMENTS_MADE_PER_HOUR)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    # --- running -------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop ticking; returns once the loop has ended. The loop also checks a flag, since a
        store client may turn the cancel into an error of its own, which the loop lives through."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def poke(self) -> None:
        """Something changed: tick soon."""
        self._wake.set()

    async def _run(self) -> None:
        while not self._stopping:
            self._wake.clear()  # (a poke during the tick makes the next one come at once)
            try:
                if self.lease is None or await self.lease.holds():
                    await self.tick()
            except Exception as e:  # (the store out of reach: the next tick tries again)
                log.warning("tournament_tick_failed", error=repr(e))
            # asyncio.timeout, not wait_for: on Python 3.11 a cancel that comes as wait_for's time
            # runs out is turned into a TimeoutError, which would keep this loop (and a stop) going
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.tick_every):
                    await self._wake.wait()

    async def tick(self) -> None:
        """Advance every tournament that is not over. Who is connected is asked once a tick at
        most, by the first tournament that needs it; the look comes after every tournament was
        read, so that anyone one of them holds joined, connected, before it (a guest who has just
        joined is not put out as gone)."""
        present = _Present(self.people)
        for stored in await self.store.tournaments.tournaments_live():
            try:
                await self._advance(stored, present)
            except (StoreUnavailable, OSError, TimeoutError) as e:
                log.warning("tournament_unavailable", tournament=stored.state.get("id"), error=repr(e))

    async def _advance(self, stored: StoredTournament, people: _Present) -> None:
        t = Tournament.from_dict(stored.state)
        now = self.clock()
        ended = False
        for table in t.running_tables():
            if table.game_id is None:
                continue
            game = await self.store.game(table.game_id)
            if game is None or game.finished is None or game.result is None:
                continue
            places = {str(k): int(v) for k, v in game.result.get("places", {}).items()}
            scores = {str(k): int(v) for k, v in game.result.get("final_scores", {}).items()}
            left = [name for move in game.record.moves if (name := parse_leave(move)) is not None]
            ended |= t.game_over(table.number, places, scores, now, left)
        before = (t.status, t.round, len(t.tables), dict(t.waiting))
        # (one that needs nobody's presence is given none: it seats nobody now, whoever is here)
        present = await people() if t.reads_present(now) else {}
        gone = [] if t.over else t.drop_gone_guests(set(present))
        seatable = t.seatable(now)
        allowed = set(present) - await self._playing(seatable, present)
        # (a Swiss round of 128 players pairs in up to a few hundred ms: in a thread, while the
        # loop goes on with every game; nothing else touches this copy of the tournament)
        new = await asyncio.to_thread(t.due, now, allowed) if seatable else t.due(now, allowed)
        if ended or gone or new or before != (t.status, t.round, len(t.tables), dict(t.waiting)):
            if not await self.store.tournaments.tournament_saved(stored.version, t.to_dict()):
                return  # a command came first: read again at the next tick
            if new:
                log.info("tournament_seated", tournament=t.id, round=t.round, tables=[x.players for x in new])
            for table in new:
                if table.bye:
                    await self._tell(t, table.players, _bye(t))
            if t.over and before[0] not in OVER:
                log.info("tournament_over", tournament=t.id, status=t.status)
                if t.status in ("finished", "cancelled"):  # (a close is told as it is made)
                    told = _over(t) if t.status == "finished" else _cancelled(t)
                    await self._tell(t, [e.name for e in t.entrants if e.active], told)
        for table in t.running_tables():
            if table.game_id is None and not table.bye:
                await self._open(t, table.number)

    async def _tell(self, t: Tournament, names: Sequence[str], text: str) -> None:
        """Tell each of ``names``, entrants of ``t``, ``text``, wherever they are connected."""
        for name in names:
            entrant = t.entrant(name)
            try:
                await self.tell(name, entrant.identity if entrant is not None else None, text)
            except Exception as e:  # (a word lost: the tournament goes on)
                log.warning("tournament_notice_unsent", tournament=t.id, player=name, error=repr(e))

    async def closed(self, t: Tournament, by: str) -> None:
        """``t`` was closed by ``by``: its entrants still in, ``by`` aside, hear it."""
        names = [e.name for e in t.entrants if e.active and e.name.casefold() != by.casefold()]
        await self._tell(t, names, _("Tournament {name} was closed: no more tables are made.", name=t.name))

    async def _playing(self, names: Sequence[str], present: People) -> set[str]:
        """The casefolded ``names`` of those playing a game in the room they are in now: a Swiss
        round goes on without them, an arena seats them once that game is over."""
        playing = set()
        for name in names:
            room = present.get(name.casefold())
            if room is not None and await self.plays_in(name, room):
                playing.add(name.casefold())
        return playing

    async def _open(self, t: Tournament, number: int) -> None:
        """Make table ``number``'s room and game, and write them down."""
        table = t.table(number)
        assert table is not None
        identities = {e.name.casefold(): e.identity for e in t.entrants}
        players = [(name, identities.get(name.casefold())) for name in table.players]
        try:
            room, game_id = await self.opener(players, table_options(t), f"t{t.id}")
        except Exception as e:  # (the log or Redis out of reach: the next tick tries again)
            log.warning("tournament_table_refused", tournament=t.id, table=number, error=repr(e))
            return

        def made(fresh: Tournament) -> bool:
            found = fresh.table(number)
            if found is None or found.game_id is not None:
                return False  # (another director made it first, in the instant a lease moved)
            found.room, found.game_id = room, game_id
            return True

        if await self.change(t.id, made):
            log.info("tournament_table", tournament=t.id, table=number, room=room, game=game_id)
        else:
            log.warning("tournament_table_twice", tournament=t.id, table=number, room=room, game=game_id)

    # --- changes ---------------------------------------------------------------------------------

    async def entered(self, name: str, identity: str | None) -> str | None:
        """The name of an upcoming or running tournament the player ``identity``, named ``name``,
        is in (joined, not left), if any: a tournament knows its players by name."""
        for stored in await self.store.tournaments.tournaments_live():
            t = Tournament.from_dict(stored.state)
            if t.holds(name, identity):
                return t.name
        return None

    async def creator_changed(self, old: str, new: str) -> None:
        """The player ``old`` is ``new`` now (an account deleted, a guest registered): the upcoming
        and running tournaments they made stay theirs, and whoever takes the old identity (an
        account's name registered again) is not their creator."""

        def follow(t: Tournament) -> None:
            if t.creator_identity == old:
                t.creator_identity = new

        for stored in await self.store.tournaments.tournaments_live():
            made = Tournament.from_dict(stored.state)
            if made.creator_identity == old:
                await self.change(made.id, follow)

    async def load(self, tournament_id: int) -> Tournament | None:
        stored = await self.store.tournaments.tournament(tournament_id)
        return None if stored is None else Tournament.from_dict(stored.state)

    async def change(self, tournament_id: int, change: Callable[[Tournament], T]) -> T:
        """Read the tournament, apply ``change`` (which may raise to change nothing), write it
        over the version read; again if another writer came first. ``change``'s answer. A change
        that left the tournament as it was writes nothing (and wakes no tick)."""
        for _try in range(_TRIES):
            stored = await self.store.tournaments.tournament(tournament_id)
            if stored is None:
                raise KeyError(tournament_id)
            t = Tournament.from_dict(stored.state)
            answer = change(t)
            state = t.to_dict()
            if state == stored.state:
                return answer
            if await self.store.tournaments.tournament_saved(stored.version, state):
                self.poke()
                return answer
        raise Conflict(tournament_id)
