"""The analysis of a game: each move judged from its mover's information alone, costs in points of
final margin, marks by their thresholds, each player's figures (bots/analysis.py)."""

from __future__ import annotations

import json
import random
import time

from bots.analysis import (
    FORCED,
    MARKS,
    Settings,
    accuracy_of,
    analyse_record,
    judge_move,
    mark_of,
)
from bots.strategy import bot_view
from bots.strategy.evaluate import MoveJudge
from engine import (
    GameRecord,
    Player,
    Position,
    is_over,
    legal_move_texts,
    legal_moves,
    new_position,
    play,
    random_game,
)


def _midgame(seed: int, moves: int, players: int = 2) -> Position:
    position = new_position([f"p{i}" for i in range(players)], seed)
    rng = random.Random(seed)
    for _ in range(moves):
        position = play(position, rng.choice(legal_move_texts(position))).position
    return position


def _hidden_dealt_anew(position: Position, seat: int, seed: int) -> Position:
    """The same position with the other hands and the deck exchanging their cards at random."""
    rng = random.Random(seed)
    others = [i for i in range(len(position.players)) if i != seat]
    pool = [c for i in others for c in position.players[i].hand] + list(position.deck)
    rng.shuffle(pool)
    players = list(position.players)
    at = 0
    for i in others:
        size = len(players[i].hand)
        hand = tuple(sorted(pool[at : at + size], key=lambda c: c.text))
        players[i] = Player(players[i].name, hand, players[i].score, players[i].hand_limit)
        at += size
    return Position(
        board=position.board,
        options=position.options,
        players=tuple(players),
        eliminated=position.eliminated,
        to_move=position.to_move,
        start_player=position.start_player,
        chairs=position.chairs,
        bar=position.bar,
        deck=tuple(pool[at:]),
    )


def test_marks_follow_the_thresholds() -> None:
    """Each mark starts at its threshold and ends below the next one's."""
    assert [name for name, _ in MARKS] == ["good", "inaccurate", "mistake", "blunder"]
    for (name, least), following in zip(MARKS, [*MARKS[1:], (None, None)], strict=True):
        assert mark_of(least) == name
        if following[1] is not None:
            assert mark_of(following[1] - 0.01) == name


def test_accuracy_is_100_without_a_point_lost_and_falls_with_the_cost() -> None:
    """100 for no cost; lower for each point lost; the mean of the moves' accuracies."""
    assert accuracy_of([]) == accuracy_of([0.0, 0.0]) == 100.0
    assert 100.0 > accuracy_of([1.0]) > accuracy_of([3.0]) > accuracy_of([12.0]) > 0.0
    assert accuracy_of([0.0, 6.0]) == (accuracy_of([0.0]) + accuracy_of([6.0])) / 2


def test_a_move_is_judged_from_its_movers_information_alone() -> None:
    """Two positions that differ only in the cards the mover cannot see (the other hands, the
    deck) give the same judgement."""
    position = _midgame(4, 10)
    seat = position.to_move
    other = _hidden_dealt_anew(position, seat, 99)
    assert other.players[1 - seat].hand != position.players[1 - seat].hand or other.deck != position.deck
    played = legal_move_texts(position)[0]
    first = judge_move(bot_view(position, seat), played, budget=10, rng=random.Random(3), max_rounds=6)
    second = judge_move(bot_view(other, seat), played, budget=10, rng=random.Random(3), max_rounds=6)
    assert first == second and first is not None


def test_the_worst_move_costs_more_than_the_best() -> None:
    """The move the greedy judge likes least costs points; the analysis' own best move, played,
    costs none."""
    position = _midgame(11, 8)
    view = bot_view(position, position.to_move)
    judge = MoveJudge(position)
    moves = sorted(legal_moves(position), key=judge.value)
    worst = judge_move(view, moves[0].text, budget=10, rng=random.Random(1), max_rounds=30)
    assert worst is not None
    assert worst.rounds == 30 and worst.best != worst.played
    assert 2.5 < worst.cost < worst.best_value - worst.value  # less its standard error
    again = judge_move(view, worst.best, budget=10, rng=random.Random(1), max_rounds=30)
    assert again is not None and again.best == again.played and again.cost == 0


def test_a_whole_game_is_analysed_with_each_players_figures() -> None:
    """Every entry of the record is listed in order, a player leaving without a mark; forced moves
    are left out of the figures; the analysis is JSON."""
    record = random_game(["ann", "bob", "cy"], seed=5)
    left = GameRecord(record.players, record.seed, moves=(*record.moves[:9], "leave cy"))
    analysis = analyse_record(left, budget=1.0, seed=2, max_rounds=3)
    assert [m.number for m in analysis.moves] == list(range(1, 11))
    assert analysis.moves[-1].mark is None and analysis.moves[-1].player == "cy"
    for name, figures in analysis.players.items():
        judged = [m for m in analysis.moves if m.player == name and m.mark not in (None, FORCED)]
        assert figures.moves == len(judged)
        assert abs(figures.total_cost - sum(m.cost for m in judged)) < 1e-9
        assert sum(figures.marks.values()) == len(judged)
    for move in analysis.moves:
        assert move.cost >= 0
        if move.mark not in (None, FORCED):
            assert move.mark == mark_of(move.cost)
            assert (move.best == move.move) == (round(move.cost, 2) == 0)  # (the cost as written)
    data = json.loads(json.dumps(analysis.to_dict()))
    assert data["thresholds"] == {"good": 0.0, "inaccurate": 2.5, "mistake": 6.0, "blunder": 12.0}
    assert len(data["moves"]) == 10 and set(data["players"]) == {"ann", "bob", "cy"}


def test_the_moves_the_server_played_for_a_player_are_listed_and_not_judged() -> None:
    """A move the clock or a bot played for its player is listed with how (``auto``), without a
    mark or a best move, and counts nothing in that player's figures."""
    record = random_game(["ann", "bob"], seed=7)
    played = GameRecord(record.players, record.seed, moves=record.moves[:8])
    analysis = analyse_record(played, budget=1.0, seed=2, max_rounds=2, auto={3: "bot", 5: "clock"})
    by_number = {m.number: m for m in analysis.moves}
    for number, how in ((3, "bot"), (5, "clock")):
        move = by_number[number]
        assert (move.auto, move.mark, move.best, move.value, move.cost) == (how, None, None, None, 0.0)
        assert move.to_dict()["auto"] == how
    assert all(m.auto is None for n, m in by_number.items() if n not in (3, 5))
    mover = by_number[3].player
    assert by_number[5].player == mover
    own = [m for m in analysis.moves if m.player == mover]
    forced = sum(m.mark == FORCED for m in own)
    assert analysis.players[mover].moves == len(own) - 2 - forced


def test_the_budget_bounds_each_move() -> None:
    """A move's judgement stops at its budget of CPU, at the latest four times as long on the
    clock, after the few rounds it always plays."""
    position = _midgame(2, 2, players=4)
    assert not is_over(position)
    started = time.perf_counter()
    found = judge_move(
        bot_view(position, position.to_move),
        legal_move_texts(position)[0],
        budget=0.1,
        rng=random.Random(1),
        settings=Settings(min_rounds=1),
    )
    assert found is not None and time.perf_counter() - started < 1.0
