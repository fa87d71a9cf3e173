"""The stammtisch moves ``legal_moves`` lists: four of one gender onto each empty table of their
nation, three onto a table holding one of theirs, none that breaks another table's gender rule."""

from __future__ import annotations

import pytest

from engine import legal_move_texts
from tests.engine.rulebook import BYSTANDER, make

GB1_MEN = "GBm@GB1n GBm@GB1e GBm@GB1s GBm@GB1w"
GB2_MEN = "GBm@CF2s GBm@DE2e GBm@GB2e GBm@GB2s"


def _stammtisch_moves(hand: list[str], chairs: dict[str, str] | None = None) -> list[str]:
    p = make(hands=[hand, BYSTANDER], chairs=chairs or {}, stammtisch=True)
    return [m for m in legal_move_texts(p) if len(m.split()) >= 3]


def test_four_men_may_fill_either_empty_table_of_their_nation() -> None:
    """Four British men: GB1 and GB2, each listed once."""
    assert _stammtisch_moves(["GBm"] * 4 + ["USm"]) == [GB2_MEN, GB1_MEN]


@pytest.mark.parametrize("gender", ["m", "f"])
def test_three_fill_a_table_holding_one_of_their_gender(gender: str) -> None:
    """Three of a gender onto GB1, which holds one guest of that gender: the three other chairs."""
    card = f"GB{gender}"
    moves = _stammtisch_moves([card] * 3 + ["USm"], {"GB1n": card})
    assert f"{card}@GB1e {card}@GB1s {card}@GB1w" in moves


def test_no_stammtisch_breaks_a_table_it_reaches_through_a_shared_chair() -> None:
    """GB1s is also a chair of RU1, which holds a Russian man: a fourth British man there would
    leave two men alone at RU1, so GB1 is not listed (GB2 still is)."""
    assert _stammtisch_moves(["GBm"] * 4 + ["USm"], {"RU1w": "RUm"}) == [GB2_MEN]


def test_a_joker_may_take_any_chair_of_a_stammtisch() -> None:
    """Three British women and a female joker fill GB1 with the joker on any of its four chairs."""
    moves = _stammtisch_moves(["GBf", "GBf", "GBf", "Jf", "USm"])
    chairs = {p.split("@")[1] for m in moves if "GB1" in m for p in m.split() if p.startswith("J")}
    assert chairs == {"GB1n", "GB1e", "GB1s", "GB1w"}
