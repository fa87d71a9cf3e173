"""A player leaving a running game (``leave``): treated as eliminated (docs/rules.md sections 5, 7, 8),
written ``leave NAME`` in a game record, replayed and verified like any move."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from engine import (
    LEAVE_ERROR_CODES,
    GameRecord,
    IllegalMoveError,
    InvalidPositionError,
    Position,
    dump_position,
    get_board,
    is_over,
    leave,
    legal_move_texts,
    load_position,
    load_record,
    new_position,
    parse_leave,
    parse_move,
    play,
    replay,
)
from engine.cli import main
from engine.game import dump_record, seed_hash, verify

NAMES = ("ann", "bob", "cem", "dora")


def start(players: int = 4, to_move: int = 0) -> Position:
    """A new game of ``players`` players in which seat ``to_move`` starts."""
    return new_position(NAMES[:players], 5, start_player=to_move)


def with_scores(position: Position, scores: list[int]) -> Position:
    players = tuple(replace(p, score=s) for p, s in zip(position.players, scores, strict=True))
    return replace(position, players=players)


def leave_code(position: Position, player: int | str) -> str:
    """The error code ``leave`` refuses with (it must refuse, with a sentence)."""
    with pytest.raises(IllegalMoveError) as info:
        leave(position, player)
    assert info.value.message
    return info.value.code


# --- what leaving does ---------------------------------------------------------------------------


def test_leaving_keeps_score_and_hand_draws_nothing_and_reports_one_event() -> None:
    """The leaver keeps score and hand, no card is drawn, no points; the one event is ``left``."""
    before = with_scores(start(3, to_move=0), [7, 12, 3])
    result = leave(before, "bob")
    after = result.position
    assert after.players[1] == before.players[1]
    assert after.deck == before.deck
    assert (result.move, result.player, result.points, result.drawn) == ("leave bob", 1, 0, ())
    assert result.events == ({"type": "left", "player": "bob"},)
    assert result.outcome is None


def test_leaving_by_seat_index_is_the_same_as_by_name() -> None:
    """A seat index names the same player as the name."""
    position = start(3)
    assert leave(position, 2) == leave(position, "cem")


def test_turn_passes_to_the_next_remaining_player_when_the_leaver_is_to_move() -> None:
    """The player to move leaves: the turn passes on, over an eliminated seat, as after elimination."""
    position = replace(start(4, to_move=1), eliminated=(2,))
    result = leave(position, "bob")
    assert result.position.to_move == 3
    assert result.position.eliminated == (2, 1)


def test_turn_stays_when_another_player_leaves() -> None:
    """A player who is not to move leaves: the player to move stays to move."""
    position = start(3, to_move=0)
    assert leave(position, "cem").position.to_move == 0


def test_the_leavers_turns_are_skipped() -> None:
    """After bob leaves, play goes round without him."""
    position = leave(start(3, to_move=0), "bob").position
    movers = []
    for _ in range(6):
        movers.append(position.to_move)
        position = play(position, legal_move_texts(position)[0]).position
    assert movers == [0, 2, 0, 2, 0, 2]


def test_leavers_join_eliminated_in_exit_order_and_rank_below_the_rest() -> None:
    """Leavers rank below every remaining player whatever their scores, the later one higher."""
    position = with_scores(start(4, to_move=0), [1, 40, 2, 30])
    position = leave(position, "bob").position
    position = leave(position, "dora").position
    assert position.eliminated == (1, 3)
    result = leave(position, "ann")
    assert result.outcome is not None
    assert result.outcome.ranking == ("cem", "ann", "dora", "bob")
    assert [result.outcome.places[n] for n in ("cem", "ann", "dora", "bob")] == [1, 2, 3, 4]


def test_leavers_rank_like_players_eliminated_at_the_bar() -> None:
    """A player eliminated at the bar and a leaver share one exit order: the later one ranks higher."""
    position = replace(with_scores(start(3, to_move=0), [0, 50, 0]), eliminated=(0,))
    result = leave(position, "bob")
    assert result.outcome is not None
    assert result.outcome.ranking == ("cem", "bob", "ann")


@pytest.mark.parametrize("leaver", ["ann", "bob"])
def test_the_last_player_left_ends_the_game_with_an_outcome(leaver: str) -> None:
    """With one player left the game is over (section 7, condition 5), whoever was to move."""
    position = start(2, to_move=0)
    result = leave(position, leaver)
    stays = "bob" if leaver == "ann" else "ann"
    assert is_over(result.position)
    assert result.outcome is not None
    assert result.outcome.reason == "last_player"
    assert result.outcome.ranking == (stays, leaver)
    # the remaining player pays for the hand, the leaver does not (section 8)
    assert result.outcome.penalties[leaver] == 0
    assert result.outcome.penalties[stays] == 5 * len(position.players[0].hand)
    assert [e["type"] for e in result.events] == ["left", "game_over"]
    assert result.events[1]["ranking"] == [stays, leaver]


def test_the_position_format_holds_a_leaver_as_eliminated() -> None:
    """A position after a leave dumps and loads unchanged, the leaver listed in ``eliminated``."""
    after = leave(start(3), "bob").position
    assert json.loads(dump_position(after))["eliminated"] == ["bob"]
    assert load_position(dump_position(after)) == after


# --- errors ------------------------------------------------------------------------------------------


def test_leaving_twice_is_refused() -> None:
    """A player who left cannot leave again."""
    position = leave(start(3), "bob").position
    assert leave_code(position, "bob") == "already_out"


def test_an_eliminated_player_cannot_leave() -> None:
    """A player eliminated at the bar is out already."""
    position = replace(start(3), eliminated=(2,))
    assert leave_code(position, "cem") == "already_out"


@pytest.mark.parametrize("player", ["zoe", "Bob", "", 4, -1])
def test_leaving_needs_a_player_of_the_game(player: int | str) -> None:
    """A name or seat that is no player of the game is refused (names are exact)."""
    assert leave_code(start(4), player) == "unknown_player"


def test_leaving_a_finished_game_is_refused() -> None:
    """Once the game is over nobody can leave it."""
    position = leave(start(2), "bob").position
    assert leave_code(position, "ann") == "game_over"


@pytest.mark.parametrize(
    ("position", "player", "refused"),
    [
        (start(4), "zoe", ("unknown_player", "'zoe' is not a player of this game.", {"player": "zoe"})),
        (start(4), 4, ("unknown_player", "4 is not a player of this game.", {"player": 4})),
        (
            replace(start(3), eliminated=(1,)),
            "bob",
            ("already_out", "bob is out of the game already.", {"name": "bob"}),
        ),
        (leave(start(2), "bob").position, "ann", ("game_over", "The game has ended.", {})),
    ],
)
def test_a_refused_leave_names_its_code_sentence_and_values(
    position: Position, player: int | str, refused: tuple[str, str, dict[str, object]]
) -> None:
    """Each refusal carries its code, its English sentence and the values another language needs."""
    with pytest.raises(IllegalMoveError) as info:
        leave(position, player)
    assert (info.value.code, info.value.message, dict(info.value.params)) == refused


@pytest.mark.parametrize("to_move", [0, 1])
def test_the_player_to_move_leaves_by_seat_or_name_alike(to_move: int) -> None:
    """Seat 0 (or 1) may leave by index as by name, on their turn: ``leave NAME``, no points, no card
    drawn, the turn passes on."""
    position = start(3, to_move=to_move)
    name = NAMES[to_move]
    result = leave(position, to_move)
    assert result == leave(position, name)
    assert (result.move, result.player, result.points, result.drawn) == (f"leave {name}", to_move, 0, ())
    assert result.events == ({"type": "left", "player": name},)
    assert result.position.to_move == to_move + 1 and result.outcome is None


def test_the_end_a_leave_makes_is_told_in_its_event_as_clients_read_it() -> None:
    """ann leaves bob alone: ``game_over`` with the reason, the scores after bob's hand penalty
    (ann's hand left play), the ranking and places, under the keys clients read."""
    result = leave(start(2, to_move=1), "ann")
    assert result.events[-1] == {
        "type": "game_over",
        "reason": "last_player",
        "final_scores": {"ann": 0, "bob": -25},
        "penalties": {"ann": 0, "bob": 25},
        "ranking": ["bob", "ann"],
        "places": {"bob": 1, "ann": 2},
    }


def test_leave_codes_are_listed() -> None:
    """The codes ``leave`` adds are published beside the rule codes."""
    assert set(LEAVE_ERROR_CODES) == {"unknown_player", "already_out"}


@pytest.mark.parametrize("text", ["leave ann", "LEAVE ann", "leave FRf@FR1s", "leave bar"])
def test_a_leave_entry_is_not_a_move(text: str) -> None:
    """``play`` refuses a leave entry as bad notation, saying how leaving is done; no card move
    can be read from it."""
    with pytest.raises(IllegalMoveError) as info:
        play(start(2), text)
    assert info.value.code == "bad_notation"
    assert "leave" in info.value.message
    with pytest.raises(IllegalMoveError):
        parse_move(text, get_board("classic"))


@pytest.mark.parametrize(
    ("text", "name"),
    [("leave ann", "ann"), ("Leave bob", "bob"), ("leave", None), ("leave ", None), ("FRf@bar", None)],
)
def test_parse_leave_reads_the_name_of_a_leave_entry(text: str, name: str | None) -> None:
    """``parse_leave`` gives the name of a ``leave NAME`` entry and ``None`` for anything else."""
    assert parse_leave(text) == name


# --- records ----------------------------------------------------------------------------------------


def record_with_leave() -> GameRecord:
    """Three players; two moves, bob leaves, two more moves."""
    record = GameRecord(NAMES[:3], 21, start_player=0)
    position = record.start()
    for step in ("move", "move", "leave", "move", "move"):
        result = leave(position, "bob") if step == "leave" else play(position, legal_move_texts(position)[0])
        record = record.with_move(result.move)
        position = result.position
    return record


def test_a_record_with_a_leave_entry_replays_to_the_same_game() -> None:
    """``leave bob`` in ``moves`` replays as ``leave``; the record survives a dump and load."""
    record = record_with_leave()
    assert record.moves[2] == "leave bob"
    replayed = replay(load_record(dump_record(record)))
    assert replayed.position.eliminated == (1,)
    assert replayed.results[2].events == ({"type": "left", "player": "bob"},)
    assert [r.player for r in replayed.results] == [0, 1, 1, 2, 0]


@pytest.mark.parametrize(("entry", "code"), [("leave zoe", "unknown_player"), ("leave bob", "already_out")])
def test_replay_names_a_refused_leave_entry(entry: str, code: str) -> None:
    """A leave entry the rules refuse makes the record unusable, naming the entry and the code."""
    record = record_with_leave().with_move(entry)
    with pytest.raises(InvalidPositionError, match=f"move 6 '{entry}' is refused: {code}"):
        replay(record)


def test_cafe_engine_replay_and_verify_read_a_leave_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cafe-engine replay`` prints the final position with the leaver eliminated; ``verify``
    accepts a published record that ended because players left."""
    record = record_with_leave().with_move("leave cem")
    final = replay(record)
    assert final.outcome is not None and final.outcome.reason == "last_player"
    path = tmp_path / "record.json"
    path.write_text(dump_record(record), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["eliminated"] == ["bob", "cem"]
    published = {**record.to_dict(), "seed_hash": seed_hash(record.seed), "result": final.outcome.to_dict()}
    path.write_text(json.dumps(published), encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    assert verify(published) == report
