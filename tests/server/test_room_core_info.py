"""``/info``'s rating line, driven item by item: it says what the room decides at the game's end
and for hints — rated when two seats or more are held by registered people and the room did not
choose the seed; otherwise it says why not."""

from __future__ import annotations

from protocol import messages as m
from protocol.commands import ShowRequest
from server.ratings import ACCOUNT
from server.room.items import Enter
from tests.server.roomcore import Driver, FakeMember

YES = "Rated: yes."
TOO_FEW = "Rated: no, fewer than two registered players are seated."
PRACTICE = "Rated: no, a practice game (the room chose the seed)."


def _registered(d: Driver, name: str) -> FakeMember:
    """``name``, logged in to the account of that name, enters the room and sits down."""
    member = FakeMember(name)
    member.identity = ACCOUNT + name
    d.feed(member, Enter(join=True))
    return member


def _rating_line(d: Driver) -> str:
    """The rating line of ``/info`` as a spectator reads it."""
    zoe = d.enter("zoe")
    [text] = d.feed(zoe, ShowRequest("info")).of(zoe, m.Text)
    [line] = [line for line in str(text.text).splitlines() if line.startswith("Rated:")]
    return line


def test_two_registered_players_make_info_say_rated() -> None:
    """Two registered people seated and a seed nobody chose: ``Rated: yes.``, a guest at the table
    too changes nothing."""
    d = Driver(seed=None)
    _registered(d, "ann")
    _registered(d, "bob")
    assert _rating_line(d) == YES
    d.enter("cem", join=True)
    assert _rating_line(d) == YES


def test_one_registered_player_is_not_rated_with_a_guest_or_a_bot() -> None:
    """One registered person with a guest, then with a bot: not rated, and ``/info`` says why."""
    d = Driver(seed=None)
    _registered(d, "ann")
    assert _rating_line(d) == TOO_FEW
    d.enter("cem", join=True)
    assert _rating_line(d) == TOO_FEW
    d = Driver(seed=None)
    ann = _registered(d, "ann")
    assert d.feed(ann, m.AddBot(strategy="greedy")).replies() == []
    assert len(list(d.core.seats)) == 2
    assert _rating_line(d) == TOO_FEW


def test_a_chosen_seed_makes_a_practice_game_even_for_registered_players() -> None:
    """Two registered people and a seed the room chose: a practice game."""
    d = Driver(seed=None)
    ann = _registered(d, "ann")
    _registered(d, "bob")
    assert d.feed(ann, m.SetOption(key="seed", value=5)).replies() == []
    assert _rating_line(d) == PRACTICE


def test_info_says_rated_exactly_when_the_game_refuses_hints() -> None:
    """In a started game, ``/info`` says ``Rated: yes.`` exactly when ``hint`` is ``no_hints``:
    both follow the one rule the log rates the game by."""
    seatings = [("ann", "bob"), ("ann",), ()]
    for registered in seatings:
        d = Driver(seed=None)
        players = [_registered(d, name) for name in registered]
        players += [d.enter(name, join=True) for name in ("cem", "dan")[: 2 - len(players)]]
        assert d.feed(players[0], m.Start()).written
        mover = next(p for p in players if p.name == d.to_move)
        refused = d.feed(mover, m.GetHint()).codes(mover) == ["no_hints"]
        rated = len(registered) == 2
        assert (_rating_line(d) == YES, refused) == (rated, rated), registered
