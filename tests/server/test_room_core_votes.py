"""Votes to remove a player, driven on the room core with a clock of the test's own."""

from __future__ import annotations

from engine import GameRecord
from protocol import messages as m
from protocol.i18n import lang
from server.log.contract import StoredGame
from server.room.effects import MoveLogged, VotedOut
from server.room.items import Leave, Returned
from server.room.votes import ASK_AGAIN, TURN_MIN, VOTE, VOTE_TIME
from tests.server.roomcore import GAME_ID, SEED, Driver, FakeMember, state_of


def _three() -> tuple[Driver, dict[str, FakeMember]]:
    """ann, bob and cid in a running game; the one to move is ``d.to_move``."""
    d = Driver()
    members = d.start("ann", "bob", "cid")
    return d, {p.name or "": p for p in members}


def test_a_connected_player_cannot_be_removed_before_a_minute_of_their_turn() -> None:
    """``/remove`` of someone connected is ``too_soon`` until they had the turn for a minute."""
    d, people = _three()
    mover = d.to_move
    asker = next(p for n, p in people.items() if n != mover)
    d.now += TURN_MIN - 1
    assert d.feed(asker, m.VoteRemove(name=mover)).codes(asker) == ["too_soon"]
    other = next(n for n in people if n not in (mover, asker.name))
    d.now += 10
    assert d.feed(asker, m.VoteRemove(name=other)).codes(asker) == ["too_soon"]  # not their turn
    opened = d.feed(asker, m.VoteRemove(name=mover, id=1))
    assert opened.replies() == []
    votes = opened.of(people[other], m.Vote)
    assert [(v.state, v.name, v.by, v.yes, sorted(v.voters)) for v in votes] == [
        ("open", mover, asker.name, [asker.name], sorted([asker.name or "", other]))
    ]
    assert d.timers[VOTE].at == d.now + VOTE_TIME  # type: ignore[union-attr]


def test_a_majority_of_the_others_removes_a_player_and_a_bot_plays_on() -> None:
    """With two others, the second yes passes the vote: the seat goes to a bot (absent bot), and
    the player is out of the game: another ``/remove`` of them is ``not_seated``."""
    d, people = _three()
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    d.feed(asker, m.VoteRemove(name=mover))
    done = d.feed(other, m.VoteAnswer(yes=True, id=2))
    assert [v.state for v in done.of(asker, m.Vote)] == ["passed"]
    assert (mover, "replaced_by_bot") in done.presence(asker)
    seat = d.core.seat_of(mover)
    assert seat is not None and seat.session is None and seat.stand_in == "greedy"
    assert "turn" in d.timers and VOTE not in d.timers  # the bot thinks; the vote's timer is gone
    assert d.feed(people[mover], m.PlayMove(move=d.legal())).codes(people[mover]) == ["not_seated"]
    # out for the rest of the game: no second vote on them (it would hold off every other)
    again = d.feed(other, m.VoteRemove(name=mover))
    assert again.codes(other) == ["not_seated"] and not again.of(asker, m.Vote)


def test_a_no_that_makes_a_majority_impossible_fails_the_vote() -> None:
    """With two voters a single no fails the vote, and nothing changes."""
    d, people = _three()
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    d.feed(asker, m.VoteRemove(name=mover))
    done = d.feed(other, m.VoteAnswer(yes=False))
    assert [v.state for v in done.of(people[mover], m.Vote)] == ["failed"]
    seat = d.core.seat_of(mover)
    assert seat is not None and seat.session is people[mover]


def test_an_unanswered_vote_expires_after_a_minute() -> None:
    """Left unanswered, the vote expires when its timer fires; a new one may then start."""
    d, people = _three()
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    d.feed(asker, m.VoteRemove(name=mover))
    assert d.feed(other, m.VoteRemove(name=mover)).codes(other) == ["vote_running"]
    done = d.fire(VOTE)
    assert [v.state for v in done.of(other, m.Vote)] == ["expired"]
    assert d.feed(other, m.VoteAnswer(yes=True)).codes(other) == ["no_vote"]
    assert d.feed(other, m.VoteRemove(name=mover)).replies() == []


def test_an_old_expiry_does_not_end_a_newer_vote() -> None:
    """The expiry of a vote already decided leaves the next vote running."""
    d, people = _three()
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    d.feed(asker, m.VoteRemove(name=mover))
    stale = d.due(VOTE)  # its timer fired as the vote was decided
    d.feed(other, m.VoteAnswer(yes=False))
    d.now += ASK_AGAIN
    d.feed(asker, m.VoteRemove(name=mover))
    assert d.feed(None, stale).effects == []
    assert d.feed(other, m.VoteAnswer(yes=True)).replies() == []


def test_a_gone_player_is_removed_by_the_single_other_player_alone() -> None:
    """Two players, one gone: the other's ``/remove`` decides alone, at once; with absent drop the
    player leaves the game, logged like a move, and coming back they only watch."""
    d = Driver()
    ann, bob = d.start("ann", "bob", "cid", options=[("absent", "drop")])[:2]
    cid = next(p for p in d.core.members if p.name == "cid")
    d.feed(cid, Leave(disconnected=True))
    done = d.feed(ann, m.VoteRemove(name="cid"))
    assert done.codes(ann) == []
    assert [v.state for v in done.of(bob, m.Vote)] == ["open"]  # bob is the other voter
    done = d.feed(bob, m.VoteAnswer(yes=True))
    assert done.written and isinstance(d.written[-1], MoveLogged) and d.written[-1].move == "leave cid"
    assert d.written[-2] == VotedOut(GAME_ID, "cid")  # logged first: a restart keeps cid watching
    back = FakeMember("cid")
    again = d.feed(back, Returned())
    assert ("cid", "entered") in again.presence(ann) and d.core.seat_of("cid") is not None
    assert "ack" not in again.types(back)  # cid came back by token and asked for nothing
    assert d.core.seat_of("cid").session is None  # type: ignore[union-attr]


def test_one_other_player_decides_alone() -> None:
    """In a game of two, the other player's ``/remove`` of a gone player passes at once."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    d.feed(bob, Leave(disconnected=True))
    done = d.feed(ann, m.VoteRemove(name="bob"))
    assert [v.state for v in done.of(ann, m.Vote)] == ["passed"]
    assert d.core.seat_of("bob").stand_in == "greedy"  # type: ignore[union-attr]


def test_remove_refusals() -> None:
    """No game: ``no_game``; a spectator: ``not_seated``; yourself: ``bad_target``; a stranger or a
    server bot: ``not_seated``; answering without a vote: ``no_vote``."""
    d = Driver()
    ann, _ = d.seat("ann", "bob")
    assert d.feed(ann, m.VoteRemove(name="bob")).codes(ann) == ["no_game"]
    d.feed(ann, m.AddBot())
    d.feed(ann, m.Start())
    zoe = d.enter("zoe")
    assert d.feed(zoe, m.VoteRemove(name="bob")).codes(zoe) == ["not_seated"]
    assert d.feed(ann, m.VoteRemove(name="ann")).codes(ann) == ["bad_target"]
    assert d.feed(ann, m.VoteRemove(name="nobody")).codes(ann) == ["not_seated"]
    assert d.feed(ann, m.VoteRemove(name="greedy-bot1")).codes(ann) == ["not_seated"]
    assert d.feed(ann, m.VoteAnswer(yes=True)).codes(ann) == ["no_vote"]


def test_those_out_of_the_game_neither_vote_nor_are_voted_on() -> None:
    """A player voted out of the game (back to watch) may not ask for a vote, and nobody may ask
    to remove them again."""
    d = Driver()
    ann, bob = d.start("ann", "bob", "cid", options=[("absent", "drop")])[:2]
    cid = next(p for p in d.core.members if p.name == "cid")
    d.feed(cid, Leave(disconnected=True))
    d.feed(ann, m.VoteRemove(name="cid"))
    d.feed(bob, m.VoteAnswer(yes=True))
    back = FakeMember("cid")
    d.feed(back, Returned())
    assert d.feed(back, m.VoteRemove(name="ann")).codes(back) == ["not_seated"]
    refused = d.feed(ann, m.VoteRemove(name="cid"))
    assert refused.codes(ann) == ["not_seated"] and "cid" in refused.replies()[0].text


def test_each_voter_answers_once_and_every_vote_and_answer_is_acked() -> None:
    """The asker's own yes counts already, so the asker cannot answer; another voter's answer is
    acked once and a second answer refused; the vote names the target's seat from 1."""
    d = Driver()
    people = {p.name: p for p in d.start("ann", "bob", "cid", "dan")}
    mover = d.to_move
    asker, other, third = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    opened = d.feed(asker, m.VoteRemove(name=mover))
    assert "ack" in opened.types(asker)
    [vote] = opened.of(other, m.Vote)
    assert vote.seat == [s.name for s in d.core.seats].index(mover) + 1
    assert d.feed(asker, m.VoteAnswer(yes=False)).codes(asker) == ["no_vote"]
    answered = d.feed(other, m.VoteAnswer(yes=False))
    assert answered.replies() == [] and "ack" in answered.types(other)
    assert d.feed(other, m.VoteAnswer(yes=True)).codes(other) == ["no_vote"]
    assert [v.state for v in d.feed(third, m.VoteAnswer(yes=False)).of(asker, m.Vote)] == ["failed"]


def test_the_minute_counts_from_the_start_of_the_turn_whenever_the_game_began() -> None:
    """In a game begun late on the room's clock a connected player to move still has a whole
    minute of the turn before a vote; when it passes, everyone is told why a bot took the seat."""
    d = Driver()
    d.now = 1000.0
    people = {p.name: p for p in d.start("ann", "bob", "cid")}
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN - 1
    assert d.feed(asker, m.VoteRemove(name=mover)).codes(asker) == ["too_soon"]
    d.now += 1
    d.feed(asker, m.VoteRemove(name=mover))
    done = d.feed(other, m.VoteAnswer(yes=True))
    [replaced] = [p for p in done.of(asker, m.Presence) if p.event == "replaced_by_bot"]
    assert (replaced.name, replaced.detail) == (mover, "voted out")


def test_the_expiry_of_a_decided_vote_leaves_the_next_one_running() -> None:
    """The timer armed for a vote that was decided since ends no later vote when it fires."""
    d, people = _three()
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    d.feed(asker, m.VoteRemove(name=mover))
    first_expiry = d.timers[VOTE].item  # type: ignore[union-attr]
    d.feed(other, m.VoteAnswer(yes=False))
    d.now += ASK_AGAIN
    d.feed(asker, m.VoteRemove(name=mover))
    assert d.feed(None, first_expiry).effects == []
    assert d.feed(other, m.VoteAnswer(yes=True)).replies() == []


def test_a_name_not_seated_is_echoed_only_in_part() -> None:
    """Refusing a vote on a name nobody holds, the answer repeats at most 24 of its characters."""
    d = Driver()
    ann, _ = d.start("ann", "bob")
    name = "abcdefghijklmnopqrstuvwxyz"
    refused = d.feed(ann, m.VoteRemove(name=name)).replies()[0].text
    assert name[:24] in refused and name[:25] not in refused


def test_the_minute_of_a_turn_counts_from_its_start_and_anew_for_each_turn() -> None:
    """Coming back during one's own turn does not start its minute again; the next turn has a
    minute of its own."""
    d, people = _three()
    mover = d.to_move
    asker = next(p for n, p in people.items() if n != mover)
    d.now = 50.0
    d.feed(people[mover], Leave(disconnected=True))
    again = FakeMember(mover)
    d.feed(again, Returned())
    d.now = TURN_MIN
    assert d.feed(asker, m.VoteRemove(name=mover)).replies() == []  # a minute since the turn began
    d, people = _three()
    d.now = 100.0
    d.move(people.values())
    mover = d.to_move
    asker = next(p for n, p in people.items() if n != mover)
    d.now = 100.0 + TURN_MIN - 1
    assert d.feed(asker, m.VoteRemove(name=mover)).codes(asker) == ["too_soon"]


def test_a_vote_out_is_logged_before_the_bot_takes_the_seat() -> None:
    """A ``/remove`` that passes writes ``VotedOut`` to the log; only then a bot plays the seat."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    d.feed(bob, Leave(disconnected=True))
    done = d.feed(ann, m.VoteRemove(name="bob"))
    assert done.written and d.written[-1] == VotedOut(GAME_ID, "bob")
    assert ("bob", "replaced_by_bot") in done.presence(ann)


def test_a_vote_out_the_log_refuses_changes_nothing() -> None:
    """The log refuses the vote-out: everyone reads that it could not be done, the seat is as it
    was, and its player coming back plays it again."""
    d, people = _three()
    ann, bob, cid = people["ann"], people["bob"], people["cid"]
    d.feed(cid, Leave(disconnected=True))
    d.feed(ann, m.VoteRemove(name="cid"))
    before = state_of(d.core)
    done = d.feed(bob, m.VoteAnswer(yes=True), log=False)
    assert done.written is False and not any(isinstance(e, VotedOut) for e in d.written)
    assert [n.text for n in done.of(ann, m.Notice)] == ["cid could not be voted out: try again."]
    assert ("cid", "replaced_by_bot") not in done.presence(ann)
    assert state_of(d.core) == before
    back = FakeMember("cid")
    d.feed(back, Returned())
    assert d.core.seats[2].session is back


def test_a_game_taken_up_from_the_log_keeps_its_players_voted_out() -> None:
    """Restored with bob voted out: a bot plays his seat at once (no resume window for him), and
    bob, back with his token, watches; ``/join 2`` answers ``voted_out``."""
    record = GameRecord(players=("ann", "bob", "cid"), seed=SEED)
    kinds = ("person", "person", "person")
    stored = StoredGame("g0", "cafe", record, kinds, 0.0, None, None, voted_out=("bob",))
    d = Driver()
    done = d.finish(d.core.restore(stored, 0.0))
    assert sorted(a.key for a in done.arms if a.key.startswith("window:")) == ["window:ann", "window:cid"]
    assert [(s.name, s.stand_in) for s in d.core.seats] == [("ann", None), ("bob", "greedy"), ("cid", None)]
    bob = FakeMember("bob")
    d.feed(bob, Returned())
    assert d.views[bob]["seat"] is None and "bob" in d.views[bob]["spectators"]
    assert d.core.seats[1].session is None
    assert d.feed(bob, m.Join(seat=2)).codes(bob) == ["voted_out"]


def test_a_vote_open_when_its_game_ends_ends_with_it() -> None:
    """A ``/remove`` of gone cid is open when the game ends (the others leave it, absent drop):
    it is cancelled then, told to the room; an answer afterwards is ``no_vote``, also once a new
    game runs, whose seats no vote of the old one touches."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid", options=[("absent", "drop")])
    d.feed(cid, Leave(disconnected=True))
    assert [v.state for v in d.feed(ann, m.VoteRemove(name="cid")).of(bob, m.Vote)] == ["open"]
    d.feed(bob, m.LeaveGame())
    over = d.feed(ann, m.LeaveGame())
    assert d.core.state == "over"
    assert [v.state for v in over.of(bob, m.Vote)] == ["cancelled"] and VOTE not in d.timers
    assert d.feed(bob, m.VoteAnswer(yes=True)).codes(bob) == ["no_vote"]
    assert d.feed(ann, m.Join()).codes(ann) == []
    dan = d.enter("dan", join=True)
    assert d.feed(ann, m.Start(id="again")).written and d.core.state == "playing"
    answered = d.feed(bob, m.VoteAnswer(yes=True))
    assert answered.codes(bob) == ["no_vote"] and not answered.written
    assert {s.name: s.session for s in d.core.seats if s.name in ("ann", "dan")} == {"ann": ann, "dan": dan}


def test_a_remove_vote_ends_when_its_player_comes_back() -> None:
    """A ``/remove`` of gone cid: cid coming back with the token cancels it, and the others' yes
    then is ``no_vote`` (cid, connected, keeps the seat)."""
    d, people = _three()
    ann, bob = people["ann"], people["bob"]
    d.feed(people["cid"], Leave(disconnected=True))
    d.feed(ann, m.VoteRemove(name="cid"))
    back = FakeMember("cid")
    returned = d.feed(back, Returned())
    assert [v.state for v in returned.of(ann, m.Vote)] == ["cancelled"]
    assert d.feed(bob, m.VoteAnswer(yes=True)).codes(bob) == ["no_vote"]
    assert d.core.seat_of("cid").session is back  # type: ignore[union-attr]


def test_a_remove_vote_whose_player_moves_is_cancelled_at_once() -> None:
    """A ``/remove`` of a connected player on the turn for a minute: they move before the others
    answer, and the move cancels the vote (everyone is told with it; a vote left open would hold
    off every other for its minute); a later yes is ``no_vote``, and they keep the seat."""
    d, people = _three()
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    d.feed(asker, m.VoteRemove(name=mover))
    moved = d.move(people.values())
    assert moved.written
    assert [v.state for v in moved.of(other, m.Vote)] == ["cancelled"]
    assert VOTE not in d.timers
    assert d.feed(other, m.VoteAnswer(yes=True)).codes(other) == ["no_vote"]
    assert d.core.seat_of(mover).session is people[mover]  # type: ignore[union-attr]


def test_who_asked_a_vote_that_did_not_pass_waits_before_asking_again() -> None:
    """A refused ``/remove``: its asker's next one is ``too_soon`` for half a minute (each vote
    asks every player; in its last second the refusal counts one second, in the singular, in
    English and German), another player may ask meanwhile, and after it the asker may again."""
    d, people = _three()
    mover = d.to_move
    asker, other = (p for n, p in people.items() if n != mover)
    d.now += TURN_MIN
    d.feed(asker, m.VoteRemove(name=mover))
    d.feed(other, m.VoteAnswer(yes=False))
    again = d.feed(asker, m.VoteRemove(name=mover))
    assert again.codes(asker) == ["too_soon"] and not again.sends(other)
    assert "30 seconds" in again.replies(asker)[0].text
    d.now += ASK_AGAIN - 1
    [refused] = d.feed(asker, m.VoteRemove(name=mover)).replies(asker)
    assert refused.code == "too_soon"
    assert refused.text == "Your last vote did not pass: ask again in 1 second."
    assert lang("de")(refused.text) == "Deine letzte Abstimmung ging nicht durch: frag in 1 Sekunde wieder."
    opened = d.feed(other, m.VoteRemove(name=mover))
    assert opened.codes(other) == [] and [v.state for v in opened.of(asker, m.Vote)] == ["open"]
    d.feed(asker, m.VoteAnswer(yes=False))
    d.now += 1
    assert d.feed(asker, m.VoteRemove(name=mover)).codes(asker) == []
