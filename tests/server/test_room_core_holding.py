"""Who plays a seat now, on the room core: a member reads a seat and its hand, and may ask for
its legal moves or a hint, only while their own connection holds that seat. Whoever lost it
(voted out, taken over, left, stood up) reads the game as a spectator, even where the seat still
carries their name; a seat a bot keeps for its player (the window passed, the clock) is theirs
again when they come back."""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from server.room.items import Enter, Leave, Returned
from tests.server.roomcore import Driver, FakeMember, Handled

NOT_PLAYING = "You do not play a seat here now."


def _as_sent(d: Driver, member: FakeMember) -> dict[str, Any]:
    """``member``'s view as the snapshot and the patches sent made it, checked against a fresh
    snapshot (``resync``)."""
    view: dict[str, Any] = d.views[member]
    d.feed(member, m.Resync())
    assert d.views[member] == view
    return view


def _watches(d: Driver, member: FakeMember) -> None:
    """``member``'s view (snapshot and patches applied) is a spectator's."""
    view = _as_sent(d, member)
    assert view["seat"] is None and view["you"] == member.name
    assert view["game"] is None or "hand" not in view["game"]
    assert member.name in view["spectators"]


def _holds(d: Driver, member: FakeMember, seat: int) -> None:
    """``member``'s view has seat ``seat`` and its player's hand."""
    view = _as_sent(d, member)
    assert view["seat"] == seat and member.name not in view["spectators"]
    assert view["game"]["hand"] == [c.text for c in d.position.players[seat].hand]


def _hand_ops(done: Handled, member: FakeMember) -> list[dict[str, Any]]:
    """The operations on ``/seat`` or a hand in what ``member`` was sent."""
    ops: list[dict[str, Any]] = []
    for message in done.sends(member):
        if isinstance(message, m.Patch):
            ops += [op for op in message.ops if op["path"] == "/seat" or op["path"].startswith("/game/hand")]
        elif isinstance(message, m.Snapshot) and message.view["game"] is not None:
            assert "hand" not in message.view["game"] and message.view["seat"] is None
    return ops


def _refused_as_watcher(d: Driver, member: FakeMember) -> None:
    """``legal_moves`` and ``hint`` are ``not_seated``: the member does not play the seat."""
    for ask in (m.GetLegalMoves(), m.GetHint()):
        refused = d.feed(member, ask)
        assert [(r.code, r.text) for r in refused.replies(member)] == [("not_seated", NOT_PLAYING)]


def _play_until_bot_moved(d: Driver, people: list[FakeMember], seat_name: str, watcher: FakeMember) -> None:
    """Play on (people move, the bot thinks) until the bot played ``seat_name`` twice; nothing
    ``watcher`` was sent on the way touched a seat or a hand."""
    moved = 0
    for _ in range(40):
        if moved == 2:
            return
        if d.to_move == seat_name:
            done = d.think()
            moved += 1
        else:
            done = d.move(people)
        assert _hand_ops(done, watcher) == []
        _watches(d, watcher)
    raise AssertionError("the bot did not move twice")


def _cid_voted_out(*options: tuple[str, Any]) -> tuple[Driver, FakeMember, FakeMember, FakeMember]:
    """ann, bob and cid play; cid's connection is lost and ann and bob vote him out; cid comes
    back with his token."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid", options=options)
    d.feed(cid, Leave(disconnected=True))
    d.feed(ann, m.VoteRemove(name="cid"))
    d.feed(bob, m.VoteAnswer(yes=True))
    back = FakeMember("cid")
    returned = d.feed(back, Returned())
    assert returned.types(back)[0] == "snapshot" and _hand_ops(returned, back) == []
    return d, ann, bob, back


def test_a_player_voted_out_reads_the_game_as_a_spectator_while_a_bot_plays_the_seat() -> None:
    """Voted out (``absent bot``) and back: the seat still carries cid's name and a bot plays it,
    but cid's view has no seat and no hand, lists him among the spectators, stays so at the bot's
    moves, and ``legal_moves`` and ``hint`` are refused."""
    d, ann, bob, back = _cid_voted_out()
    seat = d.core.seats[2]
    assert (seat.name, seat.session, seat.stand_in) == ("cid", None, "greedy")
    _watches(d, back)
    assert d.views[ann]["spectators"] == ["cid"] and d.views[ann]["seat"] == 0
    _refused_as_watcher(d, back)
    _play_until_bot_moved(d, [ann, bob], "cid", back)
    _refused_as_watcher(d, back)


def test_a_player_voted_out_with_absent_drop_reads_no_hand() -> None:
    """Voted out with ``absent drop`` (out of the game, the seat empty): the same, a spectator."""
    d, _, _, back = _cid_voted_out(("absent", "drop"))
    assert 2 in d.position.eliminated
    _watches(d, back)
    _refused_as_watcher(d, back)
    assert d.feed(back, m.PlayMove(move=d.legal())).codes(back) == ["not_seated"]


def test_a_player_who_left_watches_until_taking_the_own_seat_back() -> None:
    """``/leave`` during the game (``absent bot``): entering again cid watches his seat played by
    a bot, no hand; ``/join 3`` takes it back at once, with its hand, and the bot stops."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid")
    d.feed(cid, Leave())
    back = FakeMember("cid")
    entered = d.feed(back, Enter())
    assert _hand_ops(entered, back) == []
    _watches(d, back)
    _refused_as_watcher(d, back)
    _play_until_bot_moved(d, [ann, bob], "cid", back)
    took = d.feed(back, m.Join(seat=3))
    assert took.codes(back) == [] and d.core.seats[2].stand_in is None
    _holds(d, back, 2)
    assert d.views[ann]["spectators"] == []


def test_a_player_who_stood_up_with_absent_drop_watches() -> None:
    """``/stand`` with ``absent drop``: out of the game and watching: no seat, no hand; another
    ``/stand`` is ``not_seated``."""
    d = Driver()
    *_, cid = d.start("ann", "bob", "cid", options=[("absent", "drop")])
    d.feed(cid, m.LeaveGame())
    _watches(d, cid)
    refused = d.feed(cid, m.LeaveGame())
    assert [(r.code, r.text) for r in refused.replies(cid)] == [("not_seated", NOT_PLAYING)]


def test_the_old_player_watching_a_seat_taken_over_never_reads_its_hand() -> None:
    """cid left and watches; zoe takes his seat over by a vote: cid read no hand before, reads
    none after, and zoe reads the seat's hand."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid")
    d.feed(cid, Leave())
    back = FakeMember("cid")
    d.feed(back, Enter())
    zoe = d.enter("zoe")
    d.feed(zoe, m.Join(seat=3))
    d.feed(ann, m.VoteAnswer(yes=True))
    done = d.feed(bob, m.VoteAnswer(yes=True))
    assert _hand_ops(done, back) == [] and d.core.seats[2].name == "zoe"
    _watches(d, back)
    _holds(d, zoe, 2)
    assert d.feed(back, m.Join(seat=3)).codes(back) == ["voted_out"]


def test_a_player_back_after_the_window_plays_the_seat_the_bot_kept() -> None:
    """The window passed and a bot played cid's seat; cid comes back with his token: the seat is
    his again, with its hand, and he gets his legal moves on his turn."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid")
    d.feed(cid, Leave(disconnected=True))
    d.fire("window:cid")
    assert d.core.seats[2].stand_in == "greedy"
    back = FakeMember("cid")
    d.feed(back, Returned())
    _holds(d, back, 2)
    while d.to_move != "cid":
        d.move([ann, bob])
    answered = d.feed(back, m.GetLegalMoves())
    assert answered.codes(back) == [] and answered.of(back, m.LegalMoves)


def test_a_connected_player_whose_turns_the_clock_gave_to_a_bot_keeps_the_seat() -> None:
    """After three timeouts a bot plays ann's turns, but her connection still holds the seat:
    she reads its hand and is no spectator (the bot keeps the seat for her)."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    for _ in range(3):
        while d.to_move != "ann":
            d.move([bob])
        d.fire("turn")
    assert d.core.seats[0].stand_in == "greedy" and d.core.seats[0].session is ann
    _holds(d, ann, 0)


def test_a_player_who_lost_the_seat_counts_as_a_spectator_and_decides_nothing() -> None:
    """The room list counts cid, voted out and back, among the spectators; with ``host`` off a
    seated player sets options, but cid may not (``not_seated``)."""
    d, ann, _, back = _cid_voted_out()
    assert d.core.summary().spectators == 1
    assert d.feed(ann, m.SetOption(key="host", value=False)).codes(ann) == []
    refused = d.feed(back, m.SetOption(key="private", value=True))
    assert [(r.code, r.text) for r in refused.replies(back)] == [("not_seated", NOT_PLAYING)]
    assert d.core.options.private is False
