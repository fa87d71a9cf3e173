"""The text for line clients: the café picture, the hand, the scores and the event lines.

Golden files in ``tests/protocol/golden`` hold whole pictures; ``UPDATE_GOLDEN=1 pytest
tests/protocol/test_text.py`` rewrites them (look at them before committing).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import BAR_VALUES, GameRecord, Position, get_board, position_from_dict, random_game, replay
from engine.cards import full_set
from protocol.text import (
    WIDTH,
    display_width,
    render_board,
    render_event,
    render_hand,
    render_played,
    render_scores,
)
from protocol.text._common import char_width, signed

GOLDEN = Path(__file__).parent / "golden"
BOARD = get_board("classic")
GUEST = re.compile(r"^(?:[A-Z]{2}[mf]|J[mf]=[A-Z]{2})$")


# --- building room views ---------------------------------------------------------------------


def room_view(
    position: Position | None,
    recipient: str | None,
    *,
    room: str = "cafe",
    spectators: Sequence[str] = ("zoe",),
    bots: Sequence[str] = (),
    away: Sequence[str] = (),
    seats: Sequence[str] | None = None,
    move_number: int = 0,
    last_move: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A room view in the shape ``protocol.view`` documents, from an engine position."""
    names = [p.name for p in position.players] if position is not None else list(seats or [])
    seat_list = [
        {"name": n, "kind": "bot" if n in bots else "person", "connected": n not in away} for n in names
    ]
    game = None
    if position is not None:
        index = names.index(recipient) if recipient in names else None
        base = engine.view(position, index)
        outcome = engine.outcome(position)
        game = {
            "players": [
                {
                    "name": p["name"],
                    "hand_size": p["hand_size"],
                    "score": p["score"],
                    "hand_limit": p["hand_limit"],
                    "eliminated": p["name"] in base["eliminated"],
                }
                for p in base["players"]
            ],
            "to_move": names[base["to_move"]],
            "start_player": names[base["start_player"]],
            "chairs": base["chairs"],
            "bar": base["bar"],
            "deck_size": base["deck_size"],
            "move_number": move_number,
            "last_move": last_move,
            "over": base["over"],
            "result": outcome.to_dict() if outcome is not None else None,
        }
        if index is not None:
            game["hand"] = base["players"][index]["hand"]
    return {
        "room": room,
        "state": "waiting" if game is None else ("over" if game["over"] else "playing"),
        "seats": seat_list,
        "spectators": list(spectators),
        "options": {"stammtisch": False},
        "you": recipient,
        "seat": names.index(recipient) if recipient in names else None,
        "game": game,
    }


def replayed_view(record: GameRecord, moves: int, recipient: str | None, **kwargs: Any) -> dict[str, Any]:
    """The view after the first ``moves`` moves of ``record``, with its last move filled in."""
    played = replay(GameRecord(record.players, record.seed, moves=record.moves[:moves]))
    last = None
    if played.results:
        result = played.results[-1]
        last = {
            "player": record.players[result.player],
            "move": result.move,
            "points": result.points,
        }
    return room_view(played.position, recipient, move_number=moves, last_move=last, **kwargs)


def rest_of_set(used: Sequence[str]) -> list[str]:
    """The cards of the 100-card set not named in ``used``, in the set's order."""
    left = Counter(c.text for c in full_set())
    left.subtract(used)
    return [c for c in dict.fromkeys(c.text for c in full_set()) for _ in range(left[c])]


def mid_game_position() -> Position:
    """Three players mid-game, with jokers on shared chairs (FR1s, IN2e) and a one-table chair."""
    chairs = {
        "GB1n": "GBm",
        "GB1e": "GBf",
        "GB1s": "RUf",
        "RU1s": "ITm",
        "FR1n": "FRm",
        "FR1s": "Jf=FR",
        "ES1e": "ESm",
        "ES1s": "Jf=ES",
        "RU2s": "CNf",
        "IN2e": "Jm=CN",
        "IN2s": "INf",
        "FR2e": "FRm",
        "US1e": "USm",
        "US1s": "USf",
    }
    bar = ["ITm", "CUf", "DEm", "USf", "CFm", "TRf"]
    hands = {
        "ann": ["DEf", "DEm", "FRf", "Jm", "USf"],
        "bob": ["CNm", "ESf", "GBm", "INm", "TRf"],
        "cem": ["CFf", "CUm", "ITf", "RUm"],
    }
    used = [g.split("=")[0] for g in chairs.values()] + bar + [c for h in hands.values() for c in h]
    return position_from_dict(
        {
            "board": "classic",
            "options": {"stammtisch": False},
            "players": [
                {"name": "ann", "hand": hands["ann"], "score": 21, "hand_limit": 5},
                {"name": "bob", "hand": hands["bob"], "score": 17, "hand_limit": 5},
                {"name": "cem", "hand": hands["cem"], "score": 9, "hand_limit": 4},
            ],
            "eliminated": [],
            "to_move": 1,
            "start_player": 0,
            "chairs": chairs,
            "bar": bar,
            "deck": rest_of_set(used)[:47],
        }
    )


MID_LAST = {"player": "ann", "move": "Jm=CN@IN2e", "points": 6}


def mid_game_view(recipient: str | None = "ann") -> dict[str, Any]:
    return room_view(mid_game_position(), recipient, bots=["cem"], move_number=14, last_move=MID_LAST)


#: a four-player game (seed 4) whose next-to-last position seats 66 guests, four of them jokers
FULL = random_game(["ann", "bob", "cem", "dora"], 4)
#: a three-player game (seed 2) that ends with two players eliminated
FINISHED = random_game(["ann", "bob", "cem"], 2)


def golden_views() -> dict[str, dict[str, Any]]:
    return {
        "waiting": room_view(None, "zoe", seats=["ann", "bob"], bots=["bob"], spectators=["zoe"]),
        "opening": room_view(engine.new_position(["ann", "bob", "cem"], seed=11), "ann", bots=["cem"]),
        "mid_game": mid_game_view("ann"),
        "spectator": mid_game_view("zoe"),
        "full_board": replayed_view(FULL, len(FULL.moves) - 1, "dora", away=["bob"], spectators=()),
        "finished": replayed_view(FINISHED, len(FINISHED.moves), "ann", bots=["cem"]),
    }


def grid_of(picture: str) -> list[str]:
    """The café part of a picture: the lines between the header and the bar or the seats."""
    lines = picture.split("\n")
    start = lines.index("") + 1
    end = lines.index("", start)
    return lines[start:end]


def all_views() -> Iterator[dict[str, Any]]:
    """Views along a few whole games, for players and spectators, and the golden ones."""
    for names, seed in ((["ann", "bob"], 5), (["ann", "bob", "cem", "dora"], 9)):
        record = random_game(names, seed)
        for moves in range(0, len(record.moves) + 1, 7):
            yield replayed_view(record, moves, names[moves % len(names)])
        yield replayed_view(record, len(record.moves), None)
    yield from golden_views().values()


# --- golden pictures -------------------------------------------------------------------------


@pytest.mark.parametrize("ascii_only", [False, True], ids=["unicode", "ascii"])
@pytest.mark.parametrize("name", sorted(golden_views()))
def test_golden_picture(name: str, ascii_only: bool) -> None:
    """The picture of each golden position is exactly the one stored."""
    path = GOLDEN / f"{name}.{'ascii' if ascii_only else 'unicode'}.txt"
    picture = render_board(golden_views()[name], ascii_only=ascii_only) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(picture, encoding="utf-8")
        pytest.skip(f"rewrote {path.name}")
    assert picture == path.read_text(encoding="utf-8")


# --- the picture -----------------------------------------------------------------------------


@pytest.mark.parametrize("ascii_only", [False, True], ids=["unicode", "ascii"])
def test_every_line_fits_80_columns(ascii_only: bool) -> None:
    """No line of the picture, the scores or the hand is wider than 80 columns, in any position."""
    for view in all_views():
        for text in (
            render_board(view, ascii_only=ascii_only),
            render_scores(view, ascii_only=ascii_only),
            render_hand(view, ascii_only=ascii_only),
        ):
            widest = max(text.split("\n"), key=display_width)
            assert display_width(widest) <= WIDTH, widest


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ ~\x7f\x1b\xa0\xad\xe9\xdf\xff\u0301\u200b·┄┆─▶…—€日ｱ\U0001f600")))
def test_display_width_counts_every_character_as_the_unicode_tables_say(text: str) -> None:
    """The shortcut for text of one-column characters (ASCII, Latin-1, the pictures' glyphs) gives
    what measuring each character gives: wide ones two, combining ones none, the soft hyphen one."""
    assert display_width(text) == sum(map(char_width, text))


@pytest.mark.parametrize(("points", "text"), [(3, "+3"), (21, "+21"), (0, "+0"), (-2, "-2"), (-15, "-15")])
def test_points_always_carry_their_sign(points: int, text: str) -> None:
    """Points read with their sign, none included: a move worth nothing shows ``+0``."""
    assert signed(points) == text


def test_ascii_picture_is_ascii() -> None:
    """With ascii_only, every character of every rendering is ASCII, names included."""
    view = mid_game_view("ann")
    view["seats"][1]["name"] = view["game"]["players"][1]["name"] = view["game"]["to_move"] = "zoë"
    view["spectators"] = ["Jürgen", "渡辺"]
    for text in (
        render_board(view, ascii_only=True),
        render_scores(view, ascii_only=True),
        render_hand(view, ascii_only=True),
    ):
        assert text.isascii(), text
    assert "zoe" in render_board(view, ascii_only=True)


@pytest.mark.parametrize("ascii_only", [False, True], ids=["unicode", "ascii"])
def test_every_chair_is_drawn_once(ascii_only: bool) -> None:
    """The café shows each of the 68 chairs once: every seated guest, and a mark for each free chair."""
    free = "." if ascii_only else "·"
    for view in all_views():
        words = " ".join(grid_of(render_board(view, ascii_only=ascii_only))).split()
        chairs = view["game"]["chairs"] if view["game"] else {}
        assert sorted(w for w in words if GUEST.match(w)) == sorted(chairs.values())
        assert words.count(free) == len(BOARD.chairs) - len(chairs)


def locate(grid: list[str], word: str) -> tuple[int, int]:
    """Line and centre column of the one occurrence of ``word`` in ``grid``."""
    found = [(y, m.start() + len(word) // 2) for y, line in enumerate(grid) for m in re.finditer(word, line)]
    assert len(found) == 1, (word, found)
    return found[0]


def single_guest_grid(chairs: dict[str, str]) -> list[str]:
    """The café with only ``chairs`` occupied."""
    position = position_from_dict(
        {
            "players": [{"name": "ann", "hand": []}, {"name": "bob", "hand": []}],
            "to_move": 0,
            "start_player": 0,
            "chairs": chairs,
            "bar": [],
            "deck": [],
        }
    )
    return grid_of(render_board(room_view(position, "ann")))


def test_shared_chair_sits_between_its_two_tables() -> None:
    """A shared chair is drawn halfway between its tables: across, on their line; along, in their column."""
    grid = single_guest_grid({"FR1e": "Jf=IN", "FR1s": "Jm=ES"})
    fr1, in1, es1 = locate(grid, "FR1"), locate(grid, "IN1"), locate(grid, "ES1")
    across, along = locate(grid, "Jf=IN"), locate(grid, "Jm=ES")
    assert across[0] == fr1[0] and fr1[1] < across[1] < in1[1]
    assert abs((across[1] - fr1[1]) - (in1[1] - across[1])) <= 1
    assert along[1] == fr1[1] and fr1[0] < along[0] < es1[0]
    assert along[0] - fr1[0] == es1[0] - along[0]


def test_chairs_across_an_aisle_stay_apart() -> None:
    """Across an aisle each table keeps its own chair, drawn next to it, with the aisle marked between."""
    grid = single_guest_grid({"RU1e": "RUf", "DE1w": "DEm", "CN1s": "CNm", "DE1n": "DEf"})
    ru1, de1, cn1 = locate(grid, "RU1"), locate(grid, "DE1"), locate(grid, "CN1")
    east, west = locate(grid, "RUf"), locate(grid, "DEm")
    assert east[0] == west[0] == ru1[0]
    assert east[1] - ru1[1] < de1[1] - east[1] and de1[1] - west[1] < west[1] - ru1[1]
    aisle = grid[ru1[0]][east[1] + 2 : west[1] - 1]
    assert aisle.strip() == "┆"
    south, north = locate(grid, "CNm"), locate(grid, "DEf")
    assert south[1] == north[1] == cn1[1]
    assert cn1[0] < south[0] < north[0] < de1[0]
    assert set(grid[south[0] + 1][cn1[1] - 2 : cn1[1] + 3]) == {"┄"}


def test_bar_cell_shows_how_full_the_bar_is() -> None:
    """The middle cell of the café is the bar, with the number of places taken."""
    grid = grid_of(render_board(mid_game_view()))
    assert "BAR 6/20" in grid[locate(grid, "CF1")[0]]


def test_bar_lists_places_values_and_cards() -> None:
    """Below the café the bar shows all 20 places with their values, the cards on them, and the next place."""
    picture = render_board(mid_game_view())
    assert "Bar: 6 of 20 places taken; the next, place 7, pays -4." in picture
    lines = picture.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("Bar:")) + 1
    rows = [line.split() for line in lines[start : start + 6]]
    assert rows[0][1:] + rows[3][1:] == [str(i) for i in range(1, 21)]
    assert rows[1][1:] + rows[4][1:] == [f"{v:+d}" for v in BAR_VALUES]
    assert rows[2][1:] + rows[5][1:] == ["ITm", "CUf", "DEm", "USf", "CFm", "TRf"] + ["·"] * 14


def test_header_names_room_moves_deck_and_last_move() -> None:
    """The first line names the room, the moves played and the deck's size; the second the last move."""
    first, second = render_board(mid_game_view()).split("\n")[:2]
    assert first == "Café International · room cafe · 14 moves played · deck 47"
    assert second == "Last move: ann Jm=CN@IN2e (+6)"


def test_header_says_when_the_last_entry_was_a_player_leaving() -> None:
    """After the server took a player out of the game, the header says so instead of a move."""
    left = {"player": "cem", "move": "leave cem", "points": 0}
    view = room_view(mid_game_position(), "ann", bots=["cem"], move_number=15, last_move=left)
    assert render_board(view).split("\n")[1] == "Last move: cem left the game"


def test_last_line_says_whose_turn_it_is() -> None:
    """The picture ends with whose turn it is, addressed to the reader when it is theirs."""
    assert render_board(mid_game_view("ann")).split("\n")[-1] == "bob is to move."
    assert render_board(mid_game_view("bob")).split("\n")[-1] == "It is your turn."
    finished = replayed_view(FINISHED, len(FINISHED.moves), "ann")
    assert "to move" not in render_board(finished) and "Your turn" not in render_board(finished)


def test_player_sees_own_hand() -> None:
    """A seated player's picture ends with the own hand, its size and the hand limit."""
    assert "Your hand (5, limit 5): DEf DEm FRf Jm USf" in render_board(mid_game_view("ann"))
    assert render_hand(mid_game_view("cem")) == "Your hand (4, limit 4): CFf CUm ITf RUm"


def test_spectator_sees_no_hand() -> None:
    """A spectator's picture shows no cards of any hand, only that they are watching."""
    picture = render_board(mid_game_view("zoe"))
    assert "Your hand" not in picture
    assert "You are watching: you hold no cards." in picture
    assert render_hand(mid_game_view("zoe")) == "You are watching: you hold no cards."
    assert "Your hand" not in render_board(mid_game_view(None))


def test_waiting_room_shows_seats_and_empty_cafe() -> None:
    """Before a game the picture shows the empty café, who sits and how to start."""
    view = room_view(None, "zoe", seats=["ann", "bob"], bots=["bob"], away=["ann"])
    picture = render_board(view)
    assert "Seats: ann (away), bob (bot)" in picture
    assert " ".join(grid_of(picture)).split().count("·") == len(BOARD.chairs)
    assert render_hand(view) == render_scores(view) == "No game is running in this room."


# --- scores and result -----------------------------------------------------------------------


def test_scores_mark_the_player_to_move() -> None:
    """/score lists every player with score, hand size and limit, and marks only the player to move."""
    lines = render_scores(mid_game_view("ann")).split("\n")
    assert lines[0].split() == ["player", "score", "hand", "limit"]
    assert [line.split() for line in lines[1:]] == [
        ["ann", "(you)", "21", "5", "5"],
        ["▶", "bob", "17", "5", "5"],
        ["cem", "(bot)", "9", "4", "4"],
    ]
    assert "> bob" in render_scores(mid_game_view("ann"), ascii_only=True)


def test_scores_mark_eliminated_players() -> None:
    """An eliminated player is marked so, and never as the player to move."""
    record = FINISHED
    played = replay(record)
    first_out = played.position.players[played.position.eliminated[0]].name
    moves = next(
        i for i, r in enumerate(played.results, 1) if any(e["type"] == "eliminated" for e in r.events)
    )
    lines = render_scores(replayed_view(record, moves, "ann")).split("\n")
    row = next(line for line in lines if f" {first_out} " in f"{line} ")
    assert row.endswith("eliminated")
    assert "▶" not in row


def test_result_ranks_players_with_penalties() -> None:
    """After the game the scores show places, score before penalty, penalty, final score, and the winner."""
    view = replayed_view(FINISHED, len(FINISHED.moves), "ann")
    result = view["game"]["result"]
    lines = render_scores(view).split("\n")
    winner = result["ranking"][0]
    assert lines[0].startswith("Game over: only one player is left.") and lines[0].endswith(f"{winner} wins.")
    rows = [line.split() for line in lines[2:]]
    assert [r[1] for r in rows] == result["ranking"]
    for name, row in zip(result["ranking"], rows, strict=True):
        numbers = [int(x) for x in row if x.lstrip("-").isdigit()]
        penalty = result["penalties"][name]
        assert numbers == [result["final_scores"][name] + penalty, -penalty, result["final_scores"][name]]


def test_result_names_every_winner_of_a_tie() -> None:
    """Players who share first place are all named as sharing it."""
    view = mid_game_view("ann")
    view["game"]["over"] = "deck"
    view["game"]["result"] = {
        "reason": "deck",
        "final_scores": {"ann": 20, "bob": 20, "cem": 4},
        "penalties": {"ann": 5, "bob": 5, "cem": 5},
        "ranking": ["ann", "bob", "cem"],
        "places": {"ann": 1, "bob": 1, "cem": 3},
    }
    first = render_scores(view).split("\n")[0]
    assert first == "Game over: the deck is down to 4 cards. ann and bob share first place."


# --- names from people -----------------------------------------------------------------------


def test_long_and_wide_names_are_cut_to_fit() -> None:
    """A long or wide name is shortened with a mark, and the lines still fit 80 columns."""
    view = mid_game_view("ann")
    long = "b" * 60
    wide = "渡辺" * 20
    view["game"]["players"][1]["name"] = view["game"]["to_move"] = long
    view["game"]["players"][2]["name"] = wide
    view["room"] = "r" * 70
    picture = render_board(view)
    assert long not in picture and "b" * 10 + "…" in picture
    assert all(display_width(line) <= WIDTH for line in picture.split("\n"))


def test_many_spectators_wrap_under_each_other() -> None:
    """A long list of spectators is wrapped within 80 columns, the names aligned, none lost."""
    view = mid_game_view("ann")
    view["spectators"] = [f"watcher{i:02d}" for i in range(20)]
    lines = render_board(view).split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("Watching: "))
    block = [lines[start]]
    block += [line for line in lines[start + 1 :] if line.startswith(" " * 10 + "watcher")]
    assert len(block) > 1 and all(display_width(line) <= WIDTH for line in block)
    assert " ".join(block).replace(",", " ").split()[1:] == view["spectators"]


def test_control_characters_in_names_are_not_sent() -> None:
    """A name holding control or format characters (escapes, bidi overrides) is shown with them replaced."""
    view = mid_game_view("ann")
    view["spectators"] = ["evil\x1b[2Jname", "rtl\u202eeman"]
    picture = render_board(view)
    assert "\x1b" not in picture and "evil?[2Jname" in picture
    assert "\u202e" not in picture and "rtl?eman" in picture


# --- events ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (
            {"type": "seat", "player": "ann", "card": "FRf", "chair": "FR1s", "points": 4, "tables": {}},
            "ann seats FRf at FR1s: +4",
        ),
        (
            {"type": "stammtisch", "player": "ann", "table": "DE1", "gender": "m", "points": 40},
            "ann fills DE1 with four men (Stammtisch): +40",
        ),
        (
            {"type": "stammtisch", "player": "ann", "table": "DE1", "gender": "f", "points": 20},
            "ann fills DE1 with four women (Kaffeekränzchen): +20",
        ),
        (
            {"type": "bar", "player": "bob", "card": "ITm", "place": 3, "points": 3},
            "bob sends ITm to the bar (place 3): +3",
        ),
        (
            {"type": "bar", "player": "bob", "card": "ITm", "place": 8, "points": -6},
            "bob sends ITm to the bar (place 8): -6",
        ),
        (
            {"type": "swap", "player": "cem", "card": "DEm", "chair": "DE1e", "joker": "Jm"},
            "cem swaps DEm for the joker at DE1e",
        ),
        ({"type": "hand_limit", "player": "ann", "hand_limit": 4}, "ann's hand limit drops to 4"),
        ({"type": "draw", "player": "ann", "count": 2}, "ann draws 2 cards"),
        ({"type": "draw", "player": "ann", "count": 1}, "ann draws 1 card"),
        ({"type": "draw", "player": "ann", "count": 0}, "ann draws no card"),
        (
            {"type": "eliminated", "player": "dora", "place": 9, "cost": 8, "score": 3},
            "dora is eliminated at bar place 9 (it costs 8, dora has 3)",
        ),
        (
            {"type": "eliminated", "room": "cafe", "seq": 12, "player": "dora", "place": 9},
            "dora is eliminated at bar place 9",
        ),
        ({"type": "left", "player": "bob"}, "bob leaves the game"),
        (
            {
                "type": "game_over",
                "reason": "bar",
                "final_scores": {"ann": 31, "bob": 12},
                "penalties": {"ann": 5, "bob": 10},
                "ranking": ["ann", "bob"],
                "places": {"ann": 1, "bob": 2},
            },
            "game over (the bar is full): ann 31, bob 12 — ann wins",
        ),
    ],
)
def test_event_line(event: dict[str, Any], text: str) -> None:
    """Each engine event becomes one short sentence."""
    assert render_event(event) == text


def test_event_lines_in_ascii() -> None:
    """The ASCII form of an event line holds no other characters."""
    over = {
        "type": "game_over",
        "reason": "deck",
        "final_scores": {"ann": 3, "bob": 3},
        "penalties": {"ann": 0, "bob": 0},
        "ranking": ["ann", "bob"],
        "places": {"ann": 1, "bob": 1},
    }
    assert render_event(over, ascii_only=True) == (
        "game over (the deck is down to 4 cards): ann 3, bob 3 - ann and bob share first place"
    )
    women = {"type": "stammtisch", "player": "ann", "table": "DE1", "gender": "f", "points": 20}
    assert render_event(women, ascii_only=True) == "ann fills DE1 with four women (Kaffeekraenzchen): +20"


def test_unknown_event_is_refused() -> None:
    """An event type without a text raises ValueError naming the type."""
    with pytest.raises(ValueError, match="'teleport'"):
        render_event({"type": "teleport", "player": "ann"})


def seat(card: str, chair: str, points: int) -> dict[str, Any]:
    return {"type": "seat", "player": "ann", "card": card, "chair": chair, "points": points, "tables": {}}


@pytest.mark.parametrize(
    ("move", "points", "events", "text"),
    [
        (
            "FRf@FR1s ESm@ES1e",
            7,
            [seat("FRf", "FR1s", 3), seat("ESm", "ES1e", 4), {"type": "draw", "player": "ann", "count": 2}],
            "ann seats FRf at FR1s, ESm at ES1e: +7",
        ),
        (
            "DEm@DE2n",
            8,
            [seat("DEm", "DE2n", 8), {"type": "hand_limit", "player": "ann", "hand_limit": 4}],
            "ann seats DEm at DE2n: +8; hand limit now 4",
        ),
        (
            "DEm@DE1n DEm@DE1e Jm@DE1s DEm@DE1w",
            44,
            [
                seat("DEm", "DE1n", 0),
                seat("DEm", "DE1e", 2),
                seat("Jm=DE", "DE1s", 2),
                seat("DEm", "DE1w", 0),
                {"type": "stammtisch", "player": "ann", "table": "DE1", "gender": "m", "points": 40},
            ],
            "ann seats DEm at DE1n, DEm at DE1e, Jm=DE at DE1s, DEm at DE1w (Stammtisch at DE1): +44",
        ),
        (
            "ITm@bar",
            -4,
            [{"type": "bar", "player": "ann", "card": "ITm", "place": 7, "points": -4}],
            "ann sends ITm to the bar (place 7): -4",
        ),
        (
            "ITm@bar",
            0,
            [
                {"type": "bar", "player": "ann", "card": "ITm", "place": 9, "points": 0},
                {"type": "eliminated", "player": "ann", "place": 9, "cost": 8, "score": 3},
            ],
            "ann sends ITm to the bar (place 9) and is eliminated",
        ),
        (
            "swap DEm@DE1e",
            0,
            [{"type": "swap", "player": "ann", "card": "DEm", "chair": "DE1e", "joker": "Jm"}],
            "ann swaps DEm for the joker at DE1e",
        ),
        ("leave ann", 0, [{"type": "left", "player": "ann"}], "ann leaves the game"),
        ("FRf@FR1s", 4, [], "ann plays FRf@FR1s: +4"),
    ],
)
def test_played_line(move: str, points: int, events: list[dict[str, Any]], text: str) -> None:
    """A whole move becomes one line naming each card and where it went, and the move's points."""
    assert render_played("ann", move, points, events) == text


def test_played_message_is_rendered_as_one_line() -> None:
    """A played message (with its room, seq and auto fields) is rendered like render_played."""
    message = {
        "type": "played",
        "room": "cafe",
        "seq": 4,
        "player": "ann",
        "move": "FRf@FR1s",
        "points": 4,
        "events": [seat("FRf", "FR1s", 4)],
        "auto": False,
    }
    assert render_event(message) == "ann seats FRf at FR1s: +4"
    assert (
        render_event({**message, "auto": True}) == "ann seats FRf at FR1s: +4 (played for an absent player)"
    )


def test_a_player_taken_out_is_not_said_to_have_had_a_move_played() -> None:
    """The server's ``played`` for a player who left (``auto``) says only that they left."""
    message = {
        "type": "played",
        "player": "bob",
        "move": "leave bob",
        "points": 0,
        "events": [{"type": "left", "player": "bob"}],
        "auto": True,
    }
    assert render_event(message) == "bob leaves the game"


def test_every_event_of_whole_games_renders_as_one_line() -> None:
    """Every event of whole games, and every move's summary, is one line naming the player."""
    kinds: set[str] = set()
    for seed in range(6):
        record = random_game(["ann", "bob", "cem"], seed)
        for result in replay(record).results:
            name = record.players[result.player]
            line = render_played(name, result.move, result.points, result.events)
            assert "\n" not in line and line.startswith(name)
            assert f"{result.points:+d}" in line or "swaps" in line or "eliminated" in line
            for event in result.events:
                kinds.add(event["type"])
                text = render_event(event)
                assert "\n" not in text and text
    assert kinds >= {"seat", "bar", "draw", "eliminated", "game_over"}


def test_a_move_the_clock_played_is_told_as_such() -> None:
    """An event line for a move the clock played says the clock ran out, not that the player was absent."""
    from protocol.text import render_event

    event = {"type": "played", "player": "ann", "move": "FRf@bar", "points": 1, "events": [], "auto": True}
    assert render_event({**event, "clock": True}).endswith("(the clock ran out)")
    assert render_event(event).endswith("(played for an absent player)")
