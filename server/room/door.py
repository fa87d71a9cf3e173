"""Who comes and goes: members entering and leaving a room, sitting down and standing up, and
players coming back to their seats.

A part of the room core (:mod:`server.room.core`), given the room's members, seats, timers, game
(:class:`~server.room.play.Play`) and votes, which it changes as people come and go.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Literal

from engine import parse_leave
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from server.room.clock import Clock
from server.room.effects import Answers, Step, TurnedAway
from server.room.items import Enter, Leave, Returned
from server.room.members import Members
from server.room.play import Play
from server.room.seats import Seats
from server.room.state import MAX_SEATS, Seat
from server.room.votes import Votes
from server.room.world import Member

#: how many of the room's latest chat lines one entering (or coming back) gets after the snapshot
RECENT_CHAT = 30


def not_invited(room: str, msg_id: m.ClientId) -> ProtocolError:
    """The refusal of someone who may not enter the private room ``room``: neither invited by
    someone in it nor one of its players."""
    text = _("Room {room} is private: you may enter once someone in it invites you.", room=room)
    return ProtocolError("not_invited", text, msg_id)


class Door:
    """The comings and goings of one room."""

    def __init__(
        self, name: str, members: Members, seats: Seats, clock: Clock, game: Play, votes: Votes
    ) -> None:
        self.name = name
        self.members = members
        self.seats = seats
        self.clock = clock
        self.play = game
        self.votes = votes
        #: the room's latest chat lines, for whoever enters or comes back (held in memory only)
        self.recent: deque[m.Chat] = deque(maxlen=RECENT_CHAT)
        #: players whose connection a newer one replaced, whose return is no news to the others
        self.replacing: set[str] = set()

    # --- entering and leaving ----------------------------------------------------------------

    def _barred(self, member: Member) -> bool:
        """Whether ``member``'s player was voted out of the game running here (they may watch)."""
        game = self.play.game
        return game is not None and self.seats.barred(game.game_id, member.name)

    def _left(self, member: Member) -> bool:
        """Whether ``member``'s player left the game running here (``absent`` ``drop``: the seat
        is out of play, its turns skipped; they may watch)."""
        game = self.play.game
        if game is None or game.outcome is not None:
            return False
        seat = self.seats.index_of(_name(member))
        if seat is None or seat not in game.position.eliminated:
            return False
        player = game.position.players[seat].name
        return any(parse_leave(h.move) == player for h in game.history)

    def on_enter(self, session: Member, msg: Enter) -> None:
        """A member enters the room (and sits down, with ``join``); a private room turns away
        whoever is neither its guest nor its player."""
        members = self.members
        new = session not in members
        if new:
            if self.play.options.private and not msg.admitted and self.seats.index_of(session.name) is None:
                members.out.append(TurnedAway(session))  # it is in no room now, here or in its lobby
                raise not_invited(self.name, msg.id)
            members.add(session)
            members.broadcast(
                m.Presence(room=self.name, name=_name(session), event="entered"), exclude=session
            )
        members.forget(session)
        self.play.publish_to(session)
        if new:
            self._recent_to(session)
            self.votes.show_to(session)
        if self.clock.suspended:
            self.play.next_turn()  # someone is here again: the bots go on
        if msg.join:
            try:
                self.on_join(session, m.Join(id=msg.id))
            except ProtocolError:
                self.play.publish()  # refused a seat, the newcomer still watches: the others' views say so
                raise
            return
        if msg.asked:
            members.ack(session, msg.id)
        self.play.publish()

    def on_leave(self, session: Member, msg: Leave) -> Step | None:
        """A member leaves the room, or its connection is lost: a seat in a running game waits,
        goes to a bot, or (option ``absent`` ``drop``) its player leaves the game. The last person
        to leave a game whose every seat is the server's bot's or a guest's who gave up the token
        (``/quit``) ends it (as the staff's close does: ``closed``, unrated): nobody could come
        back to those seats, and with nobody in the room its bots would wait for ever, holding
        the guests' names."""
        members, play = self.members, self.play
        if msg.closed:  # out of a room the staff closed: in the lobby now (told after the rest)
            members.send(session, m.RoomClosed(room=self.name))
        if session not in members:
            # a guest who left the game's room gave up the token since (``/quit`` in the lobby)
            return self._given_up(msg.name or _name(session)) if msg.gone else None
        members.remove(session)
        self.votes.cancel(asker=session)
        name = msg.name or _name(session)
        seat = self.seats.index_of(name)
        if msg.disconnected and any(m is not session and m.name == name for m in members):
            # the old connection of someone back on a new one (which came first, from another
            # node of a cluster): they did not leave
            return None

        def left() -> None:
            members.broadcast(m.Presence(room=self.name, name=name, event="left"))
            if not msg.disconnected and msg.asked:
                members.ack(session, msg.id)
            play.publish()

        if seat is not None and self.seats[seat].session is session:
            if self.play.state == "playing":
                self.seats[seat].session = None
                self.seats[seat].gone = msg.gone
                if msg.disconnected:
                    play.hold(name)
                    if msg.replaced:  # back on a newer connection at once: neither away nor back
                        self.replacing.add(name)
                        return None
                    # away, and coming back: not "left" (nor an answer: the connection is gone)
                    members.broadcast(m.Presence(room=self.name, name=name, event="away"))
                    play.publish()
                    return None
                elif (over := self._abandoned(left)) is not None:
                    return over
                elif self.play.options.absent == "drop":
                    result = play.drop(seat)
                    if result is not None:

                        def dropped(answers: Answers) -> None:
                            play.moved(result, answers, auto=True)
                            left()

                        def held() -> None:  # the seat waits; the window passing tries again
                            members.broadcast(m.Presence(room=self.name, name=name, event="away"))
                            play.hold(name)
                            left()

                        return Step(entries=play.entries(result), then=dropped, otherwise=held)
                else:  # (not ``away``: that is a lost connection, which comes back)
                    play.take_over(seat, _("left the game"))
            else:
                self.seats.remove(seat)
                members.broadcast(m.Presence(room=self.name, name=name, event="unseated"))
                play.seat_given_up(name)
        elif (over := self._abandoned(left)) is not None:  # (a spectator, the last person, went)
            return over
        left()
        return None

    def _given_up(self, name: str) -> Step | None:
        """The guest ``name``, whose seat waits while they are elsewhere, quit: nobody can come
        back to the seat, and a game with nobody in its room that nobody can come back to ends."""
        seat = self.seats.index_of(name)
        if seat is None or self.play.state != "playing" or self.seats[seat].session is not None:
            return None
        self.seats[seat].gone = True
        return self._abandoned(self.play.publish)

    def _abandoned(self, then: Callable[[], None]) -> Step | None:
        """With nobody left in the room, a running game nobody can come back to (every seat the
        server's bot's or a guest's who gave up the token) ends, then ``then``; else ``None``."""
        if self.members or any(s.awaited for s in self.seats):
            return None
        return self.play.closed(then)

    def on_returned(self, session: Member, msg: Returned | None = None) -> None:
        """A player comes back with their token: the seat is theirs to play again (one voted
        out of the game only watches). The others read that the seat is taken (``back``); the
        player reads no presence about themselves."""
        if self._barred(session) or self._left(session):  # back, but only to watch
            self.on_enter(session, Enter(admitted=True, asked=False))
            return
        if self.play.state == "over":  # the game ended while they were away: to its result
            self.play.away_at_end.discard(_name(session).casefold())
            self.on_enter(session, Enter(admitted=True, asked=False))
            return
        members, play = self.members, self.play
        new = session not in members
        # a new connection is new to the publisher; a member taking their seat back keeps its view
        members.add(session)
        name = _name(session)
        self.votes.cancel(back=name)
        seat = self.seats.index_of(name)
        event: Literal["back", "joined"] = "back"
        # the player was never away: their connection was replaced by this one (its old one's
        # leave came first, or, from another node of a cluster, comes after)
        news = name not in self.replacing
        self.replacing.discard(name)
        if seat is not None:
            held = self.seats[seat]
            news = news and (held.session is None or held.session is session)
            held.session = session
            held.stand_in = None
            held.gone = False
            held.timeouts = 0
            if not held.arrived:  # the first time in a seat the server made for them
                held.arrived = True
                event = "joined"
        self.clock.release(name, members.out)
        # the others read that the seat is taken (again); the player reads their view
        if news:
            members.broadcast(m.Presence(room=self.name, name=name, event=event), exclude=session)
        play.publish()
        if new:
            self._recent_to(session)
            self.votes.show_to(session)
        play.greet(session)
        game = self.play.game
        if game is not None and (
            self.clock.suspended or (seat is not None and game.position.to_move == seat)
        ):
            # the player takes the turn back, or the bots go on; another player's clock runs on
            play.next_turn()

    def on_resync(self, session: Member, msg: m.Resync) -> None:
        """``resync``: the member's next view is a snapshot."""
        if session not in self.members:
            raise ProtocolError("not_in_room", _("Enter a room first: /room NAME."), msg.id)
        self.members.forget(session)
        self.play.publish_to(session, answering=msg.id)

    def on_say(self, session: Member, msg: m.Say) -> None:
        """``say``: a chat line to everyone in the room, kept among its latest."""
        chat = m.Chat(room=self.name, name=_name(session), text=msg.text)
        self.recent.append(chat)
        self.members.broadcast(chat)
        self.members.ack(session, msg.id)

    def _recent_to(self, member: Member) -> None:
        """The room's latest chat lines, oldest first, to ``member`` who just came in (after its
        snapshot): a reopened page finds the talk where it was."""
        for chat in self.recent:
            self.members.send(member, chat)

    # --- seats -------------------------------------------------------------------------------

    def on_join(self, session: Member, msg: m.Join) -> None:
        """``join``: a free seat between games; with ``seat``, one's own seat back, or a vote to
        take over another's."""
        name = _name(session)
        own = self.seats.index_of(name)
        if msg.seat is not None:  # /join N: one's own seat back at once, another's by a vote
            game = self.play.game
            eliminated = () if game is None else game.position.eliminated
            if own is not None and own + 1 == msg.seat and own in eliminated:
                # (left the game with absent drop, or eliminated at the bar: it has no turns)
                out = _("You are out of this game: seat {seat} has no turns.", seat=msg.seat)
                raise ProtocolError("bad_seat", out, msg.id)
            # one's own seat waits for its player, or a bot plays it (the clock handed it over)
            waits = (
                self.play.state == "playing"
                and own is not None
                and own + 1 == msg.seat
                and (self.seats[own].session is None or self.seats[own].stand_in is not None)
                and not self._barred(session)
            )
            if not waits:
                self.votes.on_join_seat(session, msg)
                return
            self.on_returned(session)
            self.members.ack(session, msg.id)
            return
        if own is not None and self._barred(session):  # (the seat stays in the game's list)
            raise ProtocolError("voted_out", _("You are out of this game; you may watch it."), msg.id)
        if own is not None:
            raise ProtocolError("already_seated", _("You already have a seat here."), msg.id)
        if self.play.state == "playing":
            raise ProtocolError(
                "game_running", _("The game is running; watch, or wait for the next one."), msg.id
            )
        if len(self.seats) >= MAX_SEATS:
            raise ProtocolError("room_full", _("All four seats are taken."), msg.id)
        self.seats.add(Seat(name=name, kind=session.kind, session=session, identity=session.identity))
        self.members.broadcast(m.Presence(room=self.name, name=name, event="joined"))
        self.members.ack(session, msg.id)
        self.play.publish()

    def on_leave_game(self, session: Member, msg: m.LeaveGame) -> Step | None:
        """``leave_game``: give up the seat (during a game only with ``absent`` ``drop``: the
        player leaves the game and watches)."""
        members, play = self.members, self.play
        seat = self.seats.require(session, msg.id)
        if self.play.state == "playing":
            given_up = self.seats[seat]
            if self.play.options.absent != "drop":
                raise ProtocolError("game_running", _("You cannot give up a seat during the game."), msg.id)
            # with absent drop the player leaves the game and stays to watch; the seat, out of
            # play, is given up when the game ends (so before the drop, which may end it)
            result = play.drop(seat)
            if result is None:
                given_up.session = None
                members.ack(session, msg.id)
                play.publish()
                return None

            def dropped(answers: Answers) -> None:
                given_up.session = None
                play.moved(result, answers, auto=True)
                members.ack(session, msg.id)
                play.publish()

            return Step(
                entries=play.entries(result), then=dropped, otherwise=members.unavailable(session, msg.id)
            )
        self.seats.remove(seat)
        members.broadcast(m.Presence(room=self.name, name=_name(session), event="unseated"))
        play.seat_given_up(_name(session))
        members.ack(session, msg.id)
        play.publish()
        return None


def _name(member: Member) -> str:
    """The name of a member the room handles an item of (one replaced by a newer connection gives
    its name in its ``Leave``)."""
    assert member.name is not None
    return member.name


__all__ = ["Door", "not_invited"]
