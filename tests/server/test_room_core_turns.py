"""The room core's turns that nobody plays by hand: the turn clock, players lost and back, and
games taken up again from the log, driven with a clock of the test's own and no event loop."""

from __future__ import annotations

import random
from typing import Any

from bots.strategy import bot_view, get_strategy
from engine import GameRecord, Position, leave_text, legal_move_texts, play, random_game, replay
from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.options import RoomOptions
from server.log.contract import StoredGame
from server.room.clock import CLOCK_WARNING
from server.room.core import RoomSettings
from server.room.effects import Answers, Arm, Cancel, GameEnd, GameStart, MoveLogged, Note, Send
from server.room.items import BotMove, ClockTimeout, ClockWarning, Enter, Leave, Returned, Table, WindowPassed
from tests.server.roomcore import GAME_ID, SEED, Driver, FakeMember

CLOCK = 30.0


def greedy(position: Position) -> str:
    """The move the server plays for a player whose clock ran out."""
    return get_strategy("greedy").choose(bot_view(position, position.to_move), random.Random(0))


def _clocked(*names: str) -> tuple[Driver, list[FakeMember]]:
    d = Driver()
    return d, d.start(*names, options=[("clock", CLOCK)])


def _player(players: list[FakeMember], name: str) -> FakeMember:
    return next(p for p in players if p.name == name)


# --- the turn clock ----------------------------------------------------------------------------


def test_each_turn_arms_the_clock_from_now() -> None:
    """With ``clock N``, every turn of a person arms a ClockTimeout of that turn at now + N."""
    d, players = _clocked("ann", "bob")
    assert d.timers["turn"] == Arm("turn", CLOCK, ClockTimeout(0))
    d.now = 12.5
    done = d.move(players)
    assert done.arms == [
        Arm("turn", 12.5 + CLOCK, ClockTimeout(1)),
        Arm("warn", 12.5 + CLOCK - CLOCK_WARNING, ClockWarning(1, CLOCK_WARNING)),
    ]
    timers = [(type(e).__name__, e.key) for e in done.effects if isinstance(e, Arm | Cancel)]
    # the clock of the turn played stops, with its warning
    assert timers == [("Cancel", "turn"), ("Cancel", "warn"), ("Arm", "turn"), ("Arm", "warn")]


def test_clock_timeout_plays_the_greedy_move_for_the_player() -> None:
    """When the clock runs out the server logs the greedy move, marked as the clock's, then says
    so and plays it (auto)."""
    d, (ann, bob) = _clocked("ann", "bob")
    move = greedy(d.position)
    item = d.due("turn")
    step = d.handle(None, item)
    assert step.entries == (MoveLogged(GAME_ID, 1, move, "clock"),)
    assert not [e for e in step.effects if isinstance(e, Send)]
    done = d.finish(step)
    assert done.types(bob) == ["notice", "patch", "played"]
    assert done.of(bob, m.Notice)[0].text == f"ann's time ran out: the server plays {move}."
    played = done.of(ann, m.Played)[0]
    assert (played.player, played.move, played.auto) == ("ann", move, True)
    assert done.arms[0] == Arm("turn", CLOCK + CLOCK, ClockTimeout(1))  # bob's turn, from now
    assert d.core.seats[0].timeouts == 1


def test_a_late_clock_timeout_is_ignored() -> None:
    """A clock of a turn already played does nothing (the move came first)."""
    d, players = _clocked("ann", "bob")
    d.move(players)
    done = d.feed(None, ClockTimeout(0))
    assert done.step.entries == () and done.effects == []


def test_three_timeouts_in_a_row_hand_the_seat_to_a_bot() -> None:
    """After a third timeout in a row a bot plays the seat: ``replaced_by_bot``, then it thinks."""
    d, players = _clocked("ann", "bob")
    bob = players[1]
    for turn in range(3):
        done = d.fire("turn")  # ann's clock
        if turn < 2:
            assert done.presence(bob) == []
            d.move([bob])
    assert done.presence(bob) == [("ann", "replaced_by_bot")]
    assert d.core.seats[0].stand_in == "greedy"
    assert d.to_move == "bob" and d.timers["turn"] == Arm("turn", d.now + CLOCK, ClockTimeout(5))
    done = d.move([bob])
    [think] = done.thinks
    assert (think.name, think.strategy, think.position) == ("ann", "greedy", d.position)
    assert "turn" not in [a.key for a in done.arms]  # a bot has no clock
    played = d.think().of(bob, m.Played)[0]
    assert (played.player, played.auto) == ("ann", True)


def test_a_move_of_ones_own_resets_the_timeout_count() -> None:
    """Timeouts count only in a row: a move by the player starts the count again."""
    d, (ann, bob) = _clocked("ann", "bob")
    for _ in range(2):
        d.fire("turn")
        d.move([bob])
    d.move([ann])
    d.move([bob])
    for _ in range(2):
        assert d.fire("turn").presence(bob) == []
        d.move([bob])
    assert d.core.seats[0].stand_in is None and d.core.seats[0].timeouts == 2


# --- lost and back -----------------------------------------------------------------------------


def test_lost_connection_holds_the_seat_for_the_resume_window() -> None:
    """A player whose connection is lost is ``away``; the seat waits, a window timer is armed."""
    d = Driver(RoomSettings(resume_window=300.0))
    ann, bob = d.start("ann", "bob")
    d.now = 100.0
    done = d.feed(bob, Leave(disconnected=True))
    assert done.presence(ann) == [("bob", "away")]  # (away, and back later: not "left")
    assert done.arms == [Arm("window:bob", 400.0, WindowPassed("bob"))]
    assert [s.name for s in d.core.seats] == ["ann", "bob"] and d.core.seats[1].session is None
    assert d.views[ann]["seats"][1] == {"name": "bob", "kind": "person", "connected": False}


def test_a_room_left_empty_waits_one_window_from_when_the_last_one_left() -> None:
    """Both players' connections are lost at 100: their seats wait the window (to 400), then bots
    take them, and the room, empty since 100, has waited its window already: the bots' wait for
    someone to come ends at once (``IDLE`` at 400, not 700), and the game with it."""
    d = Driver(RoomSettings(resume_window=300.0))
    ann, bob = d.start("ann", "bob")
    d.now = 100.0
    for member in (ann, bob):
        d.feed(member, Leave(disconnected=True))
    d.fire("window:ann")
    d.fire("window:bob")
    idle = d.timers["idle"]
    assert isinstance(idle, Arm) and idle.at == 400.0
    d.fire("idle")
    assert d.core.game is not None and d.core.game.outcome is not None
    assert d.core.game.outcome.reason == "closed"


def test_leaving_the_room_during_a_game_hands_the_seat_to_a_bot_at_once() -> None:
    """With ``absent bot``, a player who leaves the room is played by a bot at once, with no window
    (and is not ``away``: that says the connection was lost)."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    done = d.feed(ann, Leave(id=3))
    assert done.presence(bob) == [("ann", "replaced_by_bot"), ("ann", "left")]
    assert done.of(bob, m.Presence)[0].detail == "left the game"  # why a bot plays the seat
    assert done.types(ann) == ["ack"] and ann not in d.core.members
    assert not [a for a in done.arms if a.key.startswith("window:")]
    [think] = done.thinks  # it was ann's turn
    assert (think.name, think.strategy) == ("ann", "greedy")


def test_window_passing_hands_the_seat_to_a_bot_that_moves_on_its_turn() -> None:
    """With ``absent bot``: ``replaced_by_bot``, and a Think when it is that seat's turn; the
    bot's move is logged as played for its player (``bot``)."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    d.move([ann])
    d.feed(bob, Leave(disconnected=True))
    done = d.fire("window:bob")
    assert done.step.entries == ()
    assert done.presence(ann) == [("bob", "replaced_by_bot")]
    [think] = done.thinks
    assert (think.name, think.strategy, think.move_number) == ("bob", "greedy", 1)
    played = d.think().of(ann, m.Played)[0]
    assert (played.player, played.auto) == ("bob", True)
    assert d.written[-1] == MoveLogged(GAME_ID, 2, played.move, "bot")


def test_window_passing_on_another_players_turn_leaves_their_clock_running() -> None:
    """A bot taking a seat asks nobody to think, and the player to move keeps the clock they had."""
    d = Driver(RoomSettings(resume_window=10.0))
    ann, bob = d.start("ann", "bob", options=[("clock", CLOCK)])
    d.now = 1.0
    d.feed(bob, Leave(disconnected=True))
    done = d.fire("window:bob")
    assert done.presence(ann) == [("bob", "replaced_by_bot")]
    assert done.thinks == []
    assert d.timers["turn"] == Arm("turn", CLOCK, ClockTimeout(0))


def test_window_passing_with_absent_drop_logs_the_leave() -> None:
    """With ``absent drop`` the window passing logs ``leave NAME`` like a move, before telling anyone."""
    d = Driver()
    ann, bob, cem = d.start("ann", "bob", "cem", options=[("absent", "drop")])
    d.feed(cem, Leave(disconnected=True))
    step = d.handle(None, d.due("window:cem"))
    assert step.entries == (MoveLogged(GAME_ID, 1, leave_text("cem")),)
    assert not [e for e in step.effects if isinstance(e, Send)]
    assert d.position.eliminated == ()
    done = d.finish(step)
    played = done.of(ann, m.Played)[0]
    assert (played.player, played.move, played.auto) == ("cem", "leave cem", True)
    assert played.events == [{"type": "left", "player": "cem"}]
    assert d.position.eliminated == (2,) and d.core.state == "playing"
    assert d.views[bob]["game"]["players"][2]["eliminated"] is True


def test_returning_cancels_the_window() -> None:
    """A player back in the window gets the seat back: the window is cancelled, others see ``back``."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    d.feed(bob, Leave(disconnected=True))
    again = FakeMember("bob")
    done = d.feed(again, Returned())
    assert "window:bob" in done.cancels and "window:bob" not in d.timers
    assert done.presence(ann) == [("bob", "back")]
    assert "snapshot" in done.types(again) and d.views[again]["seat"] == 1
    assert d.core.seats[1].session is again and again in d.core.members
    late = d.feed(None, WindowPassed("bob"))  # a window that passed as the player came back
    assert late.step.entries == () and late.effects == []


def test_returning_on_another_players_turn_leaves_their_clock_running() -> None:
    """A player coming back does not restart the clock of the player to move."""
    d = Driver()
    _, bob = d.start("ann", "bob", options=[("clock", CLOCK)])
    d.now = 5.0
    d.feed(bob, Leave(disconnected=True))
    again = FakeMember("bob")
    done = d.feed(again, Returned())
    assert done.arms == [] and done.thinks == []
    assert d.timers["turn"] == Arm("turn", CLOCK, ClockTimeout(0))


def test_returning_on_ones_own_turn_keeps_the_time_left_not_a_fresh_clock() -> None:
    """A player who drops and comes back on their own turn finds its clock where it was: the same
    deadline (and a warning still to come), so that reconnecting never buys time."""
    d, (ann, bob) = _clocked("ann", "bob")
    d.move([ann])  # at 0: bob's turn, due at 30
    deadline = d.core.play.game.deadline if d.core.play.game else None
    for now in (12.0, 24.0, 27.0):  # three returns, the last two after the warning was due
        if now == 24.0:  # the warning reaches bob, here at 20
            d.now = CLOCK - CLOCK_WARNING
            assert d.fire("warn").of(bob, m.Notice)
        d.now = now
        d.feed(bob, Leave(disconnected=True))
        bob = FakeMember("bob")
        done = d.feed(bob, Returned())
        assert d.timers["turn"] == Arm("turn", CLOCK, ClockTimeout(1))
        assert d.core.play.game is not None and d.core.play.game.deadline == deadline
        warned = [a for a in done.arms if a.key == "warn"]
        assert warned == (  # (a warning that reached its player stays sent)
            [Arm("warn", CLOCK - CLOCK_WARNING, ClockWarning(1, CLOCK_WARNING))]
            if now < CLOCK - CLOCK_WARNING
            else []
        )
    d.now = CLOCK
    assert d.fire("turn").step.entries  # the clock runs out when it would have without the returns


def test_a_warning_that_came_due_while_the_player_was_away_comes_when_they_return() -> None:
    """The clock's warning fell due while the player to move had lost the connection: coming back
    with the clock still running, they read it then, with the seconds left (one, in the
    singular); once the clock has run out there is nothing to warn of."""
    d, (ann, bob) = _clocked("ann", "bob")
    d.move([ann])  # at 0: bob's turn, due at 30
    d.feed(bob, Leave(disconnected=True))
    d.now = CLOCK - CLOCK_WARNING
    assert d.fire("warn").effects == []
    d.now = CLOCK - 0.5
    bob = FakeMember("bob")
    d.feed(bob, Returned())
    [notice] = d.fire("warn").of(bob, m.Notice)
    assert notice.text == "1 second left to move, bob."


def test_returning_takes_the_seat_back_from_the_bot() -> None:
    """Back on their own turn, a player replaces the bot: its thinking is cancelled, the clock armed
    afresh (the player's clock stopped when the bot took the turn)."""
    d = Driver(RoomSettings(resume_window=10.0))
    ann, bob = d.start("ann", "bob", options=[("clock", CLOCK)])
    d.move([ann])
    d.feed(bob, Leave(disconnected=True))
    assert d.fire("window:bob").thinks
    again = FakeMember("bob")
    done = d.feed(again, Returned())
    assert d.core.seats[1].stand_in is None
    assert "turn" in done.cancels and done.thinks == []
    assert d.timers["turn"] == Arm("turn", d.now + CLOCK, ClockTimeout(1))


def test_taking_the_seat_back_after_the_bots_waited_starts_a_fresh_clock() -> None:
    """ann, alone with a bot, leaves on her turn: the bot takes it and waits for someone to come.
    Back 40 s later she gets a whole turn, not a clock that ran out while nobody played."""
    d = Driver()
    (ann,) = d.seat("ann")
    d.feed(ann, m.AddBot(strategy="random"))
    d.feed(ann, m.SetOption(key="clock", value=CLOCK))
    d.feed(ann, m.Start())
    while d.to_move != "ann":
        d.think()
    d.now += 5.0
    d.feed(ann, Leave(id=9))  # a bot takes her seat; with nobody here the bots wait
    d.now += 40.0
    back = FakeMember("ann")
    d.feed(back, Enter())
    done = d.feed(back, m.Join(seat=1))
    assert done.types(back)[-1] == "ack"
    assert d.timers["turn"] == Arm(
        "turn", d.now + CLOCK, ClockTimeout(d.core.play.game.moves if d.core.play.game else -1)
    )


# --- taken up again from the log ---------------------------------------------------------------


def _stored(players: tuple[str, ...], kinds: tuple[str, ...], moves: list[str], **options: Any) -> StoredGame:
    record = GameRecord(players=players, seed=SEED, moves=tuple(moves))
    return StoredGame("g0", "cafe", record, kinds, 0.0, None, None, room_options=options)


def _first_moves(players: tuple[str, ...], count: int) -> list[str]:
    position, moves = GameRecord(players=players, seed=SEED).start(), []
    for _ in range(count):
        result = play(position, legal_move_texts(position)[0])
        moves.append(result.move)
        position = result.position
    return moves


def test_restore_takes_the_game_up_as_logged() -> None:
    """A restored game has its seats, position and options; a server bot to move waits until a person
    is in the room again, then is asked to think."""
    players = ("ann", "greedy-bot1", "bob")
    stored = _stored(players, ("person", "bot:greedy", "person"), _first_moves(players, 1), clock=CLOCK)
    d = Driver()
    done = d.finish(d.core.restore(stored, 1000.0))
    assert done.step.entries == ()
    assert [(s.name, s.kind, s.strategy, s.session) for s in d.core.seats] == [
        ("ann", "person", None, None),
        ("greedy-bot1", "bot", "greedy", None),
        ("bob", "person", None, None),
    ]
    assert d.core.game is not None and d.core.game.game_id == "g0" and d.core.game.moves == 1
    assert d.position == replay(stored.record).position
    assert d.core.options.clock == CLOCK and "greedy-bot1" in d.bot_names
    assert done.thinks == [] and d.core.suspended  # nobody is here after a restart
    zoe = FakeMember("zoe")
    [think] = d.feed(zoe, Enter()).thinks
    assert (think.name, think.move_number, think.position) == ("greedy-bot1", 1, d.position)
    assert d.think().written and d.written == [MoveLogged("g0", 2, d.core.game.record.moves[-1])]


def test_restore_holds_the_seats_of_absent_persons() -> None:
    """Every person (not out of the game) gets the resume window to come back; the clock runs."""
    players = ("ann", "bob", "cem")
    moves = [*_first_moves(players, 1), leave_text("cem")]
    stored = _stored(players, ("person", "bot", "person"), moves, clock=CLOCK, absent="drop")
    d = Driver(RoomSettings(resume_window=300.0))
    done = d.finish(d.core.restore(stored, 50.0))
    assert sorted((a for a in done.arms if a.key.startswith("window:")), key=lambda a: a.key) == [
        Arm("window:ann", 350.0, WindowPassed("ann")),
        Arm("window:bob", 350.0, WindowPassed("bob")),  # a bot over a connection comes back too
    ]
    assert d.to_move == "bob" and d.timers["turn"] == Arm("turn", 50.0 + CLOCK, ClockTimeout(2))
    assert d.core.options.absent == "drop"


def test_restore_of_a_finished_game_logs_its_end_again() -> None:
    """A game whose last move was logged without its end writes the GameEnd, then is over; the
    room stays the resume window for its players, away, to come back to the result."""
    full = random_game(["ann", "bob"], seed=SEED)
    stored = _stored(("ann", "bob"), ("person", "person"), list(full.moves))
    d = Driver()
    step = d.core.restore(stored, 0.0)
    outcome = replay(full).outcome
    assert outcome is not None and step.entries == (GameEnd("g0", outcome),)
    held = {a.key for a in step.effects if isinstance(a, Arm)}
    assert held  # the player not out of the game
    done = d.finish(step)
    assert d.core.state == "over" and d.written == [GameEnd("g0", outcome)]
    assert held | {"turn"} <= set(done.cancels) and set(d.timers) == {"linger"}
    assert d.core.play.away_at_end == {"ann"} and not d.core.empty  # (bob is out of the game)


def _restored(live: Driver) -> Driver:
    """A room that takes up ``live``'s game from the log, as a restart does."""
    start = live.written[0]
    assert isinstance(start, GameStart) and live.core.game is not None
    stored = StoredGame(
        GAME_ID, "cafe", live.core.game.record, tuple(start.kinds), 0.0, None, None, start.room_options
    )
    restored = Driver(seed=None)
    restored.finish(restored.core.restore(stored, live.now))
    return restored


def test_a_restored_game_looks_to_a_newcomer_as_it_did_before() -> None:
    """A game taken up from its log shows a spectator what the same game showed before the restart:
    seats, options (stammtisch, clock), the position, the last move and the history."""
    live = Driver()
    ann, bob = live.start("ann", "bob", options=[("clock", CLOCK), ("stammtisch", True), ("absent", "drop")])
    for _ in range(3):
        live.move([ann, bob])
    for member in (ann, bob):
        live.feed(member, Leave(disconnected=True))
    restored = _restored(live)
    views = []
    for d in (live, restored):
        zoe = d.enter("zoe")
        views.append(d.views[zoe])
    assert views[0] == views[1]
    assert views[1]["game"]["last_move"] is not None and len(views[1]["game"]["history"]) == 3


# --- what the clock, the window and the game's end say -------------------------------------------


def test_the_clocks_move_is_marked_as_the_clocks_and_a_third_says_why_a_bot_plays() -> None:
    """A move the clock played is told as automatic and the clock's; the seat handed to a bot
    after a third says why; a clock of a finished game plays nothing."""
    d, (_, bob) = _clocked("ann", "bob")
    for turn in range(3):
        done = d.fire("turn")
        [played] = done.of(bob, m.Played)
        assert (played.player, played.auto, played.clock) == ("ann", True, True)
        if turn < 2:
            d.move([bob])
    [replaced] = [p for p in done.of(bob, m.Presence) if p.event == "replaced_by_bot"]
    assert (replaced.name, replaced.detail) == ("ann", "ran out of time three times in a row")
    while d.core.state == "playing":
        d.move([bob]) if d.to_move == "bob" else d.think()
    assert d.core.game is not None
    assert d.feed(None, ClockTimeout(d.core.game.moves)).effects == []


def test_coming_back_starts_the_count_of_timeouts_again() -> None:
    """Timeouts count in a row of turns played here: a player who comes back has two more before
    a bot takes the seat."""
    d, (ann, bob) = _clocked("ann", "bob")
    for _ in range(2):
        d.fire("turn")
        d.move([bob])
    d.feed(ann, Leave(disconnected=True))
    again = FakeMember("ann")
    d.feed(again, Returned())
    for _ in range(2):
        assert d.fire("turn").presence(bob) == []
        d.move([bob])
    assert d.core.seats[0].stand_in is None and d.core.seats[0].session is again


def test_a_seat_taken_when_the_window_passes_says_why() -> None:
    """When the resume window passes, the bot that takes the seat is announced with the reason."""
    d, (ann, bob) = _clocked("ann", "bob")
    d.feed(ann, Leave(disconnected=True))
    done = d.fire("window:ann")
    [replaced] = [p for p in done.of(bob, m.Presence) if p.event == "replaced_by_bot"]
    assert (replaced.name, replaced.detail) == ("ann", "did not come back in time")


def test_a_bots_move_counts_only_for_its_own_turn_in_a_running_game() -> None:
    """A bot's move is played only on its own turn, for this move number, while the game runs: a
    move of an unknown name, of a seat not to move, of a turn gone or after the end does nothing."""
    d = Driver()
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot())
    bot = d.core.seats[1].name
    d.feed(ann, m.Start())
    assert d.to_move == "ann" and d.core.game is not None
    number = d.core.game.moves
    for item in (
        BotMove("nobody", d.legal(), number),
        BotMove(bot, d.legal(), number),  # not the bot's turn
        BotMove("ann", d.legal(), number),  # a person's seat, not played by a bot
    ):
        assert d.feed(None, item).effects == [] and d.written[-1:] != [MoveLogged(GAME_ID, 1, item.move)]
    d.move([ann])
    assert d.feed(None, BotMove(bot, d.legal(), number)).effects == []  # the turn gone
    while d.core.state == "playing":
        d.move([ann]) if d.to_move == "ann" else d.think()
    last = d.core.game.moves
    assert d.feed(None, BotMove(bot, "CFf@bar", last)).effects == []


def test_the_end_is_noted_the_deadline_cleared_and_the_next_game_ends_too() -> None:
    """The end of a game is noted with its game, reason and scores, and its view has no deadline;
    a second game in the same room, not rated, ends with no ratings."""
    d = Driver(seed=None)
    players = d.start("ann", "bob", options=[("clock", CLOCK)])
    for game in range(2):
        while not d.ends_game():
            d.move(players)
        rated = {"ann": m.RatingShift(before=1500, after=1490, provisional=True)} if game == 0 else None
        done = d.move(players, answers=Answers(rated))
        [note] = [e for e in done.effects if isinstance(e, Note) and e.event == "game_over"]
        [over] = done.of(players[0], m.GameOver)
        assert note.fields == {"game": GAME_ID, "reason": over.reason, "final_scores": over.final_scores}
        assert (over.ratings is None) == (game == 1)
        assert d.views[players[0]]["game"]["deadline"] is None
        assert d.feed(players[0], m.Reset()).replies() == []
        assert d.feed(players[0], m.Start()).written


def test_restore_keeps_each_seats_kind_and_a_game_with_no_move_yet() -> None:
    """A game logged before its first move comes back with no last move; a client bot's seat
    comes back as a bot's, a person's as a person's, the server's bot with its strategy."""
    players = ("ann", "robo", "greedy-bot1")
    stored = _stored(players, ("person", "bot", "bot:greedy"), [])
    d = Driver()
    d.finish(d.core.restore(stored, 0.0))
    kinds = [(s.kind, s.strategy) for s in d.core.seats]
    assert kinds == [("person", None), ("bot", None), ("bot", "greedy")]
    assert d.core.game is not None and d.core.game.last_move is None and d.core.game.history == []


def test_a_restored_game_reveals_its_seed_at_the_end() -> None:
    """A game taken up from the log tells its seed in ``game_over``, as any game does."""
    full = random_game(["ann", "bob"], seed=SEED)
    stored = _stored(("ann", "bob"), ("person", "person"), list(full.moves[:-1]))
    d = Driver(seed=None)
    d.finish(d.core.restore(stored, 0.0))
    ann, bob = (FakeMember(name) for name in ("ann", "bob"))
    for member in (ann, bob):
        d.feed(member, Returned())
    [over] = d.move([ann, bob]).of(ann, m.GameOver)
    assert over.seed == SEED


def test_a_clock_running_out_after_the_end_plays_nothing() -> None:
    """A turn clock that fires after the game ended, on the turn it was armed for, does nothing."""
    d, players = _clocked("ann", "bob")
    while not d.ends_game():
        d.move(players)
    assert d.core.game is not None
    number = d.core.game.moves
    d.move(players)
    assert d.core.state == "over"
    assert d.feed(None, ClockTimeout(number + 1)).effects == []


def test_a_restored_table_keeps_its_drawn_seed_and_its_tournament_mark() -> None:
    """A table the server made with a seed it drew, for a tournament: taken up from the log, its
    game still says the server drew the seed (``/info``) and still refuses ``private``."""
    live = Driver(seed=None)
    options = RoomOptions(seed=1234, absent="drop")
    live.finish(
        live.core.handle(None, Table((("ann", "id-ann"), ("bob", "id-bob")), (), options, listed=True), 0.0)
    )
    restored = _restored(live)
    for d in (live, restored):
        ann = FakeMember("ann")
        d.feed(ann, Returned())  # (she takes the seat waiting for her)
        [info] = d.feed(ann, ShowRequest("info")).of(ann, m.Text)
        assert "Rated: no, a practice game (the server chose the seed)." in info.text
        refused = d.feed(ann, m.SetOption(key="private", value=True))
        assert refused.codes(ann) == ["bad_option"]
