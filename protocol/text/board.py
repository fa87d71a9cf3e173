"""The room as a picture for line clients: the café, the bar, the scores, the hand.

Everything here reads a room view (the shape documented in ``protocol.view``) and returns plain
text that fits 80 columns. ``ascii_only=True`` gives the same text
using only ASCII characters, for terminals that cannot show anything else.

The picture draws each table as its name with its four chairs around it. A chair two tables
share is drawn once, halfway between them; where an aisle runs between two tables, each keeps its
own chair next to it and a mark (``┆`` or ``┄┄┄┄┄``) shows the aisle. A free chair is ``·``
(``.`` in ASCII)::

     FRm             ·                 the north chairs of FR1 and IN1
     FR1     INf     IN1               INf sits on the chair FR1 and IN1 share
                      ·                IN1's south chair
    Jf=FR           ┄┄┄┄┄              a joker declared French, shared by FR1 and ES1; an aisle
                      ·                TR1's north chair
     ES1     ESm     TR1               ESm sits on the chair ES1 and TR1 share
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine import BAR_PLACES, BAR_VALUES, Board, get_board
from protocol.i18n import DEFAULT, Lang, _, _n, lang
from protocol.text._common import (
    NAME_COLUMN,
    REASONS,
    WIDTH,
    Glyphs,
    clean,
    display_width,
    fit,
    glyphs,
    name_text,
    pad,
    signed,
)

__all__ = ["render_board", "render_hand", "render_scores", "winners"]

#: the widest guest text on a chair (a declared joker, ``Jf=FR``)
_CHAIR_WIDTH: Final = 5
#: columns from the start of one table name to the start of the next one on the grid
_COLUMN_STEP: Final = 16
#: lines from one table name to the next one below it
_ROW_STEP: Final = 4
#: the first column of the first table name (room for its west chair and a space)
_LEFT: Final = _CHAIR_WIDTH + 1
_NAME_WIDTH: Final = 3
_BAR_PER_LINE: Final = 10
#: the only board rooms play on; a room view does not name its board
_BOARD: Final = "classic"
_EN: Final = lang(DEFAULT)


class _Canvas:
    """Lines of single-column characters to draw on, each a string: a guest drawn is two slices
    and a join, where a list of characters a line cost a list to make and one to join again."""

    def __init__(self, height: int, width: int) -> None:
        self.rows = [" " * width] * height

    def put(self, line: int, column: int, text: str) -> None:
        row = self.rows[line]
        self.rows[line] = row[:column] + text + row[column + len(text) :]

    def free(self, line: int, column: int, width: int) -> bool:
        return not self.rows[line][column : column + width].strip(" ")

    def lines(self) -> list[str]:
        return [row.rstrip() for row in self.rows]


def _name_column(col: int) -> int:
    return _LEFT + _COLUMN_STEP * col


def _name_line(row: int) -> int:
    return 1 + _ROW_STEP * row


def _centred(column: int, text: str) -> int:
    """Where ``text`` starts when centred on ``column``."""
    return column - (len(text) - 1) // 2


# where a chair's guest goes: centred on a column, ending before one, or starting at one
_CENTRED, _BEFORE, _AT = 0, 1, 2


@dataclass(frozen=True, slots=True)
class _Layout:
    """What of the café's picture does not depend on the guests."""

    rows: tuple[str, ...]  # the lines with the table names
    places: dict[str, tuple[int, int, int]]  # each chair's name: its line, column, how a guest aligns
    across: tuple[tuple[int, int], ...]  # the aisles between tables side by side: line, column
    along: tuple[tuple[int, int], ...]  # the aisles between tables one above the other


@functools.cache
def _grid_layout(board: Board) -> _Layout:
    """The layout of ``board``'s picture, worked out once per board."""
    canvas = _Canvas(
        _ROW_STEP * board.rows - 1, _name_column(board.cols - 1) + _NAME_WIDTH + 1 + _CHAIR_WIDTH
    )
    for table in board.tables:
        canvas.put(_name_line(table.row), _name_column(table.col), table.name)
    places = []
    for chair in board.chairs:
        # tables list the chair's own table first: the one that names it canonically
        table = board.tables[chair.tables[0]]
        side = "nesw"[table.chairs.index(chair.index)]
        line, x = _name_line(table.row), _name_column(table.col)
        if chair.shared and side == "e":
            places.append((chair.name, line, x + _NAME_WIDTH + _COLUMN_STEP // 2 - 2, _CENTRED))
        elif chair.shared:  # the south side: the other table is below
            places.append((chair.name, line + _ROW_STEP // 2, x + 1, _CENTRED))
        elif side == "n":
            places.append((chair.name, line - 1, x + 1, _CENTRED))
        elif side == "s":
            places.append((chair.name, line + 1, x + 1, _CENTRED))
        elif side == "e":
            places.append((chair.name, line, x + _NAME_WIDTH + 1, _AT))
        else:
            places.append((chair.name, line, x - 1, _BEFORE))
    cells = {(t.row, t.col) for t in board.tables}
    across, along = [], []
    for table in board.tables:
        line, x = _name_line(table.row), _name_column(table.col)
        if not board.chairs[table.chairs[1]].shared and (table.row, table.col + 1) in cells:
            across.append((line, x + _NAME_WIDTH + _COLUMN_STEP // 2 - 2))
        if not board.chairs[table.chairs[2]].shared and (table.row + 1, table.col) in cells:
            along.append((line + _ROW_STEP // 2, x + 1))
    # no guest reaches another chair's place, so guests and free chairs may be drawn in any order
    spans = sorted((line, _aligned(column, align, "x" * _CHAIR_WIDTH)) for _, line, column, align in places)
    assert all(a[0] < b[0] or a[1] + _CHAIR_WIDTH <= b[1] for a, b in itertools.pairwise(spans))
    return _Layout(
        tuple(canvas.rows),
        {name: (line, column, align) for name, line, column, align in places},
        tuple(across),
        tuple(along),
    )


def _aligned(column: int, align: int, guest: str) -> int:
    """Where ``guest`` starts on a chair's line."""
    if align == _CENTRED:
        return _centred(column, guest)
    if align == _BEFORE:
        return column - len(guest)
    return column


@functools.cache
def _free_rows(board: Board, free: str) -> tuple[str, ...]:
    """The lines of ``board``'s tables with every chair drawn ``free``."""
    layout = _grid_layout(board)
    canvas = _Canvas(0, 0)
    canvas.rows = list(layout.rows)
    for line, column, align in layout.places.values():
        canvas.put(line, _aligned(column, align, free), free)
    return tuple(canvas.rows)


def _draw_grid(board: Board, chairs: Mapping[str, str], bar_taken: int, g: Glyphs, say: Lang) -> list[str]:
    """The tables of ``board`` with their chairs and guests, and the bar in its cell."""
    layout = _grid_layout(board)
    canvas = _Canvas(0, 0)
    canvas.rows = list(_free_rows(board, g.free))  # then only the chairs taken are drawn
    for name, guest in chairs.items():
        place = layout.places.get(name)
        if place is not None:
            line, column, align = place
            canvas.put(line, _aligned(column, align, guest), guest)
    for line, column in layout.across:
        for dy in (-1, 0, 1):
            # two declared jokers fill the aisle's line: the mark above and below must do
            if canvas.free(line + dy, column - 1, 3):
                canvas.put(line + dy, column, g.aisle_across)
    for line, column in layout.along:
        canvas.put(line, _centred(column, g.aisle_along), g.aisle_along)
    if board.bar_cell is not None:
        _draw_bar_cell(canvas, *board.bar_cell, bar_taken, g, say)
    return canvas.lines()


def _draw_bar_cell(canvas: _Canvas, row: int, col: int, taken: int, g: Glyphs, say: Lang) -> None:
    tl, tr, bl, br, h, v = g.box
    inner = 11
    centre = _name_column(col) + 1
    left = centre - inner // 2 - 1
    line = _name_line(row)
    canvas.put(line - 1, left, tl + h * inner + tr)
    label = say(_("BAR {taken}/{places}", taken=taken, places=BAR_PLACES))
    canvas.put(line, left, v + label[:inner].center(inner) + v)
    canvas.put(line + 1, left, bl + h * inner + br)


def _draw_bar(bar: Sequence[str], g: Glyphs, say: Lang) -> list[str]:
    """The bar's places, their values and the cards on them, ten places a line."""
    taken = len(bar)
    head, scale, guest = _bar_words(say, taken)
    lines = [head]
    for (places, values), start in zip(scale, range(0, BAR_PLACES, _BAR_PER_LINE), strict=True):
        end = min(start + _BAR_PER_LINE, BAR_PLACES)
        lines += (
            places,
            values,
            guest + "".join((bar[i] if i < taken else g.free).rjust(5) for i in range(start, end)),
        )
    return lines


@functools.cache
def _bar_words(say: Lang, taken: int) -> tuple[str, tuple[tuple[str, str], ...], str]:
    """What of the bar's picture depends only on the language and the places taken: the line
    above it, each ten places' numbers and values, and the start of a line of guests."""
    if taken >= BAR_PLACES:
        head = say(_("Bar: all {places} places taken.", places=BAR_PLACES))
    else:
        head = say(
            _(
                "Bar: {taken} of {places} places taken; the next, place {next}, pays {value}.",
                taken=taken,
                places=BAR_PLACES,
                next=taken + 1,
                value=signed(BAR_VALUES[taken]),
            )
        )
    place, value, guest = (f"  {pad(say(word), 6)}" for word in (_("place"), _("value"), _("guest")))
    scale = tuple(
        (
            place + "".join(f"{i + 1:>5}" for i in places),
            value + "".join(f"{signed(BAR_VALUES[i]):>5}" for i in places),
        )
        for places in (
            range(start, min(start + _BAR_PER_LINE, BAR_PLACES))
            for start in range(0, BAR_PLACES, _BAR_PER_LINE)
        )
    )
    return head, scale, guest


# --- players, hand, result -----------------------------------------------------------------


def _seat_notes(view: Mapping[str, Any], say: Lang) -> dict[str, list[str]]:
    notes: dict[str, list[str]] = {}
    for seat in view.get("seats", []):
        extra = notes.setdefault(seat["name"], [])
        if seat.get("kind") == "bot":
            extra.append(say(_("bot")))
        if not seat.get("connected", True):
            extra.append(say(_("away")))
    you = view.get("you")
    if you is not None:
        notes.setdefault(you, []).insert(0, say(_("you")))
    return notes


def _player_label(name: str, notes: Mapping[str, list[str]], g: Glyphs, ascii_only: bool) -> str:
    extra = notes.get(name, [])
    suffix = f" ({', '.join(extra)})" if extra else ""
    return name_text(name, NAME_COLUMN - display_width(suffix), g, ascii_only) + suffix


@functools.cache
def _scores_words(say: Lang) -> tuple[str, str, tuple[int, int, int]]:
    """The scores' heading in one language, its word for a player out of the game, and the widths
    of its three columns of numbers (each as wide as its heading, at least)."""
    player, score, hand, limit = (say(w) for w in (_("player"), _("score"), _("hand"), _("limit")))
    widths = (max(5, len(score)), max(4, len(hand)), max(5, len(limit)))
    heading = (
        f"   {pad(player, NAME_COLUMN)}  {score:>{widths[0]}}  {hand:>{widths[1]}}  {limit:>{widths[2]}}"
    )
    return heading, say(_("eliminated")), widths


def _scores_lines(view: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> list[str]:
    game = view["game"]
    notes = _seat_notes(view, say)
    heading, out, (score_width, hand_width, limit_width) = _scores_words(say)
    lines = [heading]
    for p in game["players"]:
        mark = g.turn if p["name"] == game["to_move"] and not p["eliminated"] and not game["over"] else " "
        label = pad(_player_label(p["name"], notes, g, ascii_only), NAME_COLUMN)
        # rjust() where a format spec would be parsed again for each number
        line = (
            f" {mark} {label}  {str(p['score']).rjust(score_width)}  "
            f"{str(p['hand_size']).rjust(hand_width)}  {str(p['hand_limit']).rjust(limit_width)}"
        )
        if p["eliminated"]:
            line += f"  {out}"
        lines.append(line)
    return lines


def winners(result: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang = _EN) -> str:
    """Who won a game (a result or a ``game_over`` event): one name, or those sharing first place."""
    places = result["places"]
    first = [n for n in result["ranking"] if places.get(n) == 1]
    names = [name_text(n, NAME_COLUMN, g, ascii_only) for n in first]
    if len(names) == 1:
        return say(_("{name} wins", name=names[0]))
    return say(_("{names} and {last} share first place", names=", ".join(names[:-1]), last=names[-1]))


def _reason(result: Mapping[str, Any], ascii_only: bool, say: Lang) -> str:
    known = REASONS.get(str(result["reason"]))
    return say(known) if known is not None else clean(str(result["reason"]), ascii_only)


def _result_lines(view: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> list[str]:
    game = view["game"]
    result = game["result"]
    notes = _seat_notes(view, say)
    eliminated = {p["name"] for p in game["players"] if p["eliminated"]}
    reason = _reason(result, ascii_only, say)
    place, player, score, penalty, final = (
        say(w) for w in (_("place"), _("player"), _("score"), _("penalty"), _("final"))
    )
    # each column of numbers as wide as its heading, at least
    wide = {"score": max(5, len(score)), "penalty": max(7, len(penalty)), "final": max(5, len(final))}
    lines = [
        say(_("Game over: {reason}. {winners}.", reason=reason, winners=winners(result, g, ascii_only, say))),
        f"   {place:>5}  {pad(player, NAME_COLUMN)}  {score:>{wide['score']}}  {penalty:>{wide['penalty']}}"
        f"  {final:>{wide['final']}}",
    ]
    out = say(_("eliminated"))
    for name in result["ranking"]:
        total = result["final_scores"][name]
        points = result["penalties"].get(name, 0)
        label = pad(_player_label(name, notes, g, ascii_only), NAME_COLUMN)
        line = (
            f"   {result['places'][name]:>4}.  {label}  {total + points:>{wide['score']}}"
            f"  {-points:>{wide['penalty']}}  {total:>{wide['final']}}"
        )
        if name in eliminated:
            line += f"  {out}"
        lines.append(line)
    return lines


def _hand_line(view: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> str | None:
    game = view["game"]
    hand = game.get("hand")
    if hand is None:
        if view.get("you") is None:
            return None
        return say(_("You are watching: you hold no cards."))
    me = next((p for p in game["players"] if p["name"] == view.get("you")), None)
    cards = " ".join(hand) if hand else say(_("no cards"))
    if me is not None and me["eliminated"]:
        return say(_("Your hand (out of play): {cards}", cards=cards))
    if me is not None:
        return say(
            _("Your hand ({n}, limit {limit}): {cards}", n=len(hand), limit=me["hand_limit"], cards=cards)
        )
    return say(_("Your hand ({n}): {cards}", n=len(hand), cards=cards))


def _header(view: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> list[str]:
    title = "Cafe International" if ascii_only else "Café International"
    room = name_text(str(view.get("room", "")), 20, g, ascii_only)
    parts = [title, say(_("room {room}", room=room))]
    game = view.get("game")
    if game is None:
        parts.append(say(_("waiting for players")))
        return [g.sep.join(parts)]
    parts.append(say(_n("{n} move played", "{n} moves played", game["move_number"])))
    parts.append(say(_("deck {n}", n=game["deck_size"])))
    if game["over"] is not None:
        parts.append(say(_("game over")))
    lines = [g.sep.join(parts)]
    if display_width(lines[0]) > WIDTH:  # a long room name: the counts go on a line of their own
        lines = [g.sep.join(parts[:2]), g.sep.join(parts[2:])]
    last = game.get("last_move")
    if last is not None:
        who = name_text(last["player"], NAME_COLUMN, g, ascii_only)
        if str(last["move"]).startswith("leave "):  # a record's "leave NAME" entry, not a move
            lines.append(say(_("Last move: {who} left the game", who=who)))
        else:
            move = fit(str(last["move"]), WIDTH - 40, g)
            lines.append(
                say(
                    _("Last move: {who} {move} ({points})", who=who, move=move, points=signed(last["points"]))
                )
            )
    return lines


def _turn_line(view: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> str | None:
    game = view["game"]
    if game["over"] is not None:
        return None
    if game["to_move"] == view.get("you") and view.get("seat") is not None:  # (not while watching)
        return say(_("It is your turn."))
    return say(_("{name} is to move.", name=name_text(game["to_move"], NAME_COLUMN, g, ascii_only)))


def _waiting_lines(view: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> list[str]:
    notes = _seat_notes(view, say)
    seats = [_player_label(s["name"], notes, g, ascii_only) for s in view.get("seats", [])]
    if seats:
        lines = _wrap(say(_("Seats:")), [f"{n}," for n in seats[:-1]] + seats[-1:])
    else:
        lines = [say(_("Seats: none taken yet"))]
    lines.extend(_watching_lines(view, g, ascii_only, say))
    lines.append(say(_("Type /join to take a seat and /start to begin.")))
    return lines


def _watching_lines(view: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> list[str]:
    names = [name_text(s, NAME_COLUMN, g, ascii_only) for s in view.get("spectators", [])]
    if not names:
        return []
    return _wrap(say(_("Watching:")), [f"{n}," for n in names[:-1]] + names[-1:])


def _wrap(prefix: str, words: Iterable[str], width: int = WIDTH) -> list[str]:
    lines, line = [], prefix
    for word in words:
        candidate = f"{line} {word}" if line.strip() else f"{line}{word}"
        if display_width(candidate) > width and line.strip():
            lines.append(line)
            line = " " * (len(prefix) + 1) + word
        else:
            line = candidate
    lines.append(line)
    return lines


def render_board(view: Mapping[str, Any], *, ascii_only: bool = False, lang: Lang = _EN) -> str:
    """The whole room as a picture of at most 80 columns: the café, the bar, the players and the
    reader's hand. ``view`` is a room view; ``ascii_only`` limits the text to ASCII; ``lang`` is the
    language of its words."""
    say = lang
    g = glyphs(ascii_only)
    game = view.get("game")
    board = get_board(_BOARD)
    chairs: Mapping[str, str] = game["chairs"] if game is not None else {}
    bar: Sequence[str] = game["bar"] if game is not None else []
    lines = _header(view, g, ascii_only, say)
    lines.append("")
    lines.extend(_draw_grid(board, chairs, len(bar), g, say))
    lines.append("")
    if game is None:
        lines.extend(_waiting_lines(view, g, ascii_only, say))
        return "\n".join(lines)
    lines.extend(_draw_bar(bar, g, say))
    lines.append("")
    if game.get("result") is not None:
        lines.extend(_result_lines(view, g, ascii_only, say))
    else:
        lines.extend(_scores_lines(view, g, ascii_only, say))
    lines.extend(_watching_lines(view, g, ascii_only, say))
    hand = _hand_line(view, g, ascii_only, say)
    if hand is not None:
        lines.extend(_wrap_hand(hand))
    turn = _turn_line(view, g, ascii_only, say)
    if turn is not None:
        lines.append(turn)
    return "\n".join(lines)


def _wrap_hand(line: str) -> list[str]:
    """A hand's line, its cards carried on to an indented line when it would pass 80 columns."""
    head, sep, cards = line.partition(": ")
    if display_width(line) <= WIDTH or not sep:
        return [line]
    return _wrap(head + sep.rstrip(), cards.split())


def render_hand(view: Mapping[str, Any], *, ascii_only: bool = False, lang: Lang = _EN) -> str:
    """The reader's hand (for ``/hand``), or a sentence saying why there is none."""
    say = lang
    g = glyphs(ascii_only)
    if view.get("game") is None:
        return say(_("No game is running in this room."))
    hand = _hand_line(view, g, ascii_only, say)
    return "\n".join(_wrap_hand(hand)) if hand is not None else say(_("You hold no cards."))


def render_scores(view: Mapping[str, Any], *, ascii_only: bool = False, lang: Lang = _EN) -> str:
    """The players' scores, hand sizes and hand limits with a mark at the player to move (for
    ``/score``); after the game, the final scores and the ranking."""
    say = lang
    g = glyphs(ascii_only)
    game = view.get("game")
    if game is None:
        return say(_("No game is running in this room."))
    if game.get("result") is not None:
        return "\n".join(_result_lines(view, g, ascii_only, say))
    return "\n".join(_scores_lines(view, g, ascii_only, say))
