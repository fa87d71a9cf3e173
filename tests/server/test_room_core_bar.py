"""A player out at the bar (docs/rules.md section 5), in the room core: everyone is told, the
game goes on without them, and with ``absent drop`` they may still give up the seat they hold."""

from __future__ import annotations

from engine import legal_move_texts
from protocol import messages as m
from tests.server.roomcore import Driver, FakeMember, Handled


def _to_the_bar(d: Driver, players: list[FakeMember]) -> Handled:
    """The player to move sends the first card the engine offers to the bar."""
    mover = next(p for p in players if p.name == d.to_move)
    move = next(text for text in legal_move_texts(d.position) if text.endswith("@bar"))
    done = d.feed(mover, m.PlayMove(move=move, id="bar"))
    assert done.written and done.replies() == [], done.replies()
    return done


def _until_out(d: Driver, players: list[FakeMember]) -> Handled:
    """Cards go to the bar until someone cannot pay their place.

    With three players the bar pays 1, 2, 3, 4, 5 and then costs 2, 4, 6, 8: ann, bob and cem end
    on 1 point each after eight cards, and cem cannot pay the ninth place's 8."""
    for _ in range(8):
        _to_the_bar(d, players)
        assert d.position.eliminated == ()
    assert d.to_move == "cem" and [p.score for p in d.position.players] == [1, 1, 1]
    return _to_the_bar(d, players)


def test_a_player_out_at_the_bar_is_told_to_everyone_after_the_move() -> None:
    """The card cem cannot pay for is ``played``, then everyone, spectators too, gets ``eliminated``
    with cem's name and the bar place; the game goes on between the others."""
    d = Driver()
    players = d.start("ann", "bob", "cem")
    zoe = d.enter("zoe")
    done = _until_out(d, players)
    assert d.position.eliminated == (2,) and d.core.state == "playing"
    for member in (*players, zoe):
        answer = ["ack"] if member is players[2] else []
        assert done.types(member) == ["patch", "played", "eliminated", *answer], done.types(member)
        assert done.of(member, m.Eliminated) == [m.Eliminated(room="cafe", player="cem", place=9)]
        assert d.views[member]["game"]["players"][2]["eliminated"] is True
    assert done.of(players[2], m.Played)[0].events[-1]["type"] == "eliminated"
    assert d.to_move == "ann"


def test_a_player_out_at_the_bar_gives_up_the_seat_without_a_move() -> None:
    """With ``absent drop``, cem, out at the bar, leaves the game with nothing logged (there are no
    turns left to drop); the seat is nobody's, and it is given up when the game ends."""
    d = Driver()
    players = d.start("ann", "bob", "cem", options=[("absent", "drop")])
    ann, bob, cem = players
    _until_out(d, players)
    logged = len(d.written)
    done = d.feed(cem, m.LeaveGame(id=3))
    assert done.types(cem) == ["ack", "patch"] and done.written is None and len(d.written) == logged
    assert d.core.seats[2].session is None and cem in d.core.members
    assert [s.name for s in d.core.seats] == ["ann", "bob", "cem"]
    assert d.views[ann]["seats"][2] == {"name": "cem", "kind": "person", "connected": False}
    done = d.feed(ann, m.LeaveGame(id=4))  # bob alone is left: the game ends, and both seats go
    assert done.of(bob, m.GameOver)[0].ranking[0] == "bob"
    assert d.core.state == "over"
    assert [s.name for s in d.core.seats] == ["bob"]
    assert [s["name"] for s in d.views[cem]["seats"]] == ["bob"]
