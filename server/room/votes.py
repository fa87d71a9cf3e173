"""Votes on seats: ``/remove NAME`` asks the other seated players to take a player out of the
running game, who is gone or has had the turn for a minute without moving; ``/join N`` asks them
to let the asker take over seat N of a player who is gone (a bot plays it, or it waits for them).

The others connected to their seats vote; the one who asked votes yes. A majority of them decides
(one other player alone decides alone); a vote that cannot reach it fails, and one left unanswered
expires after a minute, a timer like the turn clock. A vote is of its game: one still open when
the game ends is cancelled with it, as one whose point is gone is (the seat's player back, the
player to be removed moving again). A player voted out leaves the seat by the
room's option ``absent``: a bot plays it, or the player leaves the game; either way they watch
from then on, also after coming back with their token (the log keeps the vote).

A part of the room core (:mod:`server.room.core`), given the room's members, seats, timers and
game (:class:`~server.room.play.Play`): a vote that passes changes them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _, _n
from server.room.clock import Clock
from server.room.effects import Answers, Arm, Cancel, SeatTaken, Step, VotedOut
from server.room.members import Members
from server.room.play import Play
from server.room.seats import Seats
from server.room.world import Member, RoomSettings

#: the timer of the vote running
VOTE = "vote"
#: seconds a vote runs unanswered
VOTE_TIME = 60.0
#: seconds a connected player must have had the turn before a vote may remove them
TURN_MIN = 60.0
#: seconds before someone whose vote did not pass may ask for another (each asks everyone)
ASK_AGAIN = 30.0

State = Literal["open", "passed", "failed", "expired", "cancelled"]


@dataclass(slots=True)
class Vote:
    """A vote running: who asked (``by``) what (``kind``) of whom (``name``, of seat ``seat``
    from 0), who may answer, who answered so far, and when it expires (the core's clock)."""

    kind: Literal["remove", "join"]
    #: the game it is of
    game: str
    by: str
    name: str
    seat: int
    voters: list[str]
    expires: float
    yes: list[str] = field(default_factory=list)
    no: list[str] = field(default_factory=list)
    #: who asks to take over the seat (a ``join`` vote)
    asker: Member | None = None
    #: ``expires`` as Unix time, as its first message said it (each says the same)
    expires_wall: float | None = None
    #: who could answer as it opened: ``voters`` are those of them who still can
    pool: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.pool = self.pool or list(self.voters)

    @property
    def needed(self) -> int:
        """The yes that pass it: a majority of the voters."""
        return len(self.voters) // 2 + 1

    def refresh(self, voting: Callable[[str], bool]) -> None:
        """The voters are those of the pool who still vote (``voting``): one who no longer plays a
        connected seat (left the game or the room, lost the connection) is no voter while so, and
        their answer goes with them; back on their seat, they may answer again."""
        self.voters = [v for v in self.pool if voting(v)]
        self.yes = [v for v in self.yes if v in self.voters]
        self.no = [v for v in self.no if v in self.voters]

    def state(self, voting: Callable[[str], bool]) -> Literal["open", "passed", "failed"]:
        """Whether the vote is still open, passed or can no longer pass, among the voters who
        still vote (:meth:`refresh`)."""
        self.refresh(voting)
        if len(self.yes) >= self.needed:
            return "passed"
        if len(self.no) > len(self.voters) - self.needed:
            return "failed"
        return "open"


@dataclass(frozen=True, slots=True, eq=False)
class VoteExpired:
    """``vote`` ran its time (a vote decided since, and any other, is not ended by it)."""

    vote: Vote


class Votes:
    """The votes of one room: one at a time (``running``)."""

    def __init__(
        self, name: str, settings: RoomSettings, members: Members, seats: Seats, clock: Clock, game: Play
    ) -> None:
        self.name = name
        self.settings = settings
        self.members = members
        self.seats = seats
        self.clock = clock
        self.play = game
        self.running: Vote | None = None
        #: when each asker's latest vote ended without passing (the core's clock), by name
        self._ended: dict[str, float] = {}

    # --- asking ------------------------------------------------------------------------------

    def on_remove(self, member: Member, msg: m.VoteRemove) -> Step | None:
        """``/remove NAME``: ask the others to take a player out of the game."""
        game = self.play.require_game(msg.id)
        seats = self.seats
        mine = seats.require(member, msg.id)
        target = seats.of(msg.name)
        if target is not None and target.strategy is not None:  # (the server's bots play on)
            raise ProtocolError(
                "not_seated", _("{name} is the server's bot: no vote takes it out.", name=target.name), msg.id
            )
        if target is None:
            raise ProtocolError(
                "not_seated", _("No player called {name} sits here.", name=msg.name[:24]), msg.id
            )
        index = seats.index_of(target.name)
        assert index is not None
        if target is seats[mine]:
            raise ProtocolError("bad_target", _("You cannot vote yourself out; /leave instead."), msg.id)
        if index in game.position.eliminated or seats.barred(game.game_id, target.name):
            # (out at the bar, or voted out already: a bot plays the seat to the end)
            raise ProtocolError(
                "not_seated", _("{name} is out of the game already.", name=target.name), msg.id
            )
        if self.running is not None:
            raise ProtocolError("vote_running", _("A vote is running; /accept or /refuse it first."), msg.id)
        self._may_ask(member, msg.id)
        now = self.members.now
        if not self._removable(index):
            raise ProtocolError(
                "too_soon",
                _(
                    "{name} is connected and has not had the turn for {seconds} seconds.",
                    name=target.name,
                    seconds=f"{TURN_MIN:.0f}",
                ),
                msg.id,
            )
        by = member.name
        assert by is not None
        voters = [s.name for s in seats if s.strategy is None and s.session is not None and s is not target]
        vote = self.running = Vote("remove", game.game_id, by, target.name, index, voters, now + VOTE_TIME)
        self.members.out.append(Arm(VOTE, vote.expires, VoteExpired(vote)))
        self.members.ack(member, msg.id)
        return self._count(by, True)

    def on_join_seat(self, member: Member, msg: m.Join) -> None:
        """``/join N`` while the game runs: ask the seated players to let the asker take over
        the seat of a player who is gone."""
        assert msg.seat is not None
        game = self.play.require_game(msg.id)
        name = member.name
        assert name is not None
        seats = self.seats
        if seats.barred(game.game_id, name):
            raise ProtocolError("voted_out", _("You are out of this game; you may watch it."), msg.id)
        index = msg.seat - 1
        if index >= len(seats):
            raise ProtocolError("bad_seat", _("This game has seats 1 to {n}.", n=len(seats)), msg.id)
        seat = seats[index]
        if seats.index_of(name) is not None:
            raise ProtocolError("already_seated", _("You already have a seat here."), msg.id)
        if game.listed:  # (its result is the entrant's in the tournament's standings)
            raise ProtocolError(
                "seat_taken",
                _("A tournament's table: seat {seat} is {name}'s alone.", name=seat.name, seat=msg.seat),
                msg.id,
            )
        if seat.strategy is not None:
            raise ProtocolError(
                "seat_taken",
                _("The server's bot {name} plays seat {seat}.", name=seat.name, seat=msg.seat),
                msg.id,
            )
        if seat.session is not None:
            raise ProtocolError(
                "seat_taken",
                _("{name} plays seat {seat} and is here.", name=seat.name, seat=msg.seat),
                msg.id,
            )
        if index in game.position.eliminated:
            raise ProtocolError(
                "bad_seat",
                _("{name} is out of the game: seat {seat} has no turns.", name=seat.name, seat=msg.seat),
                msg.id,
            )
        if self.running is not None:
            raise ProtocolError("vote_running", _("A vote is running; wait for its end."), msg.id)
        self._may_ask(member, msg.id)
        voters = [s.name for s in seats if s.strategy is None and s.session is not None]
        if not voters:
            raise ProtocolError(
                "no_voters", _("Nobody seated is here to accept you; wait until a player is."), msg.id
            )
        expires = self.members.now + VOTE_TIME
        vote = Vote("join", game.game_id, name, seat.name, index, voters, expires, asker=member)
        self.running = vote
        self.members.out.append(Arm(VOTE, vote.expires, VoteExpired(vote)))
        self.members.ack(member, msg.id)
        self._announce("open", vote)

    def cancel(self, *, asker: Member | None = None, back: str | None = None) -> None:
        """End a vote that lost its point: a ``join`` vote whose asker left, or whose seat's player
        is back; a ``remove`` vote whose player is back."""
        vote = self.running
        if vote is None:
            return
        if (vote.kind == "join" and vote.asker is asker) or (
            back is not None and back.casefold() == vote.name.casefold()
        ):
            self._end(vote, "cancelled")

    def moved(self) -> None:
        """A move was played: a vote to remove a player who is here and no longer keeps the turn
        waiting (they moved) has lost its point, and is cancelled at once."""
        vote = self.running
        if vote is not None and vote.kind == "remove" and not self._removable(vote.seat):
            self._end(vote, "cancelled")

    def game_ended(self) -> None:
        """The game ended: a vote still open on it is cancelled (it would act on the next game)."""
        if self.running is not None:
            self._end(self.running, "cancelled")

    def _end(self, vote: Vote, state: State) -> None:
        self.running = None
        self.members.out.append(Cancel(VOTE))
        self._announce(state, vote)
        if state != "passed":
            self._asked_lately(vote.by)

    def _asked_lately(self, name: str) -> None:
        now = self.members.now
        self._ended = {n: t for n, t in self._ended.items() if now - t < ASK_AGAIN}
        self._ended[name.casefold()] = now

    def _may_ask(self, member: Member, msg_id: m.ClientId) -> None:
        """``too_soon`` for someone whose vote ended without passing less than ``ASK_AGAIN``
        seconds ago: a vote asks every player, and one refused is not asked again at once."""
        assert member.name is not None
        ended = self._ended.get(member.name.casefold())
        if ended is not None and (wait := ended + ASK_AGAIN - self.members.now) > 0:
            raise ProtocolError(
                "too_soon",
                _n(
                    "Your last vote did not pass: ask again in {n} second.",
                    "Your last vote did not pass: ask again in {n} seconds.",
                    math.ceil(wait),
                ),
                msg_id,
            )

    # --- answering ---------------------------------------------------------------------------

    def on_answer(self, member: Member, msg: m.VoteAnswer) -> Step | None:
        """``/accept`` or ``/refuse``: a voter answers the vote running."""
        vote = self.running
        name = member.name
        assert name is not None
        if vote is None or name not in vote.pool:
            raise ProtocolError("no_vote", _("No vote is running here for you to answer."), msg.id)
        if self.seats.held(member) is None:  # (out of the game, or watching while a bot plays)
            gone = _("You no longer play a seat here: the vote is the players'.")
            raise ProtocolError("no_vote", gone, msg.id)
        if name in vote.yes or name in vote.no:
            raise ProtocolError("no_vote", _("You have answered this vote already."), msg.id)
        self.members.ack(member, msg.id)
        return self._count(name, msg.yes)

    def on_expired(self, _: Member | None, msg: VoteExpired) -> Step | None:
        """A vote ran its minute: it expires, unless it was decided since, or the answers of the
        voters still here decide it now (a voter who left would have kept it open)."""
        vote = msg.vote
        if self.running is not vote:
            return None
        if vote.state(self._voting) == "open":
            self._announce("expired", vote)
            self.running = None
            self._asked_lately(vote.by)
            return None
        return self._count()

    def _voting(self, name: str) -> bool:
        """Whether ``name`` may still answer a vote: the player of a seat here, connected to it."""
        seat = self.seats.of(name)
        return seat is not None and seat.strategy is None and seat.session is not None

    def _count(self, name: str | None = None, yes: bool = False) -> Step | None:
        """Count ``name``'s answer, if any, and end the vote if that decides it."""
        vote = self.running
        assert vote is not None
        game = self.play.game
        if game is None or game.game_id != vote.game or game.outcome is not None:
            self._end(vote, "cancelled")  # (of a game that ended: game_ended ends it first)
            return None
        if name is not None:
            (vote.yes if yes else vote.no).append(name)
        state = vote.state(self._voting)
        if state == "open":
            self._announce("open", vote)
            return None
        if state == "passed" and vote.kind == "remove" and not self._removable(vote.seat):
            self._end(vote, "cancelled")  # the player is back, or moved: the vote's point is gone
            return None
        self._end(vote, state)
        if state == "failed":
            return None
        if vote.kind == "join":
            return self._take_seat(vote)
        return self._remove(vote.seat)

    def _removable(self, index: int) -> bool:
        """Whether the player of seat ``index`` may be voted out now: gone, or on the turn for
        ``TURN_MIN`` seconds without moving (what :meth:`on_remove` asks of a new vote)."""
        game = self.play.game
        assert game is not None
        if self.seats[index].session is None:
            return True
        began = self.clock.turn_began()
        return began is not None and game.position.to_move == index and self.members.now - began >= TURN_MIN

    def show_to(self, member: Member) -> None:
        """``member`` just came into the room (entering, or back on a new connection): the vote
        running, if one is, as the others have it (a vote that ended meanwhile is not sent)."""
        vote = self.running
        if vote is not None:
            vote.refresh(self._voting)  # (as the voters are now: they may be back, or gone)
            self.members.send(member, self._message("open", vote))

    def _announce(self, state: State, vote: Vote) -> None:
        self.members.broadcast(self._message(state, vote))

    def _message(self, state: State, vote: Vote) -> m.Vote:
        if vote.expires_wall is None:
            vote.expires_wall = self.settings.wall_time(vote.expires)
        return m.Vote(
            room=self.name,
            kind=vote.kind,
            by=vote.by,
            name=vote.name,
            seat=vote.seat + 1,
            yes=list(vote.yes),
            no=list(vote.no),
            voters=list(vote.voters),
            state=state,
            expires=vote.expires_wall,
        )

    # --- what a vote that passed does --------------------------------------------------------

    def _take_seat(self, vote: Vote) -> Step:
        """The vote let ``vote.asker`` take over the seat: logged first, so that a restart seats
        them and the game counts for them; the bot stops and the hand goes to them alone."""
        play = self.play
        game = play.game
        asker = vote.asker
        assert game is not None
        assert asker is not None
        # the seat is still free and the asker here: their leaving or the seat's player coming
        # back ended the vote, and nobody takes a seat while it runs
        seat = self.seats[vote.seat]
        name = asker.name
        assert name is not None
        entry = SeatTaken(game.game_id, vote.seat, seat.name, name, asker.identity)

        def taken(answers: Answers) -> None:
            old = seat.name
            self.seats.bar(game.game_id, old)  # back, the old player watches
            seat.name, seat.kind, seat.identity = name, asker.kind, asker.identity
            seat.session, seat.stand_in, seat.timeouts, seat.gone = asker, None, 0, False
            players = list(game.start.players)
            players[vote.seat] = name
            game.start = replace(game.start, players=tuple(players))
            people = list(game.position.players)
            people[vote.seat] = replace(people[vote.seat], name=name)
            game.position = replace(game.position, players=tuple(people))
            members = self.members
            self.clock.release(old, members.out)
            members.note("seat_taken", game=game.game_id, seat=vote.seat + 1, player=name, old=old)
            detail = _("seat {seat}, {old}'s", seat=vote.seat + 1, old=old)
            members.broadcast(m.Presence(room=self.name, name=name, event="joined", detail=detail))
            play.publish()
            if game.position.to_move == vote.seat:
                play.next_turn()  # the bot stops thinking; the new player's clock starts

        def refused() -> None:
            text = _("{name} could not take seat {seat}: try again.", name=name, seat=vote.seat + 1)
            self.members.broadcast(m.Notice(room=self.name, text=text))

        return Step(entries=(entry,), then=taken, otherwise=refused)

    def _remove(self, index: int) -> Step:
        """The player of seat ``index`` is voted out, by the option ``absent``: logged first, so
        that after a restart too they only watch."""
        play = self.play
        game = play.game
        assert game is not None
        seat = self.seats[index]
        name = seat.name
        entry = VotedOut(game.game_id, name)

        def refused() -> None:
            text = _("{name} could not be voted out: try again.", name=name)
            self.members.broadcast(m.Notice(room=self.name, text=text))

        result = play.drop(index) if play.options.absent == "drop" else None
        if result is not None:

            def dropped(answers: Answers) -> None:
                self.seats.bar(game.game_id, name)
                play.moved(result, answers, auto=True)
                seat.session = None
                play.publish()

            return Step(entries=(entry, *play.entries(result)), then=dropped, otherwise=refused)

        def replaced(answers: Answers) -> None:
            self.seats.bar(game.game_id, name)
            seat.session = None
            seat.stand_in = None  # the bot takes over anew, with the reason said
            play.take_over(index, _("voted out"))
            play.publish()

        return Step(entries=(entry,), then=replaced, otherwise=refused)


__all__ = ["ASK_AGAIN", "TURN_MIN", "VOTE", "VOTE_TIME", "Vote", "VoteExpired", "Votes"]
