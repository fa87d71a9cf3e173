"""The publisher: what each member of a room is sent to see the room's views, made once."""

from __future__ import annotations

import itertools

from engine import random_game, replay
from protocol import messages as m
from protocol.diff import diff
from protocol.view import RoomViews, SeatInfo
from server.room.publish import Patches, Publisher
from tests.server.roomcore import FakeMember

NAMES = ("ann", "bob", "cy", "dee")


def _states(seed: int, moves: int) -> list[RoomViews]:
    record = random_game(NAMES, seed)
    positions = (record.start(), *(r.position for r in replay(record).results))
    seats = [SeatInfo(n, "person", True) for n in NAMES]
    states: list[RoomViews] = []
    for number in range(moves + 1):
        states.append(
            RoomViews(
                room="cafe", state="playing", seats=seats, spectators=("zoe", "max"), options={},
                position=positions[number], last_move=None, outcome=None, move_number=number,
                previous=states[-1] if states else None,
            )
        )  # fmt: skip
    return states


def test_every_member_gets_the_text_of_its_own_patch_and_the_shared_text_is_made_once() -> None:
    """After each move: a member's patch says exactly the diff of its two views, in the text a
    Patch message of those operations has; everyone whose operations are the same gets the same
    patch; and each list of operations members share is serialised once, whoever gets it."""
    members = [FakeMember(n) for n in (*NAMES, "zoe", "max")]
    publisher = Publisher("cafe")
    states = _states(seed=21, moves=8)
    for member in members:
        assert isinstance(publisher.update(member, states[0]).message, m.Snapshot)  # type: ignore[union-attr]
    for before, after in itertools.pairwise(states):
        patches = Patches()
        outs = {member.name: publisher.update(member, after, patches) for member in members}
        for name, out in outs.items():
            assert out is not None
            ops = diff(before.view(name), after.view(name))
            assert out.json == m.dump_server_message(m.Patch(room="cafe", ops=ops))
            assert out.message == m.Patch(room="cafe", ops=ops)
        distinct = {id(out): out for out in outs.values()}
        assert len(distinct) == 2  # the mover's, with its hand, and everyone else's
        parts = [part for own in (after.change_parts(before, n) for n in outs) for part in own]
        assert len(patches.texts) == len({id(part) for part in parts})
        assert publisher.update(members[0], after, Patches()) is None  # nothing new since


def test_a_member_renamed_gets_its_whole_diff() -> None:
    """A member whose name changed since it was last sent its views gets the diff of the view it
    had to the view under its new name (``you`` included)."""
    member = FakeMember("zoe")
    publisher = Publisher("cafe")
    before, after = _states(seed=3, moves=1)
    publisher.update(member, before)
    member.name = "zed"
    out = publisher.update(member, after, Patches())
    assert out is not None
    ops = diff(before.view("zoe"), after.view("zed"))
    assert {"op": "replace", "path": "/you", "value": "zed"} in ops
    assert out.json == m.dump_server_message(m.Patch(room="cafe", ops=ops))
