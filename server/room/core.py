"""A room's decisions, with no I/O: items and the time in, log entries and effects out.

Like websockets' sans-I/O ``Protocol``, the core is a plain state machine: ``handle`` takes one
inbox item and the time and returns a :class:`~server.room.effects.Step`; the actor writes the
step's log entries, then calls ``commit`` (or ``refuse`` when the log refused them) and carries
out the effects it gets back. A change that needs the log takes effect only in ``commit``, so a
refused write changes nothing. Tests drive the core directly, with a clock of their own.

>>> from server.room import RoomCore, RoomSettings, BotNameList
>>> core = RoomCore("cafe", RoomSettings(), BotNameList())
>>> core.state, core.empty
('waiting', True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.errors import ProtocolError
from protocol.i18n import Msg, _
from protocol.options import ANY_TIME, OptionError, announcement, check_value
from server.room.base import window
from server.room.effects import Cancel, Effect, GamePrivate, Reply, Step, TurnedAway
from server.room.items import (
    BotMove,
    ClockTimeout,
    ClockWarning,
    Enter,
    Leave,
    Returned,
    TurnRetry,
    Unattended,
    WindowPassed,
)
from server.room.state import MAX_SEATS, Seat
from server.room.votes import RoomVotes, VoteExpired
from server.room.world import BotNameList, BotNames, Member, RoomSettings

__all__ = ["BotNameList", "BotNames", "Member", "RoomCore", "RoomSettings", "not_invited"]


def not_invited(room: str, msg_id: m.ClientId) -> ProtocolError:
    """The refusal of someone who may not enter the private room ``room``: neither invited by
    someone in it nor one of its players."""
    text = _("Room {room} is private: you may enter once someone in it invites you.", room=room)
    return ProtocolError("not_invited", text, msg_id)


def bot_kind(strategy: str) -> Msg:
    """What kind of bot a server bot is, in words (a presence's detail): one text per strategy."""
    match strategy:
        case "random":
            return _("random bot")
        case "strong":
            return _("strong bot")
    return _("greedy bot")


class RoomCore(RoomVotes):
    """A room: its members (spectators and players), four seats, options and the game."""

    def _handler_table(self) -> dict[type, Callable[[Any, Any], Step | None]]:
        return {
            Enter: self._on_enter,
            Leave: self._on_leave,
            Returned: self._on_returned,
            WindowPassed: self._on_window_passed,
            TurnRetry: self._on_turn_retry,
            m.Resync: self._on_resync,
            m.Say: self._on_say,
            m.Join: self._on_join,
            m.LeaveGame: self._on_leave_game,
            m.Start: self._on_start,
            m.SetOption: self._on_option,
            m.PlayMove: self._on_move,
            m.GetLegalMoves: self._on_legal_moves,
            m.GetHint: self._on_hint,
            m.AddBot: self._on_add_bot,
            m.RemoveBot: self._on_remove_bot,
            ShowRequest: self._on_show_or_info,
            m.Reset: self._on_reset,
            m.VoteRemove: self._on_vote_remove,
            m.VoteAnswer: self._on_vote_answer,
            VoteExpired: self._on_vote_expired,
            BotMove: self._on_bot_move,
            ClockTimeout: self._on_clock,
            ClockWarning: self._on_clock_warning,
            Unattended: self._on_unattended,
        }

    # --- the state machine -------------------------------------------------------------------------

    def handle(self, session: Member | None, message: Any, now: float) -> Step:
        """Decide what ``message`` from ``session`` (``None``: the room's own timers) does."""
        self._now = now
        self._out = []
        handler = self._handlers.get(type(message))
        try:
            if handler is None:
                raise ProtocolError(
                    "unknown_type",
                    _("{kind} is not handled in rooms.", kind=type(message).__name__),
                    getattr(message, "id", None),
                )
            pending = handler(session, message)
        except ProtocolError as e:
            if session is not None:
                self._out.append(Reply(session, e.code, e.message, e.id))
            pending = None
        step = pending if pending is not None else Step()
        step.effects = self._out + step.effects
        return step

    def commit(self, step: Step) -> list[Effect]:
        """The step's entries are in the log: what follows."""
        return self._follow(step, step.then)

    def refuse(self, step: Step) -> list[Effect]:
        """The log refused the step's entries: nothing of them changed; what follows instead."""
        return self._follow(step, step.otherwise)

    def _follow(self, step: Step, then: Callable[[], None] | None) -> list[Effect]:
        self._out = list(step.effects)
        if then is not None:
            then()
        out, self._out = self._out, []
        return out

    # --- membership --------------------------------------------------------------------------------

    def _on_enter(self, session: Member, msg: Enter) -> None:
        if session not in self.members:
            if self.options.private and not msg.admitted and self._seat_of(session.name) is None:
                self._out.append(TurnedAway(session))  # it is in no room now, here or in its lobby
                raise not_invited(self.name, msg.id)
            self.members.setdefault(session)
            self._broadcast(
                m.Presence(room=self.name, name=self._name(session), event="entered"), exclude=session
            )
        self._publisher.forget(session)
        self._publish_to(session)
        if self.suspended:
            self._next_turn()  # someone is here again: the bots go on
        if msg.join:
            try:
                self._on_join(session, m.Join(id=msg.id))
            except ProtocolError:
                self._publish()  # refused a seat, the newcomer still watches: the others' views say so
                raise
            return
        self._ack(session, msg.id)
        self._publish()

    def _on_leave(self, session: Member, msg: Leave) -> Step | None:
        if session not in self.members:
            return None
        del self.members[session]
        self._publisher.forget(session)  # pragma: no mutate - memory only: nobody gone is published to
        self._cancel_vote(asker=session)
        name = msg.name or self._name(session)
        seat = self._seat_of(name)

        def left() -> None:
            self._broadcast(m.Presence(room=self.name, name=name, event="left"))
            if not msg.disconnected:
                self._ack(session, msg.id)
            self._publish()

        if seat is not None and self.seats[seat].session is session:
            if self.state == "playing":
                self.seats[seat].session = None
                if msg.disconnected:
                    self._broadcast(m.Presence(room=self.name, name=name, event="away"))
                    self._hold(name)
                elif self.options.absent == "drop":
                    step = self._drop(seat)
                    if step is not None:

                        def held() -> None:  # the seat waits; the window passing tries again
                            self._broadcast(m.Presence(room=self.name, name=name, event="away"))
                            self._hold(name)

                        return self._chain(step, left, otherwise=held)
                else:
                    self._broadcast(m.Presence(room=self.name, name=name, event="away"))
                    self._take_over(seat, _("left the game"))
            else:
                del self.seats[seat]
                self._broadcast(m.Presence(room=self.name, name=name, event="unseated"))
        left()
        return None

    def _on_returned(self, session: Member, _: Returned | None = None) -> None:
        if self._voted_out_of_game(session):  # back, but only to watch (a player of the game)
            self._on_enter(session, Enter(admitted=True))
            return
        # a new connection is new to the publisher; a member taking their seat back keeps its view
        self.members.setdefault(session)
        name = self._name(session)
        self._cancel_vote(back=name)
        seat = self._seat_of(name)
        if seat is not None:
            self.seats[seat].session = session
            self.seats[seat].stand_in = None
            self.seats[seat].timeouts = 0
        if name in self._windows:
            self._windows.remove(name)
            self._out.append(Cancel(window(name)))
        self._broadcast(m.Presence(room=self.name, name=name, event="back"))
        self._publish()
        game = self.game
        if game is not None and (self.suspended or (seat is not None and game.position.to_move == seat)):
            # the player takes the turn back, or the bots go on; another player's clock runs on
            self._next_turn()

    def _on_resync(self, session: Member, msg: m.Resync) -> None:
        if session not in self.members:
            raise ProtocolError("not_in_room", _("Enter a room first: /room NAME."), msg.id)
        self._publisher.forget(session)
        self._publish_to(session)

    def _on_say(self, session: Member, msg: m.Say) -> None:
        self._broadcast(m.Chat(room=self.name, name=self._name(session), text=msg.text))
        self._ack(session, msg.id)

    # --- seats and options -------------------------------------------------------------------------

    def _on_join(self, session: Member, msg: m.Join) -> Step | None:
        if msg.seat is not None:  # /join N: one's own seat back at once, another's by a vote
            if not self._own_seat_waits(session, msg):
                return self._on_join_seat(session, msg)
            self._on_returned(session)
            self._ack(session, msg.id)
            return None
        name = self._name(session)
        if self._seat_of(name) is not None:
            raise ProtocolError("already_seated", _("You already have a seat here."), msg.id)
        if self.state == "playing":
            raise ProtocolError(
                "game_running", _("The game is running; watch, or wait for the next one."), msg.id
            )
        if len(self.seats) >= MAX_SEATS:
            raise ProtocolError("room_full", _("All four seats are taken."), msg.id)
        self.seats.append(Seat(name=name, kind=session.kind, session=session, identity=session.identity))
        self._broadcast(m.Presence(room=self.name, name=name, event="joined"))
        self._ack(session, msg.id)
        self._publish()
        return None

    def _on_leave_game(self, session: Member, msg: m.LeaveGame) -> Step | None:
        seat = self._require_seat(session, msg.id)
        if self.state == "playing":
            given_up = self.seats[seat]
            if self.options.absent != "drop":
                raise ProtocolError("game_running", _("You cannot give up a seat during the game."), msg.id)
            # with absent drop the player leaves the game and stays to watch; the seat, out of
            # play, is given up when the game ends (so before the drop, which may end it)
            step = self._drop(seat)

            def given() -> None:
                self._ack(session, msg.id)
                self._publish()

            if step is None:
                given_up.session = None
                given()
                return None
            step.otherwise = self._unavailable(session, msg.id)
            then = step.then

            def done() -> None:
                given_up.session = None
                if then is not None:
                    then()
                given()

            step.then = done
            return step
        del self.seats[seat]
        self._broadcast(m.Presence(room=self.name, name=self._name(session), event="unseated"))
        self._ack(session, msg.id)
        self._publish()
        return None

    def _on_add_bot(self, session: Member, msg: m.AddBot) -> None:
        self._require_host(session, msg.id, "seat bots")  # a spectator does not fill others' seats
        if self.state == "playing":
            raise ProtocolError("game_running", _("Bots join between games."), msg.id)
        if len(self.seats) >= MAX_SEATS:
            raise ProtocolError("room_full", _("All four seats are taken."), msg.id)
        name = self.bot_names.reserve(msg.strategy)
        self.seats.append(Seat(name=name, kind="bot", strategy=msg.strategy))
        self._broadcast(m.Presence(room=self.name, name=name, event="joined", detail=bot_kind(msg.strategy)))
        self._ack(session, msg.id)
        self._publish()

    def _on_remove_bot(self, session: Member, msg: m.RemoveBot) -> None:
        self._require_host(session, msg.id, "remove bots")
        seat = self._seat_of(msg.name)
        if seat is None or self.seats[seat].strategy is None:  # bots over a connection leave by themselves
            raise ProtocolError(
                "no_such_bot", _("No server bot called {name} sits here.", name=repr(msg.name)), msg.id
            )
        if self.state == "playing":
            raise ProtocolError("game_running", _("Bots leave between games."), msg.id)
        del self.seats[seat]
        self.bot_names.release(msg.name)
        self._broadcast(m.Presence(room=self.name, name=msg.name, event="unseated"))
        self._ack(session, msg.id)
        self._publish()

    def _on_option(self, session: Member, msg: m.SetOption) -> Step | None:
        self._require_host(session, msg.id, "set options")
        if self.state == "playing" and msg.key not in ANY_TIME:
            raise ProtocolError("game_running", _("Options are fixed while a game runs."), msg.id)
        try:
            value = check_value(msg.key, msg.value, clock_min=self.settings.clock_min)
        except OptionError as e:
            raise ProtocolError("bad_option", e.text, msg.id) from None
        game = self.game
        if msg.key == "private" and value and not self.options.private and self.state == "playing":
            assert game is not None
            # the running game's record becomes its players' alone, and stays so: logged first
            return Step(
                entries=(GamePrivate(game.game_id),),
                then=lambda: self._set_option(session, msg, value),
                otherwise=self._unavailable(session, msg.id),
            )
        self._set_option(session, msg, value)
        return None

    def _set_option(self, session: Member, msg: m.SetOption, value: Any) -> None:
        self.options = self.options.with_value(msg.key, value)
        self._broadcast(m.Notice(room=self.name, text=announcement(self._name(session), msg.key, value)))
        self._ack(session, msg.id)
        self._publish()
