"""docs/rules.md section 4, rules 1 to 5, rule by rule (nation, gender, nobody alone, every card
scores, the opening): every number below is worked out by hand."""

from __future__ import annotations

import pytest

from engine import legal_move_texts, play
from tests.engine.rulebook import BYSTANDER, guest_at, make, refusal, table_points

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
