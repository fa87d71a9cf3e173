"""Boards: tables, chairs, which tables each chair belongs to, and both names of shared chairs.

A board is data. ``classic`` is docs/rules.md section 2; another layout is one more entry in
``BOARD_DATA`` (a grid of table names with ``BAR``/``None`` cells, and the aisles).

>>> board = get_board("classic")
>>> len(board.tables), len(board.chairs)
(24, 68)
>>> board.chair("ES1n").name
'FR1s'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final

from engine.cards import NATIONS
from engine.errors import InvalidPositionError

SIDES: Final = ("n", "e", "s", "w")
BAR_PLACES: Final = 20
BAR_VALUES: Final = (1, 2, 3, 4, 5, -2, -4, -6, -8, -10, -12, -14, -16, -18, -20, -22, -24, -26, -28, -30)

BOARD_DATA: Final[dict[str, dict[str, Any]]] = {
    "classic": {
        "grid": [
            ["GB1", "CN1", "FR1", "IN1", "US1"],
            ["RU1", "DE1", "ES1", "TR1", "CU1"],
            ["IT1", "CF1", "BAR", "RU2", "IT2"],
            ["TR2", "CU2", "IN2", "CN2", "CF2"],
            ["US2", "ES2", "FR2", "DE2", "GB2"],
        ],
        "aisles": [
            "CN1s|DE1n",
            "RU1e|DE1w",
            "IN1s|TR1n",
            "TR1e|CU1w",
            "CF2w|CN2e",
            "CN2s|DE2n",
            "CU2s|ES2n",
            "TR2e|CU2w",
        ],
    },
}


@dataclass(frozen=True, slots=True)
class Table:
    """A table: its name (``FR1``), nation, place on the grid and its four chairs (n, e, s, w)."""

    index: int
    name: str
    nation: str
    row: int
    col: int
    chairs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Chair:
    """A chair in board order. ``name`` is canonical; ``names`` holds every name it answers to."""

    index: int
    name: str
    names: tuple[str, ...]
    tables: tuple[int, ...]
    nations: tuple[str, ...]

    @property
    def shared(self) -> bool:
        return len(self.tables) == 2


@dataclass(frozen=True, slots=True, eq=False)
class Board:
    """A board layout. Chairs are numbered in board order: tables in reading order, sides n, e, s, w.

    Boards are singletons (``get_board`` caches them), compared and hashed by identity."""

    name: str
    tables: tuple[Table, ...]
    chairs: tuple[Chair, ...]
    rows: int
    cols: int
    bar_cell: tuple[int, int] | None
    _by_name: Mapping[str, int] = field(repr=False, compare=False)
    _table_by_name: Mapping[str, int] = field(repr=False, compare=False)
    #: for each chair, the chairs that share a table with it (itself excluded)
    neighbours: tuple[frozenset[int], ...] = field(repr=False, compare=False)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # unpickled as the singleton of that process: a board is compared by identity
        return (get_board, (self.name,))

    def chair_index(self, name: str) -> int | None:
        """The index of the chair called ``name`` (either name, any case), or ``None``."""
        return self._by_name.get(name.upper())

    def chair(self, name: str) -> Chair:
        index = self.chair_index(name)
        if index is None:
            raise KeyError(name)
        return self.chairs[index]

    def table(self, name: str) -> Table:
        return self.tables[self._table_by_name[name.upper()]]

    def table_index(self, name: str) -> int | None:
        return self._table_by_name.get(name.upper())


def _table_name_ok(name: str) -> bool:
    return len(name) == 3 and name[:2] in NATIONS and name[2].isdigit()


def board_from_grid(name: str, grid: Sequence[Sequence[str | None]], aisles: Sequence[str]) -> Board:
    """Build a board from a grid of table names (``BAR`` or ``None`` for other cells) and aisles.

    Two tables next to each other on the grid share the chair between them, except across an
    aisle (``"CN1s|DE1n"``). The shared chair is named after the table that comes first in
    reading order.
    """
    rows, cols = len(grid), max(len(r) for r in grid)
    cells: dict[tuple[int, int], str] = {}
    bar_cell = None
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == "BAR":
                bar_cell = (r, c)
            elif cell is not None:
                if not _table_name_ok(cell) or cell in cells.values():
                    raise InvalidPositionError(f"board {name}: bad or repeated table name {cell!r}")
                cells[(r, c)] = cell
    aisle_set: set[frozenset[str]] = set()
    for aisle in aisles:
        a, b = aisle.split("|")
        aisle_set.add(frozenset((a, b)))
    opposite = {"n": "s", "s": "n", "e": "w", "w": "e"}
    step = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}

    order = sorted(cells)  # reading order
    table_index = {cells[pos]: i for i, pos in enumerate(order)}
    chair_names: list[list[str]] = []
    chair_tables: list[list[int]] = []
    by_side: dict[str, int] = {}
    for pos in order:
        tname = cells[pos]
        for side in SIDES:
            own = f"{tname}{side}"
            if own in by_side:
                continue
            dr, dc = step[side]
            other = cells.get((pos[0] + dr, pos[1] + dc))
            index = len(chair_names)
            if other is not None and frozenset((own, f"{other}{opposite[side]}")) not in aisle_set:
                alias = f"{other}{opposite[side]}"
                chair_names.append([own, alias])
                chair_tables.append([table_index[tname], table_index[other]])
                by_side[alias] = index
            else:
                chair_names.append([own])
                chair_tables.append([table_index[tname]])
            by_side[own] = index
    tables = tuple(
        Table(
            index=i,
            name=cells[pos],
            nation=cells[pos][:2],
            row=pos[0],
            col=pos[1],
            chairs=tuple(by_side[f"{cells[pos]}{s}"] for s in SIDES),
        )
        for i, pos in enumerate(order)
    )
    chairs = tuple(
        Chair(
            index=i,
            name=names[0],
            names=tuple(names),
            tables=tuple(chair_tables[i]),
            nations=tuple(sorted({tables[t].nation for t in chair_tables[i]})),
        )
        for i, names in enumerate(chair_names)
    )
    by_name = {n.upper(): c.index for c in chairs for n in c.names}
    neighbours = tuple(
        frozenset(o for t in chair.tables for o in tables[t].chairs if o != chair.index) for chair in chairs
    )
    return Board(
        name=name,
        tables=tables,
        chairs=chairs,
        rows=rows,
        cols=cols,
        bar_cell=bar_cell,
        _by_name=by_name,
        _table_by_name={t.name: t.index for t in tables},
        neighbours=neighbours,
    )


@cache
def get_board(name: str) -> Board:
    """The board called ``name``; raises ``InvalidPositionError`` for an unknown one."""
    data = BOARD_DATA.get(name)
    if data is None:
        raise InvalidPositionError(f"unknown board {name!r} (known: {', '.join(sorted(BOARD_DATA))})")
    return board_from_grid(name, data["grid"], data["aisles"])
