"""A private room's core: whom it lets in and turns away, and how a game's record becomes private."""

from __future__ import annotations

from protocol import messages as m
from server.room.effects import GameOption, GameStart, TurnedAway
from server.room.items import Enter, Leave
from tests.server.roomcore import GAME_ID, Driver, FakeMember


def _private(d: Driver) -> FakeMember:
    ann = d.enter("ann", join=True)
    assert d.feed(ann, m.SetOption(key="private", value=True)).replies() == []
    return ann


def test_a_stranger_is_turned_away_and_nobody_hears_of_it() -> None:
    """Entering a private room unasked is ``not_invited``, the stranger is turned away (it is in no
    room now) and is no member; the members get nothing."""
    d = Driver()
    ann = _private(d)
    zoe = FakeMember("zoe")
    refused = d.feed(zoe, Enter(join=True))
    assert refused.codes(zoe) == ["not_invited"]
    assert [e.member for e in refused.effects if isinstance(e, TurnedAway)] == [zoe]
    assert refused.sends(zoe) == [] and refused.sends(ann) == []
    assert list(d.core.members) == [ann] and [s.name for s in d.core.seats] == ["ann"]


def test_a_guest_comes_in_and_a_public_room_asks_nothing() -> None:
    """``admitted`` (on the guest list) lets anyone into a private room; a room that is not private
    lets everyone in."""
    d = Driver()
    _private(d)
    zoe = FakeMember("zoe")
    entered = d.feed(zoe, Enter(admitted=True))
    assert entered.codes(zoe) == [] and zoe in d.core.members
    open_room = Driver()
    open_room.enter("ann")
    bob = FakeMember("bob")
    assert open_room.feed(bob, Enter()).codes(bob) == [] and bob in open_room.core.members


def test_a_player_of_the_running_game_needs_no_invitation() -> None:
    """bob, who left the room while his seat plays on, enters again unasked; a member entering
    again is no stranger either."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    assert d.feed(ann, m.SetOption(key="private", value=True)).replies() == []
    d.feed(bob, Leave())
    again = FakeMember("bob")
    assert d.feed(again, Enter()).codes(again) == [] and again in d.core.members
    assert d.feed(ann, Enter()).codes(ann) == []


def test_private_on_during_a_game_is_logged_before_it_is_told() -> None:
    """Turning a running game's room private writes the game's ``GameOption`` first; the log
    refusing it leaves the room as it was, and the host hears ``unavailable``."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    refused = d.feed(ann, m.SetOption(key="private", value=True), log=False)
    assert refused.codes(ann) == ["unavailable"] and refused.of(bob, m.Notice) == []
    assert d.core.options.private is False
    done = d.feed(ann, m.SetOption(key="private", value=True))
    assert done.written and d.written[-1] == GameOption(GAME_ID, "private", True)
    assert d.core.options.private is True and done.types(ann)[-2:] == ["ack", "patch"]
    again = d.feed(ann, m.SetOption(key="private", value=True))  # private already: nothing to log
    assert again.written is None


def test_a_room_private_before_the_start_logs_its_game_so() -> None:
    """A game that starts in a private room has ``private`` in the room options it is logged with."""
    d = Driver()
    ann = _private(d)
    bob = FakeMember("bob")
    d.feed(bob, Enter(join=True, admitted=True))
    d.feed(ann, m.Start())
    (start,) = [e for e in d.written if isinstance(e, GameStart)]
    assert start.room_options["private"] is True
