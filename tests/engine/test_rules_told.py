"""What the rules tell, word for word, where the tests of ``test_rules`` check a code or a score:
the sentence and values of a refusal (another language is made from them) and the keys of an event
(clients read them)."""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, Position, play
from tests.engine.rulebook import BYSTANDER, make


def _refused(position: Position, move: str) -> tuple[str, str, str, dict[str, object]]:
    with pytest.raises(IllegalMoveError) as info:
        play(position, move)
    e = info.value
    return e.code, e.message, e.reason, dict(e.params)


def test_a_second_card_alone_is_named_with_its_chair() -> None:
    """The first card joins a guest, the second would sit alone: the second is the one named."""
    p = make(hands=[["FRf", "GBm"], BYSTANDER], chairs={"FR1e": "FRm"})
    assert _refused(p, "FRf@FR1n GBm@GB1n") == (
        "alone",
        "GBm on GB1n would sit alone and score nothing.",
        "",
        {"card": "GBm", "chair": "GB1n"},
    )


@pytest.mark.parametrize(
    ("joker", "card", "word"),
    [("Jf=FR", "FRm", "woman"), ("Jm=FR", "FRf", "man")],
)
def test_a_joker_is_exchanged_for_its_gender_as_the_refusal_says(joker: str, card: str, word: str) -> None:
    """The refusal names the gender and nations the chair's joker may be exchanged for."""
    p = make(hands=[[card, "GBm"], BYSTANDER], chairs={"FR1n": joker, "FR1e": card})
    code, message, _, params = _refused(p, f"swap {card}@FR1n")
    assert (code, params["gender"]) == ("bad_swap", joker[1])
    assert message == f"The joker on FR1n ({joker}) can only be exchanged for a {word} of FR."


def test_an_exchange_is_told_in_its_event() -> None:
    """The event names the player, the card, the chair and the joker that went back to the hand."""
    p = make(hands=[["FRf", "GBm", "GBf", "RUm", "RUf"], BYSTANDER], chairs={"FR1n": "Jf=FR", "FR1e": "FRm"})
    result = play(p, "swap FRf@FR1n")
    assert result.events[0] == {
        "type": "swap",
        "player": "ann",
        "card": "FRf",
        "chair": "FR1n",
        "joker": "Jf",
    }


@pytest.mark.parametrize(("cards", "seated", "word"), [("GBf", "GBm", "women"), ("GBm", "GBf", "men")])
def test_a_stammtisch_of_mixed_gender_says_which_four_it_needs(cards: str, seated: str, word: str) -> None:
    """Three of one gender onto a table holding the other: the sentence names the four it needs."""
    p = make(hands=[[cards] * 3 + ["USm"], BYSTANDER], chairs={"GB1n": seated}, stammtisch=True)
    assert _refused(p, f"{cards}@GB1e {cards}@GB1s {cards}@GB1w") == (
        "gender",
        f"Three or four cards must fill GB1 with four {word}.",
        "stammtisch",
        {"table": "GB1", "gender": cards[2]},
    )
