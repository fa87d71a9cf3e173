"""Game records: the JSON form of a game (seed, options, players, moves), replay and random games."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engine import (
    GameRecord,
    InvalidPositionError,
    Options,
    is_over,
    legal_move_texts,
    load_record,
    new_position,
    play,
    random_game,
    record_from_dict,
    replay,
)
from engine.game import dump_record

NAMES = ("ann", "bob", "cem")


def first_moves(record: GameRecord, count: int) -> GameRecord:
    """``record`` extended by ``count`` moves, each the first legal move of its position."""
    position = replay(record).position
    for _ in range(count):
        result = play(position, legal_move_texts(position)[0])
        record = record.with_move(result.move)
        position = result.position
    return record


# --- load and dump ----------------------------------------------------------------------------


def test_record_dump_load_round_trip() -> None:
    """A record dumped to JSON loads back equal: players, seed, options, board, start player, moves."""
    record = first_moves(GameRecord(NAMES, 17, Options(stammtisch=True), start_player=2), 6)
    assert len(record.moves) == 6
    assert load_record(dump_record(record)) == record


def test_record_dump_is_canonical_json() -> None:
    """A dump has sorted keys and the record's fields; start_player only when the host set it."""
    record = GameRecord(("ann", "bob"), 3, moves=("FRf@bar",))
    text = dump_record(record)
    data = json.loads(text)
    assert list(data) == sorted(data)
    assert data == {
        "board": "classic",
        "options": {"stammtisch": False},
        "players": ["ann", "bob"],
        "seed": 3,
        "moves": ["FRf@bar"],
    }
    assert json.loads(dump_record(GameRecord(("ann", "bob"), 3, start_player=1)))["start_player"] == 1


def test_record_with_move_leaves_the_record_unchanged() -> None:
    """with_move returns a longer record and keeps the original as it was."""
    record = GameRecord(NAMES, 1)
    longer = record.with_move("FRf@bar")
    assert record.moves == () and longer.moves == ("FRf@bar",)
    assert (longer.players, longer.seed, longer.options) == (record.players, record.seed, record.options)


def test_record_start_is_the_seeded_deal() -> None:
    """A record starts from the deal of its seed, with the start player the host set, if any."""
    assert GameRecord(NAMES, 9).start() == new_position(NAMES, 9)
    assert GameRecord(NAMES, 9, start_player=1).start() == new_position(NAMES, 9, start_player=1)
    stammtisch = GameRecord(NAMES, 9, Options(stammtisch=True)).start()
    assert stammtisch.options.stammtisch


def test_record_defaults_when_fields_are_left_out() -> None:
    """Only players and seed are needed: no moves, default options, the classic board, a drawn start."""
    record = load_record('{"players": ["ann", "bob"], "seed": 4}')
    assert record == GameRecord(("ann", "bob"), 4)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"players": ["ann", "bob"], "seed": 1, "winner": "ann"}, "unknown field(s) winner"),
        ({"players": "ann,bob", "seed": 1}, "players"),
        ({"players": ["ann", 2], "seed": 1}, "players"),
        ({"players": ["ann", "bob"]}, "seed"),
        ({"players": ["ann", "bob"], "seed": "1"}, "seed"),
        ({"players": ["ann", "bob"], "seed": True}, "seed"),
        ({"players": ["ann", "bob"], "seed": 1, "moves": "FRf@bar"}, "moves"),
        ({"players": ["ann", "bob"], "seed": 1, "moves": [1]}, "moves"),
        ({"players": ["ann", "bob"], "seed": 1, "options": {"turbo": True}}, "options"),
        ({"players": ["ann", "bob"], "seed": 1, "start_player": "ann"}, "start_player"),
        ({"players": ["ann", "bob"], "seed": 1, "board": 7}, "board"),
        (["ann", "bob"], "JSON object"),
    ],
)
def test_record_load_rejects_bad_fields(data: Any, words: str) -> None:
    """Loading a record with a missing, unknown or mistyped field says which field is wrong."""
    with pytest.raises(InvalidPositionError, match=re.escape(words)):
        record_from_dict(data)


def test_record_load_rejects_text_that_is_not_json() -> None:
    """A record that is not JSON is refused as such."""
    with pytest.raises(InvalidPositionError, match="not JSON"):
        load_record("{players: ann}")


# --- replay -----------------------------------------------------------------------------------


def test_replay_gives_each_move_result_and_the_final_position() -> None:
    """Replay plays the moves in order: one result per move, each position following the last."""
    record = first_moves(GameRecord(NAMES, 5), 4)
    replayed = replay(record)
    assert [r.move for r in replayed.results] == list(record.moves)
    position = record.start()
    for move, result in zip(record.moves, replayed.results, strict=True):
        assert play(position, move).position == result.position
        position = result.position
    assert replayed.position == position
    assert replayed.outcome is None


def test_replay_of_a_bad_record_names_the_refused_move() -> None:
    """A record whose third move the rules refuse fails naming move 3, its text and the rule's code."""
    record = first_moves(GameRecord(NAMES, 5), 2)
    position = replay(record).position
    hand = {c.text for c in position.players[position.to_move].hand}
    missing = next(f"{n}m@bar" for n in ("FR", "DE", "IT", "ES", "GB") if f"{n}m" not in hand)
    bad = record.with_move(missing).with_move(legal_move_texts(position)[0])
    with pytest.raises(InvalidPositionError, match=rf"move 3 '{missing}' is refused: not_in_hand"):
        replay(bad)


def test_replay_of_a_record_with_unreadable_move_names_it() -> None:
    """A move that is not notation at all is named with its number and bad_notation."""
    record = GameRecord(NAMES, 5, moves=("sit down please",))
    with pytest.raises(InvalidPositionError, match=r"move 1 'sit down please' is refused: bad_notation"):
        replay(record)


def test_replay_of_a_move_after_the_end_names_it() -> None:
    """A move recorded after the game ended is refused with game_over, naming its number."""
    record = random_game(("ann", "bob"), 8)
    extra = record.with_move("FRf@bar")
    with pytest.raises(
        InvalidPositionError, match=rf"move {len(extra.moves)} 'FRf@bar' is refused: game_over"
    ):
        replay(extra)


# --- random games -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "stammtisch"), [(2, False), (3, True), (4, False)])
def test_random_game_is_determined_by_its_seed(players: int, stammtisch: bool) -> None:
    """The same seed gives an identical record, move for move; another seed another game."""
    names = ("ann", "bob", "cem", "dora")[:players]
    options = Options(stammtisch=stammtisch)
    record = random_game(names, 21, options=options)
    assert random_game(names, 21, options=options) == record
    assert dump_record(random_game(names, 21, options=options)) == dump_record(record)
    assert random_game(names, 22, options=options).moves != record.moves


def test_random_game_move_seed_changes_the_moves_not_the_deal() -> None:
    """move_seed draws other moves from the same deal; the same move_seed repeats them."""
    a = random_game(NAMES, 30, move_seed=1)
    b = random_game(NAMES, 30, move_seed=2)
    assert a.start() == b.start()
    assert a.moves != b.moves
    assert random_game(NAMES, 30, move_seed=1) == a


def test_random_game_is_played_to_the_end_with_legal_moves() -> None:
    """A random game's record replays without refusal to a finished game with an outcome."""
    record = random_game(NAMES, 12, options=Options(stammtisch=True))
    replayed = replay(record)
    assert record.options.stammtisch and record.start_player is None
    assert is_over(replayed.position)
    assert replayed.outcome is not None
    assert sorted(replayed.outcome.ranking) == sorted(NAMES)
