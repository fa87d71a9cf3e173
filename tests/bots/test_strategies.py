"""Bot strategies: legal moves only, decisions from the bot's own view only."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bots.strategy import STRATEGIES, BotView, bot_view, get_strategy, view_from_dict
from engine import Position, is_over, legal_move_texts, new_position, play, view


def _midgame(seed: int, moves: int, players: int = 2) -> Position:
    """A position reached by ``moves`` random legal moves from the deal of ``seed``."""
    position = new_position([f"p{i}" for i in range(players)], seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if is_over(position):
            break
        position = play(position, rng.choice(legal_move_texts(position))).position
    return position


def _shuffle_hidden(position: Position, seat: int, seed: int) -> Position:
    """The same position with every card ``seat`` cannot see dealt anew: the other hands and the
    deck exchange their cards at random (sizes kept)."""
    rng = random.Random(seed)
    others = [i for i in range(len(position.players)) if i != seat]
    pool = [c for i in others for c in position.players[i].hand] + list(position.deck)
    rng.shuffle(pool)
    players = list(position.players)
    at = 0
    for i in others:
        n = len(players[i].hand)
        players[i] = replace(players[i], hand=tuple(sorted(pool[at : at + n], key=lambda c: c.text)))
        at += n
    return replace(position, players=tuple(players), deck=tuple(pool[at:]))


def test_view_hides_other_hands_and_deck() -> None:
    """A bot's view holds its own hand and only the sizes of the other hands and of the deck."""
    position = _midgame(3, 10)
    v = bot_view(position, 1)
    assert v.hand == position.players[1].hand
    assert v.hand_sizes == tuple(len(p.hand) for p in position.players)
    assert v.deck_size == len(position.deck)
    hidden = sorted(c.text for c in [*position.players[0].hand, *position.deck])
    assert sorted(c.text for c in v.unseen) == hidden
    assert bot_view(_shuffle_hidden(position, 1, 5), 1) == v


def test_view_from_the_filtered_player_view_is_the_same() -> None:
    """The view built from what a player receives (``engine.view``) equals the one built from the position."""
    position = _midgame(4, 14, players=3)
    for seat in range(3):
        assert view_from_dict(view(position, seat)) == bot_view(position, seat)


def test_determinize_is_consistent_with_the_view() -> None:
    """A determinization keeps the own hand and every public fact, and deals the unseen cards to
    the other hands and the deck in the right numbers."""
    position = _midgame(5, 12, players=3)
    seat = position.to_move
    v = bot_view(position, seat)
    sample = v.determinize(random.Random(1))
    assert sample.players[seat].hand == position.players[seat].hand
    assert [len(p.hand) for p in sample.players] == [len(p.hand) for p in position.players]
    assert len(sample.deck) == len(position.deck)
    assert (sample.chairs, sample.bar, sample.to_move) == (position.chairs, position.bar, position.to_move)
    assert bot_view(sample, seat) == v
    assert legal_move_texts(sample) == legal_move_texts(position)


def _view_of(position: Position) -> BotView:
    return bot_view(position, position.to_move)


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_quick_strategies_play_only_legal_moves(name: str) -> None:
    """Whole seeded games of the random and greedy strategies consist of legal moves only."""
    bot = get_strategy(name)
    for seed in range(4):
        position = new_position(["a", "b", "c"][: 2 + seed % 2], seed)
        rng = random.Random(seed)
        while not is_over(position):
            move = bot.choose(_view_of(position), rng)
            assert move in legal_move_texts(position)
            position = play(position, move).position


def test_unknown_strategy_is_refused() -> None:
    """``get_strategy`` names the strategies it knows when asked for another."""
    with pytest.raises(ValueError, match="random, greedy, strong"):
        get_strategy("clever")
    assert STRATEGIES == ("random", "greedy", "strong")
