"""No hints in a rated game, driven item by item: a game counts for ratings when two seats or more
are held by registered people and the room did not choose the seed; there ``hint`` is
``no_hints`` for every player, whose legal moves are still answered, and a spectator has no seat
to ask for; a practice or a casual game gives hints; a game taken up from the log stays as rated
as it was, and a seat taken over counts as its new player's."""

from __future__ import annotations

from typing import Any

import pytest

from engine import GameRecord, legal_move_texts, play
from protocol import messages as m
from server.log.contract import StoredGame
from server.ratings import ACCOUNT
from server.room.items import Enter, Returned
from tests.server.roomcore import SEED, Driver, FakeMember


def _registered(d: Driver, name: str) -> FakeMember:
    """``name``, logged in to the account of that name, enters the room and sits down."""
    member = FakeMember(name)
    member.identity = ACCOUNT + name
    d.feed(member, Enter(join=True))
    return member


def _rated(*guests: str) -> tuple[Driver, list[FakeMember]]:
    """ann and bob, both registered, and ``guests`` in a started game with a seed nobody chose."""
    d = Driver(seed=None)
    players = [_registered(d, "ann"), _registered(d, "bob"), *(d.enter(g, join=True) for g in guests)]
    assert d.feed(players[0], m.Start()).written
    return d, players


def _mover(d: Driver, players: list[FakeMember]) -> tuple[FakeMember, FakeMember | None]:
    """The player to move among ``players``, and another one."""
    mover = next(p for p in players if p.name == d.to_move)
    return mover, next((p for p in players if p is not mover), None)


def test_a_rated_game_refuses_hints_to_each_player_and_still_lists_the_legal_moves() -> None:
    """Two registered players and a drawn seed: ``hint`` is ``no_hints`` for the player to move and
    for the other, says why, and sends nothing else; ``legal_moves`` answers the player to move; a
    spectator asking for a hint hears ``not_seated``."""
    d, players = _rated()
    mover, waiter = _mover(d, players)
    assert waiter is not None
    for member in (mover, waiter):
        refused = d.feed(member, m.GetHint())
        assert refused.codes(member) == ["no_hints"]
        [reply] = refused.replies()
        assert reply.text == "No hints in a rated game: hints are for practice and casual games."
        assert refused.sends(member) == []
    [legal] = d.feed(mover, m.GetLegalMoves()).of(mover, m.LegalMoves)
    assert legal.moves == legal_move_texts(d.position)
    zoe = d.enter("zoe")
    assert d.feed(zoe, m.GetHint()).codes(zoe) == ["not_seated"]


def test_a_rated_game_with_a_guest_seated_too_still_refuses_hints() -> None:
    """A guest at the table does not make a game of two registered players casual."""
    d, players = _rated("cem")
    for member in players:
        assert d.feed(member, m.GetHint()).codes(member) == ["no_hints"]


def _hint_for_the_mover(d: Driver, players: list[FakeMember]) -> None:
    mover, _ = _mover(d, players)
    [hint] = d.feed(mover, m.GetHint()).of(mover, m.Hint)
    assert hint.points == play(d.position, hint.move).points


def test_a_practice_game_of_registered_players_gives_hints() -> None:
    """The room chose the seed: a practice game, hints for its players."""
    d = Driver(seed=SEED)
    players = [_registered(d, "ann"), _registered(d, "bob")]
    assert d.feed(players[0], m.Start()).written
    _hint_for_the_mover(d, players)


def test_a_casual_game_gives_hints() -> None:
    """One registered player with a guest, or with the server's bot: not rated, hints given."""
    d = Driver(seed=None)
    players = [_registered(d, "ann"), d.enter("bob", join=True)]
    assert d.feed(players[0], m.Start()).written
    _hint_for_the_mover(d, players)

    d = Driver(seed=None)
    ann = _registered(d, "ann")
    d.feed(ann, m.AddBot(strategy="greedy"))
    assert d.feed(ann, m.Start()).written
    if d.to_move != "ann":
        d.think()
    _hint_for_the_mover(d, [ann])


def _stored(identities: tuple[str | None, ...]) -> StoredGame:
    record = GameRecord(players=("ann", "bob"), seed=SEED)
    return StoredGame("g0", "cafe", record, ("person", "person"), 0.0, None, None, identities=identities)


def test_a_rated_game_taken_up_from_the_log_stays_without_hints() -> None:
    """After a restart the log's identities seat the players again: the game is as rated as it
    was, so ``hint`` is ``no_hints``; a game logged without identities (an older log) gives hints."""
    for identities, rated in (((ACCOUNT + "ann", ACCOUNT + "bob"), True), ((), False)):
        d = Driver(seed=None)
        d.finish(d.core.restore(_stored(identities), 0.0))
        assert [s.identity for s in d.core.seats] == list(identities or (None, None))
        players = [FakeMember("ann"), FakeMember("bob")]
        for member in players:
            member.identity = ACCOUNT + str(member.name)
            d.feed(member, Returned())
        mover, _ = _mover(d, players)
        answer = d.feed(mover, m.GetHint())
        if rated:
            assert answer.codes(mover) == ["no_hints"]
        else:
            assert [type(x) for x in answer.sends(mover)] == [m.Hint]


def test_a_turn_s_hint_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A practice game: the player to move asks for a hint three times, and the legal moves: the
    greedy bot thinks once, each answer carries its own id, and the legal moves are kept for the
    turn; the next turn's hint is worked out anew."""
    import bots.strategy

    thought: list[int] = []
    get = bots.strategy.get_strategy

    class Counted:
        def __init__(self, strategy: Any) -> None:
            self.strategy = strategy

        def choose(self, view: Any, rng: Any) -> str:
            thought.append(1)
            return str(self.strategy.choose(view, rng))

    monkeypatch.setattr(bots.strategy, "get_strategy", lambda name: Counted(get(name)))
    d = Driver()
    players = d.start("ann", "bob")
    mover, _ = _mover(d, players)
    hints = [d.feed(mover, m.GetHint(id=f"h{i}")).of(mover, m.Hint) for i in range(3)]
    assert [h.id for (h,) in hints] == ["h0", "h1", "h2"] and len({h.move for (h,) in hints}) == 1
    assert thought == [1]
    moves = [d.feed(mover, m.GetLegalMoves(id=f"l{i}")).of(mover, m.LegalMoves) for i in range(2)]
    assert [x.id for (x,) in moves] == ["l0", "l1"] and moves[0][0].moves == legal_move_texts(d.position)
    d.move(players)
    mover, _ = _mover(d, players)
    (hint,) = d.feed(mover, m.GetHint()).of(mover, m.Hint)
    assert thought == [1, 1] and hint.move in legal_move_texts(d.position)
