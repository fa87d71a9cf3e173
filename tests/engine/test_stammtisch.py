"""docs/rules.md section 10: the stammtisch option."""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, legal_move_texts, play
from tests.engine.rulebook import BYSTANDER, guest_at, make, refusal

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
