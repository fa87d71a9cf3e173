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
from protocol.i18n import DEFAULT, Lang, Msg, _, _n, lang
from protocol.text._common import (
    CONTINUED,
    fold,
    to_ascii,
)
from protocol.text.board import render_board
from protocol.text.events import render_played
from protocol.text.moderation import modlog_lines, reports_lines
from protocol.text.tournaments import tournament_lines, tournaments_lines
from protocol.view import RoomViews

__all__ = [
    "CONTINUED",
    "FULL",
    "GREETING",
    "MOVES_WIDTH",
    "PROMPT",
    "STATE_WORDS",
    "LineText",
    "ascii_set",
    "closing",
    "fold",
    "name_refused",
    "pack",
]

#: a room's state in words, for people (the state itself, as sent, stays as it is)
STATE_WORDS: Final = {"waiting": _("waiting"), "playing": _("playing"), "over": _("over")}

_EN: Final = lang(DEFAULT)
#: the name prompt; it has no line end, the answer goes on the same line
PROMPT: Final = _("Your name (or NAME TOKEN to come back): ")
#: the first lines a new connection reads, before the prompt
GREETING: Final = "Welcome to Café International! (Deutsch: /lang de)"
#: the only line a connection refused for capacity reads
FULL: Final = _("* The server is full or stopping; try again later.")
#: the widest line of a ``/moves`` list
MOVES_WIDTH: Final = 78

#: the commands whose bare ``ack`` a terminal tells in words (``LineText.asked``)
_TOLD_ON_ACK: Final = frozenset({m.LeaveRoom, m.Invite, m.Join})

_PRESENCE: Final[dict[str, Msg]] = {
    "entered": _("enters the room"),
    "left": _("leaves the room"),
    "joined": _("takes a seat"),
    "unseated": _("gives up the seat"),
    "back": _("is back"),
    "away": _("lost the connection"),
    "replaced_by_bot": _("is played by a bot"),
}

#: what ``/lang`` at the name prompt answers, in the language just chosen
LANGUAGE_SET: Final[dict[str, Msg]] = {
    "en": _("You read English from now on."),
    "de": _("You read German from now on."),
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


def name_refused(message: str, code: str, say: Lang = _EN) -> str:
    """What a refusal at the name prompt reads: an error line, the sentence with its ``[code]``
    (carried on as every error line is), then the prompt again.

    >>> name_refused("Someone is already called ann.", "name_taken").split("\\r\\n")[0]
    '! Someone is already called ann. [name_taken]'
    """
    return "\r\n".join([*fold([f"! {say(message)} [{code}]"]), say(PROMPT)])


def ascii_set(on: bool) -> Msg:
    """The answer to ``/ascii on`` or ``/ascii off``."""
    return _("Text in plain ASCII from now on.") if on else _("Text in UTF-8 from now on.")


def closing(reason: str, say: Lang = _EN) -> str:
    """The last line of a connection the server closes."""
    return f"* {say(reason)}"


#: the messages whose lines carry what a person wrote
_PEOPLES_WORDS: Final = (m.Chat, m.TellMessage, m.ReportList, m.ModLog)

_VOTE_STATES: Final = {
    "passed": _("passed"),
    "failed": _("failed"),
    "expired": _("expired"),
    "cancelled": _("cancelled"),
}


def _seeking_line(msg: m.Seeking, say: Lang) -> str:
    """The answer to ``/seek``: what the person waits for, one sentence for each kind of game."""
    size = "2-4" if msg.size is None else str(msg.size)
    if msg.rated and msg.bots:
        text = _(
            "* Seeking a rated game of {size} players, {clock} s a turn (bots after {after} s): /unseek stops.",  # noqa: E501
            size=size,
            clock=msg.clock,
            after=msg.bots_after,
        )
    elif msg.rated:
        text = _(
            "* Seeking a rated game of {size} players, {clock} s a turn: /unseek stops.",
            size=size,
            clock=msg.clock,
        )
    elif msg.bots:
        text = _(
            "* Seeking a casual game of {size} players, {clock} s a turn (bots after {after} s): /unseek stops.",  # noqa: E501
            size=size,
            clock=msg.clock,
            after=msg.bots_after,
        )
    else:
        text = _(
            "* Seeking a casual game of {size} players, {clock} s a turn: /unseek stops.",
            size=size,
            clock=msg.clock,
        )
    return say(text)


def _analysis_lines(msg: m.Analysis, say: Lang) -> list[str]:
    """An analysis queued, or ready with each player's figures."""
    if msg.state == "queued":
        return [
            say(
                _(
                    "* The analysis of game {game} is queued (place {place}); you will be told when it"
                    " is ready.",
                    game=msg.game,
                    place=(msg.ahead or 0) + 1,
                )
            )
        ]
    lines = [say(_("* The analysis of game {game} is ready: /games/{game} shows it.", game=msg.game))]
    for name, f in (msg.players or {}).items():
        lines.append(
            "  "
            + say(
                _(
                    "{name}: accuracy {accuracy} %, {total} points lost in {moves} moves ({mean} a move)",
                    name=name,
                    accuracy=f"{f.accuracy:.0f}",
                    total=say.decimal(f.total_cost),
                    moves=f.moves,
                    mean=say.decimal(f.mean_cost),
                )
            )
        )
    return lines


def _vote_lines(vote: m.Vote, say: Lang) -> list[str]:
    """A vote as lines: what is asked, and how it stands or ended."""
    if vote.kind == "remove":
        asked = _(
            "{by} asks to take {name} (seat {seat}) out of the game",
            by=vote.by,
            name=vote.name,
            seat=vote.seat,
        )
    else:
        asked = _("{by} asks to take over seat {seat} ({name})", by=vote.by, name=vote.name, seat=vote.seat)
    what = say(asked)
    if vote.state == "open":
        answer = _(
            "  {voters}: /accept or /refuse ({yes} yes, {no} no).",
            voters=", ".join(vote.voters),
            yes=len(vote.yes),
            no=len(vote.no),
        )
        return [say(_("* Vote: {what}.", what=what)), say(answer)]
    return [say(_("* Vote {state}: {what}.", state=_VOTE_STATES.get(vote.state, vote.state), what=what))]


class LineText:
    """The text of one line connection: each server message becomes lines; snapshots and patches
    keep the room view that pictures are drawn from."""

    def __init__(self) -> None:
        self._view: dict[str, Any] | None = None
        #: the room's views and the reader's name to take the view from when it is next read
        self._source: tuple[RoomViews, str | None] | None = None
        #: the commands typed whose answer is a bare ``ack`` that nothing else the reader sees
        #: shows, by the id they were sent with, with the room they were typed in: the reader
        #: reads what they did once the ack comes (an error's answer drops them)
        self._asked: dict[int, tuple[m.LeaveRoom | m.Invite | m.Join, str | None]] = {}
        self._ids = 0
        #: the last snapshot drew a game nobody has moved in yet: the ``game_started`` that
        #: follows it (a quick pairing's table is entered with its game begun) draws no board again
        self._drawn_unmoved = False
        #: a bot plays the reader's seat while the reader is here (its clock ran out three turns
        #: in a row): the seat's turns are not the reader's to play until they take it back
        self._stood_in = False

    def asked(self, command: Any) -> Any:
        """``command``, as typed, to send: one whose ``ack`` is all the protocol answers (``/leave``,
        ``/invite``, ``/join N``) gets an id here, so that its ack can be told in words; so does
        every ``/join``, whose ack (not another answer) ends a seek."""
        # (every line typed passes here, a move most often: its type is looked up, not checked
        # with isinstance, which a message class's metaclass makes a few hundred instructions)
        kind = type(command)
        if kind not in _TOLD_ON_ACK:
            return command
        self._ids += 1
        view = self.view
        self._asked[self._ids] = (command, None if view is None else view["room"])
        return command.model_copy(update={"id": self._ids})

    def _acked(self, msg_id: m.ClientId, reader: str | None, ascii_only: bool, say: Lang) -> list[str]:
        """What the reader reads for the ack of ``msg_id``: what the command typed did."""
        if not isinstance(msg_id, int) or (found := self._asked.pop(msg_id, None)) is None:
            return []
        command, room = found
        if isinstance(command, m.LeaveRoom):
            self.view, self._stood_in = None, False
            return [say(_("* You left room {room}; you are in the lobby.", room=room or "-"))]
        if isinstance(command, m.Invite):
            return [say(_("* You invited {name} to room {room}.", name=command.name, room=room or "-"))]
        # /join N: one's own seat back (a vote for another's is told as it opens)
        view = self.view
        if view is None or view["seat"] is None or view["seat"] + 1 != command.seat:
            return []
        self._stood_in = False
        back = say(_("* You play seat {seat} again.", seat=command.seat))
        return [back, *self._turn_lines(reader, ascii_only, say)]

    @property
    def view(self) -> dict[str, Any] | None:
        """The room as this connection sees it (``None`` before the first snapshot)."""
        if self._source is not None:
            views, reader = self._source
            self._view, self._source = views.view(reader), None
        return self._view

    @view.setter
    def view(self, view: dict[str, Any] | None) -> None:
        self._view, self._source = view, None

    def follow(self, views: RoomViews, reader: str | None) -> None:
        """A patch that leads to ``views`` was sent, and is not rendered: it shows no lines, and
        ``reader``'s view after it is ``views.view(reader)``, made only when a picture needs it
        (instead of a copy of the view with the patch applied, for every patch)."""
        if self._view is not None or self._source is not None:  # a patch before any snapshot is lost
            self._source = (views, reader)

    def render(
        self, msg: m._ServerMessage, *, reader: str | None, ascii_only: bool = False, lang: Lang = _EN
    ) -> list[str]:
        """The lines ``reader`` (the connection's name) reads for ``msg``, in ``lang``, none
        wider than 80 columns; with ``ascii_only`` every character of them is ASCII."""
        lines = self._lines(msg, reader, ascii_only, lang)
        if ascii_only:
            # made ASCII before it is measured: a letter's ASCII form may be wider (``ß`` is ``ss``)
            return fold([to_ascii(line) for line in lines])
        # what people wrote is measured for every terminal, those that draw ``×`` or ``ü`` two
        # columns wide too; the server's own lines (the picture's frames) as most terminals draw them
        return fold(lines, cjk=type(msg) in _PEOPLES_WORDS)

    def _lines(self, msg: m._ServerMessage, reader: str | None, ascii_only: bool, say: Lang) -> list[str]:
        # the messages of every move first: each isinstance() with a message class goes through
        # its metaclass's check, a few hundred instructions even when it fails
        if isinstance(msg, m.Played):
            played = render_played(
                msg.player, msg.move, msg.points, msg.events, ascii_only=ascii_only, lang=say
            )
            self._drawn_unmoved = False
            return [played, *self._turn_lines(reader, ascii_only, say)]
        if isinstance(msg, m.Ack):
            return self._acked(msg.id, reader, ascii_only, say) if self._asked else []
        if isinstance(msg, m.Pong):  # /ping: the server answers
            return ["* pong"]
        if isinstance(msg, m.Snapshot):
            self.view = msg.view
            game = msg.view["game"]
            self._drawn_unmoved = game is not None and game["move_number"] == 0
            return self._room_lines(ascii_only, say)
        if isinstance(msg, m.Patch):
            if self.view is not None:
                self.view = apply_patch(self.view, msg.ops)
            return []
        if isinstance(msg, m.Welcome):
            return [
                say(
                    _(
                        "Hello {name}! After a lost connection, answer the name prompt with:",
                        name=msg.name,
                    )
                ),
                f"  {msg.name} {msg.token}",
                say(_("/rooms lists rooms, /join NAME takes a seat in one, /help lists every command.")),
            ]
        if isinstance(msg, m.Error):
            if self._asked and isinstance(msg.id, int):
                self._asked.pop(msg.id, None)
            return [f"! {say(msg.message)} [{msg.code}]"]
        if isinstance(msg, m.Chat):
            lobby = say(_("[lobby]"))
            return [
                f"<{msg.name}> {msg.text}" if msg.room is not None else f"{lobby} <{msg.name}> {msg.text}"
            ]
        if isinstance(msg, m.Presence):
            # (the detail may come in the reader's words already: a message made once for each language)
            thrice = msg.detail is not None and say(msg.detail) == say(m.RAN_OUT_THRICE)
            if msg.event == "replaced_by_bot" and msg.name == reader and thrice:
                self._stood_in = True
                view = self.view
                seat = "N" if view is None or view["seat"] is None else view["seat"] + 1
                text = _(
                    "* A bot plays your seat: your time ran out three times. /join {seat} takes it back.",
                    seat=seat,
                )
                return [say(text)]
            detail = f" ({say(msg.detail)})" if msg.detail else ""
            return [f"* {msg.name} {say(_PRESENCE[msg.event])}{detail}"]
        if isinstance(msg, m.Notice):
            return [f"* {say(msg.text)}"]
        if isinstance(msg, m.Text):
            return say(msg.text).splitlines()
        if isinstance(msg, m.Rooms):
            if not msg.rooms:
                return [say(_("No rooms yet. /join NAME opens one."))]
            states = {state: say(word) for state, word in STATE_WORDS.items()}
            width = max(map(len, states.values())) + 1  # (at least a space more in every language)
            return [
                f"{r.name:<24} {states[r.state]:<{width}} "
                + say(
                    _(
                        "seats: {seats}  watching: {watching}",
                        seats=", ".join(s.name for s in r.seats) or "-",
                        watching=r.spectators,
                    )
                )
                for r in msg.rooms
            ]
        if isinstance(msg, m.WhoList):
            lobby, guest = say(_("(lobby)")), say(_("guest"))
            seeking = " " + say(_("(seeking)"))
            hidden = say(_("(a private room)"))
            kinds = {"person": say(_("person")), "bot": say(_("bot"))}
            return [
                f"{'@' * (p.role is not None) + p.name:<16} {kinds.get(p.kind, p.kind):<6} "
                f"{p.rating or (guest if p.guest else '-'):<6} "
                f"{p.room or (hidden if p.private else lobby)}"
                f"{seeking if p.seeking else ''}"
                for p in msg.people
            ]
        if isinstance(msg, m.GameStarted):
            self._stood_in = False
            players = ", ".join(msg.players)
            return [
                say(
                    _(
                        "* The game starts: {players}. {first} begins.",
                        players=players,
                        first=msg.start_player,
                    )
                ),
                *(
                    [say(_("* Shuffle fingerprint, sha256(seed):")), f"  {msg.seed_hash}"]
                    if msg.seed_hash is not None
                    else []
                ),
                *(
                    [say(_("* A practice game: the server chose the seed."))]
                    if msg.practice and msg.seed_drawn
                    else [say(_("* A practice game: the room chose the seed."))]
                    if msg.practice
                    else []
                ),
                *self._turn_lines(reader, ascii_only, say, board=not self._drawn_unmoved),
            ]
        if isinstance(msg, m.Eliminated):
            return []  # the played line already says so
        if isinstance(msg, m.GameOver):
            self._drawn_unmoved = False
            ranking = ", ".join(f"{n} {msg.final_scores[n]}" for n in msg.ranking)
            rated = [
                say(_("* Rated: {name}", name=name))
                + f" {r.before} -> {r.after}{'?' if r.provisional else ''}"
                for name, r in (msg.ratings or {}).items()
            ]
            # the reason stays a code here: programs read this line (protocol.text.read)
            return [
                say(_("* Game over ({reason}): {ranking}.", reason=msg.reason, ranking=ranking)),
                *rated,
                say(_("* The seed was {seed}. /start plays again.", seed=msg.seed)),
            ]
        if isinstance(msg, m.LegalMoves):
            if not msg.moves:
                return [say(_("No legal moves."))]
            count = say(_n("{n} legal move:", "{n} legal moves:", len(msg.moves)))
            return [count, *pack(msg.moves, ", ", MOVES_WIDTH)]
        if isinstance(msg, m.Hint):
            return [say(_("Hint: {move} ({points})", move=msg.move, points=f"{msg.points:+d}"))]
        if isinstance(msg, m.Bye):
            return [f"* {say(msg.reason)}"]
        if isinstance(msg, m.TellMessage):
            if reader is not None and msg.name.casefold() == reader.casefold():
                return [f"-> {msg.to}: {msg.text}"]
            return [say(_("[{name} tells you]", name=msg.name)) + f" {msg.text}"]
        if isinstance(msg, m.Friends):
            if not msg.friends:
                return [say(_("No friends listed yet: /friend NAME adds one."))]
            lobby, away = say(_("(lobby)")), say(_("not connected"))
            hidden = say(_("(a private room)"))
            return [
                f"{f.name:<16} {(f.room or (hidden if f.private else lobby)) if f.online else away}"
                for f in msg.friends
            ]
        if isinstance(msg, m.Invited):
            return [
                say(
                    _(
                        "* {name} invites you to room {room}: /room {room} to go there.",
                        name=msg.name,
                        room=msg.room,
                    )
                )
            ]
        if isinstance(msg, m.Vote):
            return _vote_lines(msg, say)
        if isinstance(msg, m.ReportList):
            return reports_lines(msg, say, ascii_only)
        if isinstance(msg, m.ModLog):
            return modlog_lines(msg, say)
        if isinstance(msg, m.TournamentInfo):
            return tournament_lines(msg, say)
        if isinstance(msg, m.TournamentList):
            return tournaments_lines(msg, say)
        if isinstance(msg, m.Analysis):
            return _analysis_lines(msg, say)
        if isinstance(msg, m.Seated):
            players = ", ".join(msg.players)
            return [
                say(
                    _(
                        "* Your table is ready in room {room}: {players}. The game has begun.",
                        room=msg.room,
                        players=players,
                    )
                )
            ]
        if isinstance(msg, m.Seeking):
            return [_seeking_line(msg, say)]
        if isinstance(msg, m.RoomClosed):
            # in the lobby now (the notice before it said who closed the room, and why)
            if self.view is not None and self.view["room"].casefold() == msg.room.casefold():
                self.view, self._stood_in = None, False
            return []
        return []

    def _room_lines(self, ascii_only: bool, say: Lang) -> list[str]:
        view = self.view
        if view is None:
            return []
        # the state stays a code here: programs read this line (protocol.text.read)
        state = say(STATE_WORDS[view["state"]])
        lines = [say(_("* You are in room {room} ({state}).", room=view["room"], state=state))]
        if view["game"] is not None:
            lines.extend(render_board(view, ascii_only=ascii_only, lang=say).splitlines())
        else:
            seats = ", ".join(s["name"] for s in view["seats"]) or say(_("nobody"))
            lines.append(
                say(
                    _(
                        "* Seated: {seats}. /join takes a seat, /addbot adds a bot, /start begins.",
                        seats=seats,
                    )
                )
            )
        return lines

    def _turn_lines(self, reader: str | None, ascii_only: bool, say: Lang, board: bool = True) -> list[str]:
        """The board and a tip when it is ``reader``'s turn (the tip alone when the board, its
        "It is your turn." included, was just drawn)."""
        if reader is None or self._to_move() != reader:
            return []
        if self._stood_in or not self._plays(reader):
            return []  # the reader's seat, played by a bot while the reader is here or watches
        view = self.view
        assert view is not None
        drawn = render_board(view, ascii_only=ascii_only, lang=say).splitlines() if board else []
        if view.get("rated"):  # (a rated game gives no hints: no_hints)
            return [*drawn, say(_("* /moves lists your legal moves."))]
        return [*drawn, say(_("* /moves lists your legal moves, /hint suggests one."))]

    def _plays(self, reader: str) -> bool:
        """Whether ``reader`` plays a seat here now, read without making the reader's view."""
        if self._source is not None:
            return self._source[0].plays(reader)
        return self._view is not None and self._view["seat"] is not None

    def _to_move(self) -> str | None:
        """Who is to move in the game being played here, if one is: read from what everyone sees,
        without making the reader's own view (most moves show no picture)."""
        if self._source is not None:
            return self._source[0].to_move()
        if self._view is None:
            return None
        state, game = self._view["state"], self._view["game"]
        if game is None or state != "playing" or game["over"]:
            return None
        return str(game["to_move"])
