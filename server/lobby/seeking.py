"""Quick pairing: ``/seek`` puts a person in the queue, ``/unseek`` takes them out, and a loop
makes tables of those waiting (:func:`server.lobby.pairing.pair` decides; :mod:`server.lobby.tables`
makes each one a started game).

The queue is one for the whole server: in this process (:class:`LocalQueue`), or in Redis for a
cluster (``server.cluster.seekqueue.RedisQueue``), where the node holding a short lease pairs
everyone, wherever they are connected. Seeking ends with ``/unseek``, a new ``/seek`` (which
replaces it), ``/join``, ``/nick``, ``/register`` or ``/unregister`` (a seek is made as who the
seeker was), ``/quit``, a lost connection, or being seated at a table.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import structlog

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _, number
from protocol.limits import SEEKERS_MAX
from protocol.options import CLOCK_MAX, SEED_LIMIT, OptionError, RoomOptions, check_value
from server.directory import Directory
from server.directory.rooms import bot_games
from server.lobby.pairing import BOTS_AFTER, GATHER, PlannedTable, Seeker, pair
from server.lobby.tables import Player, TableRefused, Tables
from server.log.contract import GameLog
from server.ratings import account_key
from server.room import too_many_bot_games
from server.session import Session
from server.tasks import cancel_and_wait

log = structlog.get_logger("cafe.seek")

#: the turn clock of a seek that names none, in seconds
DEFAULT_CLOCK = 60
#: seconds between two rounds of pairing
TICK = 0.5
#: the pairing rating of someone with no rating yet (a guest, a newcomer): 40 x OpenSkill's mu
NEWCOMER = 1000.0


@dataclass(frozen=True, slots=True)
class SeekEntry:
    """One seek in the queue: the seeker, the player behind them, and their node."""

    seeker: Seeker
    identity: str | None
    node: str

    def dump(self) -> str:
        return json.dumps({"seeker": asdict(self.seeker), "identity": self.identity, "node": self.node})

    @classmethod
    def load(cls, text: str | bytes) -> SeekEntry:
        data: dict[str, Any] = json.loads(text)
        return cls(Seeker(**data["seeker"]), data.get("identity"), str(data["node"]))


class SeekQueue(Protocol):
    """Where the seeks wait: one process's, or a cluster's."""

    async def put(self, entry: SeekEntry, limit: int) -> bool:
        """Add (or replace) the seek of ``entry``'s name; ``False`` when ``limit`` others wait."""

    async def drop(self, name: str) -> bool:
        """Take ``name``'s seek out; whether there was one."""

    async def entries(self) -> list[SeekEntry]:
        """Every seek waiting (of people still connected to a living node)."""

    async def take(self, names: Sequence[str]) -> bool:
        """Take the seeks of all ``names`` out at once, or none when one of them is gone."""

    async def lead(self) -> bool:
        """Whether this process pairs now (in a cluster one node at a time, under a lease)."""


class LocalQueue:
    """The queue of a single process."""

    def __init__(self) -> None:
        self.seeks: dict[str, SeekEntry] = {}

    async def put(self, entry: SeekEntry, limit: int) -> bool:
        key = entry.seeker.name.casefold()
        if key not in self.seeks and len(self.seeks) >= limit:
            return False
        self.seeks[key] = entry
        return True

    async def drop(self, name: str) -> bool:
        return self.seeks.pop(name.casefold(), None) is not None

    async def entries(self) -> list[SeekEntry]:
        return list(self.seeks.values())

    async def take(self, names: Sequence[str]) -> bool:
        keys = [name.casefold() for name in names]
        if not all(key in self.seeks for key in keys):
            return False
        for key in keys:
            del self.seeks[key]
        return True

    async def lead(self) -> bool:
        return True


def table_options(seeker: Seeker) -> RoomOptions:
    """A quick-pairing table's options: its clock, seats drawn, public; a casual table's seed is
    drawn by the server and kept secret to the end, which makes it a practice game (not rated)."""
    seed = None if seeker.rated else secrets.randbelow(SEED_LIMIT)
    return RoomOptions(clock=seeker.clock, drawseat=True, seed=seed)


class Seeks:
    """The seeks of one lobby (``Lobby.seeks``) and, where this node leads, the pairing."""

    def __init__(
        self,
        directory: Directory,
        store: GameLog,
        tables: Tables,
        *,
        clock_min: float,
        max_bot_games: int = 2,
        per_address: int = 5,
        queue: SeekQueue | None = None,
        node: str = "",
    ) -> None:
        self.directory = directory
        #: a seek for bots is refused to a person with so many games against them running here
        self.max_bot_games = max_bot_games
        self.store = store
        self.tables = tables
        self.clock_min = clock_min
        self.queue: SeekQueue = queue or LocalQueue()
        self.node = node
        #: the time seeks are stamped and paired by (Unix time: the same on every node)
        self.now: Callable[[], float] = time.time
        #: the pairing's waits (:data:`~server.lobby.pairing.GATHER`, ``BOTS_AFTER``), in seconds
        self.gather: float = GATHER
        self.bots_after: int = BOTS_AFTER
        self._task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        #: this node's connections seeking now, by address: at most ``per_address`` of them, so
        #: that a few addresses do not fill the queue for everyone
        self._from: dict[str, set[Session]] = {}
        self.per_address = per_address
        tables.on_seated = self.ended

    # --- what people ask -----------------------------------------------------------------------

    async def seek(self, session: Session, msg: m.Seek) -> None:
        """``/seek``: into the queue (replacing an earlier seek), answered with ``seeking``."""
        name = session.name
        assert name is not None
        rated = session.registered if msg.rated is None else msg.rated
        if rated and not session.registered:
            raise ProtocolError(
                "not_registered",
                _("Rated games are for registered players: /register first, or /seek casual."),
                msg.id,
            )
        clock = DEFAULT_CLOCK if msg.clock is None else msg.clock
        try:
            checked = check_value("clock", clock, clock_min=self.clock_min)
        except OptionError:
            checked = None
        if not checked:  # (a seek's game always has a clock: a room's "or off" is no answer here)
            raise ProtocolError(
                "bad_option",
                _(
                    "A seek's clock is {least} to {most} seconds per turn.",
                    least=number(self.clock_min),
                    most=CLOCK_MAX,
                ),
                msg.id,
            )
        seat = await self.directory.seat_room(name)
        if seat is not None:
            raise ProtocolError(
                "already_playing",
                _("You have a seat in the game in room {room}: finish it first.", room=seat.name),
                msg.id,
            )
        if (
            msg.bots
            and bot_games(self.directory.rooms.values(), name, session.identity) >= self.max_bot_games
        ):
            raise too_many_bot_games(self.max_bot_games, msg.id)  # (what /start with bots costs)
        rating = NEWCOMER
        if session.registered:
            standing = await self.store.standing(account_key(name))
            if standing is not None:
                rating = 40.0 * standing.skill.mu
        address = session.address
        mine = self._from.get(address, set())
        fresh = session not in mine  # (a seek replaced holds its place)
        if fresh and len(mine) >= self.per_address:
            raise ProtocolError(
                "queue_full",
                _(
                    "As many people from your address are seeking a game as the server allows ({most});"
                    " try again shortly.",
                    most=self.per_address,
                ),
                msg.id,
            )
        seeker = Seeker(name, rating, self.now(), msg.size, rated, int(checked), msg.bots)
        # (the place in the address's share is taken before the queue is asked: seeks of one
        # address sent at once would otherwise all pass the look above; given back if refused)
        self._from.setdefault(address, set()).add(session)
        queued = False
        try:
            queued = await self.queue.put(SeekEntry(seeker, session.identity, self.node), SEEKERS_MAX)
        finally:
            if fresh and not queued:
                self._forget(session)
        if not queued:
            raise ProtocolError(
                "queue_full",
                _("As many people are seeking a game as the server allows; try again shortly."),
                msg.id,
            )
        session.seeking = True
        session.seek_ends = lambda: self.ended(session, told=True)  # (a game of a seat it holds starts)
        self.directory.moved(session)
        log.info("seeking", player=name, size=msg.size, rated=rated, clock=seeker.clock, bots=msg.bots)
        session.send(
            m.Seeking(
                id=msg.id,
                size=msg.size,
                rated=rated,
                clock=seeker.clock,
                bots=msg.bots,
                bots_after=self.bots_after,
            )
        )

    async def unseek(self, session: Session, msg: m.Unseek) -> None:
        """``/unseek``: out of the queue, answered with a ``notice`` that says so and ``ack``."""
        assert session.name is not None
        dropped = await self.queue.drop(session.name)
        if not dropped and not session.seeking:
            raise ProtocolError("not_seeking", _("You are not seeking a game: /seek starts."), msg.id)
        session.seeking = False
        session.seek_ends = None
        self._forget(session)
        self.directory.moved(session)
        session.send(m.Notice(text=_("No longer seeking.")))
        session.send(m.Ack(id=msg.id))

    def ended(self, session: Session, name: str | None = None, *, told: bool = False) -> None:
        """``session`` (called ``name`` until now, if it changes) no longer seeks: it joined a
        room, was seated, changed its name, or went; with ``told``, a notice says so (what the
        person did ended it, not a table found)."""
        if self._ends(session, told):
            self._in_background(self.queue.drop(name or session.name or ""))

    async def ended_now(self, session: Session, *, told: bool = False) -> None:
        """As :meth:`ended`, the queue's entry dropped before it returns: the caller's next step
        may let a new seek of the name in (a new name's, a resume's), which a drop by name still
        on its way would take out too."""
        if self._ends(session, told):
            await self._logged(self.queue.drop(session.name or ""))

    def _ends(self, session: Session, told: bool) -> bool:
        """``session``'s seek ends here: whether it had one (its queue entry is the caller's)."""
        session.join_asked = None  # (a join's answer has nothing left to end)
        session.seek_ends = None
        if not session.seeking:
            return False
        if told:
            session.send(m.Notice(text=_("No longer seeking.")))
        session.seeking = False
        self._forget(session)
        self.directory.moved(session)
        return True

    def _forget(self, session: Session) -> None:
        """``session`` seeks no longer: its address's share has room for another."""
        mine = self._from.get(session.address)
        if mine is not None:
            mine.discard(session)
            if not mine:
                del self._from[session.address]

    def _in_background(self, job: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._logged(job))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- pairing -------------------------------------------------------------------------------

    @staticmethod
    async def _logged(job: Any) -> None:
        try:
            await job
        except Exception as e:  # (Redis away: the pairing drops seeks of people gone)
            log.warning("seek_background_failed", error=repr(e))

    def start(self) -> None:
        """Pair every ``TICK`` seconds (on the running loop) until ``stop``."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="seek:pairing")

    async def stop(self) -> None:
        """Stop pairing; returns once the loop has ended (a cancel lost in a Redis call is
        repeated: see ``server.tasks``)."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.pair_once()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # (Redis or the log away: the next round tries again)
                log.warning("pairing_failed", error=repr(e))
            await asyncio.sleep(TICK)

    async def pair_once(self) -> list[PlannedTable]:
        """One round: where this node leads, the tables of those waiting, each made and started;
        the tables made."""
        if not await self.queue.lead():
            return []
        entries = {e.seeker.name: e for e in await self.queue.entries()}
        made: list[PlannedTable] = []
        seekers = [e.seeker for e in entries.values()]
        for plan in pair(seekers, self.now(), gather=self.gather, bots_after=self.bots_after):
            if await self._playing(plan.names):
                continue  # one of them plays a game that started meanwhile: the others wait on
            if not await self.queue.take(plan.names):
                continue  # one of them left meanwhile: the others wait for the next round
            players = [Player(s.name, entries[s.name].identity) for s in plan.seekers]
            try:
                options = table_options(plan.seekers[0])  # (a public room, whose game stays public)
                table = await self.tables.open(
                    players, options=options, bots=plan.bots, prefix="seek", listed=True
                )
            except TableRefused as e:
                log.warning("table_refused", players=list(plan.names), error=str(e))
                for s in plan.seekers:  # they wait on, as long as they waited
                    await self.queue.put(entries[s.name], SEEKERS_MAX + len(plan.seekers))
                continue
            made.append(plan)
            waited = [round(self.now() - s.since, 1) for s in plan.seekers]
            log.info("paired", room=table.room, players=list(plan.names), bots=len(plan.bots), waited=waited)
        return made

    async def _playing(self, names: Sequence[str]) -> bool:
        """Whether one of ``names`` holds a seat in a running game (its room started after the
        seek, and the seek's end, which that start brings, is still on its way): it seeks no
        longer, for nobody plays two games at once."""
        found = False
        for name in names:
            if await self.directory.seat_room(name) is None:
                continue
            found = True
            await self.queue.drop(name)
            session = self.directory.session(name)
            if session is not None:  # (on another node, its session hears of the start there)
                self.ended(session, told=True)
        return found


__all__ = ["DEFAULT_CLOCK", "TICK", "LocalQueue", "SeekEntry", "SeekQueue", "Seeks", "table_options"]
