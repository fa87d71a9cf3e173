"""The room core's host, drawn seats, who begins, ``/info`` and ``/reset``, driven item by item."""

from __future__ import annotations

import pytest

from protocol import messages as m
from protocol.commands import ShowRequest
from server.room.effects import GameStart
from server.room.items import Leave
from tests.server.roomcore import Driver


def test_only_the_host_sets_options_seats_bots_and_starts() -> None:
    """The first seated person is host: the others' option, bot and start are ``not_host``."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    for message in (m.SetOption(key="clock", value=60), m.AddBot(), m.Start(), m.Reset()):
        done = d.feed(bob, message)
        assert done.codes(bob) == ["not_host"], message
        assert "ann" in done.replies(bob)[0].text
    assert d.core.options.clock is None and len(d.core.seats) == 2
    assert d.feed(ann, m.SetOption(key="clock", value=60)).replies() == []


def test_the_next_seated_person_is_host_when_the_host_leaves() -> None:
    """When the host gives up the seat, the next seated person is host."""
    d = Driver()
    ann, bob, cid = d.seat("ann", "bob", "cid")
    d.feed(ann, Leave())
    assert d.core.host is not None and d.core.host.name == "bob"
    assert d.feed(bob, m.AddBot()).replies() == []
    assert d.feed(cid, m.AddBot()).codes(cid) == ["not_host"]


def test_a_disconnected_host_hands_over_during_a_game() -> None:
    """In a running game a host who lost the connection is not host; the next connected player is."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    d.feed(ann, Leave(disconnected=True))
    assert d.core.host is not None and d.core.host.name == "bob"
    assert d.feed(bob, m.SetOption(key="private", value=True)).replies() == []


def test_with_host_off_any_seated_player_decides_but_no_spectator() -> None:
    """``host off``: every seated player may set options and seat bots; a spectator may not."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    assert d.feed(ann, m.SetOption(key="host", value=False)).replies() == []
    assert d.core.host is None
    assert d.feed(bob, m.SetOption(key="stammtisch", value=True)).replies() == []
    zoe = d.enter("zoe")
    assert d.feed(zoe, m.AddBot()).codes(zoe) == ["not_seated"]


def test_host_and_private_may_change_during_a_game_and_other_options_not() -> None:
    """``private`` and ``host`` change during a game; the clock stays fixed."""
    d = Driver()
    ann, _ = d.start("ann", "bob")
    assert d.feed(ann, m.SetOption(key="private", value=True)).replies() == []
    assert d.core.summary().options["private"] is True
    assert d.feed(ann, m.SetOption(key="clock", value=60)).codes(ann) == ["game_running"]


def test_start_n_names_the_seat_that_begins() -> None:
    """With ``start 2`` the second seat begins, and the record says so."""
    d = Driver()
    d.start("ann", "bob", "cid", options=[("start", 2)])
    assert d.to_move == "bob"
    start = d.written[0]
    assert isinstance(start, GameStart) and start.record.start_player == 1


def test_start_n_beyond_the_seats_is_refused() -> None:
    """``start 4`` with three seats is ``bad_option`` at the start, and nothing starts."""
    d = Driver()
    ann, _, _ = d.seat("ann", "bob", "cid", options=[("start", 4)])
    assert d.feed(ann, m.Start()).codes(ann) == ["bad_option"]
    assert d.core.state == "waiting"


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_drawseat_shuffles_the_seats_from_the_seed(seed: int) -> None:
    """With ``drawseat on`` the seats are the seed's shuffle of the seated, the same every time,
    and every member's view shows them so, each player at its drawn seat."""
    orders = set()
    for _ in range(2):
        d = Driver(seed=seed)
        members = d.start("ann", "bob", "cid", "dan", options=[("drawseat", True)])
        order = tuple(s.name for s in d.core.seats)
        assert sorted(order) == ["ann", "bob", "cid", "dan"]
        assert d.position.players[0].name == order[0]
        for member in members:
            view = d.views[member]
            assert [seat["name"] for seat in view["seats"]] == list(order)
            assert view["seat"] == order.index(member.name)
        orders.add(order)
    assert len(orders) == 1


def test_drawseat_changes_some_order() -> None:
    """Over a few seeds, drawn seats are not always in the order people sat down."""
    orders = set()
    for seed in range(6):
        d = Driver(seed=seed)
        d.start("ann", "bob", "cid", "dan", options=[("drawseat", True)])
        orders.add(tuple(s.name for s in d.core.seats))
    assert len(orders) > 1


def test_without_drawseat_the_seats_keep_their_order() -> None:
    """Without ``drawseat`` the seats stay in the order people sat down."""
    d = Driver()
    d.start("ann", "bob", "cid", "dan")
    assert [s.name for s in d.core.seats] == ["ann", "bob", "cid", "dan"]


def test_info_tells_options_rating_clock_and_host() -> None:
    """``/info`` answers a text with the host, whether rated, the clock and the options."""
    d = Driver(seed=None)
    ann, _ = d.seat("ann", "bob", options=[("clock", 30)])
    zoe = d.enter("zoe")
    texts = d.feed(zoe, ShowRequest("info", id=4)).of(zoe, m.Text)
    assert len(texts) == 1 and texts[0].kind == "info" and texts[0].id == 4
    text = texts[0].text
    assert "Host: ann." in text and "Rated: no, fewer than two" in text and "Clock: 30 seconds" in text
    d.feed(ann, m.SetOption(key="seed", value=5))
    assert "practice" in d.feed(zoe, ShowRequest("info")).of(zoe, m.Text)[0].text


def test_info_spells_out_every_option_in_both_of_its_states() -> None:
    """``/info`` of an empty room with the defaults, then of a seated one with every option changed,
    says each in words: seats, host, rating, clock, absent players, the flags, seats and beginner."""
    d = Driver(seed=None)
    zoe = d.enter("zoe")
    assert d.feed(zoe, ShowRequest("info")).of(zoe, m.Text)[0].text == (
        "Room cafe: waiting. Seats: nobody.\n"
        "Host: nobody seated.\n"
        "Rated: no, fewer than two registered players are seated.\n"
        "Clock: off.\n"
        "Absent players: a bot plays the seat.\n"
        "Stammtisch: off. Private: off.\n"
        "Seats drawn at the start: no. Begins: drawn by the shuffle."
    )
    ann, _ = d.seat("ann", "bob")
    changed = [("host", False), ("seed", 5), ("clock", 45), ("absent", "drop"), ("stammtisch", True)]
    for key, value in [*changed, ("private", True), ("drawseat", True), ("start", 2)]:
        assert d.feed(ann, m.SetOption(key=key, value=value)).replies() == [], key
    assert d.feed(zoe, ShowRequest("info")).of(zoe, m.Text)[0].text == (
        "Room cafe: waiting. Seats: 1. ann, 2. bob.\n"
        "Host: off (every player decides).\n"
        "Rated: no, a practice game (the room chose the seed).\n"
        "Clock: 45 seconds per turn.\n"
        "Absent players: they leave the game.\n"
        "Stammtisch: on. Private: on.\n"
        "Seats drawn at the start: yes. Begins: seat 2."
    )


def test_reset_after_the_end_gives_a_fresh_board_with_the_same_seats() -> None:
    """After the game ended, ``/reset`` makes the room waiting with the same seats; before, it is
    ``no_game`` or ``game_running``."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    assert d.feed(ann, m.Reset()).codes(ann) == ["no_game"]
    d.feed(ann, m.Start())
    assert d.feed(ann, m.Reset()).codes(ann) == ["game_running"]
    for _ in range(500):
        if d.core.state != "playing":
            break
        d.move([ann, bob])
    assert d.core.state == "over"
    done = d.feed(ann, m.Reset(id=3))
    assert done.replies() == [] and d.core.state == "waiting" and d.core.game is None
    assert "ack" in done.types(ann) and [n.text for n in done.of(bob, m.Notice)] == ["ann reset the board."]
    assert [s.name for s in d.core.seats] == ["ann", "bob"]
    assert d.views[bob]["game"] is None and d.views[bob]["state"] == "waiting"


def test_a_refusal_to_a_player_not_host_names_what_only_the_host_may_do() -> None:
    """``not_host`` tells the player who is host and what only the host may do here."""
    d = Driver()
    _, bob = d.seat("ann", "bob")
    asks = {
        "set options": m.SetOption(key="clock", value=60),
        "seat bots": m.AddBot(),
        "remove bots": m.RemoveBot(name="x"),
        "start the game": m.Start(),
        "reset the board": m.Reset(),
    }
    for what, message in asks.items():
        [refused] = d.feed(bob, message).replies(bob)
        assert refused.code == "not_host" and refused.text == f"Only the host, ann, may {what} here."


def test_bots_are_announced_as_they_come_and_go_only_between_games() -> None:
    """A bot seated is announced with its strategy, a bot removed as unseated; both only between
    games, and no fifth seat."""
    d = Driver()
    ann, _ = d.seat("ann", "bob")
    joined = d.feed(ann, m.AddBot(strategy="greedy"))
    [presence] = joined.of(ann, m.Presence)
    name = d.core.seats[2].name
    assert (presence.name, presence.event, presence.detail) == (name, "joined", "greedy bot")
    d.feed(ann, m.AddBot())
    assert d.feed(ann, m.AddBot()).codes(ann) == ["room_full"]
    removed = d.feed(ann, m.RemoveBot(name=d.core.seats[3].name))
    assert [(p.event, p.room) for p in removed.of(ann, m.Presence)] == [("unseated", "cafe")]
    d.feed(ann, m.Start())
    assert d.feed(ann, m.AddBot()).codes(ann) == ["game_running"]
    assert d.feed(ann, m.RemoveBot(name=name)).codes(ann) == ["game_running"]
    assert d.feed(ann, m.SetOption(key="clock", value=60)).codes(ann) == ["game_running"]


def test_an_option_set_to_the_value_it_has_is_told_to_its_setter_alone() -> None:
    """The room is told what changed: ``host`` on, ``private`` off or a clock set again are acked
    and tell the others nothing, the setter what the option is; a seed chosen again is told
    again (whether a guess equals a secret seed is not for anyone to find out)."""
    d = Driver(seed=None)
    ann, bob = d.seat("ann", "bob")
    d.feed(ann, m.SetOption(key="clock", value=45))
    for key, value in (("host", True), ("private", False), ("clock", 45), ("stammtisch", False)):
        done = d.feed(ann, m.SetOption(key=key, value=value))
        assert done.types(ann)[-2:] == ["notice", "ack"] and done.of(bob, m.Notice) == [], (key, value)
    assert d.feed(ann, m.SetOption(key="clock", value=45)).of(ann, m.Notice)[0].text == (
        "ann set the clock to 45 seconds per turn."
    )
    d.feed(ann, m.SetOption(key="seed", value=7))
    assert [n.text for n in d.feed(ann, m.SetOption(key="seed", value=7)).of(bob, m.Notice)] == [
        "ann chose a seed: a practice game."
    ]


def test_an_option_set_is_told_to_the_room_by_who_set_it_and_a_seed_stays_secret() -> None:
    """Setting an option tells the room who set what; a seed is told only as chosen or random;
    a bad value is refused with the reason."""
    d = Driver(seed=None)
    ann, bob = d.seat("ann", "bob")
    notices = {
        ("clock", 45): "ann set the clock to 45 seconds per turn.",
        ("seed", 12345): "ann chose a seed: a practice game.",
        ("seed", None): "ann set the seed to random.",
    }
    for (key, value), said in notices.items():
        done = d.feed(ann, m.SetOption(key=key, value=value))
        assert [n.text for n in done.of(bob, m.Notice)] == [said]
    refused = d.feed(ann, m.SetOption(key="clock", value=2)).replies(ann)  # under this server's least
    assert refused[0].code == "bad_option" and refused[0].text.startswith("clock is 5 to")


def test_a_move_with_no_game_is_refused() -> None:
    """A move in a room with no game running is ``no_game``."""
    d = Driver()
    ann, _ = d.seat("ann", "bob")
    assert d.feed(ann, m.PlayMove(move="CFf@bar")).codes(ann) == ["no_game"]
