"""Seating players at tables: Swiss rounds by score then rating, avoiding repeat opponents.

Nothing here does I/O. A round's tables hold the tournament's size of players; where the count
does not divide, there are as many tables as the size needs (``ceil(n / size)``) and their sizes
differ by one at most, the smaller ones last (at the bottom of the standings): 10 players at
size 4 sit 4, 3, 3. At size 2 an odd count leaves one player alone: a bye, given to the lowest
placed player who has had none.

>>> table_sizes(10, 4)
[4, 3, 3]
>>> table_sizes(7, 2)
[2, 2, 2, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations

#: how many times two players have met: a pair of casefolded names (sorted) -> games together
Met = Mapping[tuple[str, str], int]


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The key of two players in a :data:`Met` table.

    >>> pair_key("bob", "Ann")
    ('ann', 'bob')
    """
    x, y = a.casefold(), b.casefold()
    return (x, y) if x <= y else (y, x)


def table_sizes(count: int, size: int) -> list[int]:
    """The sizes of the tables ``count`` players sit at, the larger first."""
    if count <= 0:
        return []
    tables = -(-count // size)
    small, extra = divmod(count, tables)
    return [small + 1] * extra + [small] * (tables - extra)


def swiss_tables(
    ordered: Sequence[str], size: int, met: Met, *, had_bye: Callable[[str], bool] = lambda name: False
) -> list[list[str]]:
    """The tables of a Swiss round.

    ``ordered`` are the players to seat, best placed first (by score, then rating). The tables
    are filled from the top in order; then, as long as one does, the change of places of two
    players of different tables that lowers the number of repeat meetings the most is made, or,
    keeping it, the one that brings players of closer places together the most. So repeats are
    avoided first, and closeness in the standings comes second.

    >>> swiss_tables(["a", "b", "c", "d"], 2, {("a", "b"): 1})
    [['a', 'c'], ['b', 'd']]
    """
    sizes = table_sizes(len(ordered), size)
    players = list(ordered)
    if sizes and sizes[-1] == 1:  # the bye: the lowest placed player who had none
        alone = next((p for p in reversed(players) if not had_bye(p)), players[-1])
        players.remove(alone)
        players.append(alone)
    # positions in the standings order; a table is a list of positions
    tables: list[list[int]] = []
    start = 0
    for n in sizes:
        tables.append(list(range(start, start + n)))
        start += n
    names = players
    movable = [t for t in range(len(tables)) if len(tables[t]) > 1]

    # how often the players at two positions met (read once: a round weighs many tables)
    position = {name.casefold(): i for i, name in enumerate(names)}
    meetings = [[0] * len(names) for _ in names]
    for (x, y), times in met.items():
        i, j = position.get(x), position.get(y)
        if i is not None and j is not None:
            meetings[i][j] = meetings[j][i] = times

    def cost(table: list[int]) -> tuple[int, int]:
        """Its repeat meetings, and how far apart in the standings its players are (the square of
        its places' span)."""
        repeats = sum(meetings[a][b] for a, b in combinations(table, 2))
        return repeats, (max(table) - min(table)) ** 2

    costs = [cost(t) for t in tables]

    def best_swap(ti: int, tj: int) -> tuple[tuple[int, int], list[int], list[int]] | None:
        """The change of two players of tables ``ti`` and ``tj`` that gains the most (the first
        of equal ones), if one gains."""
        before = (costs[ti][0] + costs[tj][0], costs[ti][1] + costs[tj][1])
        found: tuple[tuple[int, int], list[int], list[int]] | None = None
        for a, x in enumerate(tables[ti]):
            for b, y in enumerate(tables[tj]):
                new_i = [*tables[ti][:a], y, *tables[ti][a + 1 :]]
                new_j = [*tables[tj][:b], x, *tables[tj][b + 1 :]]
                ci, cj = cost(new_i), cost(new_j)
                gain = (before[0] - ci[0] - cj[0], before[1] - ci[1] - cj[1])
                if gain > (0, 0) and (found is None or gain > found[0]):
                    found = (gain, new_i, new_j)
        return found

    # each pair of tables' best change, kept until one of its tables changes: a change touches
    # two tables, so each step looks again at their pairs alone (the same choice as looking at
    # every pair again, in a fraction of the time: 128 players took 1.8 s a round that way)
    pairs = list(combinations(movable, 2))
    swaps = {(ti, tj): best_swap(ti, tj) for ti, tj in pairs}
    for _ in range(len(names) * len(names)):  # each change lowers the total: bounded anyway
        best: tuple[tuple[int, int], int, int, list[int], list[int]] | None = None
        for ti, tj in pairs:  # the first of the best, in the order of the pairs
            swap = swaps[ti, tj]
            if swap is not None and (best is None or swap[0] > best[0]):
                best = (swap[0], ti, tj, swap[1], swap[2])
        if best is None:
            break
        _, ti, tj, new_i, new_j = best
        tables[ti], tables[tj] = new_i, new_j
        costs[ti], costs[tj] = cost(new_i), cost(new_j)
        for pair in pairs:
            if ti in pair or tj in pair:
                swaps[pair] = best_swap(*pair)
    return [[names[i] for i in sorted(table)] for table in sorted(tables, key=min)]


def repeat_pairs(tables: Sequence[Sequence[str]], met: Met) -> int:
    """How many pairs of players at ``tables`` had met before.

    >>> repeat_pairs([["a", "b", "c"]], {("a", "b"): 2})
    1
    """
    return sum(1 for table in tables for a, b in combinations(table, 2) if met.get(pair_key(a, b), 0))


def arena_tables(
    waiting: Sequence[str], size: int, last: Mapping[str, frozenset[str]], *, all_in: bool
) -> list[list[str]]:
    """The tables an arena seats now from ``waiting`` (best placed first).

    A table of the tournament's size is made as soon as that many wait; with ``all_in`` (nobody
    else will come soon: no game of the tournament runs, or one of them has waited long enough)
    the rest, two or more, sit at a smaller table. Within that, neighbours in the standings sit
    together, and a player is not seated with the same opponents as in their last game while
    another choice is there (``last``: casefolded name -> the casefolded opponents of their last
    game).

    >>> arena_tables(["a", "b", "c", "d", "e"], 2, {"a": frozenset({"b"})}, all_in=False)
    [['a', 'c'], ['b', 'd']]
    """
    rest = list(waiting)
    tables: list[list[str]] = []
    while len(rest) >= size or (all_in and len(rest) >= 2):
        n = min(size, len(rest))
        table = [rest.pop(0)]
        while len(table) < n:
            fresh = [
                p
                for p in rest
                if not any(p.casefold() in last.get(q.casefold(), frozenset()) for q in table)
                and not any(q.casefold() in last.get(p.casefold(), frozenset()) for q in table)
            ]
            # a fresh opponent when one is near enough (in the next `size` places), else the nearest
            pick = fresh[0] if fresh and rest.index(fresh[0]) < size else rest[0]
            rest.remove(pick)
            table.append(pick)
        tables.append(table)
    return tables
