"""The line endpoint's text and its readers: each line ``LineText`` renders reads back to the data
it was rendered from, and ``ascii_only`` text is ASCII."""

from __future__ import annotations

import importlib
import itertools
from typing import Any

import pytest

from engine import GameRecord, random_game, replay
from protocol import messages as m
from protocol.diff import diff
from protocol.text import WIDTH, LineText, display_width, render_board, to_ascii
from protocol.text.lines import PROMPT, name_refused, pack
from protocol.text.read import (
    NO_MOVES,
    PROMPT_END,
    PROMPT_START,
    YOUR_TURN,
    ErrorLine,
    GameOverLine,
    GameStartLine,
    RoomLine,
    is_hand_line,
    is_move_line,
    is_seat_taken,
    parse_move_list,
    played_line,
    read_entered,
    read_error,
    read_game_over,
    read_game_started,
    read_hello,
    read_move_count,
    read_picture_title,
    read_refusal,
    read_result_head,
    read_result_row,
    read_room,
    read_token,
)
from protocol.view import LastMove, RoomViews, SeatInfo
from tests.examples import run_examples
from tests.protocol.test_text import replayed_view

RECORD = random_game(["ann", "bob", "cy"], 5)


def _render(msg: m._ServerMessage, reader: str | None = "ann", text: LineText | None = None) -> list[str]:
    return (text or LineText()).render(msg, reader=reader)


def test_pack_never_splits_a_two_card_move() -> None:
    """Move lists wrap between moves, each line within the width."""
    moves = [f"FRf@FR1{s} ESm@ES1e" for s in "nesw"] * 5
    lines = pack(moves, ", ", 40)
    assert all(len(line) <= 40 for line in lines)
    assert ", ".join(line.rstrip(",") for line in lines).split(", ") == moves


def test_prompt_reads_back() -> None:
    """The prompt starts and ends with the bytes the readers look for."""
    assert PROMPT.encode().startswith(PROMPT_START) and PROMPT.encode().endswith(PROMPT_END)


def test_welcome_reads_back_the_name_and_token() -> None:
    """The welcome's first line names the player; its second gives name and token."""
    first, second, _ = _render(m.Welcome(name="ann", token="0123456789abcdef0123"))
    assert read_hello(first) == "ann"
    assert read_token(second) == ("ann", "0123456789abcdef0123")
    assert read_token(first) is None and read_hello(second) is None


def test_error_reads_back() -> None:
    """An error line gives back its code and sentence."""
    (line,) = _render(m.Error(code="not_your_turn", message="It is bob's turn [really]."))
    assert read_error(line) == ErrorLine("not_your_turn", "It is bob's turn [really].")
    assert read_error("<ann> ! hi [x]") is None


def test_a_refused_name_reads_back_its_sentence_and_code() -> None:
    """The answer to a refused name gives back the sentence and its code, then the prompt comes
    again."""
    first, second = name_refused("Someone is already called ann.", "name_taken").split("\r\n")
    assert read_refusal(first) == "Someone is already called ann."
    assert read_error(first) == ErrorLine("name_taken", "Someone is already called ann.")
    assert second == PROMPT and read_refusal(second) is None


def test_room_list_reads_back() -> None:
    """Each /rooms line gives back the room, its state and its seats (none as an empty tuple)."""
    seats = [m.SeatSummary(name="ann", kind="person"), m.SeatSummary(name="b-2", kind="bot")]
    rooms = m.Rooms(
        rooms=[
            m.RoomSummary(name="cafe", state="playing", seats=seats, spectators=2, options={}),
            m.RoomSummary(name="empty", state="waiting", seats=[], spectators=0, options={}),
        ]
    )
    assert [read_room(line) for line in _render(rooms)] == [
        RoomLine("cafe", "playing", ("ann", "b-2")),
        RoomLine("empty", "waiting", ()),
    ]


def test_game_start_and_end_read_back() -> None:
    """The game's first line gives the players and who begins; its last the reason and scores."""
    started = m.GameStarted(
        room="r", game="5d41c0a8e2b1f3d7", players=["ann", "bob"], start_player="bob", seed_hash="00"
    )
    assert read_game_started(_render(started)[0]) == GameStartLine(("ann", "bob"), "bob")
    over = m.GameOver(
        room="r",
        game="5d41c0a8e2b1f3d7",
        reason="deck",
        final_scores={"bob": 40, "ann": -3},
        penalties={},
        ranking=["bob", "ann"],
        places={"bob": 1, "ann": 2},
        seed=7,
    )
    found = read_game_over(_render(over)[0])
    assert found == GameOverLine("deck", {"bob": 40, "ann": -3})
    assert found is not None and list(found.scores) == ["bob", "ann"]  # the ranking's order


def test_every_played_line_of_a_game_is_found_by_its_player() -> None:
    """Each move of a whole game renders a line that the played-line pattern matches for its
    player, and for no other."""
    names = list(RECORD.players)
    results = replay(RECORD).results
    for result in results:
        player = names[result.player]
        msg = m.Played(
            room="r",
            player=player,
            move=result.move,
            points=result.points,
            events=[e for e in result.events if e.get("type") != "game_over"],
        )
        line = _render(msg, reader=None)[0]
        assert played_line([player]).match(line), line
        assert not played_line([n for n in names if n != player]).match(line), line


def test_legal_moves_read_back_in_order() -> None:
    """A /moves answer reads back: its count, every move in order, and 'no moves'."""
    moves = [f"FRf@FR1{s} ESm@ES1e" for s in "nesw"] * 8 + ["swap Jf=FR@FR1s", "ITm@bar"]
    lines = _render(m.LegalMoves(moves=moves))
    assert read_move_count(lines[0]) == len(moves)
    assert all(is_move_line(line) for line in lines[1:])
    assert parse_move_list(lines[1:]) == moves
    assert _render(m.LegalMoves(moves=[])) == [NO_MOVES]


def _snapshot_lines(view: dict[str, Any], reader: str | None) -> list[str]:
    return _render(m.Snapshot(room=view["room"], view=view), reader=reader)


def test_a_snapshot_reads_back_room_state_hand_and_turn() -> None:
    """A snapshot's text gives back the room and state, a running picture, the hand, and the turn."""
    view = replayed_view(RECORD, 4, None)
    to_move = view["game"]["to_move"]
    view = replayed_view(RECORD, 4, to_move)
    lines = _snapshot_lines(view, to_move)
    assert read_entered(lines[0]) == ("cafe", "playing")
    assert [read_picture_title(line) for line in lines if read_picture_title(line) is not None] == [False]
    assert any(is_hand_line(line) for line in lines)
    assert lines[-1] == YOUR_TURN
    ascii_lines = LineText().render(m.Snapshot(room="cafe", view=view), reader=to_move, ascii_only=True)
    assert [read_picture_title(line) for line in ascii_lines if read_picture_title(line) is not None] == [
        False
    ]


def test_a_finished_games_picture_reads_back_its_result() -> None:
    """The result table of a finished game reads back the reason and every final score, in rank order."""
    moves = len(RECORD.moves)
    view = replayed_view(RECORD, moves, "ann", bots=["bob"])
    result = view["game"]["result"]
    lines = _snapshot_lines(view, "ann")
    assert read_entered(lines[0]) == ("cafe", "over")
    assert [read_picture_title(line) for line in lines if read_picture_title(line) is not None] == [True]
    heads = [read_result_head(line) for line in lines if read_result_head(line) is not None]
    assert len(heads) == 1 and heads[0]
    rows = [row for line in lines if (row := read_result_row(line)) is not None]
    assert rows == [(name, result["final_scores"][name]) for name in result["ranking"]]


def test_seats_taken_read_back() -> None:
    """A presence line of a seat taken, and a waiting room's seats, say a seat was taken."""
    (joined,) = _render(m.Presence(room="r", name="bob", event="joined"))
    assert is_seat_taken(joined)
    view = replayed_view(RECORD, 0, None) | {"game": None, "state": "waiting"}
    assert any(is_seat_taken(line) for line in _snapshot_lines(view, None))
    (left,) = _render(m.Presence(room="r", name="bob", event="left"))
    assert not is_seat_taken(left)


def test_patches_keep_the_view_that_the_turn_picture_is_drawn_from() -> None:
    """After a snapshot and a patch, a played line is followed by the picture and the turn for the
    player now to move, and stands alone for the others."""
    last = replay(RECORD).results[3]
    played = m.Played(
        room="cafe",
        player=RECORD.players[last.player],
        move=last.move,
        points=last.points,
        events=list(last.events),
    )
    next_player = replayed_view(RECORD, 4, None)["game"]["to_move"]
    for reader in RECORD.players:
        text = LineText()
        text.render(m.Snapshot(room="cafe", view=replayed_view(RECORD, 3, reader)), reader=reader)
        after = replayed_view(RECORD, 4, reader)
        assert text.view is not None
        text.render(m.Patch(room="cafe", seq=0, ops=diff(text.view, after)), reader=reader)
        assert text.view == after
        lines = text.render(played, reader=reader)
        assert played_line([played.player]).match(lines[0])
        if reader == next_player:
            assert lines[-2] == YOUR_TURN and len(lines) > 10
        else:
            assert len(lines) == 1


@pytest.mark.parametrize("moves", [0, 6, len(RECORD.moves)])
def test_ascii_only_text_is_ascii(moves: int) -> None:
    """With ascii_only, every line of a snapshot, a played move and a chat is ASCII."""
    view = replayed_view(RECORD, moves, "ann", spectators=["zoë"])
    text = LineText()
    lines = text.render(m.Snapshot(room="cafe", view=view), reader="ann", ascii_only=True)
    lines += text.render(
        m.Chat(room="cafe", name="zoe", text="Grüße ☕ — “café”"), reader="ann", ascii_only=True
    )
    lines += text.render(m.Text(kind="score", text="▶ ann ┌─┐ …"), reader="ann", ascii_only=True)
    assert all(line.isascii() for line in lines), [line for line in lines if not line.isascii()]
    assert '<zoe> Gruesse ? - "cafe"' in lines and "> ann +-+ ~" in lines


def test_to_ascii_keeps_ascii_and_folds_the_rest() -> None:
    """ASCII text is unchanged; glyphs become their stand-ins, accents go, umlauts are spelled
    as German spells them without (ö is oe, ß is ss), a fraction keeps its slash."""
    assert to_ascii("ann: FRf@FR1s +3") == "ann: FRf@FR1s +3"
    assert to_ascii("Straße · Köln ┆ ▶") == "Strasse . Koeln : >"
    assert to_ascii("Züge für Ärger, ½ é") == "Zuege fuer Aerger, 1/2 e"


@pytest.mark.parametrize("module", ["__init__", "_common", "events", "lines", "read"])
def test_doctests(module: str) -> None:
    """The examples in the text package's docstrings hold."""
    name = "protocol.text" if module == "__init__" else f"protocol.text.{module}"
    found = run_examples(importlib.import_module(name))
    assert found.failed == 0 and found.attempted > 0


def test_the_picture_reads_no_board_option() -> None:
    """The picture is of the classic board whatever the room's options hold: no option names a board."""
    view = replayed_view(RECORD, 2, "ann")
    assert render_board(view | {"options": {"board": "nonexistent"}}) == render_board(view)


def test_an_error_past_80_columns_is_carried_on_and_read_back_whole() -> None:
    """A long error is folded into lines of at most 80 columns; ErrorJoin reads back its code."""
    from protocol.text.read import ErrorJoin

    message = "The game data cannot be reached just now; nothing changed, try again, " * 2
    lines = _render(m.Error(code="unavailable", message=message.strip()))
    assert len(lines) > 1 and all(display_width(line) <= WIDTH for line in lines)
    join = ErrorJoin()
    read = [whole for line in lines if (whole := join.feed(line)) is not None]
    assert read == [f"! {message.strip()} [unavailable]"]
    assert read_error(read[0]) == ErrorLine("unavailable", message.strip())


def test_a_followed_patch_leaves_the_view_and_text_a_patch_would() -> None:
    """A line connection that follows the room's views instead of applying each patch has, after
    every move, the view the patches give and reads the same lines; before any snapshot it has no
    view either way."""
    played = replay(RECORD)
    seats = [SeatInfo(name, "person", True) for name in RECORD.players]
    history: list[LastMove] = []
    states: list[RoomViews] = []
    previous: RoomViews | None = None
    for number in range(12):
        if number:
            result = played.results[number - 1]
            history.append(LastMove(RECORD.players[result.player], result.move, result.points))
        position = replay(GameRecord(RECORD.players, RECORD.seed, moves=RECORD.moves[:number])).position
        previous = RoomViews(room="cafe", state="playing", seats=seats, spectators=["zoe"], options={},
                             position=position, last_move=history[-1] if history else None, outcome=None,
                             move_number=number, history=list(history), previous=previous)  # fmt: skip
        states.append(previous)
    for reader in (*RECORD.players, "zoe"):
        patched, followed = LineText(), LineText()
        followed.follow(states[0], reader)
        assert followed.view is None
        for text in (patched, followed):
            text.render(m.Snapshot(room="cafe", view=states[0].view(reader)), reader=reader)
        for before, after in itertools.pairwise(states):
            patched.render(m.Patch(room="cafe", ops=after.changes(before, reader)), reader=reader)
            followed.follow(after, reader)
            assert followed.view == patched.view == after.view(reader)
            last = after.view(None)["game"]["last_move"]
            move = m.Played(room="cafe", player=last["player"], move=last["move"], points=last["points"],
                            events=[])  # fmt: skip
            assert followed.render(move, reader=reader) == patched.render(move, reader=reader)
