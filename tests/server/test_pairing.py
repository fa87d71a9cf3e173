"""Quick pairing's decisions (``server.lobby.pairing``), with a clock that is a number."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from server.lobby import pairing
from server.lobby.pairing import (
    BOT_STRATEGY,
    BOTS_AFTER,
    GATHER,
    REACH_GROWTH,
    REACH_START,
    PlannedTable,
    Seeker,
    compatible,
    pair,
)

T = 1000.0


def test_two_who_asked_for_two_sit_down_at_once() -> None:
    """Seekers of a table of 2 (or of any size with one of 2) with close ratings are paired in
    the first round."""
    tables = pair([Seeker("ann", 1000, T, size=2), Seeker("bob", 1100, T, size=2)], T)
    assert [t.names for t in tables] == [("ann", "bob")]
    # one of any size and one of 2: a table of 2 is the largest both accept
    tables = pair([Seeker("ann", 1000, T), Seeker("bob", 1100, T, size=2)], T)
    assert [t.names for t in tables] == [("ann", "bob")]


def test_a_larger_table_is_preferred_while_people_still_come() -> None:
    """Seekers of any size wait ``GATHER`` seconds for a third and fourth; four sit together at
    once; three who came together sit together once the youngest has waited ``GATHER``."""
    three = [Seeker("ann", 1000, T), Seeker("bob", 1010, T + 1), Seeker("cid", 990, T + 2)]
    assert pair(three, T + 2) == []
    assert pair(three, T + 2 + GATHER - 0.1) == []
    [table] = pair(three, T + 2 + GATHER)
    assert sorted(table.names) == ["ann", "bob", "cid"]
    four = [*three, Seeker("dan", 1005, T + 3)]
    [table] = pair(four, T + 3)
    assert sorted(table.names) == ["ann", "bob", "cid", "dan"]


def test_closest_ratings_first() -> None:
    """The oldest seeker sits with the closest rating among those compatible, not the oldest."""
    seekers = [
        Seeker("ann", 1500, T, size=2),
        Seeker("far", 1640, T + 0.1, size=2),
        Seeker("near", 1510, T + 0.2, size=2),
        Seeker("mid", 1600, T + 0.3, size=2),
    ]
    tables = pair(seekers, T + 1)
    assert [t.names for t in tables] == [("ann", "near"), ("mid", "far")]


def test_the_reach_widens_with_the_wait() -> None:
    """Ratings 600 apart are not paired at first, and are once both waited long enough."""
    a, b = Seeker("ann", 1000, T, size=2), Seeker("bob", 1600, T, size=2)
    assert not compatible(a, b, T)
    needed = (600 - REACH_START) / REACH_GROWTH
    assert pair([a, b], T + needed - 0.5) == []
    assert [t.names for t in pair([a, b], T + needed)] == [("ann", "bob")]


def test_rated_clock_and_size_must_agree() -> None:
    """Rated never sits with casual, nor one clock with another, nor a 3 with a 4."""
    assert not compatible(Seeker("a", 1000, T, rated=True), Seeker("b", 1000, T), T)
    assert not compatible(Seeker("a", 1000, T, clock=30), Seeker("b", 1000, T, clock=60), T)
    assert not compatible(Seeker("a", 1000, T, size=3), Seeker("b", 1000, T, size=4), T)
    assert compatible(Seeker("a", 1000, T, size=3), Seeker("b", 1000, T), T)


def test_bots_only_for_who_asked_and_after_the_bound() -> None:
    """A lone seeker who said bots gets bots after ``BOTS_AFTER`` seconds (their size, or two
    players when any); one who did not keeps waiting."""
    alone = Seeker("ann", 1000, T, bots=True)
    assert pair([alone], T + BOTS_AFTER - 1) == []
    [table] = pair([alone], T + BOTS_AFTER)
    assert table.names == ("ann",) and table.bots == ("greedy",)
    [table] = pair([Seeker("ann", 1000, T, size=4, bots=True)], T + BOTS_AFTER)
    assert table.bots == ("greedy",) * 3
    assert pair([Seeker("bob", 1000, T)], T + 10 * BOTS_AFTER) == []


@given(
    st.lists(
        st.tuples(
            st.integers(500, 2000),
            st.floats(0, 60),
            st.sampled_from([None, 2, 3, 4]),
            st.booleans(),
            st.sampled_from([30, 60]),
            st.booleans(),
        ),
        max_size=30,
    ),
    st.floats(0, 120),
)
def test_every_table_is_sound(
    raw: list[tuple[int, float, int | None, bool, int, bool]], later: float
) -> None:
    """Whatever waits: nobody sits twice, each table is 2 to 4, of one kind and clock, of a size
    each of its people accepts, and its people accept each other's ratings."""
    seekers = [Seeker(f"p{i}", r, T + s, size, rated, clock, bots) for i, (r, s, size, rated, clock, bots) in
               enumerate(raw)]  # fmt: skip
    now = T + 60 + later
    tables = pair(seekers, now)
    names = [n for t in tables for n in t.names]
    assert len(names) == len(set(names))
    for t in tables:
        size = len(t.seekers) + len(t.bots)
        assert 2 <= size <= 4
        for s in t.seekers:
            assert size in s.sizes()
            assert all(compatible(s, o, now) for o in t.seekers if o is not s)
        assert not t.bots or (len(t.seekers) == 1 and t.seekers[0].bots)


def _pair_every_pair(seekers: list[Seeker], now: float) -> list[PlannedTable]:
    """``pair`` as a look at every pair of seekers (each with each other): what the round, which
    looks only within each one's kind and reach, must give."""
    waiting = sorted(seekers, key=lambda s: (s.since, s.name.casefold()))
    seated: set[str] = set()
    tables: list[PlannedTable] = []
    for first in waiting:
        if first.name in seated:
            continue
        pool = [s for s in waiting if s.name not in seated and s is not first and compatible(first, s, now)]
        pool.sort(key=lambda s: (abs(s.rating - first.rating), s.since))
        for size in first.sizes():
            table = pairing._table_of(first, pool, size, now)
            if table is None:
                continue
            if pairing._may_form(table, now, GATHER):
                seated.update(s.name for s in table)
                tables.append(PlannedTable(tuple(sorted(table, key=lambda s: s.rating))))
            break
        else:
            if first.bots and now - first.since >= BOTS_AFTER:
                seated.add(first.name)
                tables.append(PlannedTable((first,), (BOT_STRATEGY,) * ((first.size or 2) - 1)))
    return tables


def test_a_round_looks_within_kind_and_reach_and_makes_the_tables_every_pair_would() -> None:
    """On 300 seeded random queues (ratings, waits, sizes, kinds, clocks, bots), the round makes
    exactly the tables a look at every pair of seekers makes."""
    rng = random.Random(7)
    for _ in range(300):
        now = 1000.0
        seekers = [
            Seeker(
                f"p{i}",
                rng.gauss(1000, 300),
                now - rng.uniform(0, 40),
                size=rng.choice((None, 2, 3, 4)),
                rated=rng.random() < 0.5,
                clock=rng.choice((30, 60, 61)),
                bots=rng.random() < 0.2,
            )
            for i in range(rng.randint(0, 40))
        ]
        assert pair(seekers, now) == _pair_every_pair(seekers, now)
