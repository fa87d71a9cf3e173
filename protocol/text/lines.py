"""What a line client (telnet, nc) reads for each server message, as lines of text.

The line endpoint keeps one ``LineText`` per connection: it holds the room view (the snapshot with
every patch applied), so that a move's line can be followed by the board picture when the reader is
to move. Its readers are in ``protocol.text.read``, next to this file: a change to a line here
goes with a change to its reader there.

>>> LineText().render(m.Chat(room="cafe", name="ann", text="hi"), reader="bob")
['<ann> hi']
"""

from __future__ import annotations

from typing import Any, Final

from protocol import messages as m
from protocol.diff import apply_patch
from protocol.text._common import to_ascii
from protocol.text.board import render_board
from protocol.text.events import render_played

__all__ = [
    "FULL",
    "GREETING",
    "MOVES_WIDTH",
    "PROMPT",
    "LineText",
    "ascii_set",
    "closing",
    "name_refused",
    "pack",
]

#: the name prompt; it has no line end, the answer goes on the same line
PROMPT: Final = "Your name (or NAME TOKEN to come back): "
#: the first line a new connection reads, before the prompt
GREETING: Final = "Welcome to Café International!"
#: the only line a connection refused for capacity reads
FULL: Final = "* The server is full or stopping; try again later."
#: the widest line of a ``/moves`` list
MOVES_WIDTH: Final = 78

_PRESENCE: Final = {
    "entered": "enters the room",
    "left": "leaves the room",
    "joined": "takes a seat",
    "unseated": "gives up the seat",
    "back": "is back",
    "away": "lost the connection",
    "replaced_by_bot": "is played by a bot for now",
    "renamed": "changed name",
}


def pack(items: list[str], separator: str, width: int) -> list[str]:
    """Lines of at most ``width`` columns holding whole items (a two-card move is never split)."""
    lines: list[str] = []
    line = ""
    for item in items:
        candidate = f"{line}{separator}{item}" if line else item
        if line and len(candidate) > width:
            lines.append(line + separator.rstrip())
            line = item
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def name_refused(message: str) -> str:
    """What a refused name reads (the error's sentence, then the prompt again)."""
    return f"! {message}\r\n{PROMPT}"


def ascii_set(on: bool) -> str:
    """The answer to ``/ascii on`` or ``/ascii off``."""
    return "* Text in plain ASCII from now on." if on else "* Text in UTF-8 from now on."


def closing(reason: str) -> str:
    """The last line of a connection the server closes."""
    return f"* {reason}"


def _vote_line(vote: m.Vote) -> str:
    """A vote as a line: what is asked, and how it stands or ended."""
    if vote.kind == "remove":
        what = f"{vote.by} asks to take {vote.name} (seat {vote.seat}) out of the game"
    else:
        what = f"{vote.by} asks to take over seat {vote.seat} ({vote.name})"
    if vote.state == "open":
        tally = f"{len(vote.yes)} yes, {len(vote.no)} no"
        return f"* Vote: {what}; {', '.join(vote.voters)}: /accept or /refuse ({tally})."
    return f"* Vote {vote.state}: {what}."


class LineText:
    """The text of one line connection: each server message becomes lines; snapshots and patches
    keep the room view that pictures are drawn from."""

    def __init__(self) -> None:
        self.view: dict[str, Any] | None = None

    def render(self, msg: m._ServerMessage, *, reader: str | None, ascii_only: bool = False) -> list[str]:
        """The lines ``reader`` (the connection's name) reads for ``msg``; with ``ascii_only`` every
        character of them is ASCII."""
        lines = self._lines(msg, reader, ascii_only)
        return [to_ascii(line) for line in lines] if ascii_only else lines

    def _lines(self, msg: m._ServerMessage, reader: str | None, ascii_only: bool) -> list[str]:
        if isinstance(msg, m.Snapshot):
            self.view = msg.view
            return self._room_lines(ascii_only)
        if isinstance(msg, m.Patch):
            if self.view is not None:
                self.view = apply_patch(self.view, msg.ops)
            return []
        if isinstance(msg, m.Welcome):
            return [
                f"Hello {msg.name}! To come back after a lost connection, answer the name prompt with:",
                f"  {msg.name} {msg.token}",
                "/rooms lists rooms, /join NAME enters one and takes a seat, /help lists every command.",
            ]
        if isinstance(msg, m.Error):
            return [f"! {msg.message} [{msg.code}]"]
        if isinstance(msg, m.Ack | m.Pong):
            return []
        if isinstance(msg, m.Chat):
            return [
                f"<{msg.name}> {msg.text}" if msg.room is not None else f"[lobby] <{msg.name}> {msg.text}"
            ]
        if isinstance(msg, m.Presence):
            detail = f" ({msg.detail})" if msg.detail else ""
            return [f"* {msg.name} {_PRESENCE[msg.event]}{detail}"]
        if isinstance(msg, m.Notice):
            return [f"* {msg.text}"]
        if isinstance(msg, m.Text):
            return msg.text.splitlines()
        if isinstance(msg, m.Rooms):
            if not msg.rooms:
                return ["No rooms yet. /join NAME opens one."]
            return [
                f"{r.name:<24} {r.state:<8} seats: {', '.join(s.name for s in r.seats) or '-'}"
                f"  watching: {r.spectators}"
                for r in msg.rooms
            ]
        if isinstance(msg, m.WhoList):
            return [f"{p.name:<16} {p.kind:<6} {p.room or '(lobby)'}" for p in msg.people]
        if isinstance(msg, m.GameStarted):
            return [
                f"* The game starts: {', '.join(msg.players)}. {msg.start_player} begins.",
                f"* Shuffle fingerprint sha256(seed) = {msg.seed_hash}",
                *(["* A practice game: the room chose the seed."] if msg.practice else []),
                *self._turn_lines(reader, ascii_only),
            ]
        if isinstance(msg, m.Played):
            played = render_played(msg.player, msg.move, msg.points, msg.events, ascii_only=ascii_only)
            return [played, *self._turn_lines(reader, ascii_only)]
        if isinstance(msg, m.Eliminated):
            return []  # the played line already says so
        if isinstance(msg, m.GameOver):
            ranking = ", ".join(f"{n} {msg.final_scores[n]}" for n in msg.ranking)
            rated = [
                f"* Rated: {name} {r.before} -> {r.after}{'?' if r.provisional else ''}"
                for name, r in (msg.ratings or {}).items()
            ]
            return [
                f"* Game over ({msg.reason}): {ranking}.",
                *rated,
                f"* The seed was {msg.seed}. /start plays again.",
            ]
        if isinstance(msg, m.LegalMoves):
            if not msg.moves:
                return ["No legal moves."]
            return [f"{len(msg.moves)} legal moves:", *pack(msg.moves, ", ", MOVES_WIDTH)]
        if isinstance(msg, m.Hint):
            return [f"Hint: {msg.move} ({msg.points:+d})"]
        if isinstance(msg, m.Bye):
            return [f"* {msg.reason}"]
        if isinstance(msg, m.TellMessage):
            if reader is not None and msg.name.casefold() == reader.casefold():
                return [f"-> {msg.to}: {msg.text}"]
            return [f"[{msg.name} tells you] {msg.text}"]
        if isinstance(msg, m.Friends):
            if not msg.friends:
                return ["No friends listed yet: /friend NAME adds one."]
            return [
                f"{f.name:<16} {(f.room or '(lobby)') if f.online else 'not connected'}" for f in msg.friends
            ]
        if isinstance(msg, m.Invited):
            return [f"* {msg.name} invites you to room {msg.room}: /room {msg.room} to go there."]
        if isinstance(msg, m.Vote):
            return [_vote_line(msg)]
        return []

    def _room_lines(self, ascii_only: bool) -> list[str]:
        view = self.view
        if view is None:
            return []
        lines = [f"* You are in room {view['room']} ({view['state']})."]
        if view["game"] is not None:
            lines.extend(render_board(view, ascii_only=ascii_only).splitlines())
        else:
            seats = ", ".join(s["name"] for s in view["seats"]) or "nobody"
            lines.append(f"* Seated: {seats}. /join takes a seat, /addbot adds a bot, /start begins.")
        return lines

    def _turn_lines(self, reader: str | None, ascii_only: bool) -> list[str]:
        view = self.view
        if view is None or view["game"] is None or view["state"] != "playing" or view["game"]["over"]:
            return []
        if view["game"]["to_move"] == reader:
            board = render_board(view, ascii_only=ascii_only).splitlines()
            return [*board, "* /moves lists your legal moves, /hint suggests one."]
        return []
