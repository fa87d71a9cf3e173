"""The room core as a specification: members, seats, options, bots, the start, moves and the end,
each driven item by item with a clock of the test's own and no event loop.

The turn clock, resume windows and restoring from the log are in ``test_room_core_turns``;
refused log writes in ``test_room_core_log``; the driver in ``tests.server.roomcore``.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import GameRecord, Options, legal_move_texts, play
from engine.game import seed_hash
from protocol import messages as m
from server.room.effects import GameEnd, GameStart, MoveLogged, Send, Think
from server.room.items import Enter, Leave
from tests.server.roomcore import GAME_ID, ROOM, SEED, Driver, FakeMember, state_of

# --- entering and leaving ----------------------------------------------------------------------


def test_enter_sends_the_newcomer_a_snapshot_then_an_ack() -> None:
    """A member who enters gets the whole room as a snapshot, then the ack of the request."""
    d = Driver()
    d.enter("ann")
    d.enter("bob")
    zoe = FakeMember("zoe")
    zoe_done = d.feed(zoe, Enter(id=3))
    assert zoe_done.types(zoe) == ["snapshot", "ack"]
    snapshot, ack = zoe_done.sends(zoe)
    assert isinstance(snapshot, m.Snapshot) and isinstance(ack, m.Ack)
    assert snapshot.view["you"] == "zoe" and snapshot.view["spectators"] == ["ann", "bob", "zoe"]
    assert ack.id == 3


def test_enter_tells_the_others_with_presence_and_a_patch() -> None:
    """The members already there see ``entered`` and a patch of the spectator list."""
    d = Driver()
    ann = d.enter("ann")
    zoe = FakeMember("zoe")
    done = d.feed(zoe, Enter())
    assert done.types(ann) == ["presence", "patch"]
    assert done.presence(ann) == [("zoe", "entered")]
    assert d.views[ann]["spectators"] == ["ann", "zoe"]


def test_leave_tells_the_others_and_acks_the_leaver() -> None:
    """A member who leaves is acked; the others see ``left`` and the member list shrinks."""
    d = Driver()
    ann, bob = d.enter("ann"), d.enter("bob")
    done = d.feed(bob, Leave(id=9))
    assert done.types(bob) == ["ack"]
    assert done.presence(ann) == [("bob", "left")]
    assert list(d.core.members) == [ann]
    assert d.views[ann]["spectators"] == ["ann"]


def test_leave_while_waiting_frees_the_seat() -> None:
    """Before the start, a seated member who leaves gives up the seat (``unseated``, then ``left``)."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    done = d.feed(bob, Leave(disconnected=True))
    assert [s.name for s in d.core.seats] == ["ann"]
    assert done.presence(ann) == [("bob", "unseated"), ("bob", "left")]
    assert done.sends(bob) == []  # a lost connection is not answered


# --- seats -------------------------------------------------------------------------------------


def test_join_takes_a_seat_and_tells_everyone() -> None:
    """``join`` seats the member; everyone sees ``joined`` and a patch; the joiner gets the ack."""
    d = Driver()
    zoe, ann = d.enter("zoe"), d.enter("ann")
    done = d.feed(ann, m.Join(id=1))
    assert [(s.name, s.kind, s.session) for s in d.core.seats] == [("ann", "person", ann)]
    assert done.types(ann) == ["presence", "ack", "patch"]
    assert done.types(zoe) == ["presence", "patch"]
    assert done.presence(zoe) == [("ann", "joined")]
    assert d.views[zoe]["seats"] == [{"name": "ann", "kind": "person", "connected": True}]
    assert d.views[ann]["seat"] == 0


def test_join_twice_is_refused() -> None:
    """A member holds one seat at most (``already_seated``, to the member alone)."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    done = d.feed(ann, m.Join(id=2))
    assert [(r.code, r.id) for r in done.replies()] == [("already_seated", 2)]
    assert [s.name for s in d.core.seats] == ["ann", "bob"]
    assert done.sends(ann) == done.sends(bob) == []


def test_join_a_full_room_is_refused() -> None:
    """A fifth seat is refused (``room_full``) and the seats stay as they were."""
    d = Driver()
    ann, *_ = d.seat("ann", "bob", "cem", "dan")
    eve = d.enter("eve")
    done = d.feed(eve, m.Join(id=3))
    assert [(r.code, r.id) for r in done.replies()] == [("room_full", 3)]
    assert [s.name for s in d.core.seats] == ["ann", "bob", "cem", "dan"]
    assert done.sends(ann) == done.sends(eve) == []


def test_enter_to_join_a_full_room_leaves_a_spectator_everyone_sees() -> None:
    """Entering with ``join`` when no seat is free: ``room_full``, yet the newcomer stays to watch,
    and the others' views list them as they hear ``entered``."""
    d = Driver()
    ann, *_ = d.seat("ann", "bob", "cem", "dan")
    eve = FakeMember("eve")
    done = d.feed(eve, Enter(join=True, id=1))
    assert done.codes(eve) == ["room_full"] and eve in d.core.members
    assert done.presence(ann) == [("eve", "entered")]
    assert d.views[ann]["spectators"] == d.views[eve]["spectators"] == ["eve"]


def test_join_is_refused_while_a_game_runs() -> None:
    """Nobody sits down in a running game (``game_running``)."""
    d = Driver()
    d.start("ann", "bob")
    zoe = d.enter("zoe")
    assert d.feed(zoe, m.Join()).codes(zoe) == ["game_running"]


def test_stand_gives_the_seat_up_before_the_start() -> None:
    """``leave_game`` frees the seat; the member stays in the room as a spectator."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    done = d.feed(bob, m.LeaveGame(id=4))
    assert [s.name for s in d.core.seats] == ["ann"]
    assert bob in d.core.members
    assert done.presence(ann) == [("bob", "unseated")]
    assert done.types(bob) == ["presence", "ack", "patch"]
    assert d.views[bob]["spectators"] == ["bob"]


def test_stand_is_refused_to_spectators_and_during_a_game() -> None:
    """A spectator has no seat to give up; a player keeps theirs during a game (absent ``bot``)."""
    d = Driver()
    ann, _ = d.start("ann", "bob")
    zoe = d.enter("zoe")
    assert d.feed(zoe, m.LeaveGame()).codes(zoe) == ["not_seated"]
    assert d.feed(ann, m.LeaveGame()).codes(ann) == ["game_running"]
    assert [s.name for s in d.core.seats] == ["ann", "bob"]


# --- options -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "stored"),
    [
        ("seed", 42, 42),
        ("seed", None, None),
        ("stammtisch", True, True),
        ("clock", 30, 30),
        ("clock", 0, None),
        ("clock", None, None),
        ("absent", "drop", "drop"),
    ],
)
def test_option_is_set_announced_and_published(key: str, value: Any, stored: Any) -> None:
    """Each option takes its value; everyone gets a notice and the patch; the setter an ack. A seed
    shows only as ``set``, to the setter too."""
    d = Driver(seed=7 if key == "seed" and value is None else None)
    ann = d.enter("ann", join=True)
    d.feed(ann, m.SetOption(key="clock", value=60))  # so that turning the clock off changes something
    zoe = d.enter("zoe")
    done = d.feed(ann, m.SetOption(key=key, value=value, id=6))  # type: ignore[arg-type]
    assert getattr(d.core.options, key) == stored
    assert done.types(zoe) == ["notice", "patch"]
    assert done.types(ann) == ["notice", "ack", "patch"]
    shown = "set" if key == "seed" and stored is not None else stored
    assert d.views[zoe]["options"][key] == d.views[ann]["options"][key] == shown
    assert all("42" not in s.message.json for s in done.effects if isinstance(s, Send))


def test_spectators_set_no_options_and_seat_no_bots() -> None:
    """Only the seated change a room: a spectator's option, add_bot and remove_bot are ``not_seated``."""
    d = Driver()
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot(strategy="greedy"))
    zoe = d.enter("zoe")
    before = state_of(d.core)
    for message in (m.SetOption(key="clock", value=60), m.AddBot(), m.RemoveBot(name="greedy-bot1")):
        assert d.feed(zoe, message).codes(zoe) == ["not_seated"]
    assert state_of(d.core) == before


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("seed", -1),
        ("seed", 2**63),
        ("seed", 1.5),
        ("seed", "7"),
        ("stammtisch", "yes"),
        ("clock", 4),  # below the server's clock_min
        ("clock", 3601),
        ("clock", "30"),
        ("clock", True),
        ("absent", "maybe"),
    ],
)
def test_bad_option_value_is_refused_and_changes_nothing(key: str, value: Any) -> None:
    """A value out of range or of the wrong type is ``bad_option``, to the setter alone."""
    d = Driver()
    ann, zoe = d.enter("ann", join=True), d.enter("zoe")
    before = d.core.options
    # built without the wire's validation: the core checks values itself
    done = d.feed(ann, m.SetOption.model_construct(key=key, value=value, id=7))
    assert done.codes(ann) == ["bad_option"]
    assert [r.id for r in done.replies()] == [7]
    assert d.core.options == before
    assert done.sends(zoe) == [] and done.sends(ann) == []


def test_options_are_fixed_while_a_game_runs() -> None:
    """No option changes during a game (``game_running``)."""
    d = Driver()
    ann, _ = d.start("ann", "bob")
    before = d.core.options
    assert d.feed(ann, m.SetOption(key="clock", value=30)).codes(ann) == ["game_running"]
    assert d.core.options == before


# --- server bots -------------------------------------------------------------------------------


def test_add_bot_reserves_a_name_and_seats_the_bot() -> None:
    """``add_bot`` reserves a server-wide bot name and seats a bot of that strategy."""
    d = Driver()
    ann = d.enter("ann", join=True)
    done = d.feed(ann, m.AddBot(strategy="greedy", id=1))
    [_, seat] = d.core.seats
    assert (seat.name, seat.kind, seat.strategy) == ("greedy-bot1", "bot", "greedy")
    assert "greedy-bot1" in d.bot_names
    assert done.types(ann) == ["presence", "ack", "patch"]
    assert done.presence(ann) == [("greedy-bot1", "joined")]


def test_remove_bot_frees_its_name() -> None:
    """``remove_bot`` unseats the bot and releases its name."""
    d = Driver()
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot(strategy="greedy"))
    done = d.feed(ann, m.RemoveBot(name="GREEDY-Bot1", id=2))  # (any case: named as it is called)
    assert [s.name for s in d.core.seats] == ["ann"]
    assert "greedy-bot1" not in d.bot_names
    assert done.presence(ann) == [("greedy-bot1", "unseated")]
    assert done.types(ann)[-2:] == ["ack", "patch"]


def test_remove_bot_of_no_bot_is_refused() -> None:
    """Removing a name that is no server bot here (a person's included) is ``no_such_bot``."""
    d = Driver()
    ann, _ = d.seat("ann", "bob")
    assert d.feed(ann, m.RemoveBot(name="greedy-bot9")).codes(ann) == ["no_such_bot"]
    assert d.feed(ann, m.RemoveBot(name="bob")).codes(ann) == ["no_such_bot"]
    assert [s.name for s in d.core.seats] == ["ann", "bob"]


def test_add_bot_to_a_full_room_is_refused() -> None:
    """A fifth seat for a bot is ``room_full``, and no name is reserved for it."""
    d = Driver()
    ann, *_ = d.seat("ann", "bob", "cem", "dan")
    assert d.feed(ann, m.AddBot(strategy="greedy")).codes(ann) == ["room_full"]
    assert len(d.core.seats) == 4 and not d.bot_names.names


def test_bots_are_added_and_removed_between_games_only() -> None:
    """During a game ``add_bot`` and ``remove_bot`` are ``game_running``."""
    d = Driver()
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot(strategy="greedy"))
    assert d.feed(ann, m.Start()).written
    assert d.feed(ann, m.AddBot(strategy="greedy")).codes(ann) == ["game_running"]
    assert d.feed(ann, m.RemoveBot(name="greedy-bot1")).codes(ann) == ["game_running"]
    assert [s.name for s in d.core.seats] == ["ann", "greedy-bot1"]
    assert "greedy-bot1" in d.bot_names


# --- the start ---------------------------------------------------------------------------------


def test_start_logs_the_game_before_anyone_is_told() -> None:
    """``start`` asks for a GameStart entry first; until it is written, nothing is sent or changed."""
    d = Driver()
    ann, _ = d.seat("ann", "bob", options=[("clock", 30)])
    step = d.handle(ann, m.Start(id=1))
    record = GameRecord(players=("ann", "bob"), seed=SEED, options=Options(stammtisch=False))
    options = {
        "seed": SEED,
        "stammtisch": False,
        "clock": 30,
        "absent": "bot",
        "host": True,
        "private": False,
        "drawseat": False,
        "start": None,
    }
    identities = ["id-ann", "id-bob"]
    assert step.entries == (GameStart(GAME_ID, ROOM, record, ["person", "person"], options, identities),)
    assert not [e for e in step.effects if isinstance(e, Send)]
    assert d.core.state == "waiting" and d.core.game is None


def test_start_once_logged_tells_everyone_and_starts_the_turn() -> None:
    """Once logged: the starter's ack, each member's view, ``game_started`` (with the fingerprint of
    the seed the server drew), then the first turn."""
    d = Driver(seed=None)
    ann, bob = d.seat("ann", "bob", options=[("clock", 30)])
    zoe = d.enter("zoe")
    d.now = 50.0
    done = d.feed(ann, m.Start(id=1))
    assert done.types(ann) == ["ack", "patch", "game_started"]
    assert done.types(bob) == done.types(zoe) == ["patch", "game_started"]
    started = done.of(bob, m.GameStarted)[0]
    assert started.players == ["ann", "bob"] and started.seed_hash == seed_hash(99)  # (the Driver's draw)
    assert started.start_player == d.to_move
    assert d.views[ann]["state"] == "playing" and len(d.views[ann]["game"]["hand"]) == 5
    assert "hand" not in d.views[zoe]["game"]  # a spectator sees no hands
    assert d.views[bob]["game"]["hand"] != d.views[ann]["game"]["hand"]
    arm, warn = done.arms
    assert (arm.key, arm.at, arm.item.move_number) == ("turn", 80.0, 0)
    assert (warn.key, warn.at, warn.item.move_number) == ("warn", 70.0, 0)  # 10 s before the end
    assert d.views[ann]["game"]["deadline"] == pytest.approx(d.core.settings.wall_time(80.0), abs=0.01)
    assert "game_started" in done.notes


def test_start_with_a_bot_to_move_asks_the_bot_to_think() -> None:
    """When a server bot has the first turn, the start asks it to think instead of arming a clock."""
    d = Driver()
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot(strategy="greedy"))
    d.feed(ann, m.LeaveGame())  # and back: the bot sits first
    d.feed(ann, m.Join())
    d.feed(ann, m.SetOption(key="clock", value=30))
    done = d.feed(ann, m.Start())
    assert d.to_move == "greedy-bot1"
    assert done.arms == []  # a bot has no clock
    [think] = done.thinks
    assert (think.key, think.name, think.strategy, think.move_number) == ("turn", "greedy-bot1", "greedy", 0)
    assert think.position == d.position
    moved = d.think()
    assert moved.written and d.core.game is not None and d.core.game.moves == 1
    assert moved.of(ann, m.Played)[0].auto is False  # a bot's own move is not played for it


def test_start_is_refused_without_two_players() -> None:
    """A start needs 2 to 4 seated players (``not_enough_players``); nothing is logged."""
    d = Driver()
    [ann] = d.seat("ann")
    done = d.feed(ann, m.Start(id=1))
    assert done.step.entries == () and done.codes(ann) == ["not_enough_players"]
    assert d.core.state == "waiting"


def test_start_by_a_spectator_is_refused() -> None:
    """Only a seated player starts the game (``not_seated``)."""
    d = Driver()
    d.seat("ann", "bob")
    zoe = d.enter("zoe")
    done = d.feed(zoe, m.Start())
    assert done.step.entries == () and done.codes(zoe) == ["not_seated"]


# --- moves -------------------------------------------------------------------------------------


def test_move_is_logged_before_anyone_is_told() -> None:
    """A legal move asks for its MoveLogged entry; until it is written nothing is sent or changed."""
    d = Driver()
    players = d.start("ann", "bob")
    position, move = d.position, d.legal()
    step = d.handle(players[0], m.PlayMove(move=move, id=5))
    assert step.entries == (MoveLogged(GAME_ID, 1, move),)
    assert not [e for e in step.effects if isinstance(e, Send)]
    assert d.position == position and d.core.game is not None and d.core.game.moves == 0


def test_move_once_logged_publishes_then_announces_then_acks() -> None:
    """Once logged: everyone gets the patch and ``played``; then the mover gets its ack."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    zoe = d.enter("zoe")
    move = d.legal()
    expected = play(d.position, move)
    done = d.feed(ann, m.PlayMove(move=move, id=5))
    assert d.written[-1] == MoveLogged(GAME_ID, 1, move)
    assert done.types(ann) == ["patch", "played", "ack"]
    assert done.types(bob) == done.types(zoe) == ["patch", "played"]
    played = done.of(zoe, m.Played)[0]
    assert (played.player, played.move, played.points, played.auto) == ("ann", move, expected.points, False)
    assert done.of(ann, m.Ack)[0].id == 5
    assert d.position == expected.position
    assert d.views[bob]["game"]["move_number"] == 1 and d.views[bob]["game"]["to_move"] == "bob"


def test_a_move_is_one_effect_per_message_whoever_gets_it() -> None:
    """A move's ``played`` is one ``Send`` to every member, and members whose patch is the same
    share one ``Send`` of it: each member is named once for each message it gets."""
    d = Driver()
    ann, bob, cy = d.start("ann", "bob", "cy")
    zoe, max_ = d.enter("zoe"), d.enter("max")
    done = d.feed(ann, m.PlayMove(move=d.legal(), id=5))
    sends = [e for e in done.effects if isinstance(e, Send)]
    played = [e for e in sends if isinstance(e.message.message, m.Played)]
    assert len(played) == 1 and played[0].recipients == (ann, bob, cy, zoe, max_)
    patches = [e for e in sends if isinstance(e.message.message, m.Patch)]
    named = [r for e in patches for r in e.recipients]
    assert sorted(map(id, named)) == sorted(map(id, (ann, bob, cy, zoe, max_)))
    watching = next(e for e in patches if zoe in e.recipients)
    assert max_ in watching.recipients and len(patches) < 5


def test_move_refused_by_the_rules_changes_nothing() -> None:
    """An illegal move gets the rule's error code, to the mover alone; nothing is logged."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    position = d.position
    not_held = f"{position.players[1].hand[0]}@FR1s"
    for move, code in (("xyz", "bad_notation"), (not_held, "not_in_hand")):
        done = d.feed(ann, m.PlayMove(move=move, id=move))
        assert done.step.entries == () and done.written is None
        assert [(r.code, r.id) for r in done.replies()] == [(code, move)]
        assert done.sends(bob) == [] and done.sends(ann) == []
    assert d.position == position and d.written[-1:] == [d.written[0]]


def test_move_out_of_turn_or_by_a_spectator_is_refused() -> None:
    """Only the player to move may move: ``not_your_turn``; a spectator: ``not_seated``."""
    d = Driver()
    _, bob = d.start("ann", "bob")
    zoe = d.enter("zoe")
    move = legal_move_texts(d.position)[0]
    assert d.feed(bob, m.PlayMove(move=move)).codes(bob) == ["not_your_turn"]
    assert d.feed(zoe, m.PlayMove(move=move)).codes(zoe) == ["not_seated"]
    assert d.core.game is not None and d.core.game.moves == 0


# --- the end -----------------------------------------------------------------------------------


def _play_until_last_move(d: Driver, players: list[Any]) -> None:
    """Play first legal moves until the next one ends the game."""
    while not d.ends_game():
        assert d.move(players).written


def test_last_move_logs_the_outcome_with_it() -> None:
    """The game's last move asks for its MoveLogged and the GameEnd in one step."""
    d = Driver()
    players = d.start("ann", "bob")
    _play_until_last_move(d, players)
    assert d.core.game is not None
    number, move = d.core.game.moves + 1, d.legal()
    mover = next(p for p in players if p.name == d.to_move)
    step = d.handle(mover, m.PlayMove(move=move))
    outcome = play(d.position, move).outcome
    assert outcome is not None
    assert step.entries == (MoveLogged(GAME_ID, number, move), GameEnd(GAME_ID, outcome))


def test_game_over_reveals_the_seed_and_cancels_the_timers() -> None:
    """After the last move: ``game_over`` with the seed, the turn and resume windows cancelled; the
    seed the room chose is random again, and the room is told why."""
    d = Driver()
    ann, bob, cem = d.start("ann", "bob", "cem", options=[("clock", 30)])
    zoe = d.enter("zoe")
    _play_until_last_move(d, [ann, bob, cem])
    away = next(p for p in (ann, bob, cem) if p.name != d.to_move)
    d.feed(away, Leave(disconnected=True))
    assert f"window:{away.name}" in d.timers
    done = d.move([ann, bob, cem])
    assert isinstance(d.written[-1], GameEnd) and d.core.state == "over"
    over = done.of(zoe, m.GameOver)[0]
    assert over.seed == SEED and over.reason == d.written[-1].outcome.reason
    types = done.types(zoe)
    assert types[:2] == ["patch", "played"] and types[-3:] == ["game_over", "notice", "patch"]
    assert done.of(zoe, m.Notice)[-1].text.startswith("The seed is random again")
    assert d.core.options.seed is None and d.views[zoe]["options"]["seed"] is None
    assert {"turn", f"window:{away.name}"} <= set(done.cancels)
    assert not [e for e in done.effects if isinstance(e, Think)] and done.arms == []
    assert d.timers == {}
    assert [s.name for s in d.core.seats] == [p.name for p in (ann, bob, cem) if p is not away]
    assert d.views[zoe]["state"] == "over"


def test_only_members_are_heard() -> None:
    """A connection the room does not hold (turned away as it came in, its next messages on their
    way) is ``not_in_room`` for what it says, asks or plays, and nobody hears of it; it may still
    come in, come back or ask for the view."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    stranger = FakeMember("eve")
    before = state_of(d.core)
    for message in (
        m.Say(text="INJ"),
        m.SetOption(key="clock", value=30),
        m.VoteRemove(name="bob"),
        m.GetLegalMoves(),
        m.Join(),
    ):
        done = d.feed(stranger, message)
        assert done.codes(stranger) == ["not_in_room"], message
        assert not done.sends(ann) and not done.sends(bob) and not done.written
    assert state_of(d.core) == before
    assert "snapshot" in d.feed(stranger, Enter()).types(stranger)
    assert d.feed(stranger, m.Say(text="hello")).codes(stranger) == []
