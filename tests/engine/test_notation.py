"""docs/rules.md section 11: the move notation (parse any case, print the canonical form) and how legal
moves are listed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from engine import (
    BarMove,
    IllegalMoveError,
    Position,
    SeatMove,
    SwapMove,
    get_board,
    legal_move_texts,
    legal_moves,
    parse_move,
    play,
    position_from_dict,
)

BOARD = get_board("classic")


def make(hand: Sequence[str], chairs: Mapping[str, str]) -> Position:
    """ann to move (not the start player) with ``hand``; bob holds two Italians; ten cards in the deck."""
    return position_from_dict(
        {
            "players": [{"name": "ann", "hand": list(hand)}, {"name": "bob", "hand": ["ITm", "ITf"]}],
            "to_move": 0,
            "start_player": 1,
            "chairs": dict(chairs),
            "deck": ["CUm", "CUf", "CUm", "CUf", "TRm", "TRf", "TRm", "TRf", "USm", "USf"],
        }
    )


def parse_code(text: str) -> str:
    with pytest.raises(IllegalMoveError) as info:
        parse_move(text, BOARD)
    assert info.value.message
    return info.value.code


# --- parsing and printing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("FRf@FR1s", "FRf@FR1s"),
        ("frf@fr1s", "FRf@FR1s"),
        ("FRF@FR1S", "FRf@FR1s"),
        ("FRf@ES1n", "FRf@FR1s"),  # either name of a shared chair; the canonical one is printed
        ("frf@es1N", "FRf@FR1s"),
        ("FRf@FR1s ESm@ES1e", "FRf@FR1s ESm@ES1e"),
        ("  FRf@ES1n \t ESm@TR1w  ", "FRf@FR1s ESm@ES1e"),
        ("ESm@ES1e FRf@FR1s", "ESm@ES1e FRf@FR1s"),  # two cards keep the order given
        ("Jf=FR@FR1s", "Jf=FR@FR1s"),
        ("jf=fr@es1n", "Jf=FR@FR1s"),
        ("Jf=ES@FR1s", "Jf=ES@FR1s"),
        ("Jf@FR1n", "Jf@FR1n"),  # on a one-table chair the plain form is enough
        ("Jf=FR@FR1n", "Jf@FR1n"),  # and is the canonical one
        ("JM@fr1N", "Jm@FR1n"),
        ("FRf@bar", "FRf@bar"),
        ("frf@BAR", "FRf@bar"),
        ("Jm@bar", "Jm@bar"),
        ("swap FRf@FR1s", "swap FRf@FR1s"),
        ("SWAP frf@es1n", "swap FRf@FR1s"),
        ("Swap FRm@FR1n", "swap FRm@FR1n"),
    ],
)
def test_notation_parse_any_case_print_canonical(text: str, canonical: str) -> None:
    """Input is case-insensitive and takes either chair name; the engine prints the canonical form."""
    move = parse_move(text, BOARD)
    assert move.text == canonical
    assert str(move) == canonical
    assert parse_move(canonical, BOARD).text == canonical


def test_notation_move_kinds() -> None:
    """Seat, bar and swap moves parse to their own kinds."""
    seat = parse_move("FRf@FR1s ESm@ES1e", BOARD)
    assert isinstance(seat, SeatMove)
    assert [(p.card.text, BOARD.chairs[p.chair].name) for p in seat.placements] == [
        ("FRf", "FR1s"),
        ("ESm", "ES1e"),
    ]
    bar = parse_move("FRf@bar", BOARD)
    assert isinstance(bar, BarMove)
    assert bar.card.text == "FRf"
    swap = parse_move("swap FRf@ES1n", BOARD)
    assert isinstance(swap, SwapMove)
    assert (swap.card.text, swap.chair_name) == ("FRf", "FR1s")


def test_seat_moves_are_equal_when_their_text_is() -> None:
    """A seat move parsed in any case, or with either chair name, equals and hashes as the one
    legal_moves lists; another seat move does not, nor does its text."""
    assert parse_move("frf@es1n", BOARD) == parse_move("FRf@FR1s", BOARD)
    moves = [m for m in legal_moves(make(["FRf", "ESm"], {"FR1n": "FRm"})) if isinstance(m, SeatMove)]
    seat, other = moves[0], moves[1]
    parsed = parse_move(seat.text.lower(), BOARD)
    assert parsed is not seat and parsed == seat and hash(parsed) == hash(seat)
    assert parsed in set(moves) and parsed != other and parsed != seat.text
    assert repr(parsed) == f"SeatMove({seat.text!r})"


def test_notation_joker_declared_nation_is_kept() -> None:
    """A joker's declared nation is part of the placement."""
    move = parse_move("Jf=ES@FR1s", BOARD)
    assert isinstance(move, SeatMove)
    assert move.placements[0].guest.text == "Jf=ES"
    plain = parse_move("Jf@FR1n", BOARD)
    assert isinstance(plain, SeatMove)
    assert plain.placements[0].guest.text == "Jf=FR"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "FRf",
        "FRf FR1s",
        "FRf@",
        "@FR1s",
        "FRx@FR1s",
        "XXf@FR1s",
        "FR@FR1s",
        "J@FR1s",
        "FRf=FR@FR1s",  # only a joker declares a nation
        "Jf=XX@FR1s",
        "Jf=@FR1s",
        "Jm=FR@bar",  # a joker at the bar declares nothing
        "FRf@bar ESm@ES1e",  # a bar move is one card
        "FRf@bar FRm@bar",
        "swap",
        "swap FRf",
        "swap FRf@",
        "swap FRf@FR1s ESm@ES1e",
        "swap Jf=FR@FR1s",
        "play FRf@FR1s",
    ],
)
def test_notation_bad_notation(text: str) -> None:
    """Text that is not a move of section 11 is refused with ``bad_notation``."""
    assert parse_code(text) == "bad_notation"


@pytest.mark.parametrize("text", ["FRf@FR3s", "FRf@FR1x", "FRf@XX1n", "FRf@FR1s ESm@ES9e", "swap FRf@ZZ1n"])
def test_notation_unknown_chair(text: str) -> None:
    """A chair name that is no chair is refused with ``unknown_chair``."""
    assert parse_code(text) == "unknown_chair"


@pytest.mark.parametrize("text", ["Jf@FR1s", "jf@es1n", "Jm@GB1e", "FRf@FR1n Jm@FR1e"])
def test_notation_joker_on_shared_chair_needs_a_nation(text: str) -> None:
    """A joker on a chair between two nations without a declared nation: ``joker_nation``."""
    assert parse_code(text) == "joker_nation"


# --- listing legal moves ----------------------------------------------------------------------------


def test_listing_sorted_as_text_each_move_once() -> None:
    """Legal moves are canonical, sorted in code-point order, and listed once each."""
    p = make(["FRf", "FRm", "ESf", "Jm", "GBf"], {"FR1n": "FRm", "ES1s": "ESm", "GB1n": "GBm"})
    texts = legal_move_texts(p)
    assert texts == sorted(set(texts))
    assert all(parse_move(t, BOARD).text == t for t in texts)


def test_listing_both_orders_where_the_chairs_share_a_table_and_both_are_legal() -> None:
    """FR1s and ES1e share ES1; ESf and FRf are legal there in either order, so both are listed."""
    p = make(["FRf", "ESf"], {"FR1n": "FRm", "ES1s": "ESm"})
    texts = legal_move_texts(p)
    assert "FRf@FR1s ESf@ES1e" in texts
    assert "ESf@ES1e FRf@FR1s" in texts


def test_listing_only_the_legal_order_where_one_order_breaks_a_rule() -> None:
    """With a Spanish man at ES1, FRf then ESm is legal at ES1, but ESm first makes 2 men alone there."""
    p = make(["FRf", "ESm"], {"FR1n": "FRm", "ES1s": "ESm"})
    texts = legal_move_texts(p)
    assert "FRf@FR1s ESm@ES1e" in texts
    assert "ESm@ES1e FRf@FR1s" not in texts


def test_listing_disjoint_pair_once_in_board_order_accepted_in_any_order() -> None:
    """GB1w and US1e have no table in common: listed once, GB1 first; played reversed it is the same move."""
    p = make(["GBf", "USf"], {"GB1n": "GBm", "US1n": "USm"})
    texts = legal_move_texts(p)
    assert "GBf@GB1w USf@US1e" in texts
    assert "USf@US1e GBf@GB1w" not in texts
    reversed_play = play(p, "USf@US1e GBf@GB1w")
    assert reversed_play.move == "GBf@GB1w USf@US1e"
    assert reversed_play.position == play(p, "GBf@GB1w USf@US1e").position


def test_listing_every_two_card_move_follows_the_order_rules() -> None:
    """Every listed pair: on chairs sharing a table, the reverse is listed exactly when it is legal;
    on chairs with no table in common, the pair is in board order and the reverse is not listed."""
    p = make(["FRf", "FRm", "ESf", "ESm", "GBf"], {"FR1n": "FRm", "ES1s": "ESf", "GB1n": "GBm"})
    texts = set(legal_move_texts(p))
    pairs = [t for t in texts if len(t.split()) == 2 and "swap" not in t]
    assert pairs
    for text in pairs:
        first, second = text.split()
        a, b = BOARD.chair(first.split("@")[1]), BOARD.chair(second.split("@")[1])
        reverse = f"{second} {first}"
        if set(a.tables) & set(b.tables):
            try:
                play(p, reverse)
                legal = True
            except IllegalMoveError:
                legal = False
            assert (reverse in texts) is legal, text
        else:
            assert a.index < b.index, text
            assert reverse not in texts, text


def test_listing_joker_once_per_nation_plain_on_one_table_chairs() -> None:
    """A female joker next to a French man on FR1e (FR1 and IN1): each shared chair once per nation,
    each one-table chair in the plain form, and never to the bar while it can sit."""
    p = make(["Jf"], {"FR1e": "FRm"})
    assert legal_move_texts(p) == sorted(
        [
            "Jf@FR1n",
            "Jf=FR@FR1s",
            "Jf=ES@FR1s",
            "Jf=CN@CN1e",
            "Jf=FR@CN1e",
            "Jf@IN1n",
            "Jf=IN@IN1e",
            "Jf=US@IN1e",
            "Jf@IN1s",
        ]
    )


def test_listing_complete_for_a_small_hand() -> None:
    """GBf and GBm with a British man on GB1n, worked out by hand: 35 moves.

    Alone: GBf joins him on GB1e, GB1s or GB1w (GBm would make 2 men). Bar: either card.
    Pairs at GB1: GBf first, then GBm on another free chair (the man first would make 2 men).
    Pairs at the empty GB2: either card first, the other on another GB2 chair, both orders."""
    p = make(["GBf", "GBm"], {"GB1n": "GBm"})
    gb1 = ["GB1e", "GB1s", "GB1w"]
    gb2 = ["CF2s", "GB2e", "GB2s", "DE2e"]  # GB2n and GB2w by their canonical names
    expected = (
        [f"GBf@{c}" for c in gb1]
        + ["GBf@bar", "GBm@bar"]
        + [f"GBf@{x} GBm@{y}" for x in gb1 for y in gb1 if x != y]
        + [f"GBf@{x} GBm@{y}" for x in gb2 for y in gb2 if x != y]
        + [f"GBm@{x} GBf@{y}" for x in gb2 for y in gb2 if x != y]
    )
    assert len(expected) == 35
    assert legal_move_texts(p) == sorted(expected)
