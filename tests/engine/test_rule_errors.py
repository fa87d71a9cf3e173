"""docs/rules.md section 13: the error codes and the order they are reported in."""

from __future__ import annotations

import pytest

from engine import RULE_ERROR_CODES, dump_position
from tests.engine.rulebook import BYSTANDER, OVER_DECK, make, refusal

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
