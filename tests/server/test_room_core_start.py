"""Starting a game and its end, driven item by item on the room core: a start refused while a game
runs, the limit of games against the server's bots alone, the seat to begin, and a game that has
ended taking no more moves."""

from __future__ import annotations

from engine.game import seed_hash
from protocol import messages as m
from server.room.core import RoomSettings
from server.room.effects import GameStart, Note
from tests.server.roomcore import GAME_ID, Driver


def test_a_start_while_a_game_runs_is_refused() -> None:
    """``/start`` during a game is ``game_running`` and logs nothing."""
    d = Driver()
    ann, _ = d.start("ann", "bob")
    done = d.feed(ann, m.Start())
    assert done.codes(ann) == ["game_running"] and done.step.entries == ()


def test_a_person_may_run_only_so_many_games_against_the_servers_bots_alone() -> None:
    """Against the server's bots alone a person may start a game while they have fewer than the
    limit running; at the limit it is ``too_many_bot_games``; with another person seated, or for
    a starter who has none running, the limit does not count."""
    running = {"ann": 2, "bob": 2, "cid": 1}
    settings = RoomSettings(max_bot_games=2)
    d = Driver(settings, bot_games=lambda name, identity: running.get(name, 0))
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot())
    refused = d.feed(ann, m.Start())
    assert refused.codes(ann) == ["too_many_bot_games"] and "2 games" in refused.replies()[0].text
    d.enter("bob", join=True)
    assert d.feed(ann, m.Start()).written  # bob is a person: no game against bots alone
    d = Driver(settings, bot_games=lambda name, identity: running.get(name, 0))
    cid = d.enter("cid", join=True)
    d.feed(cid, m.AddBot())
    assert d.feed(cid, m.Start()).written  # one running, under the limit


def test_the_seat_to_begin_must_be_one_of_the_seats_taken() -> None:
    """The option ``start`` may name the last seat taken, not one beyond: that is ``bad_option``."""
    d = Driver()
    ann, _ = d.seat("ann", "bob")
    d.feed(ann, m.SetOption(key="start", value=3))
    refused = d.feed(ann, m.Start())
    assert refused.codes(ann) == ["bad_option"] and refused.step.entries == ()
    d.feed(ann, m.SetOption(key="start", value=2))
    assert d.feed(ann, m.Start()).written and d.to_move == "bob"


def test_a_game_that_has_ended_takes_no_more_moves_and_gives_no_hints() -> None:
    """After the end a move, a hint or a vote is ``game_over``."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    while d.core.state == "playing":
        d.move([ann, bob])
    for ask in (m.PlayMove(move="CFf@bar"), m.GetHint(), m.VoteRemove(name="bob")):
        assert d.feed(ann, ask).codes(ann) == ["game_over"], ask


def test_the_start_logs_the_seed_and_kinds_and_tells_whether_it_is_practice() -> None:
    """A start logs the seed drawn (or chosen), each seat's kind (a server bot with its strategy)
    and notes the game with its players; ``game_started`` says practice only for a chosen seed, and
    gives the fingerprint only of a seed drawn (a typed number's would give it away)."""
    for chosen in (None, 5):
        d = Driver(seed=chosen)
        ann = d.enter("ann", join=True)
        d.feed(ann, m.AddBot(strategy="greedy"))
        done = d.feed(ann, m.Start())
        start = d.written[0]
        assert isinstance(start, GameStart)
        assert start.record.seed == (99 if chosen is None else chosen)  # the driver draws 99
        assert start.kinds == ["person", "bot:greedy"]
        [note] = [e for e in done.effects if isinstance(e, Note) and e.event == "game_started"]
        assert note.fields == {"game": GAME_ID, "players": list(start.record.players)}
        [started] = done.of(ann, m.GameStarted)
        assert started.practice is (chosen is not None)
        assert started.seed_hash == (seed_hash(99) if chosen is None else None)


def test_a_seed_deals_only_while_its_chooser_sits_at_the_table() -> None:
    """ann chooses a seed and gives up her seat: she would know every hand, so the seed goes with
    her, and the room reads why at once (the views show no seed: the game bob starts is not a
    practice game, and everyone sees so before it starts). A seed chosen by one who stays seated
    deals its game."""
    d = Driver(seed=None)
    ann = d.enter("ann", join=True)
    bob = d.enter("bob", join=True)
    cid = d.enter("cid", join=True)
    assert d.feed(ann, m.SetOption(key="seed", value=42)).replies() == []
    assert d.views[cid]["options"]["seed"] == "set"
    stood = d.feed(ann, m.LeaveGame())
    assert [n.text for n in stood.of(cid, m.Notice)] == [
        "The seed ann chose is forgotten: ann left the table."
    ]
    assert d.core.options.seed is None and d.views[cid]["options"]["seed"] is None
    done = d.feed(bob, m.Start())
    start = d.written[0]
    assert isinstance(start, GameStart) and start.record.seed == 99
    assert start.room_options["seed"] is None
    [started] = done.of(cid, m.GameStarted)
    assert started.practice is False and started.seed_hash == seed_hash(99)
    kept = Driver(seed=None)
    ann, _ = kept.seat("ann", "bob")
    assert kept.feed(ann, m.SetOption(key="seed", value=42)).replies() == []
    kept.feed(ann, m.Start())
    start = kept.written[0]
    assert isinstance(start, GameStart) and start.record.seed == 42


def test_a_players_own_move_is_neither_automatic_nor_the_clocks() -> None:
    """A move the player made is told as theirs: not automatic, not the clock's."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    [played] = d.move([ann, bob]).of(bob, m.Played)
    assert (played.auto, played.clock) == (False, False)
