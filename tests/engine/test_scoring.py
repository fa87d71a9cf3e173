"""docs/rules.md section 4: scoring, drawing and the hand limit, worked out by hand."""

from __future__ import annotations

import pytest

from engine import get_board, legal_move_texts, play
from engine.board import BOARD_DATA
from tests.engine.rulebook import BYSTANDER, hand_of, make, table_points

# --- section 4: scoring -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chairs", "move", "points"),
    [
        # mixed nations: k points
        ({"DE1w": "DEm"}, "ESf@DE1e", 2),
        ({"DE1w": "DEm", "DE1n": "DEf"}, "ESm@DE1e", 3),
        ({"DE1w": "DEm", "DE1n": "DEf", "DE1s": "CFm"}, "ESf@DE1e", 4),
        # all of one nation: doubled
        ({"DE1w": "DEm"}, "DEf@DE1n", 4),
        ({"DE1w": "DEm", "DE1n": "DEf"}, "DEm@DE1e", 6),
        ({"DE1w": "DEm", "DE1n": "DEf", "DE1e": "DEm"}, "DEf@DE1s", 8),
    ],
    ids=["k2", "k3", "k4", "k2-one-nation", "k3-one-nation", "k4-one-nation"],
)
def test_scoring_k_guests_score_k_doubled_when_one_nation(
    chairs: dict[str, str], move: str, points: int
) -> None:
    """k = 2, 3, 4 guests at a table score 2, 3, 4; all of one nation 4, 6, 8 (the other table, k = 1: 0)."""
    card = move.split("@")[0]
    p = make(hands=[[card], BYSTANDER], chairs=chairs)
    result = play(p, move)
    assert result.points == points
    assert table_points(result)[0]["DE1"] == points


def test_scoring_jokers_count_as_their_declared_nation() -> None:
    """A joker declared German makes a German pair: 4, not 2."""
    p = make(hands=[["DEf"], BYSTANDER], chairs={"DE1w": "Jm=DE"})
    assert play(p, "DEf@DE1n").points == 4


def test_scoring_shared_chair_scores_at_both_tables() -> None:
    """FRf on FR1s: FR1 holds FRm (one-nation pair, 4), ES1 holds ESm (mixed pair, 2): 6 in all."""
    p = make(hands=[["FRf"], BYSTANDER], chairs={"FR1n": "FRm", "ES1s": "ESm"})
    result = play(p, "FRf@FR1s")
    assert table_points(result) == [{"FR1": 4, "ES1": 2}]
    assert result.points == 6


def test_scoring_worked_example_one_french_guest_then_two_french_guests() -> None:
    """Worked example: a table with one French guest, two French guests: 4 + 6 = 10."""
    p = make(hands=[["FRf", "FRm"], BYSTANDER], chairs={"FR1n": "FRm"}, scores=[7, 0])
    result = play(p, "FRf@CN1e FRm@FR1e")
    assert table_points(result) == [{"CN1": 0, "FR1": 4}, {"FR1": 6, "IN1": 0}]
    assert result.points == 10
    assert result.position.players[0].score == 17


def test_scoring_worked_example_empty_table_pair_of_one_nation() -> None:
    """Worked example: an empty table, a pair of one nation: 0 + 4 (seen through the per-table points)."""
    p = make(hands=[["FRm", "FRf"], BYSTANDER], chairs={"GB1n": "GBm"})
    result = play(p, "FRm@FR1n FRf@FR1e")
    assert table_points(result) == [{"FR1": 0}, {"FR1": 4, "IN1": 0}]


@pytest.mark.parametrize(
    ("chairs", "move", "points"),
    [
        # the guest of another nation is the one sitting down, first or in the middle of the table
        ({"DE1n": "DEm", "DE1w": "DEf"}, "ESm@DE1e", 3),
        ({"DE1e": "ESm"}, "DEf@DE1n", 2),
        # ... or one already seated: first in the table's order, in the middle, or last
        ({"DE1e": "ESm", "DE1w": "DEf"}, "DEm@DE1n", 3),
        ({"DE1n": "DEm", "DE1e": "ESf"}, "DEf@DE1w", 3),
        ({"DE1n": "DEm", "DE1s": "CFf"}, "DEf@DE1w", 3),
        ({"DE1n": "DEm", "DE1e": "ESf", "DE1w": "DEm"}, "DEf@DE1s", 4),
        ({"DE1n": "DEm", "DE1s": "CFf", "DE1w": "DEf"}, "DEm@DE1e", 4),
        # two of each of two nations
        ({"DE1n": "DEm", "DE1e": "ESf", "DE1s": "CFm"}, "DEf@DE1w", 4),
    ],
    ids=["k3-played", "k2-seated", "k3-first", "k3-middle", "k3-cf", "k4-es", "k4-cf", "k4-three-nations"],
)
def test_scoring_one_guest_of_another_nation_makes_the_table_mixed_wherever_it_sits(
    chairs: dict[str, str], move: str, points: int
) -> None:
    """With 2, 3 or 4 guests, one guest of another nation, whichever chair it holds and whether it
    sits down now or sat before, makes the table mixed: k points, not 2k."""
    card = move.split("@")[0]
    p = make(hands=[[card], BYSTANDER], chairs=chairs)
    result = play(p, move)
    assert table_points(result)[0]["DE1"] == points
    assert result.points == points
    if len(chairs) == 3:  # a full mixed table leaves the hand limit
        assert result.position.players[0].hand_limit == 5


@pytest.mark.parametrize(
    ("chairs", "move", "tables"),
    [
        # a seated joker declared for the chair's other nation
        ({"DE1n": "DEm", "DE1e": "Jf=ES"}, "DEf@DE1w", {"DE1": 3}),
        ({"FR1n": "FRf", "FR1e": "Jm=IN"}, "FRm@FR1s", {"FR1": 3, "ES1": 0}),
        # two jokers of two nations, and two of one
        ({"FR1e": "Jm=IN", "FR1s": "Jf=ES"}, "FRf@FR1n", {"FR1": 3}),
        ({"FR1e": "Jm=FR", "FR1s": "Jf=FR"}, "FRm@FR1n", {"FR1": 6}),
        # the joker sitting down, declared for the nation the table lacks
        ({"FR1n": "FRm", "FR1s": "ESf"}, "Jm=IN@FR1e", {"FR1": 3, "IN1": 0}),
        ({"FR1n": "FRm", "FR1s": "FRf"}, "Jm=FR@FR1e", {"FR1": 6, "IN1": 0}),
    ],
    ids=["seated-es", "seated-in", "two-nations", "one-nation", "played-in", "played-fr"],
)
def test_scoring_a_joker_counts_as_the_nation_it_was_declared(
    chairs: dict[str, str], move: str, tables: dict[str, int]
) -> None:
    """A joker is of its declared nation, not of the table's: declared otherwise it makes the table
    mixed; two jokers of one nation with a natural of it are one nation."""
    card = move.split("@")[0].split("=")[0]
    p = make(hands=[[card], BYSTANDER], chairs=chairs)
    result = play(p, move)
    assert table_points(result) == [tables]
    assert result.points == sum(tables.values())


def test_scoring_a_shared_chair_between_two_mixed_tables_scores_both_as_mixed() -> None:
    """FRf on FR1s joins FRm and a joker declared Indian at FR1, and ESm and DEf at ES1: 3 + 3."""
    chairs = {"FR1n": "FRm", "FR1e": "Jf=IN", "ES1s": "ESm", "DE1e": "DEf"}
    p = make(hands=[["FRf"], BYSTANDER], chairs=chairs)
    result = play(p, "FRf@FR1s")
    assert table_points(result) == [{"FR1": 3, "ES1": 3}]
    assert result.points == 6


def test_scoring_a_joker_on_a_shared_chair_is_one_nation_on_one_side_only() -> None:
    """Jf=ES on FR1s: ES1 (with ESm) is a Spanish pair, 4; FR1 (with FRm and FRf) is mixed, 3."""
    chairs = {"FR1n": "FRm", "CN1e": "FRf", "ES1s": "ESm"}
    p = make(hands=[["Jf"], BYSTANDER], chairs=chairs)
    result = play(p, "Jf=ES@FR1s")
    assert table_points(result) == [{"FR1": 3, "ES1": 4}]
    assert result.points == 7


def test_scoring_two_cards_of_two_nations_at_one_table_in_one_move() -> None:
    """DEf then ESm at DE1 (which holds DEm): the first makes a German pair, 4; the second a mixed
    three, 3."""
    p = make(hands=[["DEf", "ESm"], BYSTANDER], chairs={"DE1w": "DEm"})
    result = play(p, "DEf@DE1n ESm@DE1e")
    assert table_points(result) == [{"DE1": 4}, {"DE1": 3, "ES1": 0}]
    assert result.points == 7


def test_scoring_every_legal_move_to_a_two_nation_table_scores_it_mixed() -> None:
    """Every legal one-card move to a table that holds a German and a Spaniard, whatever the card
    (German, Spanish, Central African, a joker of any declared nation), scores that table 3."""
    chairs = {"DE1n": "DEm", "DE1e": "ESf"}
    p = make(hands=[["DEf", "DEm", "ESm", "CFf", "Jm"], BYSTANDER], chairs=chairs)
    at_de1 = [move for move in legal_move_texts(p) if " " not in move and "@DE1" in move]
    assert at_de1
    for move in at_de1:
        assert table_points(play(p, move))[0]["DE1"] == 3, move


# --- section 4: drawing and the hand limit -----------------------------------------------------


def test_drawing_up_to_the_hand_limit_from_the_front_of_the_deck() -> None:
    """A player with 5 cards who seats 2 draws the deck's first 2 cards."""
    deck = ["CNm", "CUf", "ITm", "ITf", "USm", "USf", "TRm"]
    p = make(hands=[["FRf", "FRm", "GBm", "GBf", "RUm"], BYSTANDER], chairs={"FR1n": "FRm"}, deck=deck)
    result = play(p, "FRf@FR1e FRm@FR1s")
    assert [c.text for c in result.drawn] == ["CNm", "CUf"]
    assert sorted(hand_of(result.position, 0)) == sorted(["GBm", "GBf", "RUm", "CNm", "CUf"])
    assert [c.text for c in result.position.deck] == deck[2:]


def test_drawing_nothing_when_the_hand_already_holds_the_limit() -> None:
    """A player holding more than the (lowered) limit after the move draws nothing."""
    p = make(hands=[["FRf", "GBm", "GBf", "RUm", "RUf"], BYSTANDER], chairs={"FR1n": "FRm"}, limits=[3, 5])
    result = play(p, "FRf@FR1e")
    assert result.drawn == ()
    assert len(result.position.players[0].hand) == 4


def test_hand_limit_drops_by_one_for_a_card_completing_a_one_nation_table() -> None:
    """The fourth German at DE1 scores 8 and lowers the limit to 4: the player draws one card fewer."""
    chairs = {"DE1w": "DEm", "DE1n": "DEf", "DE1e": "DEm"}
    p = make(hands=[["DEf", "GBm", "GBf", "RUm", "RUf"], BYSTANDER], chairs=chairs)
    result = play(p, "DEf@DE1s")
    assert result.points == 8
    assert result.position.players[0].hand_limit == 4
    assert len(result.drawn) == 0
    assert len(result.position.players[0].hand) == 4


def test_hand_limit_not_lowered_by_a_full_mixed_table() -> None:
    """A full table of mixed nations scores 4 and leaves the hand limit at 5."""
    chairs = {"DE1w": "DEm", "DE1n": "DEf", "DE1s": "CFm"}
    p = make(hands=[["ESf", "GBm", "GBf", "RUm", "RUf"], BYSTANDER], chairs=chairs)
    result = play(p, "ESf@DE1e")
    assert result.position.players[0].hand_limit == 5
    assert len(result.position.players[0].hand) == 5


def test_hand_limit_lowered_for_the_rest_of_the_game() -> None:
    """After the drop the player refills to 4, not 5, on later turns too."""
    chairs = {"DE1w": "DEm", "DE1n": "DEf", "DE1e": "DEm"}
    p = make(hands=[["DEf", "GBm", "GBf", "RUm", "RUf"], ["ITm", "ITf"]], chairs=chairs)
    after_ann = play(p, "DEf@DE1s").position
    after_bob = play(after_ann, "ITm@bar").position
    after_ann_again = play(after_bob, "GBm@bar").position
    assert after_ann_again.players[0].hand_limit == 4
    assert len(after_ann_again.players[0].hand) == 4


def test_hand_limit_two_cards_each_completing_a_table_lower_it_by_two() -> None:
    """DEf completes DE1 and TRm completes TR1, both of one nation: 8 + 8 and the limit 5 -> 3."""
    chairs = {
        "DE1n": "DEm",
        "DE1w": "DEf",
        "DE1e": "DEm",  # also ES1w
        "TR1n": "TRm",
        "TR1e": "TRf",
        "ES1e": "TRf",  # TR1w
    }
    p = make(hands=[["DEf", "TRm", "GBm", "GBf", "RUm"], BYSTANDER], chairs=chairs)
    result = play(p, "DEf@DE1s TRm@TR1s")
    assert result.points == 16
    assert result.position.players[0].hand_limit == 3
    assert result.drawn == ()
    assert len(result.position.players[0].hand) == 3


def test_hand_limit_never_below_zero() -> None:
    """A player with limit 1 who completes two one-nation tables ends at 0, not -1."""
    chairs = {"DE1n": "DEm", "DE1w": "DEf", "DE1e": "DEm", "TR1n": "TRm", "TR1e": "TRf", "ES1e": "TRf"}
    p = make(hands=[["DEf", "TRm"], BYSTANDER], chairs=chairs, limits=[1, 5])
    result = play(p, "DEf@DE1s TRm@TR1s")
    assert result.position.players[0].hand_limit == 0
    assert result.position.players[0].hand == ()


def test_hand_limit_a_card_completing_two_tables_at_once_lowers_it_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One card completing two one-nation tables lowers the limit by one (16 points, 5 -> 4).

    No shared chair of the classic board stands between two tables of one nation, so this needs a
    board where FR1 and FR2 stand side by side (boards are data: section 1)."""
    monkeypatch.setitem(BOARD_DATA, "twin-france", {"grid": [["FR1", "FR2", "GB1"]], "aisles": []})
    chairs = {"FR1n": "FRm", "FR1s": "FRm", "FR1w": "FRf", "FR2n": "FRm", "FR2e": "FRm", "FR2s": "FRf"}
    p = make(hands=[["FRf", "GBm", "GBf", "GBm", "GBf"], BYSTANDER], chairs=chairs, board="twin-france")
    assert get_board("twin-france").chair("FR2w").name == "FR1e"
    result = play(p, "FRf@FR1e")
    assert table_points(result) == [{"FR1": 8, "FR2": 8}]
    assert result.position.players[0].hand_limit == 4
    assert len(result.position.players[0].hand) == 4


def test_drawing_never_more_than_the_deck_holds() -> None:
    """A player who needs 5 cards from a deck of exactly 5 takes them all (the game then ends).

    A position still in play holds at least 5 cards in the deck (section 7.1) and a draw is at most 5,
    so this boundary is where the deck can run dry."""
    deck = ["CNm", "CUf", "ITm", "ITf", "USm"]
    p = make(hands=[["FRf", "FRm"], BYSTANDER], chairs={"FR1n": "FRm"}, deck=deck)
    result = play(p, "FRf@FR1e FRm@FR1s")
    assert [c.text for c in result.drawn] == deck
    assert result.position.deck == ()
