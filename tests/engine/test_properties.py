"""Invariants of whole games, checked by hypothesis over many seeded random games.

Each example deals a game from a seed (2 to 4 players, the ``stammtisch`` option on or off) and
plays it to the end with moves drawn uniformly from ``legal_moves``; the invariants are checked
after every move. The rules are restated here from docs/rules.md, not taken from the engine.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    NATIONS,
    GameRecord,
    Options,
    PlayResult,
    Position,
    dump_position,
    is_over,
    legal_moves,
    load_position,
    play,
    replay,
    view,
)

#: section 1: four men and four women of each nation, two male and two female jokers
FULL_SET = Counter({f"{n}{g}": 4 for n in NATIONS for g in "mf"} | {"Jm": 2, "Jf": 2})
#: section 4, rule 2: (men, women) a table may hold
GENDER_OK = {(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (2, 2)}
#: section 10: with the option, a table may also hold four of one gender
STAMMTISCH_OK = {(4, 0), (0, 4)}
#: a game cannot outlast 68 seat moves (each fills a chair), 20 bar moves (each fills a place) and
#: 68 exchanges (each leaves a natural guest for good on a chair that held a joker)
MAX_MOVES = 68 + 20 + 68
NAMES = ("ann", "bob", "cem", "dora")

games = st.builds(
    lambda seed, players, stammtisch: (seed, players, stammtisch),
    st.integers(0, 2**32 - 1),
    st.integers(2, 4),
    st.booleans(),
)


@dataclass(frozen=True)
class Game:
    """A finished random game: the record, every position from the start, every result."""

    record: GameRecord
    positions: tuple[Position, ...]
    results: tuple[PlayResult, ...]


def play_random_game(seed: int, players: int, stammtisch: bool) -> Game:
    """Deal from ``seed`` and play uniformly random legal moves (drawn with the same seed) to the end."""
    record = GameRecord(NAMES[:players], seed, Options(stammtisch=stammtisch))
    position = record.start()
    rng = random.Random(seed)
    positions: list[Position] = [position]
    results: list[PlayResult] = []
    while not is_over(position):
        moves = legal_moves(position)
        assert moves, f"no legal move in a game that is not over: {dump_position(position)}"
        assert len(results) < MAX_MOVES, "the game outlasted every possible move"
        result = play(position, rng.choice(moves))
        record = record.with_move(result.move)
        position = result.position
        positions.append(position)
        results.append(result)
    return Game(record, tuple(positions), tuple(results))


def all_cards(position: Position) -> Counter[str]:
    cards: Counter[str] = Counter()
    for player in position.players:
        cards.update(c.text for c in player.hand)
    cards.update(g.card.text for g in position.chairs if g is not None)
    cards.update(c.text for c in position.bar)
    cards.update(c.text for c in position.deck)
    return cards


@settings(max_examples=70, deadline=None)
@given(games)
def test_the_hundred_cards_are_conserved(game: tuple[int, int, bool]) -> None:
    """After every move the hands (eliminated players' too), chairs, bar and deck hold the 100 cards."""
    for position in play_random_game(*game).positions:
        assert all_cards(position) == FULL_SET


@settings(max_examples=70, deadline=None)
@given(games)
def test_every_table_keeps_the_gender_rule(game: tuple[int, int, bool]) -> None:
    """After every move each table holds an allowed mix of men and women (four of one: stammtisch only)."""
    stammtisch = game[2]
    allowed = GENDER_OK | STAMMTISCH_OK if stammtisch else GENDER_OK
    for position in play_random_game(*game).positions:
        for table in position.board.tables:
            seated = [position.chairs[c] for c in table.chairs]
            men = sum(1 for g in seated if g is not None and g.gender == "m")
            women = sum(1 for g in seated if g is not None and g.gender == "f")
            assert (men, women) in allowed, f"{table.name}: {men} men, {women} women"


@settings(max_examples=70, deadline=None)
@given(games)
def test_nobody_sits_alone_but_the_opening_card(game: tuple[int, int, bool]) -> None:
    """Every seated guest shares a table with another guest, except a card seated alone as the opening.

    The opening card (the game's first seat move, if it is a single card) may stay alone as long
    as nobody joins it: the opening exception has no time limit."""
    g = play_random_game(*game)
    opening_chair: int | None = None
    for before, result, position in zip(g.positions[:-1], g.results, g.positions[1:], strict=True):
        if opening_chair is None and all(c is None for c in before.chairs):
            seated = [i for i, c in enumerate(position.chairs) if c is not None]
            if len(seated) == 1:
                assert result.player == before.start_player
                opening_chair = seated[0]
        board = position.board
        for i, guest in enumerate(position.chairs):
            if guest is None or i == opening_chair:
                continue
            tables = [board.tables[t] for t in board.chairs[i].tables]
            company = [c for tb in tables for c in tb.chairs if c != i and position.chairs[c] is not None]
            assert company, f"{guest.text} on {board.chairs[i].name} sits alone after {result.move}"


@settings(max_examples=70, deadline=None)
@given(games)
def test_each_score_is_the_sum_of_its_events(game: tuple[int, int, bool]) -> None:
    """Each player's score equals the points of the seat, stammtisch and bar events in their name."""
    g = play_random_game(*game)
    earned: Counter[str] = Counter()
    for result, position in zip(g.results, g.positions[1:], strict=True):
        scoring = [e for e in result.events if e["type"] in ("seat", "stammtisch", "bar")]
        assert sum(e["points"] for e in scoring) == result.points
        for event in scoring:
            earned[event["player"]] += event["points"]
        for player in position.players:
            assert player.score == earned[player.name]


@settings(max_examples=40, deadline=None)
@given(games)
def test_replaying_the_record_equals_playing_the_moves(game: tuple[int, int, bool]) -> None:
    """Replaying a game's record gives every position the moves gave when played one by one."""
    g = play_random_game(*game)
    replayed = replay(g.record)
    assert replayed.position == g.positions[-1]
    assert [r.position for r in replayed.results] == list(g.positions[1:])
    assert [r.events for r in replayed.results] == [r.events for r in g.results]


@settings(max_examples=35, deadline=None)
@given(games)
def test_dump_and_load_round_trip_at_every_position(game: tuple[int, int, bool]) -> None:
    """Every position of a game loads back from its dump equal, and dumps to the same text again."""
    for position in play_random_game(*game).positions:
        text = dump_position(position)
        loaded = load_position(text)
        assert loaded == position
        assert dump_position(loaded) == text


@settings(max_examples=70, deadline=None)
@given(games)
def test_every_game_ends(game: tuple[int, int, bool]) -> None:
    """A game always has a legal move until it is over, and ends within the bounded number of moves."""
    g = play_random_game(*game)
    assert is_over(g.positions[-1]) and legal_moves(g.positions[-1]) == []
    assert g.results[-1].outcome is not None
    assert len(g.results) <= MAX_MOVES


def _lists(value: Any) -> list[list[Any]]:
    """Every list anywhere inside a JSON-like value."""
    if isinstance(value, list):
        return [value, *(x for v in value for x in _lists(v))]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _lists(v)]
    return []


@settings(max_examples=35, deadline=None)
@given(games)
def test_a_view_never_shows_another_hand_or_the_deck(game: tuple[int, int, bool]) -> None:
    """view() shows a player their own hand only, a spectator no hand, and nobody the deck's cards."""
    for position in play_random_game(*game).positions:
        deck = [c.text for c in position.deck]
        for viewer in [None, *range(len(position.players))]:
            seen = view(position, viewer)
            json.dumps(seen)  # a view is plain JSON
            assert "deck" not in seen and seen["deck_size"] == len(deck)
            for i, entry in enumerate(seen["players"]):
                if i == viewer:
                    assert entry["hand"] == [c.text for c in position.players[i].hand]
                else:
                    assert "hand" not in entry
            assert deck not in _lists(seen)
