"""Votes on seats: ``/remove NAME`` asks the other seated players to take a player out of the
running game, who is gone or has had the turn for a minute without moving; ``/join N`` asks them
to let the asker take over seat N of a player who is gone (a bot plays it, or it waits for them).

The others connected to their seats vote; the one who asked votes yes. A majority of them decides
(one other player alone decides alone); a vote that cannot reach it fails, and one left unanswered
expires after a minute, a timer like the turn clock. A player voted out leaves the seat by the
room's option ``absent``: a bot plays it, or the player leaves the game; either way they watch
from then on, also after coming back with their token.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from server.room.base import window
from server.room.effects import Arm, Cancel, SeatTaken, Step, VotedOut
from server.room.seats import RoomSeats
from server.room.world import Member

#: the timer of the vote running
VOTE = "vote"
#: seconds a vote runs unanswered
VOTE_TIME = 60.0
#: seconds a connected player must have had the turn before a vote may remove them
TURN_MIN = 60.0


@dataclass(slots=True)
class _Vote:
    kind: Literal["remove", "join"]
    by: str
    name: str
    seat: int
    voters: list[str]
    expires: float
    yes: list[str] = field(default_factory=list)
    no: list[str] = field(default_factory=list)
    #: who asks to take over the seat (a ``join`` vote)
    asker: Member | None = None

    @property
    def needed(self) -> int:
        return len(self.voters) // 2 + 1


@dataclass(frozen=True, slots=True, eq=False)
class VoteExpired:
    """``vote`` ran its time (a vote decided since, and any other, is not ended by it)."""

    vote: _Vote


class RoomVotes(RoomSeats):
    """The part of a room core that runs votes on seats."""

    _vote: _Vote | None = None
    #: (game id, move number, when) of the turn in progress
    _turn_began: tuple[str, int, float] | None = None

    # --- the turn's start --------------------------------------------------------------------------

    def _next_turn(self, *, publish: bool = True) -> None:
        super()._next_turn(publish=publish)
        game = self.game
        if game is not None:  # (noted after the end too, where no vote runs)
            began = self._turn_began
            if began is None or began[:2] != (game.game_id, game.moves):
                self._turn_began = (game.game_id, game.moves, self._now)

    # --- asking --------------------------------------------------------------------------------

    def _on_vote_remove(self, session: Member, msg: m.VoteRemove) -> Step | None:
        game = self._require_game(msg.id)
        mine = self._require_seat(session, msg.id)
        target = self.seat_of(msg.name)
        if target is None or target.strategy is not None:
            raise ProtocolError(
                "not_seated", _("No player called {name} sits here.", name=msg.name[:24]), msg.id
            )
        index = self.seats.index(target)
        if target is self.seats[mine]:
            raise ProtocolError("bad_target", _("You cannot vote yourself out; /leave instead."), msg.id)
        if index in game.position.eliminated:
            raise ProtocolError(
                "not_seated", _("{name} is out of the game already.", name=target.name), msg.id
            )
        if self._vote is not None:
            raise ProtocolError("vote_running", _("A vote is running; /accept or /refuse it first."), msg.id)
        if target.session is not None:
            began = self._turn_began
            if began is None or game.position.to_move != index or self._now - began[2] < TURN_MIN:
                raise ProtocolError(
                    "too_soon",
                    _(
                        "{name} is connected and has not had the turn for {seconds} seconds.",
                        name=target.name,
                        seconds=f"{TURN_MIN:.0f}",
                    ),
                    msg.id,
                )
        voters = [
            s.name for s in self.seats if s.strategy is None and s.session is not None and s is not target
        ]
        self._vote = _Vote("remove", self._name(session), target.name, index, voters, self._now + VOTE_TIME)
        self._out.append(Arm(VOTE, self._vote.expires, VoteExpired(self._vote)))
        self._ack(session, msg.id)
        return self._count(self._name(session), True)

    def _own_seat_waits(self, session: Member, msg: m.Join) -> bool:
        """Whether ``/join N`` names the asker's own seat, which waits for them (no vote needed)."""
        mine = self._seat_of(self._name(session))
        return (
            self.state == "playing"
            and mine is not None
            and mine + 1 == msg.seat
            and self.seats[mine].session is None
            and not self._voted_out_of_game(session)
        )

    def _on_join_seat(self, session: Member, msg: m.Join) -> Step | None:
        """``/join N`` while the game runs: ask the seated players to let the asker take over
        the seat of a player who is gone."""
        assert msg.seat is not None
        game = self._require_game(msg.id)
        name = self._name(session)
        if self._voted_out_of_game(session):
            raise ProtocolError("voted_out", _("You are out of this game; you may watch it."), msg.id)
        index = msg.seat - 1
        if index >= len(self.seats):
            raise ProtocolError("bad_seat", _("This game has seats 1 to {n}.", n=len(self.seats)), msg.id)
        seat = self.seats[index]
        if self._seat_of(name) is not None:
            raise ProtocolError("already_seated", _("You already have a seat here."), msg.id)
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
        if self._vote is not None:
            raise ProtocolError("vote_running", _("A vote is running; wait for its end."), msg.id)
        voters = [s.name for s in self.seats if s.strategy is None and s.session is not None]
        if not voters:
            raise ProtocolError(
                "no_voters", _("Nobody seated is here to accept you; wait until a player is."), msg.id
            )
        self._vote = _Vote("join", name, seat.name, index, voters, self._now + VOTE_TIME, asker=session)
        self._out.append(Arm(VOTE, self._vote.expires, VoteExpired(self._vote)))
        self._ack(session, msg.id)
        self._announce("open")
        return None

    def _cancel_vote(self, *, asker: Member | None = None, back: str | None = None) -> None:
        """End a ``join`` vote that lost its point: its asker left, or the seat's player is back."""
        vote = self._vote
        if vote is None or vote.kind != "join":
            return
        if vote.asker is asker or (back is not None and back.casefold() == vote.name.casefold()):
            self._vote = None
            self._out.append(Cancel(VOTE))
            self._announce("cancelled", vote)

    def _take_seat(self, vote: _Vote) -> Step | None:
        """The vote let ``vote.asker`` take over the seat: logged first, so that a restart seats
        them and the game counts for them; the bot stops and the hand goes to them alone."""
        game = self.game
        asker = vote.asker
        assert game is not None
        assert asker is not None
        # the seat is still free and the asker here: their leaving or the seat's player coming
        # back ended the vote, and nobody takes a seat while it runs
        seat = self.seats[vote.seat]
        name = self._name(asker)
        entry = SeatTaken(game.game_id, vote.seat, seat.name, name, asker.identity)

        def taken() -> None:
            old = seat.name
            self._voted_out = self._voted_out | {(game.game_id, old)}  # back, the old player watches
            seat.name, seat.kind, seat.identity = name, asker.kind, asker.identity
            seat.session, seat.stand_in, seat.timeouts = asker, None, 0
            players = list(game.start.players)
            players[vote.seat] = name
            game.start = replace(game.start, players=tuple(players))
            people = list(game.position.players)
            people[vote.seat] = replace(people[vote.seat], name=name)
            game.position = replace(game.position, players=tuple(people))
            if old in self._windows:
                self._windows.remove(old)
                self._out.append(Cancel(window(old)))
            self._note("seat_taken", game=game.game_id, seat=vote.seat + 1, player=name, old=old)
            self._broadcast(
                m.Presence(
                    room=self.name,
                    name=name,
                    event="joined",
                    detail=_("seat {seat}, {old}'s", seat=vote.seat + 1, old=old),
                )
            )
            self._publish()
            if game.position.to_move == vote.seat:
                self._next_turn()  # the bot stops thinking; the new player's clock starts

        def refused() -> None:
            self._broadcast(
                m.Notice(
                    room=self.name,
                    text=_("{name} could not take seat {seat}: try again.", name=name, seat=vote.seat + 1),
                )
            )

        return Step(entries=(entry,), then=taken, otherwise=refused)

    # --- answering -----------------------------------------------------------------------------

    def _on_vote_answer(self, session: Member, msg: m.VoteAnswer) -> Step | None:
        vote = self._vote
        name = self._name(session)
        if vote is None or name not in vote.voters:
            raise ProtocolError("no_vote", _("No vote is running here for you to answer."), msg.id)
        if name in vote.yes or name in vote.no:
            raise ProtocolError("no_vote", _("You have answered this vote already."), msg.id)
        self._ack(session, msg.id)
        return self._count(name, msg.yes)

    def _count(self, name: str, yes: bool) -> Step | None:
        vote = self._vote
        assert vote is not None
        (vote.yes if yes else vote.no).append(name)
        if len(vote.yes) >= vote.needed:
            return self._decided("passed")
        if len(vote.no) > len(vote.voters) - vote.needed:
            self._decided("failed")
            return None
        self._announce("open")
        return None

    def _on_vote_expired(self, _: Member | None, msg: VoteExpired) -> None:
        if self._vote is msg.vote:
            self._announce("expired")
            self._vote = None

    def _decided(self, state: Literal["passed", "failed"]) -> Step | None:
        vote = self._vote
        assert vote is not None
        self._vote = None
        self._out.append(Cancel(VOTE))
        self._announce(state, vote)
        if state == "failed" or self.state != "playing":
            return None
        if vote.kind == "join":
            return self._take_seat(vote)
        return self._remove(vote.seat)

    def _remove(self, index: int) -> Step:
        """The player of seat ``index`` is voted out, by the option ``absent``: logged first, so
        that after a restart too they only watch."""
        game = self.game
        assert game is not None
        seat = self.seats[index]
        name = seat.name
        entry = VotedOut(game.game_id, name)

        def out() -> None:
            self._voted_out = self._voted_out | {(game.game_id, name)}

        def refused() -> None:
            text = _("{name} could not be voted out: try again.", name=name)
            self._broadcast(m.Notice(room=self.name, text=text))

        if self.options.absent == "drop":
            step = self._drop(index)
            if step is not None:

                def gone() -> None:
                    seat.session = None
                    self._publish()

                step.entries = (entry, *step.entries)
                step = self._chain(step, gone, before=out)
                step.otherwise = refused
                return step

        def taken() -> None:
            out()
            seat.session = None
            seat.stand_in = None  # the bot takes over anew, with the reason said
            self._take_over(index, _("voted out"))
            self._publish()

        return Step(entries=(entry,), then=taken, otherwise=refused)

    def _announce(
        self, state: Literal["open", "passed", "failed", "expired", "cancelled"], vote: _Vote | None = None
    ) -> None:
        vote = vote or self._vote
        assert vote is not None
        self._broadcast(
            m.Vote(
                room=self.name,
                kind=vote.kind,
                by=vote.by,
                name=vote.name,
                seat=vote.seat + 1,
                yes=list(vote.yes),
                no=list(vote.no),
                voters=list(vote.voters),
                state=state,
                expires=self.settings.wall_time(vote.expires),
            )
        )

    # --- coming back ---------------------------------------------------------------------------

    def _voted_out_of_game(self, session: Member) -> bool:
        """Whether ``session``'s player was voted out of the game running here (they may watch)."""
        game = self.game
        return game is not None and (game.game_id, self._name(session)) in self._voted_out


__all__ = ["TURN_MIN", "VOTE", "VOTE_TIME", "RoomVotes", "VoteExpired"]
