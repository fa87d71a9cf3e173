"""Members coming and going on the room core: entering again, a window that passed, and an item
the room does not know."""

from __future__ import annotations

import dataclasses

from server.room.items import Enter, Leave, Returned
from tests.server.roomcore import Driver, FakeMember


def test_entering_again_sends_the_whole_view_again() -> None:
    """A member who enters the room they are in gets a snapshot again (their client starts over),
    and nobody else hears of it."""
    d = Driver()
    ann = d.enter("ann")
    bob = d.enter("bob")
    again = d.feed(ann, Enter())
    assert again.types(ann) == ["snapshot", "ack"] and again.sends(bob) == []
    assert list(d.core.members) == [ann, bob]


def test_a_window_that_passed_is_closed_and_not_cancelled_again() -> None:
    """After bob's window passed (a bot plays the seat), bob coming back cancels no window timer."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("absent", "bot")])
    d.feed(bob, Leave(disconnected=True))
    d.fire("window:bob")
    again = FakeMember("bob")
    back = d.feed(again, Returned())
    assert ("bob", "back") in back.presence(ann) and "window:bob" not in back.cancels
    assert back.presence(again) == []  # bob reads his view, no presence about himself


@dataclasses.dataclass(frozen=True)
class _Stray:
    """An item of a kind no room handles, without an id."""


def test_an_item_of_no_known_kind_without_an_id_is_refused_without_one() -> None:
    """The room answers an unknown item that has no id with ``unknown_type`` and no id."""
    d = Driver()
    ann = d.enter("ann")
    refused = d.feed(ann, _Stray())
    assert [(r.code, r.text, r.id) for r in refused.replies(ann)] == [
        ("unknown_type", "_Stray is not handled in rooms.", None)
    ]
