"""The leaf model of the strong search: what it reads of a playout, and how it is made."""

from __future__ import annotations

import ast
import json
import math
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from bots.strategy.evaluate import MoveJudge
from bots.strategy.leaf import FEATURES, MODELS, TRAINING, fit, main, positions
from bots.strategy.playout import Playout
from bots.strategy.search import CLASSIC, SearchSettings, StrongStrategy
from engine import is_over, legal_move_texts, load_position, new_position, play
from engine.cards import full_set


def _position(hand: list[str], chairs: dict[str, str], deck: int = 50) -> Playout:
    """A two-player playout, ann to move with ``hand`` and 20 points, bob with five cards and 12."""
    left = Counter(c.text for c in full_set())
    left.subtract([*hand, *chairs.values()])
    rest = [card for card, n in sorted(left.items()) for _ in range(n)]
    return Playout(
        load_position(
            json.dumps(
                {
                    "players": [
                        {"name": "ann", "hand": hand, "score": 20},
                        {"name": "bob", "hand": rest[1:40:8], "score": 12},
                    ],
                    "to_move": 0,
                    "chairs": chairs,
                    "deck": [c for i, c in enumerate(rest) if i % 8 != 1 or i >= 40][:deck],
                }
            )
        )
    )


def test_the_features_count_the_hand_and_the_game_left() -> None:
    """Four natural cards and a joker; the turns until each player's own; the deck's share of 90
    and the free chairs' share of 68 scale the counts."""
    game = _position(["FRf", "Jf", "CNm", "ITm", "USm"], {"FR2n": "FRm", "FR2e": "DEf"}, deck=45)
    ann = dict(zip(FEATURES, game.features(0), strict=True))
    bob = dict(zip(FEATURES, game.features(1), strict=True))
    assert (ann["naturals"], ann["jokers"], ann["wait"], bob["wait"]) == (4, 1, 0, 1)
    assert ann["deck"] == pytest.approx(0.5) and ann["free"] == pytest.approx(66 / 68)
    assert ann["naturals*deck"] == pytest.approx(2.0) and ann["jokers*free"] == pytest.approx(66 / 68)
    assert ann["bias"] == 1.0 and ann["limit"] == 5


def test_dead_cards_and_fits_agree_with_the_judge() -> None:
    """A dead card is a natural card no free chair takes now, and ``fits`` sums each natural
    card's chairs up to four: as the greedy judge's own count (``MoveJudge.fits``) says, over
    positions of random games where some cards have no chair left."""
    dead_seen = 0
    for seed in range(12):
        position = new_position(["a", "b", "c"], seed)
        rng = random.Random(seed)
        for _ in range(30 + 3 * seed):
            if is_over(position):
                break
            position = play(position, rng.choice(legal_move_texts(position))).position
        game = Playout(position)
        judge = MoveJudge(position)
        for i, player in enumerate(position.players):
            f = dict(zip(FEATURES, game.features(i), strict=True))
            naturals = [c for c in player.hand if not c.is_joker]
            assert f["dead"] == sum(1 for c in naturals if judge.fits(c) == 0)
            assert f["fits"] == sum(min(4, judge.fits(c)) for c in naturals)
            dead_seen += int(f["dead"])
    assert dead_seen > 0


def test_a_playout_cut_short_is_judged_by_the_model() -> None:
    """Each player's expected final score is their score plus the model's weights times their
    features; an eliminated player keeps the score they had."""
    game = _position(["FRf", "Jf", "CNm", "ITm", "USm"], {"FR2n": "FRm", "FR2e": "DEf"})
    model = MODELS[2]
    expected = [
        score + sum(w * x for w, x in zip(model, game.features(i), strict=True))
        for i, score in enumerate(game.scores)
    ]
    assert game.expected_finals(model) == pytest.approx(expected)
    game.eliminated.append(1)
    assert game.expected_finals(model)[1] == 12.0


def test_the_strong_search_judges_by_the_model_and_classic_by_the_cards_worth() -> None:
    """The strong strategy's playouts cut short are judged by the leaf model; ``classic`` keeps
    the worth of the cards in hand, as before the model."""
    assert SearchSettings().leaf_hand == "learned"
    assert CLASSIC.leaf_hand == "worth"
    game = _position(["FRf", "Jf", "CNm", "ITm", "USm"], {"FR2n": "FRm", "FR2e": "DEf"})
    finals = game.expected_finals(MODELS[2])
    margin = finals[0] - finals[1]
    settings = SearchSettings()
    spread = settings.final_spread + settings.spread_per_turn * (min(len(game.deck) - 4, game.free) ** 0.5)
    assert StrongStrategy().result(game, 0) == pytest.approx(1 / (1 + math.exp(-margin / spread)))


def test_a_model_for_every_number_of_players() -> None:
    assert sorted(MODELS) == sorted(TRAINING) == [2, 3, 4]
    assert all(len(weights) == len(FEATURES) for weights in MODELS.values())


def test_the_fit_finds_the_weights_of_its_positions() -> None:
    """``positions`` pairs each player's features with the points they went on to gain; a fit of a
    target made from known weights predicts that target on every position. (Not the weights
    themselves: a hand is refilled to its limit, so the cards in hand and the limit move together.)"""
    rows = list(positions(40, 2, seed=5))
    assert len(rows) > 1000 and all(len(x) == len(FEATURES) for x, _ in rows)
    assert any(gain != 0 for _, gain in rows)
    truth = [0.5 * (k + 1) for k in range(len(FEATURES))]

    def target(weights: Sequence[float], x: Sequence[float]) -> float:
        return sum(w * v for w, v in zip(weights, x, strict=True))

    weights = fit(iter([(x, target(truth, x)) for x, _ in rows]), ridge=1e-9)
    predicted = [target(weights, x) for x, _ in rows]
    assert predicted == pytest.approx([target(truth, x) for x, _ in rows], abs=1e-6)


def test_the_training_prints_the_models_as_the_module_keeps_them(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m bots.strategy.leaf`` prints ``MODELS`` as Python: a weight for every feature and
    every number of players (here from a thousandth of its games)."""
    assert main(["--scale", "0.001"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("MODELS: dict[int, tuple[float, ...]] = {")
    printed = ast.literal_eval(text.split("=", 1)[1])
    assert sorted(printed) == [2, 3, 4]
    assert all(len(w) == len(FEATURES) for w in printed.values())
