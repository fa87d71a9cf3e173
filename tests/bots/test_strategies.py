"""Bot strategies: legal moves only, decisions from the bot's own view only."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pytest

from bots.strategy import STRATEGIES, BotView, Strategy, bot_view, get_strategy, view_from_dict
from bots.strategy.evaluate import MoveJudge, Weights
from bots.strategy.playout import Playout
from bots.strategy.search import SearchSettings, StrongStrategy, ThinkingClock
from engine import (
    Options,
    Position,
    is_over,
    legal_move_texts,
    legal_moves,
    load_position,
    new_position,
    play,
    view,
)
from engine.cards import full_set


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


def _strategies() -> list[Strategy]:
    """Every strategy, the strong one held to a few playouts so that it is quick and repeatable."""
    return [
        get_strategy("random"),
        get_strategy("greedy"),
        get_strategy("strong", max_iterations=8, settings=SearchSettings(candidates=4, depth=3)),
    ]


@pytest.mark.parametrize("index", range(3), ids=["random", "greedy", "strong"])
def test_every_strategy_plays_only_legal_moves(index: int) -> None:
    """Whole seeded games, 2 to 4 players and with the stammtisch option, consist of legal moves only."""
    bot = _strategies()[index]
    setups = [(2, False), (3, False), (4, True), (2, True)]
    for seed, (players, stammtisch) in enumerate(setups):
        position = new_position(
            [f"p{i}" for i in range(players)], seed, options=Options(stammtisch=stammtisch)
        )
        rng = random.Random(seed)
        while not is_over(position):
            move = bot.choose(_view_of(position), rng)
            assert move in legal_move_texts(position), (bot.name, seed, move)
            position = play(position, move).position


@pytest.mark.parametrize("index", range(3), ids=["random", "greedy", "strong"])
def test_a_decision_depends_only_on_the_bots_view(index: int) -> None:
    """Two positions that differ only in cards the bot cannot see (the other hands and the deck
    dealt anew) get the same move from the same generator."""
    bot = _strategies()[index]
    for seed in range(6):
        position = _midgame(seed, 6 + 3 * seed, players=2 + seed % 3)
        if is_over(position):
            continue
        seat = position.to_move
        other = _shuffle_hidden(position, seat, seed + 100)
        assert other != position
        first = bot.choose(bot_view(position, seat), random.Random(seed))
        second = bot.choose(bot_view(other, seat), random.Random(seed))
        assert first == second, (bot.name, seed)


def _position(hand: list[str], chairs: dict[str, str], bar: list[str] | None = None) -> Position:
    """A two-player position early in the game, ann to move with ``hand``; bob holds five cards
    and the deck fifty, all drawn in a fixed order from the cards left."""
    left = Counter(c.text for c in full_set())
    left.subtract([*hand, *(g.split("=")[0] for g in chairs.values()), *(bar or [])])
    rest = [card for card, n in sorted(left.items()) for _ in range(n)]
    return load_position(
        json.dumps(
            {
                "players": [
                    {"name": "ann", "hand": hand, "score": 20},
                    {"name": "bob", "hand": rest[::7][:5], "score": 20},
                ],
                "to_move": 0,
                "chairs": chairs,
                "bar": bar or [],
                "deck": [c for i, c in enumerate(rest) if i % 7 or i >= 35][:50],
            }
        )
    )


def test_greedy_takes_the_most_points() -> None:
    """Greedy completes a table of one nation (8 points and a lower hand limit) rather than score less."""
    position = _position(
        ["FRm", "DEm", "CNf", "ITm", "GBf"], {"FR2n": "FRf", "FR2e": "FRm", "FR2s": "FRf", "DE1n": "DEf"}
    )
    move = get_strategy("greedy").choose(bot_view(position, 0), random.Random(1))
    assert "FRm@ES2e" in move.split()  # the chair FR2w, shared with ES2
    assert play(position, move).points >= 8


def test_greedy_keeps_off_the_bars_negative_places_while_it_can_seat() -> None:
    """With the next bar place costing points, greedy seats a guest, even for few points."""
    position = _position(["FRm", "DEm", "CNm", "ITm", "GBm"], {"DE1s": "CFf"}, bar=["CFm"] * 4 + ["CFf"])
    move = get_strategy("greedy").choose(bot_view(position, 0), random.Random(1))
    assert not move.endswith("@bar")
    assert play(position, move).points > 0


def test_greedy_keeps_a_joker_when_a_natural_card_scores_as_much() -> None:
    """Early in the game, greedy seats the natural card, not the joker, where both would score the same."""
    position = _position(["FRf", "Jf", "CNm", "ITm", "USm"], {"FR2n": "FRm", "FR2e": "DEf"})
    assert {"FRf@FR2s", "Jf@FR2s"} <= set(legal_move_texts(position))
    for seed in range(5):
        move = get_strategy("greedy").choose(bot_view(position, 0), random.Random(seed))
        assert "FRf@" in move
        assert "Jf" not in move


def test_playout_policy_is_the_best_legal_move_and_plays_as_the_engine() -> None:
    """The search's fast playout picks a legal move worth as much as the best by the greedy judge
    (without the exposure term) and leaves the same position as ``engine.play``."""
    weights = Weights(exposure=0.0)
    checked = 0
    for seed in range(8):
        position = new_position([f"p{i}" for i in range(2 + seed % 3)], seed)
        rng = random.Random(seed)
        while not is_over(position):
            moves = {m.text: m for m in legal_moves(position)}
            judge = MoveJudge(position, weights)
            game = Playout(position)
            chosen = game.greedy_move(weights, random.Random(seed))
            result = play(position, chosen.text(position.board))
            assert result.move in moves
            assert judge.value(moves[result.move]) == pytest.approx(max(map(judge.value, moves.values())))
            game.play(chosen)
            assert game.to_position(position) == result.position
            assert game.is_over() == is_over(result.position)
            checked += 1
            # mostly random moves from here, so that all sorts of positions come up
            position = (
                result.position if rng.random() < 0.3 else play(position, rng.choice(list(moves))).position
            )
    assert checked > 300


def test_strong_search_keeps_to_its_playout_cap_and_repeats_itself() -> None:
    """With a playout cap, the strong strategy runs at most that many playouts and, given the same
    generator seed, chooses the same move again."""
    position = _midgame(21, 18)
    bot = StrongStrategy(max_iterations=40)
    first = bot.choose(_view_of(position), random.Random(3))
    assert 0 < bot.last_iterations <= 40
    assert bot.choose(_view_of(position), random.Random(3)) == first
    assert first in legal_move_texts(position)


def test_thinking_clock_keeps_the_mean_within_the_budget() -> None:
    """Time a move leaves unused goes to the next moves, up to twice the budget for one move, and
    an overrun is taken from the next ones until it is paid back."""
    clock = ThinkingClock(0.5)
    assert clock.allowance() == 0.5
    clock.spent(0.0)  # forced moves
    clock.spent(0.0)
    assert clock.allowance() == 1.0  # never more than twice the budget
    clock.spent(1.0)
    assert clock.allowance() == 0.5
    clock.spent(2.0)  # an overrun of 1.5 seconds ...
    allowances = []
    for _ in range(4):
        allowances.append(clock.allowance())
        clock.spent(allowances[-1])
    assert allowances == [0.0, 0.0, 0.0, 0.5]  # ... paid back by three moves that get no time


def test_a_playout_dealt_a_sample_is_the_playout_of_that_sample() -> None:
    """Dealing a sample of the hidden cards into a playout of the open board gives the same game as
    building the playout from the position of that sample."""
    position = _midgame(8, 16, players=3)
    v = _view_of(position)
    board = Playout(v.determinize())
    for seed in range(3):
        hands, deck = v.deal(random.Random(seed))
        sample = v.determinize(random.Random(seed))
        assert board.dealt(hands, deck).to_position(position) == Playout(sample).to_position(position)
        assert sample.players[v.seat].hand == position.players[v.seat].hand


def _strong() -> StrongStrategy:
    """The strong strategy as ``/addbot strong`` seats it, held to a playout cap so that it repeats
    itself."""
    bot = get_strategy("strong", max_iterations=240)
    assert isinstance(bot, StrongStrategy)
    return bot


@pytest.mark.parametrize("players", [2, 3, 4])
def test_strong_plays_alike_whatever_the_other_seats_hold(players: int) -> None:
    """The strong bot decides from its own seat's information alone: given the hands of the other
    seats and the deck dealt otherwise, or its view as the server sends it, it plays the same move
    with the same generator."""
    for seed in range(3):
        position = _midgame(30 + seed, 4 + 7 * seed, players=players)
        if is_over(position):
            continue
        seat = position.to_move
        bot = _strong()
        first = bot.choose(bot_view(position, seat), random.Random(seed))
        assert bot.last_iterations > 0
        for other in range(2):
            dealt = _shuffle_hidden(position, seat, 200 + 10 * seed + other)
            assert [p.hand for i, p in enumerate(dealt.players) if i != seat] != [
                p.hand for i, p in enumerate(position.players) if i != seat
            ]
            assert _strong().choose(bot_view(dealt, seat), random.Random(seed)) == first
        assert _strong().choose(view_from_dict(view(position, seat)), random.Random(seed)) == first


def test_strong_keeps_to_the_judges_choice_unless_the_search_beats_it() -> None:
    """With ``choose_z`` out of reach and no candidate dropped on the way, the search plays the
    greedy judge's best move: another move must beat that one on the samples both met."""
    checked = 0
    for seed in range(6):
        position = _midgame(40 + seed, 6 + 2 * seed)
        if is_over(position):
            continue
        v = _view_of(position)
        settings = SearchSettings(choose_z=1e9, prune_every=10**6)
        move = StrongStrategy(max_iterations=160, settings=settings).choose(v, random.Random(seed))
        judge = MoveJudge(position, Weights(), Counter(v.unseen))
        values = {m.text: judge.value(m) for m in legal_moves(position)}
        assert values[move] == pytest.approx(max(values.values()))
        checked += 1
    assert checked >= 4


def test_a_playout_cut_short_counts_a_joker_by_its_worth() -> None:
    """A game cut short counts a natural card in hand at its penalty (5) and a joker at the worth
    the judge gives it: nothing more than a natural card's penalty less 5 while the deck is full,
    its own penalty (10) once the deck runs low; a finished game counts the penalties."""
    position = _position(["FRf", "Jf", "CNm", "ITm", "USm"], {"FR2n": "FRm", "FR2e": "DEf"})
    bot = StrongStrategy(settings=SearchSettings(leaf_hand="worth"))
    game = Playout(position)
    assert bot._leaf_scores(game)[0] == pytest.approx(20 - 4 * 5 - 0)
    game.deck = game.deck[:10]
    assert bot._leaf_scores(game)[0] == pytest.approx(20 - 4 * 5 - 10)
    assert game.final_scores()[0] == 20 - 4 * 5 - 10


def test_a_finished_playout_counts_its_margin_not_only_the_win() -> None:
    """A playout played to the end is worth more the larger the bot's margin: a win by 20 points
    clearly more than a win by 10, a loss by 10 clearly more than a loss by 20; ``classic`` judged
    such games by the win or loss alone, all but the closest ones."""
    position = _position(["FRf", "Jf", "CNm", "ITm", "USm"], {"FR2n": "FRm", "FR2e": "DEf"})

    def value(bot: StrongStrategy, margin: int) -> float:
        game = Playout(position)
        game.deck = game.deck[:2]  # the deck has run out: the game is over
        game.hands = [[], []]
        game.scores = [50 + margin, 50]
        assert game.is_over()
        return bot.result(game, 0)

    strong = get_strategy("strong")
    classic = get_strategy("classic")
    assert isinstance(strong, StrongStrategy) and isinstance(classic, StrongStrategy)
    assert value(strong, 20) - value(strong, 10) > 0.1
    assert value(strong, -10) - value(strong, -20) > 0.1
    assert value(classic, 20) - value(classic, 10) < 0.01
    assert value(strong, 1) > 0.5 > value(strong, -1)


def test_classic_is_the_strong_search_with_its_first_settings() -> None:
    """``classic``, which the tournament measures ``strong`` against, is the same search with the
    settings ``strong`` had before (``search.CLASSIC``); people cannot seat it."""
    from bots.strategy.search import CLASSIC

    classic = get_strategy("classic", budget=0.2)
    assert isinstance(classic, StrongStrategy)
    assert (classic.name, classic.settings, classic.budget) == ("classic", CLASSIC, 0.2)
    strong = get_strategy("strong")
    assert isinstance(strong, StrongStrategy)
    assert strong.settings == SearchSettings()
    assert SearchSettings() != CLASSIC
    assert "classic" not in STRATEGIES
