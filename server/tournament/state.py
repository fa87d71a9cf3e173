"""A tournament's state and its decisions, with no I/O: what to do at a moment, given the time.

The state is a plain value that the store keeps whole as JSON (:meth:`Tournament.to_dict`,
:meth:`Tournament.from_dict`); the director loads it, asks it what is due, writes it back, then
carries out what it decided. A table is written before its room is made, and its room and game once
they are: a table without a game is one still to make (also after a restart).

A **Swiss** tournament plays ``rounds`` rounds. Each round seats the players who are still in and
connected at its start (:func:`~server.tournament.pairing.swiss_tables`), ordered by points then
rating; one not connected then sits the round out (no table, no points) and is seated again from
the next round on. The next round is seated once the last table of the round before has finished.
A player who joins late is seated from the next round on. A guest (no account) whose name is no
longer connected is out, as if they had left. An **arena** runs ``minutes`` minutes: a player whose game ended
(or who joined) waits, and a table is made as soon as ``size`` players wait; fewer (two or more)
sit together when no game of the arena runs or one of them has waited :data:`ARENA_PATIENCE`
seconds. No game starts in the last minute; the arena ends when its time is up and its last game
has ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from server.ratings import ACCOUNT
from server.tournament.pairing import arena_tables, pair_key, swiss_tables
from server.tournament.standings import GameResult, Line, standings

Kind = Literal["swiss", "arena"]
Status = Literal["upcoming", "running", "finished", "cancelled", "closed"]

#: seconds a waiting arena player waits at most for a full table before fewer sit together
ARENA_PATIENCE = 30.0
#: seconds before an arena's end after which no game starts
ARENA_LAST = 60.0
#: what a finished tournament's status may be
OVER: frozenset[str] = frozenset({"finished", "cancelled", "closed"})


@dataclass(slots=True)
class Entrant:
    """A player who joined: the rating they joined with (for pairing), whether they are still in
    (a player who left keeps their points but is seated no more), and whether they had a bye."""

    name: str
    rating: int
    active: bool = True
    bye: bool = False
    #: the player behind the name (an account's key, or a guest's identity), as games log it
    identity: str | None = None


@dataclass(slots=True)
class Table:
    """A game of the tournament: its players, its room, and its result once it ended."""

    number: int
    round: int
    players: list[str]
    started: float
    #: the room and game, once the director made them (a bye has none)
    room: str | None = None
    game_id: str | None = None
    places: dict[str, int] | None = None
    scores: dict[str, int] | None = None

    @property
    def finished(self) -> bool:
        return self.places is not None

    @property
    def bye(self) -> bool:
        return len(self.players) == 1


@dataclass(slots=True)
class Tournament:
    """One tournament (see the module)."""

    id: int
    name: str
    kind: Kind
    size: int
    clock: int
    starts: float
    creator: str
    created: float
    rounds: int | None = None
    minutes: int | None = None
    status: Status = "upcoming"
    round: int = 0
    ends: float | None = None
    finished: float | None = None
    entrants: list[Entrant] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    #: arena: casefolded name -> since when the player waits for a table
    waiting: dict[str, float] = field(default_factory=dict)
    #: arena: casefolded names of players who joined again while at a table whose game runs: a
    #: leave of that game does not put them out (see :meth:`join_again`)
    again: set[str] = field(default_factory=set)
    #: the address its creator made it from (the per-person limit counts per address too)
    origin: str = ""
    #: who closed it early (its creator or a staff member)
    closed_by: str | None = None
    #: the player behind the creator's name (an account's key): another who later takes the name
    #: is not its creator (``None`` in a tournament stored before it was kept: the name counts)
    creator_identity: str | None = None

    # --- people --------------------------------------------------------------------------------

    def holds(self, name: str, identity: str | None) -> bool:
        """Whether the player ``identity``, named ``name``, joined and is still in."""
        e = self.entrant(name)
        return e is not None and e.active and (e.identity is None or e.identity == identity)

    def made_by(self, name: str, identity: str | None) -> bool:
        """Whether the person ``name``, the player ``identity``, made this tournament."""
        if self.creator_identity is not None:
            return identity == self.creator_identity
        return name.casefold() == self.creator.casefold()

    def entrant(self, name: str) -> Entrant | None:
        key = name.casefold()
        return next((e for e in self.entrants if e.name.casefold() == key), None)

    @property
    def over(self) -> bool:
        return self.status in OVER

    def open_to_join(self, now: float) -> bool:
        """Whether someone may join now: before the start; a Swiss while a round is to come; an
        arena until its last minute."""
        if self.status == "upcoming":
            return True
        if self.status != "running":
            return False
        if self.kind == "swiss":
            return self.rounds is not None and self.round < self.rounds
        return self.ends is not None and now < self.ends - ARENA_LAST

    def join(self, name: str, rating: int, now: float, identity: str | None = None) -> bool:
        """``name`` joins (or comes back after leaving); ``False`` if they were in already."""
        found = self.entrant(name)
        if found is not None and found.active:
            return False
        if found is None:
            self.entrants.append(Entrant(name, rating, identity=identity))
        else:
            found.active = True
            found.identity = identity or found.identity
        if self.kind == "arena" and self.status == "running" and not self._seated(name):
            self.waiting[name.casefold()] = now
        return True

    def join_again(self, name: str) -> bool:
        """``name``, still in an arena, joins again while at a table whose game runs (they may
        have left that game, which puts them out only at its end): they wait for a table after
        that end like the others. ``False`` if they are at no such table."""
        if self.kind != "arena" or self.status != "running" or not self._seated(name):
            return False
        self.again.add(name.casefold())
        return True

    def leave(self, name: str) -> bool:
        """``name`` leaves: before the start they are forgotten, after it they keep their points
        and are seated no more. ``False`` if they were not in."""
        found = self.entrant(name)
        if found is None or not found.active:
            return False
        if self.status == "upcoming":
            self.entrants.remove(found)
        else:
            found.active = False
        self.waiting.pop(name.casefold(), None)
        return True

    @property
    def playing(self) -> int:
        """How many players are still in."""
        return sum(e.active for e in self.entrants)

    def drop_gone_guests(self, present: set[str]) -> list[str]:
        """Guests still in whose name is not connected (in ``present``, casefolded) are out, as if
        they left: a guest's name is theirs only while connected. Those who were put out."""
        gone = [e.name for e in self._guests_in() if e.name.casefold() not in present]
        for name in gone:
            self.leave(name)
        return gone

    def _guests_in(self) -> list[Entrant]:
        """The players still in who have no account."""
        return [e for e in self.entrants if e.active and not (e.identity or "").startswith(ACCOUNT)]

    def reads_present(self, now: float) -> bool:
        """Whether advancing to ``now`` needs to know who is connected: a guest is still in (who
        is out once gone, :meth:`drop_gone_guests`), or :meth:`due` may seat someone
        (:meth:`seatable`). When ``False``, ``due(now, present)`` does the same whatever
        ``present`` is, so that the director need not ask (which costs a look at every
        connection)."""
        return not self.over and (bool(self._guests_in()) or bool(self.seatable(now)))

    def seatable(self, now: float) -> list[str]:
        """The players :meth:`due` may seat at ``now``: every player still in at the start and at
        a Swiss round's, those waiting in an arena before its last minute; none otherwise."""
        if self.over:
            return []
        if self.status == "upcoming":
            due = now >= self.starts
        elif self.kind == "swiss":
            due = self.rounds is not None and self.round < self.rounds and not self.running_tables()
        else:
            due = self.ends is not None and now < self.ends - ARENA_LAST
        if not due:
            return []
        waiting = self.status == "running" and self.kind == "arena"
        return [
            e.name for e in self.entrants if e.active and (not waiting or e.name.casefold() in self.waiting)
        ]

    def _seated(self, name: str) -> bool:
        key = name.casefold()
        return any(not t.finished and key in (p.casefold() for p in t.players) for t in self.tables)

    # --- results -------------------------------------------------------------------------------

    def results(self) -> list[GameResult]:
        return [GameResult(t.places, t.scores or {}) for t in self.tables if t.places is not None]

    def standings(self) -> list[Line]:
        players = {e.name: (e.rating, e.active) for e in self.entrants}
        return standings(players, self.results(), self.size)

    def met(self) -> dict[tuple[str, str], int]:
        """How many times each two players sat at one table."""
        met: dict[tuple[str, str], int] = {}
        for t in self.tables:
            for i, a in enumerate(t.players):
                for b in t.players[i + 1 :]:
                    key = pair_key(a, b)
                    met[key] = met.get(key, 0) + 1
        return met

    def table(self, number: int) -> Table | None:
        return next((t for t in self.tables if t.number == number), None)

    def running_tables(self) -> list[Table]:
        return [t for t in self.tables if not t.finished]

    def game_over(
        self,
        number: int,
        places: dict[str, int],
        scores: dict[str, int],
        now: float,
        left: Iterable[str] = (),
    ) -> bool:
        """Table ``number``'s game ended so; ``False`` if it had already. In an arena its players
        wait for their next table, but those who ``left`` the game before its end, who are out as
        by :meth:`leave` (their points stay): an arena seats again only who plays on, and whoever
        abandons a game must join again to be seated (a join is counted against its address; one
        sent before the game's end, :meth:`join_again`, keeps them in)."""
        table = self.table(number)
        if table is None or table.finished:
            return False
        table.places = dict(places)
        table.scores = dict(scores)
        if self.kind == "arena":
            gone = {name.casefold() for name in left}
            for name in table.players:
                key = name.casefold()
                again = key in self.again
                self.again.discard(key)
                found = self.entrant(name)
                if found is None or not found.active:
                    continue
                if key in gone and not again:
                    self.leave(name)
                else:
                    self.waiting[key] = now
        return True

    # --- what is due ---------------------------------------------------------------------------

    def due(self, now: float, present: Iterable[str] | None = None) -> list[Table]:
        """Advance to ``now``: start, seat a round or waiting players, finish. The new tables
        (their games are to be made; a bye is finished already). ``present``: the casefolded
        names that may be seated now (``None``: every player still in)."""
        if self.status == "upcoming" and now >= self.starts:
            self._begin(now)
        if self.status != "running":
            return []
        allowed = None if present is None else set(present)
        if self.kind == "swiss":
            return self._swiss(now, allowed)
        return self._arena(now, allowed)

    def _begin(self, now: float) -> None:
        if self.kind == "swiss" and sum(e.active for e in self.entrants) < 2:
            self.status, self.finished = "cancelled", now
            return
        self.status = "running"
        if self.kind == "arena":
            assert self.minutes is not None
            self.ends = self.starts + 60.0 * self.minutes
            self.waiting = {e.name.casefold(): now for e in self.entrants if e.active}

    def _ordered(self, names: Iterable[str]) -> list[str]:
        """``names`` in the order of the standings (by points, then rating)."""
        rank = {
            line.name.casefold(): (-line.points, -line.rating, line.name.casefold())
            for line in self.standings()
        }
        return sorted(names, key=lambda n: rank.get(n.casefold(), (0.0, 0, n.casefold())))

    def _swiss(self, now: float, allowed: set[str] | None) -> list[Table]:
        if self.running_tables():
            return []
        assert self.rounds is not None
        players = _among(self.seatable(now), allowed)
        if self.round >= self.rounds or sum(e.active for e in self.entrants) < 2:
            self.status, self.finished = "finished", now
            return []
        if len(players) < 2:
            return []  # wait until two of those still in are there
        self.round += 1
        byes = {e.name.casefold() for e in self.entrants if e.bye}
        seated = swiss_tables(
            self._ordered(players), self.size, self.met(), had_bye=lambda n: n.casefold() in byes
        )
        return [self._new_table(players_, now) for players_ in seated]

    def _arena(self, now: float, allowed: set[str] | None) -> list[Table]:
        assert self.ends is not None
        running = self.running_tables()
        if now >= self.ends:
            if not running:
                self.status, self.finished = "finished", now
            return []
        if now >= self.ends - ARENA_LAST:
            return []
        ready = _among(self.seatable(now), allowed)
        patient = any(now - self.waiting[n.casefold()] >= ARENA_PATIENCE for n in ready)
        last = self._last_opponents()
        made = arena_tables(self._ordered(ready), self.size, last, all_in=not running or patient)
        for players in made:
            for name in players:
                self.waiting.pop(name.casefold(), None)
        return [self._new_table(players, now) for players in made]

    def _last_opponents(self) -> dict[str, frozenset[str]]:
        last: dict[str, frozenset[str]] = {}
        for t in self.tables:  # in the order they were made: the last one wins
            for name in t.players:
                last[name.casefold()] = frozenset(p.casefold() for p in t.players if p != name)
        return last

    def _new_table(self, players: list[str], now: float) -> Table:
        number = len(self.tables) + 1
        table = Table(number, self.round, list(players), now)
        if table.bye:
            table.places, table.scores = {players[0]: 1}, {}
            found = self.entrant(players[0])
            if found is not None:
                found.bye = True
        self.tables.append(table)
        return table

    def close(self, now: float, by: str | None = None) -> None:
        """Closed early by ``by``: no table is seated any more (games running play to their end)."""
        self.status, self.finished, self.closed_by = "closed", now, by

    # --- as stored ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "size": self.size,
            "clock": self.clock,
            "starts": self.starts,
            "creator": self.creator,
            "created": self.created,
            "rounds": self.rounds,
            "minutes": self.minutes,
            "status": self.status,
            "round": self.round,
            "ends": self.ends,
            "finished": self.finished,
            "entrants": [
                {"name": e.name, "rating": e.rating, "active": e.active, "bye": e.bye, "identity": e.identity}
                for e in self.entrants
            ],
            "tables": [
                {
                    "number": t.number,
                    "round": t.round,
                    "players": t.players,
                    "started": t.started,
                    "room": t.room,
                    "game_id": t.game_id,
                    "places": t.places,
                    "scores": t.scores,
                }
                for t in self.tables
            ],
            "waiting": self.waiting,
            "again": sorted(self.again),
            "origin": self.origin,
            "closed_by": self.closed_by,
            "creator_identity": self.creator_identity,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tournament:
        return cls(
            id=int(data["id"]),
            name=data["name"],
            kind=data["kind"],
            size=int(data["size"]),
            clock=int(data["clock"]),
            starts=float(data["starts"]),
            creator=data["creator"],
            created=float(data["created"]),
            rounds=data["rounds"],
            minutes=data["minutes"],
            status=data["status"],
            round=int(data["round"]),
            ends=data["ends"],
            finished=data["finished"],
            entrants=[
                Entrant(e["name"], int(e["rating"]), bool(e["active"]), bool(e["bye"]), e.get("identity"))
                for e in data["entrants"]
            ],
            tables=[
                Table(
                    int(t["number"]),
                    int(t["round"]),
                    list(t["players"]),
                    float(t["started"]),
                    t["room"],
                    t["game_id"],
                    t["places"],
                    t["scores"],
                )
                for t in data["tables"]
            ],
            waiting={k: float(v) for k, v in data["waiting"].items()},
            again={str(k) for k in data.get("again", ())},
            origin=str(data.get("origin", "")),
            creator_identity=data.get("creator_identity"),
            closed_by=data.get("closed_by"),
        )


def _among(names: list[str], allowed: set[str] | None) -> list[str]:
    """``names`` but those not in ``allowed`` (casefolded; ``None``: everyone is)."""
    return names if allowed is None else [n for n in names if n.casefold() in allowed]
