"""docs/rules.md sections 7 and 8: the end of the game, final scoring and ranking."""

from __future__ import annotations

import pytest

from engine import Position, legal_move_texts, outcome, play
from tests.engine.rulebook import BAR_FILLER, BYSTANDER, OVER_DECK, make, refusal

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
