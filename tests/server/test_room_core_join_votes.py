"""``/join N``: taking over the seat of a player who is gone, by a vote of the seated players,
driven on the room core with a clock of the test's own."""

from __future__ import annotations

from protocol import messages as m
from server.room.effects import Note, SeatTaken
from server.room.items import Enter, Leave, Returned
from server.room.votes import ASK_AGAIN, VOTE, VOTE_TIME
from tests.server.roomcore import GAME_ID, Driver, FakeMember


def _cid_gone() -> tuple[Driver, FakeMember, FakeMember, FakeMember]:
    """ann, bob and cid (seat 3) in a running game, cid's connection lost; zoe watches."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid")
    d.feed(cid, Leave(disconnected=True))
    return d, ann, bob, d.enter("zoe")


def _states(handled: object, member: FakeMember) -> list[str]:
    return [v.state for v in handled.of(member, m.Vote)]  # type: ignore[attr-defined]


def test_a_majority_lets_a_spectator_take_over_a_gone_players_seat() -> None:
    """The seated others get the prompt; the second yes of two passes it: the seat is logged as
    zoe's, her view holds the hand, and cid coming back only watches."""
    d, ann, bob, zoe = _cid_gone()
    opened = d.feed(zoe, m.Join(seat=3, id=1))
    assert opened.codes(zoe) == [] and opened.types(zoe)[0] == "ack"
    (vote,) = opened.of(ann, m.Vote)
    assert (vote.kind, vote.state, vote.by, vote.name, vote.seat) == ("join", "open", "zoe", "cid", 3)
    assert sorted(vote.voters) == ["ann", "bob"] and d.timers[VOTE].at == d.now + VOTE_TIME  # type: ignore[union-attr]
    assert _states(d.feed(ann, m.VoteAnswer(yes=True)), bob) == ["open"]
    done = d.feed(bob, m.VoteAnswer(yes=True))
    assert _states(done, zoe) == ["passed"] and ("zoe", "joined") in done.presence(ann)
    [joined] = [p for p in done.of(ann, m.Presence) if p.event == "joined"]
    assert joined.detail == "seat 3, cid's"
    assert d.written[-1] == SeatTaken(GAME_ID, 2, "cid", "zoe", "id-zoe")
    [taken] = [e.fields for e in done.effects if isinstance(e, Note) and e.event == "seat_taken"]
    assert taken == {"game": GAME_ID, "seat": 3, "player": "zoe", "old": "cid"}
    seat = d.core.seats[2]
    assert (seat.name, seat.session, seat.stand_in, seat.identity) == ("zoe", zoe, None, "id-zoe")
    assert d.position.players[2].name == "zoe" and d.core.game.record.players[2] == "zoe"  # type: ignore[union-attr]
    assert d.views[zoe]["you"] == "zoe" and d.views[zoe]["game"]["hand"]
    assert "hand" not in d.views[ann]["game"] or d.views[ann]["game"]["hand"] != d.views[zoe]["game"]["hand"]
    assert "window:cid" not in d.timers and VOTE not in d.timers
    back = FakeMember("cid")
    d.feed(back, Returned())
    assert d.core.seat_of("cid") is None and d.core.seats[2].session is zoe
    assert d.feed(back, m.Join(seat=1)).codes(back) == ["voted_out"]


def test_the_new_player_moves_when_the_seat_has_the_turn() -> None:
    """A bot playing the seat stops; the seat's turn is the new player's, who plays it."""
    d = Driver()
    people = {p.name: p for p in d.start("ann", "bob")}
    mover = d.to_move
    other = next(n for n in people if n != mover)
    d.feed(people[mover], Leave(disconnected=True))
    d.fire(f"window:{mover}")  # a bot plays the seat now
    assert "turn" in d.timers
    zoe = d.enter("zoe")
    d.feed(zoe, m.Join(seat=[*people].index(mover) + 1))
    d.feed(people[other], m.VoteAnswer(yes=True))  # one other player decides alone
    assert "turn" not in d.timers and d.to_move == "zoe"
    played = d.feed(zoe, m.PlayMove(move=d.legal(), id=5))
    assert played.written and played.codes(zoe) == []


def test_a_refusal_that_makes_a_majority_impossible_fails_the_vote() -> None:
    """With two voters one ``/refuse`` fails the vote; the seat stays cid's."""
    d, ann, _, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    done = d.feed(ann, m.VoteAnswer(yes=False))
    assert _states(done, zoe) == ["failed"] and VOTE not in d.timers
    assert d.core.seats[2].name == "cid" and not any(isinstance(e, SeatTaken) for e in d.written)


def test_an_unanswered_request_expires() -> None:
    """Left unanswered, the request expires with its timer; a new one may start half a minute
    later."""
    d, ann, _, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    assert _states(d.fire(VOTE), zoe) == ["expired"]
    assert d.core.seats[2].name == "cid"
    assert d.feed(ann, m.VoteAnswer(yes=True)).codes(ann) == ["no_vote"]
    assert d.feed(zoe, m.Join(seat=3)).codes(zoe) == ["too_soon"]  # (asked everyone a minute)
    d.now += ASK_AGAIN
    assert d.feed(zoe, m.Join(seat=3)).codes(zoe) == []


def test_the_asker_leaving_cancels_the_request() -> None:
    """The asker leaves the room mid-vote: the vote is cancelled and its timer with it."""
    d, ann, _, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    left = d.feed(zoe, Leave(disconnected=True))
    assert _states(left, ann) == ["cancelled"] and VOTE not in d.timers
    assert d.feed(ann, m.VoteAnswer(yes=True)).codes(ann) == ["no_vote"]
    assert d.core.seats[2].name == "cid"


def test_the_seats_player_coming_back_cancels_the_request() -> None:
    """cid comes back mid-vote: the vote is cancelled and cid plays the seat again."""
    d, _, _, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    back = FakeMember("CID")  # the name, whatever its capitals
    returned = d.feed(back, Returned())
    assert _states(returned, zoe) == ["cancelled"] and VOTE not in d.timers
    assert d.core.seats[2].session is back


def test_a_second_request_while_one_runs_is_refused() -> None:
    """A second ``/join N`` (or a ``/remove``) while a vote runs: ``vote_running``."""
    d, ann, bob, zoe = _cid_gone()
    d.feed(bob, Leave(disconnected=True))
    d.feed(zoe, m.Join(seat=3))
    yan = d.enter("yan")
    assert d.feed(yan, m.Join(seat=2)).codes(yan) == ["vote_running"]
    assert d.feed(yan, m.Join(seat=3)).codes(yan) == ["vote_running"]
    assert d.feed(ann, m.VoteRemove(name="bob")).codes(ann) == ["vote_running"]


def test_join_seat_refusals() -> None:
    """No game: ``no_game``; no such seat or a player out: ``bad_seat``; a connected player's or
    a server bot's seat: ``seat_taken``; a seated asker: ``already_seated``; nobody seated here:
    ``no_voters``; a player voted out of the game: ``voted_out``."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    zoe = d.enter("zoe")
    assert d.feed(zoe, m.Join(seat=1)).codes(zoe) == ["no_game"]
    d.feed(ann, m.AddBot())
    d.feed(ann, m.Start())
    assert d.feed(zoe, m.Join(seat=4)).codes(zoe) == ["bad_seat"]
    assert d.feed(zoe, m.Join(seat=1)).codes(zoe) == ["seat_taken"]
    assert d.feed(zoe, m.Join(seat=3)).codes(zoe) == ["seat_taken"]  # greedy-bot1
    d.feed(bob, Leave(disconnected=True))
    assert d.feed(ann, m.Join(seat=2)).codes(ann) == ["already_seated"]
    d.feed(ann, Leave(disconnected=True))
    assert d.feed(zoe, m.Join(seat=2)).codes(zoe) == ["no_voters"]
    assert d.core.votes.running is None


def test_a_player_voted_out_cannot_take_a_seat_back_by_join() -> None:
    """A player voted out asks for a seat: ``voted_out``."""
    d = Driver()
    ann, bob, cid = d.start("ann", "bob", "cid")
    d.feed(cid, Leave(disconnected=True))
    d.feed(bob, Leave(disconnected=True))
    d.feed(ann, m.VoteRemove(name="cid"))  # ann alone decides
    back = FakeMember("cid")
    d.feed(back, Returned())
    assert d.feed(back, m.Join(seat=2)).codes(back) == ["voted_out"]
    assert d.feed(back, m.Join(seat=3)).codes(back) == ["voted_out"]


def test_a_player_takes_their_own_seat_back_without_a_vote() -> None:
    """``/join N`` of one's own seat that waits (here after leaving the room): back at once."""
    d, ann, _, _ = _cid_gone()
    back = FakeMember("cid")
    d.feed(back, Enter())
    assert d.core.seats[2].session is None  # entering the room only watches
    took = d.feed(back, m.Join(seat=3, id=9))
    assert took.codes(back) == [] and d.core.seats[2].session is back and d.core.votes.running is None
    assert "ack" in took.types(back) and d.views[back]["seat"] == 2 and d.views[back]["game"]["hand"]
    assert ("cid", "back") in took.presence(ann) and took.presence(back) == []


def test_a_refused_log_write_leaves_the_seat_as_it_was() -> None:
    """The log refuses the takeover: the seat stays cid's and everyone hears it failed."""
    d, ann, bob, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    d.feed(ann, m.VoteAnswer(yes=True))
    done = d.feed(bob, m.VoteAnswer(yes=True), log=False)
    assert done.written is False and d.core.seats[2].name == "cid" and d.core.seats[2].session is None
    assert [n.text for n in done.of(zoe, m.Notice)] == ["zoe could not take seat 3: try again."]


def test_someone_else_leaving_keeps_the_request_running() -> None:
    """Another spectator leaving mid-vote cancels nothing: the vote runs on and may pass."""
    d, ann, bob, zoe = _cid_gone()
    yan = d.enter("yan")
    d.feed(zoe, m.Join(seat=3))
    left = d.feed(yan, Leave())
    assert left.of(ann, m.Vote) == [] and VOTE in d.timers
    d.feed(ann, m.VoteAnswer(yes=True))
    assert _states(d.feed(bob, m.VoteAnswer(yes=True)), zoe) == ["passed"]


def test_the_new_player_starts_with_no_timeouts_of_the_old() -> None:
    """The clock ran out for cid while gone; zoe, taking the seat over, starts with none."""
    d = Driver()
    people = {p.name: p for p in d.start("ann", "bob", "cid", options=[("clock", 30)])}
    gone = d.to_move
    d.feed(people[gone], Leave(disconnected=True))
    d.fire("turn")
    index = [*people].index(gone)
    assert d.core.seats[index].timeouts == 1
    zoe = d.enter("zoe")
    d.feed(zoe, m.Join(seat=index + 1))
    for name, member in people.items():
        if name != gone:
            d.feed(member, m.VoteAnswer(yes=True))
    assert d.core.seats[index].name == "zoe" and d.core.seats[index].timeouts == 0


def test_a_voter_who_no_longer_plays_a_seat_neither_answers_nor_holds_the_vote() -> None:
    """The voters are the players connected to their seats: ann, who lost her connection and came
    back only to watch while a bot played her seat, cannot answer (``no_vote``); bob's yes, alone
    of the voters left, passes the vote. One who goes after answering takes the answer along."""
    d, ann, bob, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    d.feed(ann, Leave(disconnected=False))  # out of the room: a bot plays her seat
    back = d.enter("ann")
    assert d.core.seats[0].session is None
    refused = d.feed(back, m.VoteAnswer(yes=True, id=4))
    assert refused.codes(back) == ["no_vote"]
    done = d.feed(bob, m.VoteAnswer(yes=True))
    assert _states(done, zoe) == ["passed"] and d.core.seats[2].session is zoe


def test_a_vote_whose_voter_left_after_the_others_answered_passes_at_its_minute() -> None:
    """bob answered yes while ann still played; ann then left: at its minute the vote passes on
    bob's yes, rather than expiring (its asker would have had to wait to ask again)."""
    d, ann, bob, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    assert _states(d.feed(bob, m.VoteAnswer(yes=True)), zoe) == ["open"]
    d.feed(ann, Leave(disconnected=True))
    done = d.fire(VOTE)
    assert _states(done, zoe) == ["passed"] and d.core.seats[2].session is zoe


def test_who_comes_into_the_room_while_a_vote_runs_reads_it() -> None:
    """A vote reaches whoever comes into the room while it runs, after their snapshot: a newcomer,
    and a voter back on a new connection (who may answer it); nobody reads it a second time."""
    d, ann, bob, zoe = _cid_gone()
    d.feed(zoe, m.Join(seat=3))
    d.feed(ann, Leave(disconnected=True))
    back = FakeMember("ann")
    returned = d.feed(back, Returned())
    assert returned.types(back)[0] == "snapshot"
    assert _states(returned, back) == ["open"] and _states(returned, bob) == []
    uma = FakeMember("uma")
    assert _states(d.feed(uma, Enter()), uma) == ["open"]
    done = d.feed(back, m.VoteAnswer(yes=True))
    assert _states(done, zoe) == ["open"]  # (bob's answer still to come)


def test_a_voter_back_on_their_seat_votes_again_though_an_answer_was_counted_meanwhile() -> None:
    """bob's connection is lost while a vote runs, ann answers meanwhile (bob is no voter then);
    bob back on his seat reads the vote with himself among the voters, and his answer counts."""
    d = Driver()
    ann, bob, _dan, cid = d.start("ann", "bob", "dan", "cid")
    d.feed(cid, Leave(disconnected=True))
    zoe = d.enter("zoe")
    d.feed(zoe, m.Join(seat=4))
    d.feed(bob, Leave(disconnected=True))
    (counted,) = d.feed(ann, m.VoteAnswer(yes=True)).of(zoe, m.Vote)
    assert sorted(counted.voters) == ["ann", "dan"] and counted.state == "open"
    back = FakeMember("bob")
    (shown,) = d.feed(back, Returned()).of(back, m.Vote)
    assert sorted(shown.voters) == ["ann", "bob", "dan"] and shown.yes == ["ann"]
    done = d.feed(back, m.VoteAnswer(yes=True, id=9))
    assert done.codes(back) == [] and _states(done, zoe) == ["passed"]
