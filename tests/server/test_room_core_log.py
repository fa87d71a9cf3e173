"""A game log that refuses a write changes nothing in the room: the room core's state after
``refuse`` equals its state before the item, the sender of a message hears ``unavailable``, and
a move the server makes by itself is tried again shortly."""

from __future__ import annotations

from typing import Any

from engine import leave_text
from protocol import messages as m
from server.room.clock import RETRY
from server.room.effects import Arm, MoveLogged, Send
from server.room.items import ClockTimeout, Leave, TurnRetry, WindowPassed
from tests.server.roomcore import GAME_ID, Driver, FakeMember, Handled, state_of


def _nothing_sent(done: Handled, *members: FakeMember) -> bool:
    return not [e for e in done.effects if isinstance(e, Send) and set(e.recipients) & set(members)]


def _view_is_current(d: Driver, member: FakeMember) -> bool:
    """Whether the member's view, as its patches made it, is the room's view now."""
    kept = d.views[member]
    return bool(kept == d.feed(member, m.Resync()).of(member, m.Snapshot)[0].view)


def _unavailable(done: Handled, member: FakeMember) -> list[tuple[str, Any]]:
    return [(r.code, r.id) for r in done.replies(member)]


def test_refused_start_changes_nothing() -> None:
    """A start the log refuses leaves the room waiting; the starter hears ``unavailable``."""
    d = Driver()
    ann, bob = d.seat("ann", "bob", options=[("clock", 30)])
    zoe = d.enter("zoe")
    before = state_of(d.core)
    done = d.feed(ann, m.Start(id=1), log=False)
    assert done.written is False and d.written == []
    assert state_of(d.core) == before and d.core.state == "waiting"
    assert _unavailable(done, ann) == [("unavailable", 1)]
    assert _nothing_sent(done, ann, bob, zoe)
    assert done.arms == [] and done.thinks == []
    assert _view_is_current(d, zoe)
    assert d.feed(ann, m.Start(id=2)).written and d.core.summary().state == "playing"


def test_refused_move_changes_nothing() -> None:
    """A move the log refuses is not played: no ack, no patch; the mover hears ``unavailable``."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    clock = d.timers["turn"]
    move = d.legal()
    before = state_of(d.core)
    done = d.feed(ann, m.PlayMove(move=move, id=8), log=False)
    assert state_of(d.core) == before
    assert _unavailable(done, ann) == [("unavailable", 8)]
    assert _nothing_sent(done, ann, bob)
    assert done.arms == [] and d.timers["turn"] == clock  # the turn's clock runs on
    assert _view_is_current(d, bob)
    assert d.feed(ann, m.PlayMove(move=move, id=9)).types(ann) == ["patch", "played", "ack"]
    assert d.written[-1] == MoveLogged(GAME_ID, 1, move)


def test_refused_clock_timeout_changes_nothing_and_runs_out_again() -> None:
    """A timeout move the log refuses is not played or counted; the clock runs out again shortly."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    before = state_of(d.core)
    done = d.fire("turn", log=False)
    assert d.now == 30.0
    assert state_of(d.core) == before and d.core.seats[0].timeouts == 0
    assert _nothing_sent(done, ann, bob)
    assert done.arms == [Arm("turn", 30.0 + RETRY, ClockTimeout(0))]
    played = d.fire("turn").of(bob, m.Played)[0]
    assert (played.player, played.auto) == ("ann", True) and d.core.seats[0].timeouts == 1


def test_refused_bot_move_changes_nothing_and_the_turn_starts_again() -> None:
    """A bot's move the log refuses is not played; the bot's turn starts again shortly."""
    d = Driver()
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot(strategy="greedy"))
    d.feed(ann, m.LeaveGame())  # and back: the bot sits first
    d.feed(ann, m.Join())
    d.feed(ann, m.Start())
    assert d.to_move == "greedy-bot1"
    d.now = 3.0
    before = state_of(d.core)
    done = d.think(log=False)
    assert state_of(d.core) == before
    assert _nothing_sent(done, ann)
    assert done.arms == [Arm("turn", 3.0 + RETRY, TurnRetry(0))]
    [think] = d.fire("turn").thinks
    assert (think.name, think.move_number) == ("greedy-bot1", 0)
    assert d.think().written and d.core.game is not None and d.core.game.moves == 1


def test_refused_drop_changes_nothing_and_the_window_passes_again() -> None:
    """With ``absent drop``, a leave the log refuses keeps the player in; the window passes again shortly."""
    d = Driver()
    ann, bob, cem = d.start("ann", "bob", "cem", options=[("absent", "drop")])
    d.feed(cem, Leave(disconnected=True))
    before = state_of(d.core)
    done = d.fire("window:cem", log=False)
    assert state_of(d.core) == before and d.position.eliminated == ()
    assert _nothing_sent(done, ann, bob)
    assert done.arms == [Arm("window:cem", d.now + RETRY, WindowPassed("cem"))]
    d.fire("window:cem")
    assert d.written[-1] == MoveLogged(GAME_ID, 1, leave_text("cem")) and d.position.eliminated == (2,)


def test_refused_stand_with_absent_drop_keeps_the_player_in_the_game() -> None:
    """With ``absent drop``, a ``leave_game`` the log refuses keeps the player in: ``unavailable``."""
    d = Driver()
    ann, bob, cem = d.start("ann", "bob", "cem", options=[("absent", "drop")])
    before = state_of(d.core)
    done = d.feed(bob, m.LeaveGame(id=4), log=False)
    assert state_of(d.core) == before and d.core.seats[1].session is bob
    assert _unavailable(done, bob) == [("unavailable", 4)]
    assert _nothing_sent(done, ann, bob, cem)
    done = d.feed(bob, m.LeaveGame(id=5))
    assert done.types(bob) == ["patch", "played", "ack"]
    assert d.position.eliminated == (1,) and d.core.seats[1].session is None and bob in d.core.members


def test_refused_drop_on_leaving_the_room_holds_the_seat() -> None:
    """With ``absent drop``, a player who leaves the room when the log refuses the leave is ``away``
    and the seat waits for the window, as after a lost connection."""
    d = Driver()
    ann, _, cem = d.start("ann", "bob", "cem", options=[("absent", "drop")])
    done = d.feed(cem, Leave(id=2), log=False)
    assert d.position.eliminated == ()
    assert done.presence(ann) == [("cem", "away"), ("cem", "left")]
    assert done.types(cem) == ["ack"]
    assert [a.key for a in done.arms] == ["window:cem"]
    d.fire("window:cem")
    assert d.position.eliminated == (2,)
