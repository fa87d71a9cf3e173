"""Quick pairing's decisions: which seekers sit down together, and when bots fill a table. Pure:
seekers and the time in, tables out; no I/O (the queue and the tables are
:mod:`server.lobby.seeking`'s).

The rules, in the order they are applied:

* Seekers are compatible when they want the same kind of game (rated or casual), the same turn
  clock, and a table size each accepts (``size`` ``None``: 2, 3 or 4).
* Ratings: each seeker accepts others within ``reach(waited)`` rating points of their own, which
  widens with the time they have waited (:data:`REACH_START` at once, :data:`REACH_GROWTH` more
  each second). A table forms only where every two of its players accept each other.
* The oldest seeker is seated first, with the closest ratings of those compatible. The largest
  table every one of them accepts is preferred: a smaller one forms only once the youngest of
  its players has waited :data:`GATHER` seconds (so three or four who come within a few seconds
  of each other sit together), or when each of them asked for that size.
* A seeker who said ``bots`` and has waited :data:`BOTS_AFTER` seconds without a table gets one
  with the server's bots: their wished size (two when any), the other seats greedy bots.

>>> now = 100.0
>>> seekers = [Seeker("ann", 1500, now - 1), Seeker("bob", 1520, now - 1), Seeker("cid", 2400, now - 1)]
>>> [t.names for t in pair(seekers, now)]   # ann and bob wait for a third or a fourth
[]
>>> [t.names for t in pair(seekers, now + GATHER)]
[('ann', 'bob')]
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: rating points a seeker accepts at once, and how many more with each second waited
REACH_START: Final = 150.0
REACH_GROWTH: Final = 50.0
#: seconds the players of a table smaller than they all accept wait for more to come first
GATHER: Final = 4.0
#: seconds after which a seeker who said ``bots`` is given a table with the server's bots
BOTS_AFTER: Final = 30
#: the strategy of the bots that fill such a table
BOT_STRATEGY: Final = "greedy"
#: the sizes ``None`` stands for, largest first
ANY_SIZE: Final = (4, 3, 2)


@dataclass(frozen=True, slots=True)
class Seeker:
    """One person waiting: their name, pairing rating, and since when (Unix time) they wait for
    a table of ``size`` (``None``: any), ``rated`` or not, with a turn clock of ``clock``
    seconds; ``bots``: a table with bots after :data:`BOTS_AFTER` seconds."""

    name: str
    rating: float
    since: float
    size: int | None = None
    rated: bool = False
    clock: int = 60
    bots: bool = False

    def sizes(self) -> tuple[int, ...]:
        """The table sizes accepted, largest first."""
        return ANY_SIZE if self.size is None else (self.size,)

    def reach(self, now: float) -> float:
        """How far from their own rating they accept others now."""
        return REACH_START + REACH_GROWTH * max(0.0, now - self.since)


@dataclass(frozen=True, slots=True)
class PlannedTable:
    """A table to make: its seekers (by rating) and the server's bots to fill it."""

    seekers: tuple[Seeker, ...]
    bots: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seekers)

    @property
    def spread(self) -> float:
        """The distance of its highest rating from its lowest (of the people)."""
        ratings = [s.rating for s in self.seekers]
        return max(ratings) - min(ratings)


def compatible(a: Seeker, b: Seeker, now: float) -> bool:
    """Whether ``a`` and ``b`` may sit at one table (of some size both accept)."""
    if a.rated != b.rated or a.clock != b.clock:
        return False
    if not set(a.sizes()) & set(b.sizes()):
        return False
    gap = abs(a.rating - b.rating)
    return gap <= a.reach(now) and gap <= b.reach(now)


def _table_of(first: Seeker, candidates: list[Seeker], size: int, now: float) -> list[Seeker] | None:
    """``first`` and the closest of ``candidates`` who make a table of ``size`` together."""
    table = [first]
    for candidate in candidates:
        if size not in candidate.sizes():
            continue
        if all(compatible(candidate, seated, now) for seated in table):
            table.append(candidate)
            if len(table) == size:
                return table
    return None


def _may_form(table: list[Seeker], now: float, gather: float) -> bool:
    """A table smaller than all its players accept forms once its youngest waited ``gather``."""
    largest = min(max(s.sizes()) for s in table)
    if len(table) >= largest:
        return True
    youngest = max(s.since for s in table)
    return now - youngest >= gather


def pair(
    seekers: Sequence[Seeker], now: float, *, gather: float = GATHER, bots_after: float = BOTS_AFTER
) -> list[PlannedTable]:
    """The tables to make now of ``seekers`` (each seated at one at most); ``gather`` and
    ``bots_after`` stand for :data:`GATHER` and :data:`BOTS_AFTER`."""
    waiting = sorted(seekers, key=lambda s: (s.since, s.name.casefold()))
    # only seekers of one kind (rated or not) and one clock sit together, and only within each
    # one's reach of ratings: each looks at those alone (its kind, by rating), so that a round
    # costs no look at every pair of seekers, however many of how many clocks or ratings wait
    kinds: dict[tuple[bool, int], list[Seeker]] = {}
    for s in sorted(waiting, key=lambda s: s.rating):
        kinds.setdefault((s.rated, s.clock), []).append(s)
    ratings = {kind: [s.rating for s in those] for kind, those in kinds.items()}
    seated: set[str] = set()
    tables: list[PlannedTable] = []
    for first in waiting:
        if first.name in seated:
            continue
        kind = (first.rated, first.clock)
        reach = first.reach(now)
        low = bisect.bisect_left(ratings[kind], first.rating - reach)
        high = bisect.bisect_right(ratings[kind], first.rating + reach)
        pool = [
            s
            for s in kinds[kind][low:high]
            if s.name not in seated and s is not first and compatible(first, s, now)
        ]
        pool.sort(key=lambda s: (abs(s.rating - first.rating), s.since))
        for size in first.sizes():
            table = _table_of(first, pool, size, now)
            if table is None:
                continue
            if _may_form(table, now, gather):  # (else the largest table possible waits for more to come)
                seated.update(s.name for s in table)
                tables.append(PlannedTable(tuple(sorted(table, key=lambda s: s.rating))))
            break
        else:
            if first.bots and now - first.since >= bots_after:
                size = first.size or 2
                seated.add(first.name)
                tables.append(PlannedTable((first,), (BOT_STRATEGY,) * (size - 1)))
    return tables


__all__ = [
    "ANY_SIZE",
    "BOTS_AFTER",
    "BOT_STRATEGY",
    "GATHER",
    "REACH_GROWTH",
    "REACH_START",
    "PlannedTable",
    "Seeker",
    "compatible",
    "pair",
]
