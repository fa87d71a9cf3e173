"""docs/rules.md sections 1 and 2: the material and the board ``classic``, checked against the rules text."""

from __future__ import annotations

import pytest

from engine import (
    BAR_PLACES,
    BAR_VALUES,
    NATIONS,
    Board,
    InvalidPositionError,
    get_board,
    new_position,
    position_from_dict,
    position_to_dict,
)
from engine.cards import NATION_NAMES

#: section 2's grid, typed from docs/rules.md (None is the bar)
GRID: list[list[str | None]] = [
    ["GB1", "CN1", "FR1", "IN1", "US1"],
    ["RU1", "DE1", "ES1", "TR1", "CU1"],
    ["IT1", "CF1", None, "RU2", "IT2"],
    ["TR2", "CU2", "IN2", "CN2", "CF2"],
    ["US2", "ES2", "FR2", "DE2", "GB2"],
]
#: section 2's shared chairs, typed from docs/rules.md: canonical name first
OUTER_RING = [
    "GB1e=CN1w",
    "CN1e=FR1w",
    "FR1e=IN1w",
    "IN1e=US1w",
    "US1s=CU1n",
    "CU1s=IT2n",
    "IT2s=CF2n",
    "CF2s=GB2n",
    "DE2e=GB2w",
    "FR2e=DE2w",
    "ES2e=FR2w",
    "US2e=ES2w",
    "TR2s=US2n",
    "IT1s=TR2n",
    "RU1s=IT1n",
    "GB1s=RU1n",
]
INNER_RING = [
    "DE1e=ES1w",
    "ES1e=TR1w",
    "TR1s=RU2n",
    "RU2s=CN2n",
    "IN2e=CN2w",
    "CU2e=IN2w",
    "CF1s=CU2n",
    "DE1s=CF1n",
]
SPOKES = ["FR1s=ES1n", "RU2e=IT2w", "IN2s=FR2n", "IT1e=CF1w"]
SHARED = OUTER_RING + INNER_RING + SPOKES
AISLES = [
    "CN1s|DE1n",
    "RU1e|DE1w",
    "IN1s|TR1n",
    "TR1e|CU1w",
    "CF2w|CN2e",
    "CN2s|DE2n",
    "CU2s|ES2n",
    "TR2e|CU2w",
]
BAR_FACING = ("ES1s", "RU2w", "IN2n", "CF1e")
SIDES = ("n", "e", "s", "w")
STEP = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}
OPPOSITE = {"n": "s", "e": "w", "s": "n", "w": "e"}


@pytest.fixture(scope="module")
def board() -> Board:
    """The board ``classic``."""
    return get_board("classic")


def cell(row: int, col: int) -> str | None:
    inside = 0 <= row < len(GRID) and 0 <= col < len(GRID[0])
    return GRID[row][col] if inside else None


def position_of(table: str) -> tuple[int, int]:
    for r, row in enumerate(GRID):
        if table in row:
            return r, row.index(table)
    raise KeyError(table)


# --- section 1: material -------------------------------------------------------------------------


def test_material_twelve_nations_with_their_codes() -> None:
    """The 12 nations and their codes, as section 1 lists them."""
    assert NATION_NAMES == {
        "CF": "Central Africa",
        "CN": "China",
        "CU": "Cuba",
        "DE": "Germany",
        "ES": "Spain",
        "FR": "France",
        "GB": "United Kingdom",
        "IN": "India",
        "IT": "Italy",
        "RU": "Russia",
        "TR": "Turkey",
        "US": "USA",
    }
    assert sorted(NATIONS) == sorted(NATION_NAMES)
    assert len(NATIONS) == 12


def test_material_bar_has_20_places_with_the_listed_values() -> None:
    """Bar places 1..20 are worth +1..+5, then -2, -4, ... -30."""
    assert BAR_PLACES == 20
    assert list(BAR_VALUES) == [
        1,
        2,
        3,
        4,
        5,
        -2,
        -4,
        -6,
        -8,
        -10,
        -12,
        -14,
        -16,
        -18,
        -20,
        -22,
        -24,
        -26,
        -28,
        -30,
    ]


def test_material_board_has_24_tables_two_per_nation(board: Board) -> None:
    """24 tables, 2 per nation, named nation + 1 or 2."""
    assert len(board.tables) == 24
    for nation in NATIONS:
        assert sorted(t.name for t in board.tables if t.nation == nation) == [f"{nation}1", f"{nation}2"]


def test_material_68_chairs_28_shared_40_of_one_table(board: Board) -> None:
    """68 chairs: 28 between two tables, 40 at one table only; each table has 4."""
    assert len(board.chairs) == 68
    assert sum(1 for c in board.chairs if len(c.tables) == 2) == 28
    assert sum(1 for c in board.chairs if len(c.tables) == 1) == 40
    assert all(len(set(t.chairs)) == 4 for t in board.tables)


# --- section 2: the board classic ---------------------------------------------------------------


def test_board_tables_sit_at_the_listed_grid_positions(board: Board) -> None:
    """Each table stands at the row and column of section 2's grid; the bar is the middle cell."""
    placed = {(t.row, t.col): t.name for t in board.tables}
    expected = {(r, c): name for r, row in enumerate(GRID) for c, name in enumerate(row) if name is not None}
    assert placed == expected
    assert board.bar_cell == (2, 2)


def test_board_table_one_comes_first_in_reading_order(board: Board) -> None:
    """Of a nation's two tables, number 1 is the first in reading order."""
    for nation in NATIONS:
        one, two = board.table(f"{nation}1"), board.table(f"{nation}2")
        assert (one.row, one.col) < (two.row, two.col)
        assert one.index < two.index


def test_board_tables_are_numbered_in_reading_order(board: Board) -> None:
    """Tables are held in reading order (board order starts here)."""
    assert [t.name for t in board.tables] == [name for row in GRID for name in row if name is not None]


@pytest.mark.parametrize("table", [name for row in GRID for name in row if name is not None])
def test_board_each_table_has_one_chair_per_side_named_after_it(board: Board, table: str) -> None:
    """Table FR1 has chairs FR1n, FR1e, FR1s, FR1w, in this order; each of them sits at FR1."""
    t = board.table(table)
    for side, index in zip(SIDES, t.chairs, strict=True):
        chair = board.chair(f"{table}{side}")
        assert chair.index == index
        assert f"{table}{side}" in chair.names
        assert t.index in chair.tables


def test_board_shared_chairs_are_exactly_the_28_listed(board: Board) -> None:
    """The shared chairs of the board are the 28 of section 2, and no other (compared both ways)."""
    assert (len(OUTER_RING), len(INNER_RING), len(SPOKES)) == (16, 8, 4)
    listed = {tuple(pair.split("=")) for pair in SHARED}
    on_board = {c.names for c in board.chairs if len(c.names) == 2}
    assert on_board == listed
    assert len(listed) == 28


@pytest.mark.parametrize("pair", SHARED)
def test_board_shared_chair_sits_at_both_tables(board: Board, pair: str) -> None:
    """A shared chair belongs to both tables, answers to both names and takes either nation."""
    first, second = pair.split("=")
    chair = board.chair(first)
    assert board.chair(second) is chair
    assert sorted(board.tables[t].name for t in chair.tables) == sorted([first[:3], second[:3]])
    assert sorted(chair.nations) == sorted({first[:2], second[:2]})


@pytest.mark.parametrize("pair", SHARED)
def test_board_canonical_name_is_the_first_table_in_reading_order(board: Board, pair: str) -> None:
    """``FR1s`` = ``ES1n`` is called ``FR1s``: FR1 comes before ES1 in reading order."""
    first, second = pair.split("=")
    assert position_of(first[:3]) < position_of(second[:3])
    assert board.chair(second).name == first
    assert board.chair(first).name == first


@pytest.mark.parametrize("aisle", AISLES)
def test_board_aisle_gives_each_side_a_chair_of_its_own(board: Board, aisle: str) -> None:
    """Across an aisle two neighbouring tables share no chair: each side is a one-table chair."""
    left, right = aisle.split("|")
    (r1, c1), (r2, c2) = position_of(left[:3]), position_of(right[:3])
    assert abs(r1 - r2) + abs(c1 - c2) == 1  # the tables do face each other
    a, b = board.chair(left), board.chair(right)
    assert a is not b
    assert a.names == (left,)
    assert b.names == (right,)


@pytest.mark.parametrize("name", BAR_FACING)
def test_board_chairs_facing_the_bar_belong_to_one_table(board: Board, name: str) -> None:
    """ES1s, RU2w, IN2n, CF1e face the bar and belong to their own table only."""
    chair = board.chair(name)
    assert chair.names == (name,)
    assert len(chair.tables) == 1
    r, c = position_of(name[:3])
    dr, dc = STEP[name[3]]
    assert (r + dr, c + dc) == (2, 2)


def test_board_every_side_follows_the_facing_rule(board: Board) -> None:
    """A side facing another table is shared with it unless an aisle runs between; walls, the bar and
    aisles give one-table chairs (derived here from the typed grid and aisles)."""
    aisles = {frozenset(a.split("|")) for a in AISLES}
    for r, row in enumerate(GRID):
        for c, table in enumerate(row):
            if table is None:
                continue
            for side in SIDES:
                own = f"{table}{side}"
                dr, dc = STEP[side]
                other = cell(r + dr, c + dc)
                chair = board.chair(own)
                if other is not None and frozenset((own, f"{other}{OPPOSITE[side]}")) not in aisles:
                    assert board.chair(f"{other}{OPPOSITE[side]}") is chair, own
                else:
                    assert chair.names == (own,), own


def test_board_order_tables_in_reading_order_sides_n_e_s_w(board: Board) -> None:
    """Chairs are numbered in board order: tables in reading order, sides n, e, s, w, each chair at its
    first appearance."""
    seen: list[int] = []
    for t in board.tables:
        for index in t.chairs:
            if index not in seen:
                seen.append(index)
    assert seen == list(range(68))


@pytest.mark.parametrize("alias", ["ES1n", "es1n", "FR1S", "fr1s"])
def test_board_both_names_accepted_in_any_case(board: Board, alias: str) -> None:
    """Either name of a shared chair, in any case, finds the chair called FR1s."""
    assert board.chair(alias).name == "FR1s"


@pytest.mark.parametrize("name", ["FR3n", "FR1x", "XX1n", "bar", "", "FR1"])
def test_board_unknown_chair_names(board: Board, name: str) -> None:
    """Names that are no chair are not found."""
    assert board.chair_index(name) is None


def test_board_unknown_board_is_refused() -> None:
    """Only known boards load."""
    with pytest.raises(InvalidPositionError, match="unknown board"):
        get_board("hexagonal")


@pytest.mark.parametrize("board", [[], {}, 3, None])
def test_a_board_that_is_no_name_is_refused(board: object) -> None:
    """A position's ``board`` of another JSON type is refused with a message (a list or an object
    raised a TypeError from the lookup, which the command line reported as a refused move)."""
    data = position_to_dict(new_position(["ann", "bob"], seed=1)) | {"board": board}
    with pytest.raises(InvalidPositionError, match="board"):
        position_from_dict(data)


def load_chair(chair: str, guest: str) -> bool:
    """Whether a position with ``guest`` alone on ``chair`` loads."""
    card = guest.split("=")[0]
    hands = [["CUm"], ["CUf"]] if card[:2] != "CU" else [["USm"], ["USf"]]
    try:
        position_from_dict(
            {
                "players": [{"name": "ann", "hand": hands[0]}, {"name": "bob", "hand": hands[1]}],
                "to_move": 0,
                "chairs": {chair: guest},
                "deck": [],
            }
        )
    except InvalidPositionError:
        return False
    return True


PARTNER = {a: b for pair in SHARED for a, b in (pair.split("="), reversed(pair.split("=")))}


@pytest.mark.parametrize("chair", ["FR1n", "FR1s", "ES1n", "ES1s", "GB1e", "FR2n", "DE1n"])
def test_board_which_guests_a_chair_takes(chair: str) -> None:
    """A natural guest only of the nation of one of the chair's tables; a joker declared as one of them."""
    nations = {chair[:2]} | ({PARTNER[chair][:2]} if chair in PARTNER else set())
    for nation in NATIONS:
        fits = nation in nations
        assert load_chair(chair, f"{nation}m") is fits, (chair, nation)
        assert load_chair(chair, f"Jf={nation}") is fits, (chair, nation)
