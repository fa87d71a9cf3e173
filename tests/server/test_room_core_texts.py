"""The words of the room's refusals, as people read them: each refusal of the room core with its
code and its exact English text, one row a refusal, driven on the core with no event loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from protocol import messages as m
from protocol.commands import ShowRequest
from server.room.core import RoomSettings
from server.room.items import Enter, Leave
from tests.server.roomcore import Driver, FakeMember

#: a room as a refusal finds it: the driver, who asks, and what they send
Asked = tuple[Driver, FakeMember, Any]


def _unknown() -> Asked:
    d = Driver()
    return d, d.enter("ann"), m.ListRooms()


def _resync_outside() -> Asked:
    return Driver(), FakeMember("zoe"), m.Resync()


def _join_seated() -> Asked:
    d = Driver()
    (ann,) = d.seat("ann")
    return d, ann, m.Join()


def _join_running() -> Asked:
    d = Driver()
    d.start("ann", "bob")
    return d, d.enter("zoe"), m.Join()


def _join_full() -> Asked:
    d = Driver()
    d.seat("ann", "bob", "cid", "dan")
    return d, d.enter("eve"), m.Join()


def _give_up_running() -> Asked:
    d = Driver()
    ann, _ = d.start("ann", "bob")
    return d, ann, m.LeaveGame()


def _add_bot_running() -> Asked:
    d = Driver()
    ann, _ = d.start("ann", "bob")
    return d, ann, m.AddBot()


def _add_bot_full() -> Asked:
    d = Driver()
    ann, *_ = d.seat("ann", "bob", "cid", "dan")
    return d, ann, m.AddBot()


def _remove_no_bot() -> Asked:
    d = Driver()
    (ann,) = d.seat("ann")
    return d, ann, m.RemoveBot(name="zed")


def _remove_bot_running() -> Asked:
    d = Driver()
    (ann,) = d.seat("ann")
    d.feed(ann, m.AddBot())
    d.feed(ann, m.Start())
    return d, ann, m.RemoveBot(name=d.core.seats[1].name)


def _option_running() -> Asked:
    d = Driver()
    ann, _ = d.start("ann", "bob")
    return d, ann, m.SetOption(key="stammtisch", value=True)


def _no_game() -> Asked:
    d = Driver()
    (ann,) = d.seat("ann")
    return d, ann, m.GetLegalMoves()


def _ended(*more: str) -> tuple[Driver, FakeMember]:
    """ann and bob (and ``more``) in a game bob left (absent ``drop``); over when nobody else plays."""
    d = Driver()
    ann, bob, *_ = d.start("ann", "bob", *more, options=[("absent", "drop")])
    d.feed(bob, m.LeaveGame())
    return d, ann


def _game_over() -> Asked:
    d, ann = _ended()
    return d, ann, m.GetLegalMoves()


def _start_unseated() -> Asked:
    d = Driver()
    d.seat("ann")
    return d, d.enter("zoe"), m.Start()


def _not_your_turn(ask: Callable[[Driver], Any]) -> Callable[[], Asked]:
    def asked() -> Asked:
        d = Driver()
        people = d.start("ann", "bob")
        return d, next(p for p in people if p.name != d.to_move), ask(d)

    return asked


def _spectator_moves() -> Asked:
    d = Driver()
    d.start("ann", "bob")
    return d, d.enter("zoe"), m.PlayMove(move=d.legal())


def _start_running() -> Asked:
    d = Driver()
    ann, _ = d.start("ann", "bob")
    return d, ann, m.Start()


def _start_alone() -> Asked:
    d = Driver()
    (ann,) = d.seat("ann")
    return d, ann, m.Start()


def _start_against_bots() -> Asked:
    d = Driver(RoomSettings(max_bot_games=2), bot_games=lambda name, identity: 2)
    (ann,) = d.seat("ann")
    d.feed(ann, m.AddBot())
    return d, ann, m.Start()


def _start_seat_missing() -> Asked:
    d = Driver()
    ann, _ = d.seat("ann", "bob", options=[("start", 3)])
    return d, ann, m.Start()


def _show_other() -> Asked:
    d = Driver()
    return d, d.enter("ann"), ShowRequest("top")


def _reset_running() -> Asked:
    d = Driver()
    ann, _ = d.start("ann", "bob")
    return d, ann, m.Reset()


def _reset_fresh() -> Asked:
    d = Driver()
    ann, _ = d.seat("ann", "bob")
    return d, ann, m.Reset()


def _cid_gone() -> tuple[Driver, FakeMember, FakeMember, FakeMember]:
    """ann, bob and cid (seat 3) in a running game, cid's connection lost."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid")
    d.feed(cid, Leave(disconnected=True))
    return d, ann, bob, cid


def _remove_by_watcher() -> Asked:
    d, *_ = _cid_gone()
    back = FakeMember("cid")
    d.feed(back, Enter())  # in the room again, but only watching: the seat waits
    return d, back, m.VoteRemove(name="ann")


def _remove_nobody() -> Asked:
    d, ann, *_ = _cid_gone()
    return d, ann, m.VoteRemove(name="zed")


def _remove_a_bot() -> Asked:
    d = Driver()
    (ann,) = d.seat("ann")
    d.feed(ann, m.AddBot(strategy="random"))
    d.feed(ann, m.Start())
    return d, ann, m.VoteRemove(name=d.core.seats[1].name.upper())


def _remove_self() -> Asked:
    d, ann, *_ = _cid_gone()
    return d, ann, m.VoteRemove(name="ann")


def _remove_out() -> Asked:
    d, ann = _ended("cid")
    return d, ann, m.VoteRemove(name="bob")


def _remove_during_vote() -> Asked:
    d, ann, _, _ = _cid_gone()
    d.feed(d.enter("zoe"), m.Join(seat=3))
    return d, ann, m.VoteRemove(name="cid")


def _remove_too_soon() -> Asked:
    d = Driver()
    ann, _ = d.start("ann", "bob")
    return d, ann, m.VoteRemove(name="bob")


def _join_voted_out() -> Asked:
    d, ann, bob, _ = _cid_gone()
    d.feed(bob, Leave(disconnected=True))
    d.feed(ann, m.VoteRemove(name="cid"))  # ann alone decides
    back = FakeMember("cid")
    d.feed(back, Enter())
    return d, back, m.Join(seat=2)


def _join_no_seat_voted_out() -> Asked:
    d, back, _ = _join_voted_out()
    return d, back, m.Join()


def _join_seat(seat: int, *, bot: bool = False) -> Callable[[], Asked]:
    def asked() -> Asked:
        d = Driver()
        ann, _ = d.seat("ann", "bob")
        if bot:
            d.feed(ann, m.AddBot())
        d.feed(ann, m.Start())
        return d, d.enter("zoe"), m.Join(seat=seat)

    return asked


def _join_seat_seated() -> Asked:
    d, ann, *_ = _cid_gone()
    return d, ann, m.Join(seat=3)


def _join_seat_out() -> Asked:
    d, _ = _ended("cid")
    return d, d.enter("zoe"), m.Join(seat=2)


def _join_seat_during_vote() -> Asked:
    d, *_ = _cid_gone()
    d.feed(d.enter("zoe"), m.Join(seat=3))
    return d, d.enter("yan"), m.Join(seat=3)


def _join_seat_nobody_here() -> Asked:
    d, ann, bob, _ = _cid_gone()
    d.feed(bob, Leave(disconnected=True))
    d.feed(ann, Leave(disconnected=True))
    return d, d.enter("zoe"), m.Join(seat=3)


def _answer_no_vote() -> Asked:
    d, ann, *_ = _cid_gone()
    return d, ann, m.VoteAnswer(yes=True)


def _answer_again() -> Asked:
    d = Driver()
    ann, _, _, dan = d.start("ann", "bob", "cid", "dan")
    d.feed(dan, Leave(disconnected=True))
    d.feed(d.enter("zoe"), m.Join(seat=4))
    d.feed(ann, m.VoteAnswer(yes=True))  # one yes of the two needed: the vote runs on
    return d, ann, m.VoteAnswer(yes=True)


REFUSALS: list[tuple[Callable[[], Asked], str, str]] = [
    (_unknown, "unknown_type", "ListRooms is not handled in rooms."),
    (_resync_outside, "not_in_room", "Enter a room first: /room NAME."),
    (_join_seated, "already_seated", "You already have a seat here."),
    (_join_running, "game_running", "The game is running; watch, or wait for the next one."),
    (_join_full, "room_full", "All four seats are taken."),
    (_give_up_running, "game_running", "You cannot give up a seat during the game."),
    (_add_bot_running, "game_running", "Bots join between games."),
    (_add_bot_full, "room_full", "All four seats are taken."),
    (_remove_no_bot, "no_such_bot", "No server bot called 'zed' sits here."),
    (_remove_bot_running, "game_running", "Bots leave between games."),
    (_option_running, "game_running", "Options are fixed while a game runs."),
    (_no_game, "no_game", "No game is running here; /join and /start one."),
    (_game_over, "game_over", "The game has ended; /start plays again."),
    (_start_unseated, "not_seated", "You have no seat here; /join first."),
    (_not_your_turn(lambda d: m.GetLegalMoves()), "not_your_turn", "It is {mover}'s turn."),
    (_not_your_turn(lambda d: m.PlayMove(move=d.legal())), "not_your_turn", "It is {mover}'s turn."),
    (_spectator_moves, "not_seated", "Spectators cannot play; /join a game first."),
    (_start_running, "game_running", "The game has already started."),
    (_start_alone, "not_enough_players", "A game needs 2 to 4 seated players: /join or /addbot."),
    (
        _start_against_bots,
        "too_many_bot_games",
        "You have 2 games against the server's bots running; finish one first.",
    ),
    (_start_seat_missing, "bad_option", "Seat 3 is to begin, but 2 are taken: /option start."),
    (_show_other, "bad_arguments", "/top is not shown by rooms."),
    (_reset_running, "game_running", "The game is still running."),
    (_reset_fresh, "no_game", "The board is fresh already; /start plays."),
    (_remove_by_watcher, "not_seated", "You do not play a seat here now."),
    (_remove_nobody, "not_seated", "No player called zed sits here."),
    (_remove_a_bot, "not_seated", "random-bot1 is the server's bot: no vote takes it out."),
    (_remove_self, "bad_target", "You cannot vote yourself out; /leave instead."),
    (_remove_out, "not_seated", "bob is out of the game already."),
    (_remove_during_vote, "vote_running", "A vote is running; /accept or /refuse it first."),
    (_remove_too_soon, "too_soon", "bob is connected and has not had the turn for 60 seconds."),
    (_join_voted_out, "voted_out", "You are out of this game; you may watch it."),
    (_join_no_seat_voted_out, "voted_out", "You are out of this game; you may watch it."),
    (_join_seat(4, bot=True), "bad_seat", "This game has seats 1 to 3."),
    (_join_seat(3, bot=True), "seat_taken", "The server's bot greedy-bot1 plays seat 3."),
    (_join_seat(2), "seat_taken", "bob plays seat 2 and is here."),
    (_join_seat_seated, "already_seated", "You already have a seat here."),
    (_join_seat_out, "bad_seat", "bob is out of the game: seat 2 has no turns."),
    (_join_seat_during_vote, "vote_running", "A vote is running; wait for its end."),
    (_join_seat_nobody_here, "no_voters", "Nobody seated is here to accept you; wait until a player is."),
    (_answer_no_vote, "no_vote", "No vote is running here for you to answer."),
    (_answer_again, "no_vote", "You have answered this vote already."),
]


@pytest.mark.parametrize(("asked", "code", "text"), REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_each_refusal_has_its_code_and_its_words(asked: Callable[[], Asked], code: str, text: str) -> None:
    """The refusal goes to the asker alone, with its code and its text, word for word."""
    d, asker, message = asked()
    mover = d.to_move if d.core.state == "playing" else ""
    refused = d.feed(asker, message)
    assert [(r.code, r.text) for r in refused.replies()] == [(code, text.format(mover=mover))]
    assert refused.recipients == {id(asker)} and refused.written is None
