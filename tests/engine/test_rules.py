"""docs/rules.md sections 4 to 10 and 13, rule by rule: every number below is worked out by hand.

Positions are written in the JSON format of section 12, so each test reads like the rule it checks.
Unless a test says otherwise, the player to move is not the start player, so the opening
exception (section 4, rule 5) does not apply.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from engine import (
    RULE_ERROR_CODES,
    IllegalMoveError,
    PlayResult,
    Position,
    dump_position,
    get_board,
    legal_move_texts,
    outcome,
    play,
    position_from_dict,
)
from engine.board import BOARD_DATA

NATION_CODES = ("CF", "CN", "CU", "DE", "ES", "FR", "GB", "IN", "IT", "RU", "TR", "US")
#: the 100 cards of section 1: 4 men and 4 women per nation, 2 male and 2 female jokers
FULL_SET = [f"{n}{g}" for n in NATION_CODES for g in "mf" for _ in range(4)] + ["Jm", "Jm", "Jf", "Jf"]
NAMES = ("ann", "bob", "cem", "dora")
#: bar cards used to fill places before the one under test (no FR card among them)
BAR_FILLER = [f"{n}{g}" for n in ("CF", "CN", "CU", "DE", "ES", "GB", "IN", "IT", "RU", "TR") for g in "mf"]


def rest_of_set(used: Iterable[str]) -> list[str]:
    """The cards of the 100-card set that ``used`` leaves, in set order."""
    rest = list(FULL_SET)
    for card in used:
        rest.remove(card)
    return rest


def make(
    *,
    hands: Sequence[Sequence[str]],
    chairs: Mapping[str, str] | None = None,
    bar: Sequence[str] = (),
    deck: Sequence[str] | None = None,
    to_move: int = 0,
    start_player: int | None = None,
    scores: Sequence[int] | None = None,
    limits: Sequence[int] | None = None,
    eliminated: Sequence[int] = (),
    stammtisch: bool = False,
    board: str = "classic",
) -> Position:
    """A position in the section 12 format. By default the deck holds 10 unused cards and the
    start player is the next seat after the player to move (so there is no opening)."""
    chairs = dict(chairs or {})
    n = len(hands)
    if deck is None:
        used = [g.split("=")[0] for g in chairs.values()] + [c for h in hands for c in h] + list(bar)
        rest = rest_of_set(used)
        deck = rest[:: max(1, len(rest) // 10)][:10]
    data: dict[str, Any] = {
        "board": board,
        "options": {"stammtisch": stammtisch},
        "players": [
            {
                "name": NAMES[i],
                "hand": list(hand),
                "score": scores[i] if scores else 0,
                "hand_limit": limits[i] if limits else 5,
            }
            for i, hand in enumerate(hands)
        ],
        "eliminated": [NAMES[i] for i in eliminated],
        "to_move": to_move,
        "start_player": (to_move + 1) % n if start_player is None else start_player,
        "chairs": chairs,
        "bar": list(bar),
        "deck": list(deck),
    }
    return position_from_dict(data)


def refusal(position: Position, move: str) -> str:
    """The error code ``play`` refuses ``move`` with (it must refuse it, with a sentence)."""
    with pytest.raises(IllegalMoveError) as info:
        play(position, move)
    assert info.value.message
    return info.value.code


def guest_at(position: Position, chair: str) -> str | None:
    index = position.board.chair_index(chair)
    assert index is not None
    guest = position.chairs[index]
    return None if guest is None else guest.text


def hand_of(position: Position, player: int) -> list[str]:
    return [c.text for c in position.players[player].hand]


def table_points(result: PlayResult) -> list[dict[str, int]]:
    """For each card seated, the points it scored at each of its tables."""
    return [e["tables"] for e in result.events if e["type"] == "seat"]


BYSTANDER = ["ITm", "ITf"]


# --- section 4, rule 1: nation ---------------------------------------------------------------


def test_nation_natural_guest_sits_at_a_table_of_its_own_nation() -> None:
    """A French card may sit at a French table."""
    p = make(hands=[["FRf"], BYSTANDER], chairs={"FR1e": "FRm"})
    assert guest_at(play(p, "FRf@FR1n").position, "FR1n") == "FRf"


def test_nation_guest_of_another_nation_is_refused() -> None:
    """A British card may not sit on a chair of a French table only."""
    p = make(hands=[["GBf"], BYSTANDER], chairs={"FR1e": "FRm"})
    assert refusal(p, "GBf@FR1n") == "wrong_nation"


@pytest.mark.parametrize("card", ["FRf", "ESf"])
def test_nation_shared_chair_takes_either_nation(card: str) -> None:
    """FR1s stands between FR1 and ES1: a French and a Spanish guest may both sit there."""
    p = make(hands=[[card], BYSTANDER], chairs={"FR1n": "FRm", "ES1s": "ESm"})
    assert guest_at(play(p, f"{card}@FR1s").position, "FR1s") == card


def test_nation_joker_on_one_table_chair_takes_that_tables_nation() -> None:
    """A joker on FR1n (a chair of FR1 only) is French: with a French man, 2 guests of one nation = 4."""
    p = make(hands=[["Jf"], BYSTANDER], chairs={"FR1e": "FRm"})
    result = play(p, "Jf@FR1n")
    assert guest_at(result.position, "FR1n") == "Jf=FR"
    assert result.points == 4


def test_nation_joker_on_shared_chair_counts_as_its_declared_nation() -> None:
    """Jf=ES on FR1s makes ES1 a one-nation pair (4) and FR1 a mixed pair (2); Jf=FR the reverse."""
    p = make(hands=[["Jf"], BYSTANDER], chairs={"FR1n": "FRm", "ES1s": "ESm"})
    as_spanish = play(p, "Jf=ES@FR1s")
    assert table_points(as_spanish) == [{"FR1": 2, "ES1": 4}]
    assert guest_at(as_spanish.position, "FR1s") == "Jf=ES"
    as_french = play(p, "Jf=FR@FR1s")
    assert table_points(as_french) == [{"FR1": 4, "ES1": 2}]


def test_nation_joker_declared_for_a_nation_the_chair_lacks_is_refused() -> None:
    """A joker declared British may not sit between France and Spain."""
    p = make(hands=[["Jf"], BYSTANDER], chairs={"FR1n": "FRm", "ES1s": "ESm"})
    assert refusal(p, "Jf=GB@FR1s") == "wrong_nation"


# --- section 4, rule 2: gender ---------------------------------------------------------------

#: DE1 is filled on DE1w, DE1e, DE1n in this order; the card under test goes to DE1s (CF1 is empty)
GENDER_CHAIRS = ("DE1w", "DE1e", "DE1n")


@pytest.mark.parametrize(
    ("before", "card", "allowed"),
    [
        ("m", "m", False),  # 2 men without a woman
        ("m", "f", True),  # 1m+1f
        ("f", "f", False),  # 2 women without a man
        ("f", "m", True),  # 1m+1f
        ("mf", "m", True),  # 2m+1f
        ("mf", "f", True),  # 1m+2f
        ("mmf", "m", False),  # 3 men
        ("mmf", "f", True),  # 2m+2f
        ("mff", "f", False),  # 3 women
        ("mff", "m", True),  # 2m+2f
    ],
)
def test_gender_rule_every_combination(before: str, card: str, allowed: bool) -> None:
    """Allowed at a table: 1m+1f, 2m+1f, 1m+2f, 2m+2f; never 2 of a gender without the other, never 3."""
    chairs = {chair: f"DE{g}" for chair, g in zip(GENDER_CHAIRS, before, strict=False)}
    p = make(hands=[[f"DE{card}"], BYSTANDER], chairs=chairs)
    move = f"DE{card}@DE1s"
    if allowed:
        k = len(before) + 1
        assert play(p, move).points == 2 * k  # all German: doubled
    else:
        assert refusal(p, move) == "gender"


@pytest.mark.parametrize(
    ("first", "second", "allowed"), [("m", "f", True), ("f", "m", True), ("m", "m", False), ("f", "f", False)]
)
def test_gender_rule_two_cards_at_an_empty_table(first: str, second: str, allowed: bool) -> None:
    """Two cards onto an empty table must be a man and a woman, in either order."""
    p = make(hands=[[f"DE{first}", f"DE{second}"], BYSTANDER])
    move = f"DE{first}@DE1n DE{second}@DE1w"
    if allowed:
        assert play(p, move).points == 0 + 4
    else:
        assert refusal(p, move) == "gender"


def test_gender_rule_second_man_only_after_a_woman() -> None:
    """With one man at a table, "woman then man" is legal and "man then woman" is not (order matters)."""
    p = make(hands=[["DEm", "DEf"], BYSTANDER], chairs={"DE1w": "DEm"})
    assert play(p, "DEf@DE1n DEm@DE1e").points == 4 + 6
    assert refusal(p, "DEm@DE1n DEf@DE1e") == "gender"


def test_gender_rule_counts_jokers_by_their_gender() -> None:
    """A male joker is a man: a German man may not join him alone."""
    p = make(hands=[["DEm"], BYSTANDER], chairs={"DE1w": "Jm=DE"})
    assert refusal(p, "DEm@DE1n") == "gender"


def test_gender_rule_holds_at_both_tables_of_a_shared_chair() -> None:
    """DE1e is also ES1w: a man there is fine for DE1 (1m+1f) but makes 2 men alone at ES1."""
    p = make(hands=[["DEm", "ESf"], BYSTANDER], chairs={"DE1w": "DEf", "ES1s": "ESm"})
    assert refusal(p, "DEm@DE1e") == "gender"
    # a woman is fine at ES1 but makes 2 women alone at DE1
    assert refusal(p, "ESf@DE1e") == "gender"


# --- section 4, rules 3 and 4: nobody alone, every card scores --------------------------------


def test_nobody_alone_single_card_at_an_empty_table_is_refused() -> None:
    """Outside the opening a single card may not sit at an empty table."""
    p = make(hands=[["FRf"], BYSTANDER], chairs={"GB1n": "GBm"})
    assert refusal(p, "FRf@FR1n") == "alone"


def test_nobody_alone_shared_chair_qualifies_through_either_table() -> None:
    """On FR1s a French woman is alone at FR1 but joins the Spanish man at ES1: legal, 0 + 2."""
    p = make(hands=[["FRf"], BYSTANDER], chairs={"ES1s": "ESm"})
    result = play(p, "FRf@FR1s")
    assert table_points(result) == [{"FR1": 0, "ES1": 2}]
    assert result.points == 2


def test_nobody_alone_two_cards_at_two_empty_tables_are_refused() -> None:
    """Two cards on chairs with no table in common, both at empty tables, each sit alone."""
    p = make(hands=[["FRf", "GBm"], BYSTANDER])
    assert refusal(p, "FRf@FR1n GBm@GB1n") == "alone"


def test_two_of_the_same_card_may_be_played_together() -> None:
    """Two French women join a French man at FR1 (one man, two women): listed, as any pair is."""
    p = make(hands=[["FRf", "FRf"], BYSTANDER], chairs={"FR1n": "FRm"})
    assert "FRf@FR1e FRf@FR1s" in legal_move_texts(p)
    assert play(p, "FRf@FR1e FRf@FR1s").points == 4 + 6  # one nation: twice the guests at FR1


def test_nobody_alone_second_card_alone_is_refused() -> None:
    """The first card scores (it joins a guest), the second sits alone at an empty table."""
    p = make(hands=[["FRf", "GBm"], BYSTANDER], chairs={"FR1e": "FRm"})
    assert refusal(p, "FRf@FR1n GBm@GB1n") == "alone"


def test_every_card_scores_first_card_at_empty_table_joined_by_second_card() -> None:
    """Worked example: an empty table, a pair of one nation: 0 + 4."""
    p = make(hands=[["GBf", "GBm"], BYSTANDER], chairs={"FR1e": "FRm"})
    result = play(p, "GBf@GB1n GBm@GB1w")
    assert [e["points"] for e in result.events if e["type"] == "seat"] == [0, 4]
    assert result.points == 4
    assert result.position.players[0].score == 4


def test_every_card_scores_first_card_on_shared_chair_joined_at_its_other_table() -> None:
    """FRf on FR1s (FR1 and ES1 empty) is joined at ES1 by ESm on ES1e: 0, then 2 at ES1 + 0 at TR1."""
    p = make(hands=[["FRf", "ESm"], BYSTANDER], chairs={"GB1n": "GBm"})
    result = play(p, "FRf@FR1s ESm@ES1e")
    assert table_points(result) == [{"FR1": 0, "ES1": 0}, {"ES1": 2, "TR1": 0}]
    assert result.points == 2


def test_every_card_scores_first_card_not_joined_is_refused() -> None:
    """A first card at an empty table whose second card scores elsewhere sits alone: ``alone``."""
    p = make(hands=[["GBf", "FRf"], BYSTANDER], chairs={"FR1n": "FRm"})
    assert refusal(p, "GBf@GB1n FRf@FR1e") == "alone"


def test_every_card_scores_the_exception_is_for_the_first_card_only() -> None:
    """Reversed, the second card is the one at the empty table, and nothing joins it."""
    p = make(hands=[["GBf", "FRf"], BYSTANDER], chairs={"FR1n": "FRm"})
    assert refusal(p, "FRf@FR1e GBf@GB1n") == "alone"


# --- section 4, rule 5: the opening ----------------------------------------------------------


def test_opening_start_player_may_seat_one_card_alone_for_zero() -> None:
    """While every chair is free, the start player may seat a single card alone, for 0 points."""
    p = make(hands=[["FRf", "GBm"], BYSTANDER], start_player=0)
    result = play(p, "FRf@FR1n")
    assert result.points == 0
    assert guest_at(result.position, "FR1n") == "FRf"


def test_opening_applies_whatever_the_bar_holds() -> None:
    """Cards at the bar do not end the opening: only seated guests do."""
    p = make(hands=[["FRf", "GBm"], BYSTANDER], bar=["ITm", "CUf"], start_player=0)
    assert play(p, "FRf@FR1s").points == 0
    assert "FRf@FR1s" in legal_move_texts(p)


def test_opening_lists_every_chair_of_the_cards_nation() -> None:
    """In the opening a lone French woman may take any of the 8 French chairs, or go to the bar."""
    p = make(hands=[["FRf"], BYSTANDER], start_player=0)
    assert legal_move_texts(p) == sorted(
        [
            "FRf@FR1n",
            "FRf@FR1e",
            "FRf@FR1s",
            "FRf@CN1e",
            "FRf@IN2s",
            "FRf@FR2e",
            "FRf@FR2s",
            "FRf@ES2e",
            "FRf@bar",
        ]
    )


def test_opening_is_for_the_start_player_only() -> None:
    """Another player facing an empty board (the start player went to the bar) may not sit alone."""
    p = make(hands=[["FRf", "GBm"], BYSTANDER], bar=["ITm"], to_move=0, start_player=1)
    assert refusal(p, "FRf@FR1n") == "alone"


def test_opening_ends_with_the_first_seated_guest() -> None:
    """Once a guest sits, the opening is over: the next player may not seat a card alone."""
    p = make(hands=[["FRf", "GBm"], ["ITm", "CUf"]], start_player=0)
    after = play(p, "FRf@FR1n").position
    assert refusal(after, "CUf@CU1e") == "alone"


def test_opening_pair_is_an_ordinary_move() -> None:
    """In the opening, two cards at two tables are refused (alone); a pair at one table scores 0 + 4."""
    p = make(hands=[["FRf", "FRm"], BYSTANDER], start_player=0)
    assert refusal(p, "FRf@FR1n FRm@FR2s") == "alone"
    assert play(p, "FRf@FR1n FRm@FR1e").points == 0 + 4


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


# --- section 5: the bar ------------------------------------------------------------------------

BAR_TABLE = [1, 2, 3, 4, 5, -2, -4, -6, -8, -10, -12, -14, -16, -18, -20, -22, -24, -26, -28, -30]


@pytest.mark.parametrize(("place", "value"), list(enumerate(BAR_TABLE, 1)))
def test_bar_place_scores_its_value(place: int, value: int) -> None:
    """A natural card on bar place n scores the value of section 1's table; its event says so."""
    p = make(hands=[["FRm", "FRf"], BYSTANDER], bar=BAR_FILLER[: place - 1], scores=[100, 0])
    result = play(p, "FRm@bar")
    assert result.points == value
    assert result.events[0] == {
        "type": "bar",
        "player": "ann",
        "card": "FRm",
        "place": place,
        "points": value,
    }
    assert result.position.players[0].score == 100 + value
    assert len(result.position.bar) == place
    assert result.position.bar[-1].text == "FRm"


def test_bar_nation_and_gender_play_no_part() -> None:
    """Any natural card may go to the bar, whatever is seated."""
    p = make(hands=[["GBm", "FRf"], BYSTANDER], chairs={"FR1n": "FRm"})
    assert play(p, "GBm@bar").points == 1


def test_bar_then_draw_up_to_the_hand_limit() -> None:
    """After the bar the player draws up to the hand limit."""
    deck = ["CNm", "CUf", "ITm", "ITf", "USm", "USf"]
    p = make(hands=[["FRm", "FRf", "GBm", "GBf", "RUm"], BYSTANDER], deck=deck)
    result = play(p, "FRm@bar")
    assert [c.text for c in result.drawn] == ["CNm"]
    assert len(result.position.players[0].hand) == 5


def test_joker_to_bar_refused_while_a_natural_card_is_in_hand() -> None:
    """A joker may not go to the bar while the player holds a natural card."""
    p = make(hands=[["Jm", "FRm"], BYSTANDER])
    assert refusal(p, "Jm@bar") == "joker_to_bar"


def test_joker_to_bar_refused_while_the_joker_can_be_seated() -> None:
    """A lone joker that can join the French woman at FR1 may not go to the bar."""
    p = make(hands=[["Jm"], BYSTANDER], chairs={"FR1n": "FRf"})
    assert refusal(p, "Jm@bar") == "joker_to_bar"


def test_joker_to_bar_refused_while_two_jokers_can_sit_as_a_pair() -> None:
    """On an empty board a male and a female joker can sit together as a pair: neither may go to the bar."""
    p = make(hands=[["Jm", "Jf"], BYSTANDER])
    assert refusal(p, "Jf@bar") == "joker_to_bar"


def test_joker_to_bar_allowed_without_another_legal_action() -> None:
    """Two male jokers facing a board where neither can sit: the only legal move is a joker to the bar."""
    p = make(hands=[["Jm", "Jm"], BYSTANDER])
    assert legal_move_texts(p) == ["Jm@bar"]
    assert play(p, "Jm@bar").position.bar[-1].text == "Jm"


@pytest.mark.parametrize("place", [1, 2, 3, 4, 5])
def test_joker_to_bar_earns_nothing_on_a_positive_place(place: int) -> None:
    """A joker on places 1..5 scores 0, not the place's value."""
    p = make(hands=[["Jm"], BYSTANDER], bar=BAR_FILLER[: place - 1], scores=[10, 0])
    result = play(p, "Jm@bar")
    assert result.points == 0
    assert result.position.players[0].score == 10


@pytest.mark.parametrize(("place", "value"), [(6, -2), (7, -4), (12, -14)])
def test_joker_to_bar_pays_on_a_negative_place(place: int, value: int) -> None:
    """A joker on a negative place pays its value."""
    p = make(hands=[["Jm"], BYSTANDER], bar=BAR_FILLER[: place - 1], scores=[20, 0])
    result = play(p, "Jm@bar")
    assert result.points == value
    assert result.position.players[0].score == 20 + value


def test_bar_elimination_when_the_score_is_below_the_cost() -> None:
    """Score 1 facing place 6 (cost 2): out; the card stays, score stays 1, 0 points, no draw, hand kept;
    the events say the card went to place 6 for nothing and why ann is out."""
    p = make(
        hands=[["FRm", "GBm"], ["ITm", "ITf"], ["CUm", "CUf"]],
        bar=BAR_FILLER[:5],
        scores=[1, 10, 10],
        deck=["CNm", "CUf", "TRm", "TRf", "USm", "USf"],
    )
    result = play(p, "FRm@bar")
    after = result.position
    assert result.points == 0
    assert after.bar[5].text == "FRm"
    assert after.players[0].score == 1
    assert hand_of(after, 0) == ["GBm"]
    assert result.drawn == ()
    assert after.deck == p.deck
    assert after.eliminated == (0,)
    assert after.to_move == 1
    assert list(result.events) == [
        {"type": "bar", "player": "ann", "card": "FRm", "place": 6, "points": 0},
        {"type": "eliminated", "player": "ann", "place": 6, "cost": 2, "score": 1},
    ]


def test_bar_eliminated_players_turns_are_skipped() -> None:
    """With ann eliminated, play goes bob, cem, bob, ..."""
    p = make(
        hands=[["FRm", "GBm"], ["ITm", "ITf", "ITm", "ITf", "TRm"], ["CUm", "CUf", "CUm", "CUf", "TRf"]],
        bar=BAR_FILLER[:5],
        scores=[1, 50, 50],
    )
    after_ann = play(p, "FRm@bar").position
    after_bob = play(after_ann, "ITm@bar").position
    assert after_bob.to_move == 2
    after_cem = play(after_bob, "CUm@bar").position
    assert after_cem.to_move == 1


def test_bar_score_exactly_the_cost_pays_down_to_zero() -> None:
    """Score 2 facing place 6 (cost 2): the player pays and stays in with 0."""
    p = make(hands=[["FRm", "GBm"], BYSTANDER], bar=BAR_FILLER[:5], scores=[2, 0])
    result = play(p, "FRm@bar")
    assert result.points == -2
    assert result.position.players[0].score == 0
    assert result.position.eliminated == ()


# --- section 6: exchanging a joker --------------------------------------------------------------


def test_joker_exchange_same_gender_declared_nation() -> None:
    """FRf replaces Jf on FR1n; the joker goes back to the hand undeclared; no points, no draw."""
    p = make(hands=[["FRf", "GBm", "GBf", "RUm", "RUf"], BYSTANDER], chairs={"FR1n": "Jf=FR", "FR1e": "FRm"})
    result = play(p, "swap FRf@FR1n")
    after = result.position
    assert guest_at(after, "FR1n") == "FRf"
    assert sorted(hand_of(after, 0)) == sorted(["Jf", "GBm", "GBf", "RUm", "RUf"])
    assert result.points == 0
    assert after.players[0].score == 0
    assert result.drawn == ()
    assert after.deck == p.deck
    assert after.to_move == 1


@pytest.mark.parametrize("card", ["FRf", "ESf"])
def test_joker_exchange_either_nation_on_a_shared_chair(card: str) -> None:
    """A joker declared Spanish on FR1s (FR1/ES1) may be exchanged for a French or a Spanish woman."""
    p = make(hands=[[card, "GBm"], BYSTANDER], chairs={"FR1s": "Jf=ES", "FR1n": "FRm"})
    assert f"swap {card}@FR1s" in legal_move_texts(p)
    assert guest_at(play(p, f"swap {card}@FR1s").position, "FR1s") == card


def test_joker_exchange_other_gender_is_refused() -> None:
    """A female joker is not exchanged for a man."""
    p = make(hands=[["FRm", "GBm"], BYSTANDER], chairs={"FR1n": "Jf=FR", "FR1e": "FRm"})
    assert refusal(p, "swap FRm@FR1n") == "bad_swap"


def test_joker_exchange_other_nation_is_refused() -> None:
    """A joker on a French chair is not exchanged for a British woman, nor on FR1s (FR/ES)."""
    p = make(hands=[["GBf", "GBm"], BYSTANDER], chairs={"FR1n": "Jf=FR", "FR1s": "Jf=ES", "FR1e": "FRm"})
    assert refusal(p, "swap GBf@FR1n") == "bad_swap"
    assert refusal(p, "swap GBf@FR1s") == "bad_swap"


def test_joker_exchange_without_a_joker_is_refused() -> None:
    """There must be a joker on the chair: a natural guest or an empty chair is refused."""
    p = make(hands=[["FRm", "FRf"], BYSTANDER], chairs={"FR1n": "FRf", "FR1e": "FRm"})
    assert refusal(p, "swap FRm@FR1e") == "bad_swap"
    assert refusal(p, "swap FRf@FR1s") == "bad_swap"


def test_joker_exchange_completing_a_one_nation_table_leaves_the_hand_limit() -> None:
    """Replacing Jf=ES on FR1s with FRf leaves FR1 full and all French: still no points, limit stays 5."""
    chairs = {"FR1n": "FRm", "FR1e": "FRf", "CN1e": "FRm", "FR1s": "Jf=ES"}
    p = make(hands=[["FRf", "GBm", "GBf", "RUm", "RUf"], BYSTANDER], chairs=chairs)
    result = play(p, "swap FRf@FR1s")
    assert result.points == 0
    assert result.position.players[0].hand_limit == 5
    assert len(result.position.players[0].hand) == 5


# --- section 7: end of the game ------------------------------------------------------------------

#: a full classic board: every table 2 men and 2 women, no card more often than the set holds it
FULL_BOARD_TEXT = """
    GB1n:GBm GB1e:GBm GB1s:RUf GB1w:GBf CN1n:CNm CN1e:FRf CN1s:CNf FR1n:FRm FR1e:INm FR1s:FRf IN1n:INf
    IN1e:INm IN1s:INf US1n:USf US1e:USm US1s:CUf RU1e:RUm RU1s:RUf RU1w:RUm DE1n:DEm DE1e:ESm DE1s:CFf
    DE1w:DEf ES1e:ESm ES1s:ESf TR1n:TRf TR1e:TRm TR1s:RUf CU1e:CUm CU1s:CUf CU1w:CUm IT1e:CFf IT1s:TRm
    IT1w:ITm CF1e:CFm CF1s:CFm RU2e:RUf RU2s:CNm RU2w:RUm IT2e:ITm IT2s:CFm TR2e:TRf TR2s:USf TR2w:TRm
    CU2e:INf CU2s:CUf CU2w:CUm IN2n:INm IN2e:INf IN2s:FRm CN2e:CNm CN2s:CNf CF2e:CFm CF2s:GBf CF2w:CFf
    US2e:USm US2s:USf US2w:USm ES2n:ESm ES2e:ESf ES2s:ESf FR2e:FRf FR2s:FRm DE2n:DEf DE2e:DEm DE2s:DEm
    GB2e:GBm GB2s:GBf
"""
FULL_BOARD = dict(item.split(":") for item in FULL_BOARD_TEXT.split())


def over_positions() -> dict[str, Position]:
    """One finished position for each end condition of section 7."""
    full = make(hands=[["FRm"], BYSTANDER], chairs=FULL_BOARD)
    return {
        "deck": make(hands=[["FRm"], BYSTANDER], deck=["CNm", "CUf", "TRm", "USf"]),
        "chairs": full,
        "bar": make(hands=[["FRm"], BYSTANDER], bar=BAR_FILLER),
        "empty_hand": make(hands=[["FRm"], []], to_move=0),
        "last_player": make(hands=[["FRm"], BYSTANDER], eliminated=[1]),
    }


def test_full_board_has_68_chairs_and_every_table_two_men_two_women() -> None:
    """The full board used below fills all 68 chairs and loads (so it keeps every invariant)."""
    assert len(FULL_BOARD) == 68
    p = make(hands=[["FRm"], BYSTANDER], chairs=FULL_BOARD)
    assert all(g is not None for g in p.chairs)


def test_end_deck_holding_four_cards_or_fewer_after_drawing() -> None:
    """Condition 1: a deck of 6 from which 2 are drawn holds 4: the game ends."""
    p = make(
        hands=[["FRf", "FRm", "GBm", "GBf", "RUm"], BYSTANDER],
        chairs={"FR1n": "FRm"},
        deck=["CNm", "CUf", "TRm", "USf", "USm", "TRf"],
    )
    result = play(p, "FRf@FR1e FRm@FR1s")
    assert len(result.position.deck) == 4
    assert result.outcome is not None
    assert result.outcome.reason == "deck"
    assert result.events[-1]["type"] == "game_over"


def test_end_deck_of_five_is_still_in_play() -> None:
    """A deck of 5 does not end the game; 4 does."""
    five = make(hands=[["FRm"], BYSTANDER], deck=["CNm", "CUf", "TRm", "USf", "USm"])
    assert outcome(five) is None
    assert legal_move_texts(five)


def test_end_every_chair_occupied() -> None:
    """Condition 2: seating the last free chair ends the game (GB2s, GB2 mixed: 4 points)."""
    chairs = {k: v for k, v in FULL_BOARD.items() if k != "GB2s"}
    p = make(hands=[["GBf", "FRm"], BYSTANDER], chairs=chairs)
    result = play(p, "GBf@GB2s")
    assert result.points == 4
    assert result.outcome is not None
    assert result.outcome.reason == "chairs"


def test_end_every_bar_place_occupied() -> None:
    """Condition 3: the card on bar place 20 (-30) ends the game; score 30 pays down to 0."""
    p = make(hands=[["FRm", "FRf"], BYSTANDER], bar=BAR_FILLER[:19], scores=[30, 0])
    result = play(p, "FRm@bar")
    assert result.points == -30
    assert result.position.players[0].score == 0
    assert result.outcome is not None
    assert result.outcome.reason == "bar"


def test_end_remaining_player_with_empty_hand_after_drawing() -> None:
    """Condition 4: completing a German table with the last card at limit 1 leaves limit 0, hand empty."""
    chairs = {"DE1w": "DEm", "DE1n": "DEf", "DE1e": "DEm"}
    p = make(hands=[["DEf"], BYSTANDER], chairs=chairs, limits=[1, 5])
    result = play(p, "DEf@DE1s")
    assert result.position.players[0].hand == ()
    assert result.outcome is not None
    assert result.outcome.reason == "empty_hand"


def test_end_eliminated_players_empty_hand_does_not_end_the_game() -> None:
    """Only a remaining player's empty hand ends the game: ann is eliminated with her last card at the bar."""
    p = make(hands=[["FRm"], ["ITm", "ITf"], ["CUm", "CUf"]], bar=BAR_FILLER[:5], scores=[0, 10, 10])
    result = play(p, "FRm@bar")
    assert result.position.eliminated == (0,)
    assert result.position.players[0].hand == ()
    assert result.outcome is None


def test_end_only_one_player_left() -> None:
    """Condition 5: when the second of two players is eliminated, the game ends."""
    p = make(hands=[["FRm", "GBm"], BYSTANDER], bar=BAR_FILLER[:5], scores=[1, 0])
    result = play(p, "FRm@bar")
    assert result.outcome is not None
    assert result.outcome.reason == "last_player"


@pytest.mark.parametrize("reason", ["deck", "chairs", "bar", "empty_hand", "last_player"])
def test_end_over_position_has_no_legal_moves_and_answers_game_over(reason: str) -> None:
    """A finished position lists no move and answers every move, even nonsense, with ``game_over``."""
    p = over_positions()[reason]
    result = outcome(p)
    assert result is not None
    assert result.reason == reason
    assert legal_move_texts(p) == []
    for move in ["FRm@bar", "FRm@FR1n", "swap FRm@FR1n", "no such move"]:
        assert refusal(p, move) == "game_over"


# --- section 8: final scoring and ranking ---------------------------------------------------------

OVER_DECK = ["CNm", "CUf", "TRm", "USf"]


def test_final_scoring_five_per_natural_ten_per_joker() -> None:
    """Score 20 with FRm, GBm and Jf left in hand: 20 - 5 - 5 - 10 = 0."""
    p = make(hands=[["FRm", "GBm", "Jf"], ["ITm"]], scores=[20, 7], deck=OVER_DECK)
    result = outcome(p)
    assert result is not None
    assert result.final_scores == {"ann": 0, "bob": 2}
    assert result.penalties == {"ann": 20, "bob": 5}


def test_final_scoring_eliminated_players_keep_their_score() -> None:
    """An eliminated player with cards in hand is not penalised."""
    p = make(hands=[["FRm"], ["ITm"], ["GBm", "GBf"]], scores=[10, 10, 3], eliminated=[2], deck=OVER_DECK)
    result = outcome(p)
    assert result is not None
    assert result.final_scores["cem"] == 3
    assert result.penalties["cem"] == 0


def test_ranking_by_final_score_higher_first() -> None:
    """Final scores 15, 25, 5 rank bob, ann, cem."""
    p = make(hands=[["FRm"], ["ITm"], ["GBm"]], scores=[20, 30, 10], deck=OVER_DECK)
    result = outcome(p)
    assert result is not None
    assert result.ranking == ("bob", "ann", "cem")
    assert dict(result.places) == {"bob": 1, "ann": 2, "cem": 3}


def test_ranking_tie_goes_to_fewer_penalty_points() -> None:
    """Both end on 10; bob lost 5 in penalties, ann 10: bob ranks first."""
    p = make(hands=[["FRm", "FRf"], ["ITm"]], scores=[20, 15], deck=OVER_DECK)
    result = outcome(p)
    assert result is not None
    assert result.final_scores == {"ann": 10, "bob": 10}
    assert result.ranking == ("bob", "ann")
    assert result.places["bob"] < result.places["ann"]


def test_ranking_full_tie_is_shared_and_listed_in_seating_order() -> None:
    """bob and cem both end on 10 with 5 penalty points: they share second place, bob listed first."""
    p = make(hands=[["FRm"], ["ITm"], ["GBm"]], scores=[30, 15, 15], deck=OVER_DECK)
    result = outcome(p)
    assert result is not None
    assert result.ranking == ("ann", "bob", "cem")
    assert result.places["ann"] == 1
    assert result.places["bob"] == result.places["cem"] == 2


def test_ranking_eliminated_below_remaining_later_eliminated_higher() -> None:
    """bob (out first, 9) and cem (out second, 1) rank below ann (-5) and dora (2), cem above bob."""
    p = make(
        hands=[["FRm"], ["ITm"], ["GBm"], ["CUm"]],
        scores=[0, 9, 1, 7],
        eliminated=[1, 2],
        deck=OVER_DECK,
    )
    result = outcome(p)
    assert result is not None
    assert result.final_scores == {"ann": -5, "bob": 9, "cem": 1, "dora": 2}
    assert result.ranking == ("dora", "ann", "cem", "bob")
    assert [result.places[n] for n in result.ranking] == [1, 2, 3, 4]


# --- section 10: the stammtisch option -------------------------------------------------------------

GB1_WOMEN = "GBf@GB1n GBf@GB1e GBf@GB1s GBf@GB1w"


def test_stammtisch_four_of_one_nation_onto_an_empty_table_score_40() -> None:
    """Four British women fill GB1: 40 (CN1 and RU1 get one guest each: 0), and the limit drops to 4."""
    p = make(hands=[["GBf", "GBf", "GBf", "GBf", "USm"], BYSTANDER], stammtisch=True)
    result = play(p, GB1_WOMEN)
    assert result.points == 40
    assert result.position.players[0].hand_limit == 4
    assert len(result.drawn) == 3
    # each card's event, then the table's, the new limit and the draw, as clients read them
    assert result.events[0] == {
        "type": "seat",
        "player": "ann",
        "card": "GBf",
        "chair": "GB1n",
        "points": 0,
        "tables": {},
    }
    assert list(result.events[4:]) == [
        {"type": "stammtisch", "player": "ann", "table": "GB1", "gender": "f", "points": 40},
        {"type": "hand_limit", "player": "ann", "hand_limit": 4},
        {"type": "draw", "player": "ann", "count": 3},
    ]
    assert [guest_at(result.position, c) for c in ("GB1n", "GB1e", "GB1s", "GB1w")] == ["GBf"] * 4


def test_stammtisch_mixed_nations_score_20() -> None:
    """Two British, a Chinese and a Russian woman fill GB1: 20, and the limit stays 5."""
    p = make(hands=[["GBf", "GBf", "CNf", "RUf", "USm"], BYSTANDER], stammtisch=True)
    result = play(p, "GBf@GB1n CNf@GB1e RUf@GB1s GBf@GB1w")
    assert result.points == 20
    assert result.position.players[0].hand_limit == 5
    assert len(result.position.players[0].hand) == 5


def test_stammtisch_three_onto_a_table_holding_one_guest_of_that_gender() -> None:
    """Three British men join the British man on GB1n: a Stammtisch, 40."""
    p = make(hands=[["GBm", "GBm", "GBm", "USf"], BYSTANDER], chairs={"GB1n": "GBm"}, stammtisch=True)
    result = play(p, "GBm@GB1e GBm@GB1s GBm@GB1w")
    assert result.points == 40
    assert result.position.players[0].hand_limit == 4


def test_stammtisch_with_a_joker_counts_its_declared_nation() -> None:
    """A joker declared Chinese on GB1e makes the table mixed (20); on GB1w it is British (40)."""
    p = make(hands=[["GBf", "GBf", "GBf", "Jf"], BYSTANDER], stammtisch=True)
    assert play(p, "GBf@GB1n Jf=CN@GB1e GBf@GB1s GBf@GB1w").points == 20
    assert play(p, "GBf@GB1n GBf@GB1e GBf@GB1s Jf@GB1w").points == 40


def test_stammtisch_not_onto_a_table_holding_a_guest_of_the_other_gender() -> None:
    """Three women onto a table holding a man is refused with ``gender``.

    Reading: ``too_many_cards`` is decided by the move alone (option, card count, one table, one
    gender); whether the table ends with four of one gender depends on the board, and a table that
    does not is a broken gender rule."""
    p = make(hands=[["GBf", "GBf", "GBf", "USm"], BYSTANDER], chairs={"GB1n": "GBm"}, stammtisch=True)
    assert refusal(p, "GBf@GB1e GBf@GB1s GBf@GB1w") == "gender"


def test_stammtisch_three_onto_an_empty_table_is_refused() -> None:
    """Three women onto an empty table do not complete it: refused with ``gender`` (see above)."""
    p = make(hands=[["GBf", "GBf", "GBf", "USm"], BYSTANDER], stammtisch=True)
    assert refusal(p, "GBf@GB1n GBf@GB1e GBf@GB1w") == "gender"


def test_stammtisch_other_tables_are_checked_card_by_card() -> None:
    """GBf on GB1s also sits at RU1, which holds a Russian woman: 2 women alone there, refused."""
    p = make(hands=[["GBf", "GBf", "GBf", "GBf", "USm"], BYSTANDER], chairs={"RU1w": "RUf"}, stammtisch=True)
    assert refusal(p, GB1_WOMEN) == "gender"
    assert GB1_WOMEN not in legal_move_texts(p)


def test_stammtisch_other_tables_are_scored_card_by_card() -> None:
    """With a Russian man at RU1, the woman on GB1s scores 2 there: 40 + 2 = 42."""
    p = make(hands=[["GBf", "GBf", "GBf", "GBf", "USm"], BYSTANDER], chairs={"RU1w": "RUm"}, stammtisch=True)
    assert GB1_WOMEN in legal_move_texts(p)
    result = play(p, GB1_WOMEN)
    assert result.points == 42


def test_stammtisch_move_listed_once_in_board_order() -> None:
    """The four women are listed once, as GB1n, GB1e, GB1s, GB1w."""
    p = make(hands=[["GBf", "GBf", "GBf", "GBf", "USm"], BYSTANDER], stammtisch=True)
    placements = set(GB1_WOMEN.split())
    same = [m for m in legal_move_texts(p) if set(m.split()) == placements]
    assert same == [GB1_WOMEN]


def test_stammtisch_order_of_the_cards_does_not_matter() -> None:
    """Played in any order, the move is the same, reported in board order."""
    p = make(hands=[["GBf", "GBf", "CNf", "RUf", "USm"], BYSTANDER], stammtisch=True)
    canonical = play(p, "GBf@GB1n CNf@GB1e RUf@GB1s GBf@GB1w")
    shuffled = play(p, "RUf@RU1n GBf@GB1w CNf@CN1w GBf@GB1n")
    assert shuffled.move == canonical.move == "GBf@GB1n CNf@GB1e RUf@GB1s GBf@GB1w"
    assert shuffled.position == canonical.position
    assert shuffled.points == 20


def test_stammtisch_too_many_cards_without_the_option() -> None:
    """Without the option, three or four cards in one move are refused and never listed."""
    p = make(hands=[["GBf", "GBf", "GBf", "GBf", "USm"], BYSTANDER])
    assert refusal(p, GB1_WOMEN) == "too_many_cards"
    assert all(len(m.split()) <= 2 for m in legal_move_texts(p))


@pytest.mark.parametrize(
    "move",
    [
        "GBf@GB1n GBf@GB1e GBf@GB1s GBf@GB1w USm@US1n",  # five cards
        "GBf@GB1n GBm@GB1e GBf@GB1s GBm@GB1w",  # both genders
        "GBf@GB1n GBf@GB1e GBf@GB2s",  # two tables, each card's tables counted:
        "GBf@GB2s GBf@GB1n GBf@GB1e",  # the first card's
        "GBf@GB1n GBf@GB2s GBf@GB1e",  # the second's
    ],
)
def test_stammtisch_too_many_cards_beyond_what_the_option_allows(move: str) -> None:
    """Even with the option: at most four cards, all of one gender, all at one table."""
    p = make(hands=[["GBf", "GBf", "GBm", "GBm", "USm"], BYSTANDER], stammtisch=True)
    assert refusal(p, move) == "too_many_cards"


@pytest.mark.parametrize(
    ("stammtisch", "sentence", "reason"),
    [
        (False, "One move seats at most two cards.", ""),
        (
            True,
            "One move seats three or four cards only to fill one table with four men or four women.",
            "stammtisch",
        ),
    ],
)
def test_too_many_cards_says_what_one_move_may_seat(stammtisch: bool, sentence: str, reason: str) -> None:
    """The refusal's sentence, and the reason another language picks its sentence by, follow the option."""
    p = make(hands=[["GBf", "GBf", "GBm", "GBm", "USm"], BYSTANDER], stammtisch=stammtisch)
    with pytest.raises(IllegalMoveError) as info:
        play(p, "GBf@GB1n GBm@GB1e GBf@GB1s")
    assert (info.value.code, info.value.message, info.value.reason) == ("too_many_cards", sentence, reason)


# --- section 13: error codes and the order they are reported in -----------------------------------


def test_error_codes_are_the_codes_of_section_13() -> None:
    """The engine's codes are exactly the table of section 13 (``not_your_turn`` is for moves that name
    their player, as on the server)."""
    assert set(RULE_ERROR_CODES) == {
        "bad_notation",
        "unknown_chair",
        "not_in_hand",
        "chair_taken",
        "wrong_nation",
        "gender",
        "alone",
        "joker_nation",
        "too_many_cards",
        "joker_to_bar",
        "bad_swap",
        "not_your_turn",
        "game_over",
    }


ERROR_POSITION = {"FR1n": "FRm", "FR1s": "Jf=ES", "GB1n": "GBm"}


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ("FRf FR1e", "bad_notation"),
        ("FRx@FR1e", "bad_notation"),
        ("FRf@FR9e", "unknown_chair"),
        ("GBm@GB1e", "not_in_hand"),
        ("FRf@FR1e FRf@CN1e", "not_in_hand"),  # only one FRf in hand
        ("FRf@FR1n", "chair_taken"),
        ("ESf@FR1e", "wrong_nation"),
        ("Jm=GB@FR1e", "wrong_nation"),
        ("ESf@ES1e", "gender"),
        ("FRf@FR2s", "alone"),
        ("Jm@FR1e", "joker_nation"),
        ("FRf@FR1e FRm@FR1w ESf@ES1e", "too_many_cards"),
        ("Jm@bar", "joker_to_bar"),
        ("swap FRf@FR1e", "bad_swap"),
    ],
)
def test_error_code(move: str, code: str) -> None:
    """Each rule error code of section 13 for a move that breaks exactly that rule."""
    p = make(hands=[["FRf", "FRm", "ESf", "Jm"], BYSTANDER], chairs=ERROR_POSITION)
    assert refusal(p, move) == code


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ("FRx@FR9e GBm@GB1e", "bad_notation"),  # before unknown_chair
        ("FRf@FR9e Jm@FR1e", "unknown_chair"),  # before joker_nation
        ("Jm@FR1e FRf@FR9e", "unknown_chair"),  # before joker_nation, whatever the card order
        ("Jm@FR1e GBm@GB1e GBm@GB1w", "joker_nation"),  # before too_many_cards
        ("GBm@GB1e GBm@GB1w GBf@GB1s", "too_many_cards"),  # before not_in_hand
        ("GBm@FR1n", "not_in_hand"),  # before chair_taken
        ("ESf@FR1n", "chair_taken"),  # before wrong_nation (same card)
        ("GBf@FR1e", "not_in_hand"),
        ("ESf@FR1e FRf@FR1n", "wrong_nation"),  # first card's fault before the second card's
        ("ESf@ES1e FRf@FR1n", "gender"),  # first card's fault before the second card's
        ("FRf@FR1n FRm@FR1e", "chair_taken"),  # card by card in the order given
        ("FRf@FR2s ESf@ES1e", "gender"),  # gender (second card) before alone (first card)
        ("FRf@FR2s Jm=GB@FR1e", "wrong_nation"),  # wrong_nation (second card) before alone
        ("Jm@bar", "joker_to_bar"),
        ("swap GBm@GB1n", "not_in_hand"),  # before bad_swap
    ],
)
def test_error_order_several_faults_report_the_first(move: str, code: str) -> None:
    """Faults are reported in section 13's order: notation, chair names, joker nation, card count, hand,
    then card by card chair_taken, wrong_nation, gender, then alone."""
    p = make(hands=[["FRf", "FRm", "ESf", "Jm"], BYSTANDER], chairs=ERROR_POSITION)
    assert refusal(p, move) == code


def test_error_order_game_over_comes_first() -> None:
    """On a finished position even nonsense is answered with ``game_over``, not ``bad_notation``."""
    p = make(hands=[["FRm"], BYSTANDER], deck=OVER_DECK)
    assert refusal(p, "@@@") == "game_over"


def test_refused_move_leaves_the_position_unchanged() -> None:
    """A refused move changes nothing (positions are values)."""
    p = make(hands=[["FRf", "FRm"], BYSTANDER], chairs={"FR1n": "FRm"})
    before = dump_position(p)
    assert refusal(p, "FRf@FR1e FRm@FR1s FRm@FR1w") == "too_many_cards"
    assert refusal(p, "FRm@FR1e FRf@FR1s") == "gender"
    assert dump_position(p) == before
