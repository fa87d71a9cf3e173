"""Perft for Café International: ``legal_moves`` against golden counts and a brute-force oracle.

The oracle (``tests/engine/oracle.py``) tries every card of the hand on every chair through
``play`` and never calls the move generator; a mismatch prints a breakdown per first card.
Regenerate the golden counts from the oracle with ``python -m tests.engine.oracle --write``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import (
    Options,
    Position,
    dump_position,
    is_over,
    legal_move_texts,
    position_from_dict,
    position_to_dict,
    random_game,
    replay,
)
from tests.engine.oracle import divide, golden_files, load_golden, oracle_moves

GOLDEN = golden_files()
#: random games whose positions are checked against the oracle: (seed, players, stammtisch)
GAMES = [(seed, 2 + seed % 3, seed % 3 == 1) for seed in range(1, 31)]
POSITIONS_PER_GAME = 6


def assert_matches_oracle(position: Position, expected_count: int | None = None) -> list[str]:
    """legal_move_texts is sorted, has no duplicates and is exactly what play accepts."""
    texts = legal_move_texts(position)
    assert texts == sorted(texts), "legal_move_texts is not sorted"
    assert len(texts) == len(set(texts)), f"duplicates: {sorted(t for t in set(texts) if texts.count(t) > 1)}"
    oracle = oracle_moves(position)
    if set(texts) != oracle:
        pytest.fail(
            "legal_moves differs from the oracle\n"
            + divide(texts, oracle)
            + "\nposition: "
            + dump_position(position),
            pytrace=False,
        )
    if expected_count is not None:
        assert len(texts) == expected_count, f"golden count {expected_count}, legal_moves {len(texts)}"
    return texts


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_position_moves_match_count_and_oracle(path: Path) -> None:
    """Each golden position has exactly its recorded number of legal moves, the ones play accepts."""
    golden = load_golden(path)
    position = position_from_dict(golden["position"])
    texts = assert_matches_oracle(position, golden["count"])
    if "moves" in golden:
        assert texts == golden["moves"]


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_position_is_stored_canonically(path: Path) -> None:
    """A golden file holds its position in the canonical form a dump would write."""
    golden = load_golden(path)
    assert position_to_dict(position_from_dict(golden["position"])) == golden["position"]


def _golden(name: str) -> tuple[Position, list[str]]:
    path = next(p for p in GOLDEN if p.stem == name)
    position = position_from_dict(load_golden(path)["position"])
    return position, legal_move_texts(position)


def test_golden_set_covers_the_situations_it_names() -> None:
    """The golden files still show what their names promise (so a regeneration cannot hollow them out)."""
    names = {p.stem for p in GOLDEN}
    required = {"opening", "early", "crowded", "jokers_shared", "near_end_bar", "near_end_deck"}
    required |= {"stammtisch", "only_jokers", "joker_to_bar", "game_over"}
    assert required <= names

    opening, moves = _golden("opening")
    assert opening.is_opening and any(" " not in m and "@bar" not in m for m in moves)

    crowded, _ = _golden("crowded")
    assert sum(g is not None for g in crowded.chairs) >= 45

    shared, moves = _golden("jokers_shared")
    chairs = shared.board.chairs
    assert any(g is not None and g.card.is_joker and chairs[i].shared for i, g in enumerate(shared.chairs))
    assert any(m.startswith("swap ") for m in moves)

    stamm, moves = _golden("stammtisch")
    assert stamm.options.stammtisch and any(m.count("@") >= 3 for m in moves)

    jokers, moves = _golden("only_jokers")
    assert all(c.is_joker for c in jokers.players[jokers.to_move].hand) and moves
    assert not any(m.endswith("@bar") for m in moves)

    _, moves = _golden("joker_to_bar")
    assert moves == ["Jm@bar"]

    near_bar, _ = _golden("near_end_bar")
    near_deck, _ = _golden("near_end_deck")
    assert len(near_bar.bar) == 19 and len(near_deck.deck) == 5
    assert not is_over(near_bar) and not is_over(near_deck)

    over, moves = _golden("game_over")
    assert is_over(over) and moves == []


@pytest.mark.parametrize(("seed", "players", "stammtisch"), GAMES)
def test_random_game_positions_match_oracle(seed: int, players: int, stammtisch: bool) -> None:
    """In positions sampled from seeded random games, legal_moves is exactly what play accepts."""
    names = ["ann", "bob", "cy", "dee"][:players]
    record = random_game(names, seed, options=Options(stammtisch=stammtisch))
    results = replay(record).results
    positions = [record.start(), *(r.position for r in results[:-1])]
    sample = random.Random(seed).sample(positions, min(POSITIONS_PER_GAME, len(positions)))
    for position in sample:
        assert_matches_oracle(position)
