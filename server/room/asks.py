"""What a room answers without changing: a player's legal moves and a hint, the board, a hand
and the scores drawn as text, and ``/info``.

A part of the room core (:mod:`server.room.core`), given the room's members, seats and game.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import Position, play
from engine.rules import legal_move_texts
from protocol import i18n
from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.errors import ProtocolError
from protocol.i18n import Lang, Msg, _, lazy
from protocol.options import RoomOptions
from protocol.text.lines import STATE_WORDS
from server.room.members import Members
from server.room.play import Play, greedy_move
from server.room.seats import Seats
from server.room.state import Seat, State
from server.room.world import Member


class Asks:
    """The questions members ask of one room."""

    def __init__(self, name: str, members: Members, seats: Seats, game: Play) -> None:
        self.name = name
        self.members = members
        self.seats = seats
        self.play = game
        #: the turn (game id, moves played) the answers below are of: a turn's legal moves and
        #: hint never change, and asked again and again they are worked out once (a hint can take
        #: a few dozen milliseconds of the event loop)
        self._turn: tuple[str, int] | None = None
        self._legal: list[str] | None = None
        self._hint: m.Hint | None = None

    def _of_turn(self) -> None:
        """Forget the answers of an earlier turn."""
        game = self.play.game
        assert game is not None
        turn = (game.game_id, game.moves)
        if self._turn != turn:
            self._turn, self._legal, self._hint = turn, None, None

    def my_turn(self, member: Member, msg_id: m.ClientId) -> Position:
        """The position, when it is the turn of the seat ``member`` plays."""
        game = self.play.require_game(msg_id)
        seat = self.seats.require(member, msg_id)
        if game.position.to_move != seat:
            raise ProtocolError(
                "not_your_turn",
                _("It is {name}'s turn.", name=self.seats[game.position.to_move].name),
                msg_id,
            )
        return game.position

    def rated(self) -> bool:
        """Whether the game counts for ratings (:meth:`Play.rated`, which the views show too)."""
        return self.play.rated()

    def on_legal_moves(self, member: Member, msg: m.GetLegalMoves) -> None:
        """``legal_moves``: the moves the player to move may make."""
        position = self.my_turn(member, msg.id)
        self._of_turn()
        if self._legal is None:
            self._legal = legal_move_texts(position)
        self.members.send(member, m.LegalMoves(id=msg.id, moves=self._legal))

    def on_hint(self, member: Member, msg: m.GetHint) -> None:
        """``hint``: the greedy bot's move for the player to move (none in a rated game)."""
        self.play.require_game(msg.id)
        self.seats.require(member, msg.id)
        if self.rated():
            raise ProtocolError(
                "no_hints", _("No hints in a rated game: hints are for practice and casual games."), msg.id
            )
        position = self.my_turn(member, msg.id)
        self._of_turn()
        if self._hint is None:
            move = greedy_move(position)
            self._hint = m.Hint(id=None, move=move, points=play(position, move).points)
        self.members.send(member, self._hint.model_copy(update={"id": msg.id}))

    def on_show(self, member: Member, msg: ShowRequest) -> None:
        """``/info``, or the board, the hand or the scores as the member's view has them."""
        game = self.play
        if msg.what == "info":
            host = self.seats.host(game.options.host)
            text = info_text(
                self.name,
                game.state,
                self.seats,
                host,
                game.options,
                rated=self.rated(),
                drawn=game.seed_drawn,
                # a game's own: once it ended, the room's seed is random again
                practice=game.game.practice if game.game is not None else game.options.seed is not None,
            )
            self.members.send(member, m.Text(id=msg.id, kind="info", text=text))
            return
        from protocol import text as drawn

        view = game.views().view(member.name)
        render = {"board": drawn.render_board, "hand": drawn.render_hand, "score": drawn.render_scores}.get(
            msg.what
        )
        if render is None:
            raise ProtocolError("bad_arguments", _("/{what} is not shown by rooms.", what=msg.what), msg.id)
        ascii_only = member.ascii_only
        body = i18n.lazy(lambda lang: render(view, ascii_only=ascii_only, lang=lang))
        self.members.send(member, m.Text(id=msg.id, kind=msg.what, text=body))


def info_text(
    room: str,
    state: State,
    seats: Iterable[Seat],
    host: Seat | None,
    options: RoomOptions,
    *,
    rated: bool,
    drawn: bool = False,
    practice: bool | None = None,
) -> Msg:
    """The lines of ``/info`` for room ``room``, drawn in each reader's language; ``rated`` says
    whether the game counts for ratings as its players sit now (:meth:`Asks.rated`); ``drawn``
    that the server drew the seed of a table it made; ``practice`` that the room's game (running or
    ended; before the first, the next) was dealt from a seed chosen for it (by default, whether the
    options hold one)."""
    o = options
    if practice is None:
        practice = o.seed is not None
    taken = ", ".join(f"{i}. {s.name}" for i, s in enumerate(seats, 1))
    words = STATE_WORDS[state]

    def draw(say: Lang) -> str:
        def on(flag: bool) -> str:
            return say(_("on") if flag else _("off"))

        nobody = _("nobody seated") if o.host else _("off (every player decides)")
        hosted = host.name if host else say(nobody)
        named = _("Room {room}: {state}. Seats: {seats}.", room=room, state=words, seats=taken)
        lines = [
            say(named) if taken else say(_("Room {room}: {state}. Seats: nobody.", room=room, state=words)),
            say(_("Host: {host}.", host=hosted)),
            say(
                _("Rated: no, a practice game (the server chose the seed).")
                if practice and drawn
                else _("Rated: no, a practice game (the room chose the seed).")
                if practice
                else _("Rated: yes.")
                if rated
                else _("Rated: no, fewer than two registered players are seated.")
            ),
            say(
                _("Clock: {seconds} seconds per turn.", seconds=i18n.number(o.clock))
                if o.clock
                else _("Clock: off.")
            ),
            say(
                _("Absent players: a bot plays the seat.")
                if o.absent == "bot"
                else _("Absent players: they leave the game.")
            ),
            say(
                _(
                    "Stammtisch: {stammtisch}. Private: {private}.",
                    stammtisch=on(o.stammtisch),
                    private=on(o.private),
                )
            ),
            say(_("Seats drawn at the start: yes.") if o.drawseat else _("Seats drawn at the start: no."))
            + " "
            + say(_("Begins: seat {seat}.", seat=o.start) if o.start else _("Begins: drawn by the shuffle.")),
        ]
        return "\n".join(lines)

    return lazy(draw)


__all__ = ["Asks", "info_text"]
