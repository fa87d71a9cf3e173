"""docs/rules.md sections 5 and 6: the bar (its places, a joker there, elimination) and exchanging
a joker, worked out by hand."""

from __future__ import annotations

import pytest

from engine import legal_move_texts, play
from tests.engine.rulebook import BAR_FILLER, BYSTANDER, guest_at, hand_of, make, refusal

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
