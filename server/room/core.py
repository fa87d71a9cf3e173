"""The room core: a pure state machine, inbox items and the time in, log entries and effects out.

Like websockets' sans-I/O ``Protocol``, the core is a plain state machine: ``handle`` takes one
inbox item and the time and returns a :class:`~server.room.effects.Step`; the actor writes the
step's log entries, then calls ``commit`` with what the log answered (or ``refuse`` when the log
refused them) and carries out the effects it gets back. A change that needs the log takes effect
only in ``commit``, so a refused write changes nothing. Tests drive the core directly, with a
clock of their own.

The core owns its parts, each with one job and each usable alone:

========================  ===============================================================
``members``               :class:`~server.room.members.Members`: who is in the room, what
                          each was sent, the effects gathered for them
``seats``                 :class:`~server.room.seats.Seats`: the seats, who plays each, the host
``clock``                 :class:`~server.room.clock.Clock`: the turn's timer or bot, resume
                          windows, the bots waiting for someone to come
``play``                  :class:`~server.room.play.Play`: the game, its options and turns
``votes``                 :class:`~server.room.votes.Votes`: votes on seats
``door``                  :class:`~server.room.door.Door`: entering, leaving, sitting down,
                          coming back
``asks``                  :class:`~server.room.asks.Asks`: legal moves, hints, ``/info``
========================  ===============================================================

The core hands each inbox item to the part that handles it; its own are the host's commands
(bots, options, a reset) and taking a game up again from the log.

>>> from server.room import RoomCore, RoomSettings, BotNameList
>>> core = RoomCore("cafe", RoomSettings(), BotNameList())
>>> core.state, core.empty
('waiting', True)
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine import replay
from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.errors import ProtocolError
from protocol.i18n import Msg, _
from protocol.options import ANY_TIME, OptionError, RoomOptions, announcement, check_value
from protocol.view import LastMove
from server.ratings import ACCOUNT, is_guest
from server.room.asks import Asks
from server.room.clock import Clock
from server.room.door import Door, not_invited
from server.room.effects import WRITTEN, Answers, Arm, Effect, GameEnd, GameOption, Step
from server.room.items import (
    BotMove,
    ClockTimeout,
    ClockWarning,
    Closing,
    Enter,
    Expired,
    Leave,
    Lingered,
    MakeWay,
    Returned,
    Table,
    TurnRetry,
    Unattended,
    WindowPassed,
)
from server.room.members import Members
from server.room.play import Play
from server.room.seats import Seats
from server.room.state import DRAWN, LISTED, MAX_SEATS, Game, Seat, State
from server.room.votes import VoteExpired, Votes
from server.room.world import BotNameList, BotNames, Member, RoomSettings

if TYPE_CHECKING:
    from server.log.contract import StoredGame

__all__ = ["BotNameList", "BotNames", "Member", "RoomCore", "RoomSettings", "not_invited"]

#: what handles each kind of inbox item: a member (``None``: the room's own timers) and the item in,
#: a step out when the log must hold something first
Handler = Callable[[Any, Any], Step | None]

#: the timer of a room whose game is over, which stays the resume window after the last one left
LINGER = "linger"


def bot_kind(strategy: str) -> Msg:
    """What kind of bot a server bot is, in words (a presence's detail): one text per strategy."""
    match strategy:
        case "random":
            return _("random bot")
        case "strong":
            return _("strong bot")
    return _("greedy bot")


class RoomCore:
    """A room: its members (spectators and players), four seats, options and the game."""

    def __init__(
        self,
        name: str,
        settings: RoomSettings,
        bot_names: BotNames,
        *,
        new_game_id: Callable[[], str] = lambda: secrets.token_hex(8),
        new_seed: Callable[[], int] = lambda: secrets.randbelow(2**63),
        bot_games: Callable[[str, str | None], int] = lambda name, identity: 0,
    ) -> None:
        self.name = name
        self.settings = settings
        self.bot_names = bot_names
        self.members = Members(name)
        self.seats = Seats()
        self.clock = Clock(settings)
        self.play = Play(
            name,
            settings,
            self.members,
            self.seats,
            self.clock,
            new_game_id=new_game_id,
            new_seed=new_seed,
            bot_games=bot_games,
        )
        self.votes = Votes(name, settings, self.members, self.seats, self.clock, self.play)
        self.play.on_finish = self.votes.game_ended  # (a vote is of its game)
        self.play.on_moved = self.votes.moved
        #: the room's line in the room list, with the ``listing`` it was made for
        self._summary: tuple[tuple[Any, ...], m.RoomSummary] | None = None
        self.door = Door(name, self.members, self.seats, self.clock, self.play, self.votes)
        self.asks = Asks(name, self.members, self.seats, self.play)
        #: the game waited the resume window with nobody here: the room leaves memory (the log
        #: keeps the game, and a restart takes it up again)
        self.unloaded = False
        #: the room's game is over and the last one left less than the resume window ago: the room
        #: stays, so that a player who lost the connection (a reload) finds the result and the
        #: moves as they left them
        self.lingering = False
        #: the staff closed the room (``Closing``): it goes as soon as its members have left
        self.staff_closed = False
        play, votes, door, asks = self.play, self.votes, self.door, self.asks
        self._handlers: dict[type, Handler] = {
            Enter: door.on_enter,
            Leave: door.on_leave,
            Returned: door.on_returned,
            WindowPassed: play.on_window_passed,
            TurnRetry: play.on_turn_retry,
            m.Resync: door.on_resync,
            m.Say: door.on_say,
            m.Join: door.on_join,
            m.LeaveGame: door.on_leave_game,
            m.Start: play.on_start,
            m.SetOption: self._on_option,
            m.PlayMove: play.on_move,
            m.GetLegalMoves: asks.on_legal_moves,
            m.GetHint: asks.on_hint,
            m.AddBot: self._on_add_bot,
            m.RemoveBot: self._on_remove_bot,
            ShowRequest: asks.on_show,
            m.Reset: self._on_reset,
            m.VoteRemove: votes.on_remove,
            m.VoteAnswer: votes.on_answer,
            VoteExpired: votes.on_expired,
            BotMove: play.on_bot_move,
            ClockTimeout: play.on_clock,
            ClockWarning: play.on_clock_warning,
            Unattended: self._on_unattended,
            MakeWay: self._on_make_way,
            Lingered: self._on_lingered,
            Expired: self._on_expired,
            Closing: self._on_closing,
            Table: self._on_table,
        }

    # --- what the actor and the lobby read ---------------------------------------------------

    @property
    def game(self) -> Game | None:
        return self.play.game

    @property
    def options(self) -> RoomOptions:
        return self.play.options

    @options.setter
    def options(self, options: RoomOptions) -> None:
        self.play.options = options

    @property
    def state(self) -> State:
        return self.play.state

    @property
    def suspended(self) -> bool:
        """The bots wait for a person to come back before they move (nobody is in the room)."""
        return self.clock.suspended

    @property
    def host(self) -> Seat | None:
        """The host's seat: the first seated person connected, when the option ``host`` is on."""
        return self.seats.host(self.options.host)

    @property
    def empty(self) -> bool:
        if self.members:
            return False
        if self.state == "playing":
            return self.unloaded
        return not (self.state == "over" and self.lingering)

    def summary(self) -> m.RoomSummary:
        """The room's line in the room list, made again only when its ``listing`` changed (a list
        of every room is read often: each ``list_rooms`` reads all of them)."""
        listing = self.listing()
        kept = self._summary
        if kept is None or kept[0] != listing:
            kept = self._summary = (listing, self._summarize())
        return kept[1]

    def _summarize(self) -> m.RoomSummary:
        return m.RoomSummary(
            name=self.name,
            state=self.state,
            seats=[
                m.SeatSummary(
                    name=s.name, kind=s.kind, connected=s.connected, guest=is_guest(s.kind, s.identity)
                )
                for s in self.seats
            ],
            spectators=len(self.seats.watching(self.members.present)),
            options=self.play.public_options(),
        )

    def listing(self) -> tuple[Any, ...]:
        """What the room list says of the room (``summary``), cheap to compare."""
        seats = tuple((s.name, s.kind, s.connected, s.identity) for s in self.seats)
        return (self.state, seats, len(self.seats.watching(self.members.present)), self.options)

    def seat_of(self, name: str) -> Seat | None:
        """The seat ``name`` holds here (names compare without regard to case)."""
        return self.seats.of(name)

    # --- the state machine -------------------------------------------------------------------

    def handle(self, session: Member | None, message: Any, now: float) -> Step:
        """Decide what ``message`` from ``session`` (``None``: the room's own timers) does."""
        members = self.members
        members.now = now
        out: list[Effect] = []
        members.out = out
        kind = type(message)
        handler = self._handlers.get(kind)
        try:
            if handler is None:
                raise ProtocolError(
                    "unknown_type",
                    _("{kind} is not handled in rooms.", kind=kind.__name__),
                    getattr(message, "id", None),
                )
            if session is not None and kind not in _FROM_OUTSIDE and session not in members:
                # (one the room turned away, whose next messages were on their way: a room
                # turned private as they came in hears none of them)
                text = _("You are not in room {room}.", room=self.name)
                raise ProtocolError("not_in_room", text, getattr(message, "id", None))
            had_members = bool(members)
            pending = handler(session, message)
            # the last one left a room whose game is over (not one the staff closed): it stays a while
            if had_members and not members and self.state == "over" and not self.staff_closed:
                self._linger(out)
        except ProtocolError as e:
            if session is not None:
                members.refuse(session, e.code, e.message, e.id)
            pending = None
        step = pending if pending is not None else Step()
        step.effects = out + step.effects
        return step

    def commit(self, step: Step, answers: Answers = WRITTEN) -> list[Effect]:
        """The step's entries are in the log, which answered ``answers``: what follows."""
        out = self._begin(step)
        playing = self.state == "playing"
        if step.then is not None:
            step.then(answers)
        # the game ended as the last one left (their seat out of the game, ``absent`` ``drop``), or
        # as it was taken up from the log: a player away comes back to its result, as after a game
        # over that someone left
        ended = playing and self.state == "over" and not self.staff_closed
        if ended and not self.members and self.play.away_at_end:
            self._linger(out)
        self.members.out = []
        return out

    def _linger(self, out: list[Effect]) -> None:
        """The last one left a room whose game is over: it stays the resume window."""
        self.lingering = True
        out.append(Arm(LINGER, self.members.now + self.settings.resume_window, Lingered()))

    def refuse(self, step: Step) -> list[Effect]:
        """The log refused the step's entries: nothing of them changed; what follows instead."""
        out = self._begin(step)
        if step.otherwise is not None:
            step.otherwise()
        self.members.out = []
        return out

    def _begin(self, step: Step) -> list[Effect]:
        out = self.members.out = list(step.effects)
        return out

    def restore(self, stored: StoredGame, now: float) -> Step:
        """Take up a game from the log as its players left it: server-side bots play on, and so
        do the stand-ins of the seats a bot played for its player last (they left the room, quit,
        or their window passed: they take the seat back by coming back), the other seats wait for
        their players for the resume window, and those voted out of it watch."""
        members, play = self.members, self.play
        members.now = now
        members.out = []
        record = stored.record
        replayed = replay(record)  # a player who left is in the record as "leave NAME"
        out = {record.players[i] for i in replayed.position.eliminated}
        # the options the game started with (a game logged before they were kept gets the
        # defaults); the engine's option comes from the record itself
        play.options = RoomOptions.from_dict(stored.room_options).with_value(
            "stammtisch", record.options.stammtisch
        )
        for name in stored.voted_out:  # they watch: a bot plays the seat, or it has no turns
            self.seats.bar(stored.game_id, name)
        seats: list[Seat] = []
        self.seats.replace(seats)
        history = [
            LastMove(record.players[r.player], r.move, r.points, stored.auto.get(number))
            for number, r in enumerate(replayed.results, 1)
        ]
        # each player's last move's mark: a bot played it for them when their player was away
        last_auto = {move.player: move.auto for move in history}
        # the player behind each seat, so that the game stays rated (no hints) as it was
        who = stored.identities or (None,) * len(record.players)
        # the log writes a kind and an identity for each player: strict only says so
        for name, kind, identity in zip(record.players, stored.kinds, who, strict=True):  # pragma: no mutate
            if kind.startswith("bot:"):
                seats.append(Seat(name=name, kind="bot", strategy=kind.removeprefix("bot:")))
                self.bot_names.add(name)
                continue
            seat = Seat(name=name, kind="bot" if kind == "bot" else "person", identity=identity)
            seats.append(seat)
            if name in out:  # a player who is out of the game has no turns to wait for
                continue
            if name in stored.voted_out or last_auto.get(name) == "bot":
                seat.stand_in = "greedy"
            else:
                play.hold(name)
        game = play.game = Game(
            game_id=stored.game_id,
            seed=record.seed,
            start=record,
            position=replayed.position,
            last_move=history[-1] if history else None,
            moves=len(record.moves),
            history=history,
            listed=bool(stored.room_options.get(LISTED)),
            practice=stored.room_options.get("seed") is not None,
        )
        play.seed_drawn = bool(stored.room_options.get(DRAWN))
        members.note("restored", game=stored.game_id, moves=len(record.moves))
        outcome = replayed.outcome
        if outcome is None:
            play.next_turn()
            return Step(effects=members.out)

        def finished(answers: Answers) -> None:
            play.finish(outcome, answers.ratings)

        def unlogged() -> None:
            play.finish(outcome, None)

        return Step(
            effects=members.out, entries=(GameEnd(game.game_id, outcome),), then=finished, otherwise=unlogged
        )

    def _on_closing(self, _: Member | None, msg: Closing) -> Step | None:
        """The staff closed the room: a running game ends now, unrated (its outcome's reason is
        ``closed``, which the log does not rate), and its members are told."""
        self.members.note("closed", reason=msg.reason)
        self.staff_closed, self.lingering = True, False
        return self.play.closed()

    def _on_unattended(self, _: Member | None, msg: Unattended) -> Step | None:
        """The game waited the resume window with nobody in its room, its bots to move: it leaves
        memory, kept in the log for its players' return; or, when no seat is an account's that
        its player may come back to (every one a server bot's, a guest's or a program's without
        an account), it ends as when the staff close the room: a guest's seat waits no longer than
        the window, and games nobody returns to would otherwise hold their names and the log."""
        game = self.game
        if game is None or self.members or not self.clock.suspended or game.moves != msg.move_number:
            return None
        if not any(map(_awaited_later, self.seats)):
            self.members.note("guests_gone", game=game.game_id, moves=game.moves)
            return self.play.closed()
        self.unloaded = True
        self.members.note("unloaded", game=game.game_id, moves=game.moves)
        return None

    def _on_lingered(self, _: Member | None, msg: Lingered) -> None:
        """The room stood the resume window after its game was over and the last one left: it goes
        once nobody is in it (its game is in the log)."""
        self.lingering = False

    def _on_make_way(self, _: Member | None, msg: MakeWay) -> None:
        """Nobody is in the room and its game waits (for a player away, or its bots for someone to
        come): it leaves memory, its timers with it; a player's return takes the game up from the
        log (a turn's clock starts anew then, as after a restart). A room whose game is over, that
        stays for a while after the last one left, goes now."""
        self.lingering = False
        game = self.game
        if not self.members and game is not None and game.outcome is None and not self.unloaded:
            self.clock.stop_turn(self.members.out)
            self.unloaded = True
            self.members.note("unloaded", game=game.game_id, moves=game.moves, to_make_way=True)

    def _on_expired(self, _: Member | None, msg: Expired) -> Step | None:
        """The game waited too long with nobody in its room: it ends now, unrated (``closed``),
        unless someone came meanwhile."""
        if self.members:
            return None
        self.members.note("expired")
        return self.play.closed()

    def _on_table(self, _: Member | None, msg: Table) -> Step | None:
        """A table the server made: in a room nobody is in, seats for its players (each waiting
        for them) and bots, its options, and the game started at once."""
        count = len(msg.players) + len(msg.bots)
        if self.state == "playing" or len(self.seats) or self.members or not 2 <= count <= MAX_SEATS:
            self.members.note("table_refused", players=[player[0] for player in msg.players])
            msg.started(None)
            return None
        self.options = msg.options
        for name, identity in msg.players:
            self.seats.add(Seat(name=name, kind="person", identity=identity, arrived=False))
        for strategy in msg.bots:
            self.seats.add(Seat(name=self.bot_names.reserve(strategy), kind="bot", strategy=strategy))

        def failed() -> None:  # nothing was started: the room is as empty as it was
            for seat in self.seats:
                if seat.strategy is not None:
                    self.bot_names.release(seat.name)
            self.seats.replace([])
            msg.started(None)

        return self.play.begin(None, None, done=msg.started, failed=failed, listed=msg.listed)

    # --- the host's commands -----------------------------------------------------------------

    def _on_add_bot(self, session: Member, msg: m.AddBot) -> None:
        # a spectator does not fill others' seats
        self.seats.require_host(session, msg.id, "seat bots", on=self.options.host)
        if self.state == "playing":
            raise ProtocolError("game_running", _("Bots join between games."), msg.id)
        if len(self.seats) >= MAX_SEATS:
            raise ProtocolError("room_full", _("All four seats are taken."), msg.id)
        name = self.bot_names.reserve(msg.strategy)
        self.seats.add(Seat(name=name, kind="bot", strategy=msg.strategy))
        detail = bot_kind(msg.strategy)
        self.members.broadcast(m.Presence(room=self.name, name=name, event="joined", detail=detail))
        self.members.ack(session, msg.id)
        self.play.publish()

    def _on_remove_bot(self, session: Member, msg: m.RemoveBot) -> None:
        self.seats.require_host(session, msg.id, "remove bots", on=self.options.host)
        seat = self.seats.index_of(msg.name)
        if seat is None or self.seats[seat].strategy is None:  # bots over a connection leave by themselves
            raise ProtocolError(
                "no_such_bot", _("No server bot called {name} sits here.", name=repr(msg.name)), msg.id
            )
        if self.state == "playing":
            raise ProtocolError("game_running", _("Bots leave between games."), msg.id)
        name = self.seats[seat].name  # (as the bot is called, however it was typed)
        self.seats.remove(seat)
        self.bot_names.release(name)
        self.members.broadcast(m.Presence(room=self.name, name=name, event="unseated"))
        self.members.ack(session, msg.id)
        self.play.publish()

    def _on_option(self, session: Member, msg: m.SetOption) -> Step | None:
        self.seats.require_host(session, msg.id, "set options", on=self.options.host)
        if self.state == "playing" and msg.key not in ANY_TIME:
            raise ProtocolError("game_running", _("Options are fixed while a game runs."), msg.id)
        try:
            value = check_value(msg.key, msg.value, clock_min=self.settings.clock_min)
        except OptionError as e:
            raise ProtocolError("bad_option", e.text, msg.id) from None
        game = self.game
        if msg.key == "private" and value and self.state == "playing" and game is not None and game.listed:
            text = _(
                "This table's game is public, as every game of quick pairing or a tournament is:"
                " this room cannot turn private while it runs."
            )
            raise ProtocolError("bad_option", text, msg.id)
        if msg.key == "private" and not value and self.state == "playing":
            text = (
                _("A private game stays private to its end: this room can turn public once it is over.")
                if self.options.private
                else _("This room is public already.")
            )
            raise ProtocolError("bad_option", text, msg.id)
        if self.state == "playing" and value != self.options.to_dict()[msg.key]:
            assert game is not None

            def changed(answers: Answers) -> None:
                self._set_option(session, msg, value)

            # logged first, so that a restart takes the game up with it (a private game's record
            # becomes its players' alone, and stays so)
            return Step(
                entries=(GameOption(game.game_id, msg.key, value),),
                then=changed,
                otherwise=self.members.unavailable(session, msg.id),
            )
        self._set_option(session, msg, value)
        return None

    def _set_option(self, session: Member, msg: m.SetOption, value: Any) -> None:
        # a value the option has already changes nothing: the others are not told of a change (but
        # of a seed's: a seed stays secret, and whether a guess equals it would tell it), the setter
        # reads what the option is (at a terminal, an ack alone says nothing)
        unchanged = msg.key != "seed" and value == self.options.to_dict()[msg.key]
        if msg.key == "private" and not value and self.options.private:
            # what the room held while it was private stays its people's: the last game's board
            # and the chat lines kept for newcomers go before anyone else may come in
            self.play.game = None
            self.door.recent.clear()
        self.options = self.options.with_value(msg.key, value)
        if msg.key == "seed":
            self.play.seed_by = None if value is None else _name(session)
            self.play.seed_drawn = False  # (a table's drawn seed is the last game's, if any)
        told = m.Notice(room=self.name, text=announcement(_name(session), msg.key, value))
        if unchanged:
            self.members.send(session, told)
        else:
            self.members.broadcast(told)
        self.members.ack(session, msg.id)
        self.play.publish()

    def _on_reset(self, session: Member, msg: m.Reset) -> None:
        self.seats.require_host(session, msg.id, "reset the board", on=self.options.host)
        if self.state == "playing":
            raise ProtocolError("game_running", _("The game is still running."), msg.id)
        if self.game is None:
            raise ProtocolError("no_game", _("The board is fresh already; /start plays."), msg.id)
        self.play.game = None
        text = _("{name} reset the board.", name=_name(session))
        self.members.broadcast(m.Notice(room=self.name, text=text))
        self.members.ack(session, msg.id)
        self.play.publish()


#: what a connection that is not among the room's members may post: coming in, going, coming
#: back with its token, asking for the view again
_FROM_OUTSIDE: frozenset[type] = frozenset({Enter, Leave, Returned, m.Resync})


def _name(member: Member) -> str:
    """The name of a member the room handles an item of (one replaced by a newer connection gives
    its name in its ``Leave``)."""
    assert member.name is not None
    return member.name


def _awaited_later(seat: Seat) -> bool:
    """Whether ``seat``'s player may come back after the resume window: an account's, awaited."""
    return seat.awaited and (seat.identity or "").startswith(ACCOUNT)
