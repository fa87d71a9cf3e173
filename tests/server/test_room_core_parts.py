"""Each part of the room core used alone, without the core around it and without an event loop:
the members, the seats, the clock, the game and the votes."""

from __future__ import annotations

import pytest

from engine import GameRecord, legal_move_texts
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.view import RoomViews
from server.room import clock as clock_module
from server.room import core as core_module
from server.room import members as members_module
from server.room import seats as seats_module
from server.room.clock import CLOCK_WARNING, IDLE, TURN, WARN, Clock
from server.room.effects import WRITTEN, Arm, Cancel, GameStart, MoveLogged, Reply, Send, Think, VotedOut
from server.room.items import ClockTimeout, ClockWarning, Unattended, WindowPassed
from server.room.members import Members
from server.room.play import Play
from server.room.seats import Seats
from server.room.state import Game, Seat
from server.room.votes import Vote, Votes
from server.room.world import RoomSettings
from tests.examples import run_examples
from tests.server.roomcore import FakeMember

ROOM = "cafe"


@pytest.mark.parametrize("module", [core_module, members_module, seats_module, clock_module])
def test_the_parts_docstring_examples_run(module: object) -> None:
    """The examples in the docstrings of the core and its parts give what they show."""
    result = run_examples(module)  # type: ignore[arg-type]
    assert result.attempted and not result.failed


def _views() -> RoomViews:
    """The views of an empty room with no game."""
    return RoomViews(
        room=ROOM,
        state="waiting",
        seats=(),
        spectators=[],
        options={},
        position=None,
        last_move=None,
        move_number=0,
    )


# --- members --------------------------------------------------------------------------------


def test_members_tell_whom_they_name_and_publish_a_snapshot_then_only_changes() -> None:
    """A broadcast leaves out whom it excludes; each member's first view is a snapshot of its own,
    the same views again send nothing; a refusal of the log answers ``unavailable`` to that member alone."""
    members = Members(ROOM)
    ann, bob = FakeMember("ann"), FakeMember("bob")
    members.add(ann)
    members.add(bob)
    members.broadcast(m.Notice(room=ROOM, text="hi"), exclude=ann)
    [sent] = members.out
    assert isinstance(sent, Send) and sent.recipients == (bob,)
    members.out = []
    views = _views()
    members.publish(views)
    assert [(s.recipients, s.message.message.type) for s in members.out if isinstance(s, Send)] == [
        ((ann,), "snapshot"),
        ((bob,), "snapshot"),
    ]
    members.out = []
    members.publish(views)
    assert members.out == []
    members.unavailable(bob, "7")()
    [reply] = members.out
    assert isinstance(reply, Reply) and (reply.recipient, reply.code, reply.id) == (bob, "unavailable", "7")
    members.remove(bob)
    assert list(members) == [ann] and bob not in members


# --- seats ----------------------------------------------------------------------------------


def test_seats_know_who_plays_each_and_who_is_host() -> None:
    """Names compare without regard to case; a seat is held only by the very connection that sits
    in it; the host is the first seated person connected (none with the option off); someone else
    trying the host's things is refused ``not_host``."""
    ann, bob, again = FakeMember("ann"), FakeMember("bob"), FakeMember("bob")
    seats = Seats()
    seats.add(Seat(name="greedy-bot1", kind="bot", strategy="greedy"))
    seats.add(Seat(name="ann", kind="person", session=ann))
    seats.add(Seat(name="bob", kind="person", session=bob))
    assert seats.index_of("BOB") == 2 and seats.of("nobody") is None
    assert (seats.held(bob), seats.held(again)) == (2, None)
    assert seats.host(True) is seats[1] and seats.host(False) is None
    assert seats.require_host(ann, 1, "start the game", on=True) == 1
    with pytest.raises(ProtocolError) as refused:
        seats.require_host(bob, 1, "start the game", on=True)
    assert refused.value.code == "not_host"
    assert seats.watching({ann: None, bob: None, FakeMember("zoe"): None}) == ["zoe"]
    assert seats.kinds() == ["bot:greedy", "person", "person"]


def test_a_bot_programs_seat_hosts_only_while_no_person_sits() -> None:
    """A client that said ``"kind": "bot"`` and sat first does not hold the room against the
    person seated after it (who could not start nor turn the host off); two programs alone have
    the first of them as host, so that they still play."""
    program, ann, other = FakeMember("clbot"), FakeMember("ann"), FakeMember("clbot2")
    seats = Seats()
    seats.add(Seat(name="clbot", kind="bot", session=program))
    seats.add(Seat(name="clbot2", kind="bot", session=other))
    assert seats.host(True) is seats[0]
    seats.add(Seat(name="ann", kind="person", session=ann))
    assert seats.host(True) is seats[2]
    with pytest.raises(ProtocolError) as refused:
        seats.require_host(program, 0, "start the game", on=True)
    assert refused.value.code == "not_host"


def test_seats_shown_are_the_same_object_until_a_seat_changes() -> None:
    """The views' seats are made again only when a seat changed (here: its player went away)."""
    ann = FakeMember("ann")
    seats = Seats()
    seats.add(Seat(name="ann", kind="person", session=ann))
    first = seats.shown()
    assert seats.shown() is first and first[0].connected
    seats[0].session = None
    assert seats.shown() is not first and not seats.shown()[0].connected


def test_seats_bar_a_player_from_one_game_only() -> None:
    """A player voted out of a game is barred from that game, not from the next."""
    seats = Seats()
    seats.bar("g1", "bob")
    assert seats.barred("g1", "bob") and not seats.barred("g2", "bob") and not seats.barred(None, "bob")


# --- clock ----------------------------------------------------------------------------------


def _game(*players: str) -> Game:
    record = GameRecord(players=players, seed=7)
    return Game(game_id="g1", seed=7, start=record, position=record.start())


def test_the_clock_runs_a_persons_turn_with_a_warning_and_a_deadline() -> None:
    """A person to move with a clock of 30 s: the turn's timers are replaced, the clock runs out
    at now + 30 with a warning 10 s before, and the game's deadline is the wall time of it."""
    clock, out = Clock(RoomSettings(wall_time=lambda now: now + 1000.0)), []  # type: ignore[var-annotated]
    game = _game("ann", "bob")
    seat = Seat(
        name=game.position.players[game.position.to_move].name, kind="person", session=FakeMember("x")
    )
    assert clock.start_turn(game, seat, unattended=False, clock=30.0, now=5.0, out=out)
    assert [e.key for e in out if isinstance(e, Cancel)] == [TURN, WARN]
    assert [e for e in out if isinstance(e, Arm)] == [
        Arm(TURN, 35.0, ClockTimeout(0)),
        Arm(WARN, 35.0 - CLOCK_WARNING, ClockWarning(0, CLOCK_WARNING)),
    ]
    assert game.deadline == 1035.0 and clock.turn_began() == 5.0


def test_the_clock_lets_a_bot_think_or_wait_for_someone_to_come() -> None:
    """A bot to move thinks; with nobody in the room the bots wait (``IDLE``) instead, and go on
    when someone comes."""
    clock, out = Clock(RoomSettings(resume_window=60.0)), []  # type: ignore[var-annotated]
    game = _game("greedy-bot1", "ann")
    bot = Seat(name="greedy-bot1", kind="bot", strategy="greedy")
    clock.start_turn(game, bot, unattended=True, clock=None, now=1.0, out=out)
    assert clock.suspended and Arm(IDLE, 61.0, Unattended(0)) in out
    out.clear()
    clock.start_turn(game, bot, unattended=False, clock=None, now=2.0, out=out)
    assert not clock.suspended and IDLE in [e.key for e in out if isinstance(e, Cancel)]
    [think] = [e for e in out if isinstance(e, Think)]
    assert (think.name, think.strategy, think.move_number) == ("greedy-bot1", "greedy", 0)


def test_the_clock_holds_a_seat_for_the_resume_window_until_its_player_is_back() -> None:
    """A window is armed for the resume window; released, its timer is cancelled once."""
    clock, out = Clock(RoomSettings(resume_window=60.0)), []  # type: ignore[var-annotated]
    clock.hold("ann", 10.0, out)
    assert out == [Arm("window:ann", 70.0, WindowPassed("ann"))] and clock.windows == {"ann"}
    out.clear()
    clock.release("ann", out)
    clock.release("ann", out)
    assert [e.key for e in out if isinstance(e, Cancel)] == ["window:ann"] and not clock.windows


# --- the game -------------------------------------------------------------------------------


def _table(*names: str) -> tuple[Members, Seats, Play, list[FakeMember]]:
    """``names`` in a room and seated, with the parts a game needs, and no core."""
    members, seats = Members(ROOM), Seats()
    clock = Clock(RoomSettings())
    game = Play(
        ROOM,
        RoomSettings(),
        members,
        seats,
        clock,
        new_game_id=lambda: "g1",
        new_seed=lambda: 7,
        bot_games=lambda name, identity: len(name),
    )
    people = [FakeMember(n) for n in names]
    for person in people:
        members.add(person)
        seats.add(Seat(name=person.name or "", kind="person", session=person, identity=person.identity))
    return members, seats, game, people


def test_a_game_is_logged_as_its_players_are_when_it_starts() -> None:
    """A player who registered (or deleted the account) after taking a seat is logged as they are
    at the start, not as they were when they sat: the rating, the records and a private game's
    readers go by that."""
    _, seats, game, people = _table("ann", "bob")
    people[0].identity = "account:ann"  # (ann registered since she sat)
    people[1].identity = "guest-bob-2"  # (bob deleted his account since)
    [start] = game.on_start(people[0], m.Start(id="s")).entries
    assert isinstance(start, GameStart) and start.identities == ["account:ann", "guest-bob-2"]
    assert [s.identity for s in seats] == ["account:ann", "guest-bob-2"]


def test_the_game_starts_and_moves_only_once_the_log_holds_it() -> None:
    """``/start`` asks the log for the game's start first, and the game begins only then; a move
    asks for itself, and the position changes only when it is written."""
    members, _, game, people = _table("ann", "bob")
    step = game.on_start(people[0], m.Start(id="s"))
    [start] = step.entries
    assert isinstance(start, GameStart) and start.record.players == ("ann", "bob") and game.game is None
    assert step.then is not None
    step.then(WRITTEN)
    assert game.state == "playing" and game.game is not None
    mover = next(p for p in people if p.name == game.game.position.players[game.game.position.to_move].name)
    before = game.game.position
    move = legal_move_texts(before)[0]
    step = game.on_move(mover, m.PlayMove(move=move, id="mv"))
    assert step.entries == (MoveLogged("g1", 1, move),) and game.game.position is before
    assert step.then is not None and step.otherwise is not None
    step.otherwise()
    assert game.game.position is before and isinstance(members.out[-1], Reply)
    step.then(WRITTEN)
    assert game.game.moves == 1 and game.game.position is not before


# --- votes ----------------------------------------------------------------------------------


def test_a_vote_counts_to_a_majority_of_the_voters_still_voting() -> None:
    """With three voters, two yes pass a vote; with two, one no fails it. A voter who no longer
    votes leaves the list with their answer: the majority is of those left."""
    everyone = {"ann", "bob", "cid"}
    three = Vote("remove", "g1", "ann", "dan", 3, ["ann", "bob", "cid"], 60.0, yes=["ann"])
    assert three.state(everyone.__contains__) == "open"
    three.yes.append("bob")
    assert three.state(everyone.__contains__) == "passed"
    two = Vote("remove", "g1", "ann", "cid", 2, ["ann", "bob"], 60.0, yes=["ann"], no=["bob"])
    assert two.state(everyone.__contains__) == "failed"
    left = Vote("join", "g1", "zoe", "dan", 3, ["ann", "bob", "cid"], 60.0, yes=["bob"], no=["cid"])
    assert left.state({"ann", "bob"}.__contains__) == "open"  # cid's no went with cid
    assert (left.voters, left.no) == (["ann", "bob"], [])
    assert left.state({"bob"}.__contains__) == "passed"


def test_votes_remove_a_gone_player_once_the_log_holds_it() -> None:
    """Two players, one gone: the other's ``/remove`` passes at once and asks the log to keep the
    vote-out; only when it is written does a bot play the seat and its player watch the game."""
    members, seats, game, (ann, _) = _table("ann", "bob")
    votes = Votes(ROOM, RoomSettings(), members, seats, game.clock, game)
    step = game.on_start(ann, m.Start(id="s"))
    assert step.then is not None
    step.then(WRITTEN)
    seats[1].session = None  # bob's connection is gone
    removed = votes.on_remove(ann, m.VoteRemove(name="bob", id="r"))
    assert removed is not None and removed.entries == (VotedOut("g1", "bob"),)
    assert seats[1].stand_in is None and votes.running is None
    assert removed.then is not None
    removed.then(WRITTEN)
    assert seats[1].stand_in == "greedy" and seats.barred("g1", "bob")
