"""Reading back the text line clients get: what a program on the line endpoint (``cafe-bot --line``,
the load generator) needs to know from the lines ``protocol.text.lines`` and ``protocol.text.board``
write. Each reader returns ``None`` for a line that is not its kind.

>>> read_error("! It is not your turn. [not_your_turn]")
ErrorLine(code='not_your_turn', message='It is not your turn.')
>>> read_game_started("* The game starts: ann, bob. bob begins.")
GameStartLine(players=('ann', 'bob'), start_player='bob')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

from protocol.text.lines import CONTINUED, PROMPT

__all__ = [
    "NO_MOVES",
    "PROMPT_END",
    "PROMPT_START",
    "YOUR_TURN",
    "ErrorJoin",
    "ErrorLine",
    "GameOverLine",
    "GameStartLine",
    "RoomLine",
    "is_hand_line",
    "is_move_line",
    "is_seat_taken",
    "parse_move_list",
    "played_line",
    "read_entered",
    "read_error",
    "read_game_over",
    "read_game_started",
    "read_hello",
    "read_move_count",
    "read_picture_title",
    "read_refusal",
    "read_result_head",
    "read_result_row",
    "read_room",
    "read_token",
]

#: the bytes the name prompt starts and ends with (it has no line end)
PROMPT_START: Final = PROMPT.split(" (", 1)[0].encode()
PROMPT_END: Final = PROMPT[PROMPT.rindex(":") :].encode()
#: the last line of a board picture on the reader's turn
YOUR_TURN: Final = "It is your turn."
#: the answer to ``/moves`` when there is none
NO_MOVES: Final = "No legal moves."

_ERROR = re.compile(r"! (.*) \[([a-z_]+)\]")
_HELLO = re.compile(r"Hello (\S+)! ")
_TOKEN = re.compile(r"\s+(\S+) ([0-9a-f]{16,64})")
_ROOM = re.compile(r"(\S+)\s+(waiting|playing|over)\s+seats: (.*?)  watching: \d+")
_STARTS = re.compile(r"\* The game starts: (.*)\. (\S+) begins\.")
_OVER = re.compile(r"\* Game over \((\w+)\): (.*)\.")
_SCORE = re.compile(r"(\S+) (-?\d+)")
_ENTERED = re.compile(r"\* You are in room (\S+) \((waiting|playing|over)\)\.")
_RESULT_HEAD = re.compile(r"Game over: (.*?)\. ")
_RESULT_ROW = re.compile(r"\s+\d+\.\s+(\S+)(?: \([a-z, ]+\))?\s+-?\d+\s+-?\d+\s+(-?\d+)(?:\s+eliminated)?")
_PLACEMENT = r"(?:[A-Z]{2}[mf]|J[mf](?:=[A-Z]{2})?)@[A-Za-z0-9]+"
_MOVE = rf"(?:swap )?{_PLACEMENT}(?: {_PLACEMENT}){{0,3}}"
#: a line of a ``/moves`` answer: whole moves separated by ", ", a comma at the end when more follow
_MOVE_LINE = re.compile(rf"{_MOVE}(?:, {_MOVE})*,?")
_MOVE_COUNT = re.compile(r"(\d+) legal moves?:")
_PICTURE_TITLE = re.compile(r"Caf(?:é|e) International (?:·|\|) room ")


class ErrorLine(NamedTuple):
    """``! MESSAGE [CODE]``: an error the server sent."""

    code: str
    message: str


class RoomLine(NamedTuple):
    """A line of the ``/rooms`` answer."""

    name: str
    state: str
    seats: tuple[str, ...]


class GameStartLine(NamedTuple):
    """``* The game starts: ...``: the players in seating order and who begins."""

    players: tuple[str, ...]
    start_player: str


class GameOverLine(NamedTuple):
    """``* Game over (REASON): ...``: why, and the final scores, best first."""

    reason: str
    scores: dict[str, int]


def read_error(line: str) -> ErrorLine | None:
    """An error line's code and sentence."""
    found = _ERROR.fullmatch(line)
    return ErrorLine(found.group(2), found.group(1)) if found else None


class ErrorJoin:
    """Puts back together an error line that was longer than 80 columns: the server carries it on
    indented lines, and its ``[code]`` ends the last one.

    >>> join = ErrorJoin()
    >>> join.feed("! Unknown command /jion — did you mean /join? Usage:")
    >>> join.feed("    /join [ROOM] [unknown_command]")
    '! Unknown command /jion — did you mean /join? Usage: /join [ROOM] [unknown_command]'
    """

    def __init__(self) -> None:
        self._start: str | None = None

    def feed(self, line: str) -> str | None:
        """The line to read now (a whole error put back together, or ``line`` itself), or ``None``
        while an error line goes on."""
        start, self._start = self._start, None
        if start is not None and line.startswith(CONTINUED):
            line = f"{start} {line.strip()}"
        if line.startswith("! ") and _ERROR.fullmatch(line) is None:
            self._start = line
            return None
        return line


def read_refusal(line: str) -> str | None:
    """The sentence of an error line (a refusal at the name prompt, or any other), without its
    ``[code]``; the rest of a line that begins ``! `` but ends with none (a long one, carried on)."""
    error = read_error(line)
    if error is not None:
        return error.message
    return line[2:] if line.startswith("! ") else None


def read_hello(line: str) -> str | None:
    """The name in the welcome's first line (``Hello NAME! ...``)."""
    found = _HELLO.match(line)
    return found.group(1) if found else None


def read_token(line: str) -> tuple[str, str] | None:
    """The name and resume token in the welcome's second line (``  NAME TOKEN``)."""
    found = _TOKEN.fullmatch(line)
    return (found.group(1), found.group(2)) if found else None


def read_room(line: str) -> RoomLine | None:
    """A room of the ``/rooms`` list: its name, state and the names on its seats."""
    found = _ROOM.fullmatch(line)
    if found is None:
        return None
    seats = found.group(3)
    return RoomLine(found.group(1), found.group(2), () if seats == "-" else tuple(seats.split(", ")))


def read_game_started(line: str) -> GameStartLine | None:
    """The first line of a game."""
    found = _STARTS.fullmatch(line)
    return GameStartLine(tuple(found.group(1).split(", ")), found.group(2)) if found else None


def read_game_over(line: str) -> GameOverLine | None:
    """The line that ends a game."""
    found = _OVER.fullmatch(line)
    if found is None:
        return None
    return GameOverLine(found.group(1), {n: int(s) for n, s in _SCORE.findall(found.group(2))})


def read_entered(line: str) -> tuple[str, str] | None:
    """The room and its state, from the line that a snapshot starts with."""
    found = _ENTERED.fullmatch(line)
    return (found.group(1), found.group(2)) if found else None


def read_picture_title(line: str) -> bool | None:
    """Whether the game a board picture shows is over, from the picture's first line."""
    if _PICTURE_TITLE.match(line) is None:
        return None
    return line.endswith("game over")


def read_result_head(line: str) -> str | None:
    """Why the game ended, from the first line of a finished game's result table."""
    found = _RESULT_HEAD.match(line)
    return found.group(1) if found else None


def read_result_row(line: str) -> tuple[str, int] | None:
    """A player's name (as the table shows it: a long one is shortened) and final score."""
    found = _RESULT_ROW.fullmatch(line)
    return (found.group(1), int(found.group(2))) if found else None


def is_hand_line(line: str) -> bool:
    """Whether the line shows the reader's hand (so the reader plays in the game shown)."""
    return line.startswith("Your hand (")


def is_seat_taken(line: str) -> bool:
    """Whether the line says that someone took a seat (a presence line or a snapshot's seats)."""
    return line.endswith(" takes a seat") or " takes a seat (" in line or line.startswith("* Seated:")


def read_move_count(line: str) -> int | None:
    """How many moves a ``/moves`` answer lists, from its first line."""
    found = _MOVE_COUNT.fullmatch(line)
    return int(found.group(1)) if found else None


def is_move_line(line: str) -> bool:
    """Whether the line is a line of moves of a ``/moves`` answer."""
    return _MOVE_LINE.fullmatch(line) is not None


def parse_move_list(lines: Sequence[str]) -> list[str]:
    """The moves of a ``/moves`` answer on the line endpoint (the lines after ``N legal moves:``),
    in the listed order. The server writes whole moves separated by ``", "`` and ends a line with
    a comma when the list goes on.

    >>> parse_move_list(["CNf@CN1e, CNf@CN1e DEm@DE1n,", "DEm@DE1n, swap FRf@FR1s"])
    ['CNf@CN1e', 'CNf@CN1e DEm@DE1n', 'DEm@DE1n', 'swap FRf@FR1s']
    """
    return [item.strip() for line in lines for item in line.split(",") if item.strip()]


def played_line(names: Iterable[str]) -> re.Pattern[str]:
    """A pattern that matches the line of a move played by one of ``names`` (``render_played``).

    >>> bool(played_line(["ann", "bob"]).match("bob sends ITm to the bar (place 3): +3"))
    True
    """
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"^(?:{alternatives})\s+(?:seats|sends|swaps|plays|leaves) ")
