"""The room core's answers to questions and the timers around a turn, driven item by item: legal
moves, hints, the board, hand and score, chat, resync, the clock's warning, a game nobody attends,
a refused bot move tried again, the room list's summary and the ratings of ``game_over``."""

from __future__ import annotations

import random

from bots.strategy import bot_view, get_strategy
from engine import GameRecord, legal_move_texts, play
from protocol import messages as m
from protocol import text
from protocol.commands import ShowRequest
from protocol.i18n import lang
from server.log.contract import StoredGame
from server.ratings import ACCOUNT
from server.room.clock import CLOCK_WARNING, IDLE
from server.room.core import RoomSettings
from server.room.effects import Answers, Arm, Note, Think
from server.room.items import ClockWarning, Enter, Leave, MakeWay, Returned, TurnRetry, Unattended
from tests.server.roomcore import SEED, Driver, FakeMember


def test_the_player_to_move_gets_legal_moves_and_a_hint_and_nobody_else() -> None:
    """The player to move gets the engine's legal moves and a hint among them with its points; the
    other player hears whose turn it is, a spectator that they have no seat, and before a game
    there is none to ask about."""
    d = Driver()
    ann = d.enter("ann", join=True)
    assert d.feed(ann, m.GetLegalMoves()).codes(ann) == ["no_game"]
    bob = d.enter("bob", join=True)
    d.feed(ann, m.Start())
    zoe = d.enter("zoe")
    mover, waiter = (ann, bob) if d.to_move == "ann" else (bob, ann)
    [legal] = d.feed(mover, m.GetLegalMoves()).of(mover, m.LegalMoves)
    assert legal.moves == legal_move_texts(d.position)
    [hint] = d.feed(mover, m.GetHint()).of(mover, m.Hint)
    assert hint.move in legal.moves and hint.points == play(d.position, hint.move).points
    for ask in (m.GetLegalMoves(), m.GetHint()):
        refused = d.feed(waiter, ask)
        assert refused.codes(waiter) == ["not_your_turn"]
        assert f"{mover.name}'s turn" in refused.replies()[0].text
        assert d.feed(zoe, ask).codes(zoe) == ["not_seated"]


def test_board_hand_and_score_are_rendered_from_the_askers_own_view() -> None:
    """``/board``, ``/hand`` and ``/score`` answer the asker alone with a text of their kind, rendered
    from the asker's own view, in plain ASCII for a client that asked for it, in the reader's
    language."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    plain = FakeMember("pat", ascii_only=True)
    d.feed(plain, Enter())
    renders = {"board": text.render_board, "hand": text.render_hand, "score": text.render_scores}
    for member, ascii_only in ((ann, False), (bob, False), (plain, True)):
        for what, render in renders.items():
            done = d.feed(member, ShowRequest(what))
            [answer] = done.of(member, m.Text)
            assert answer.kind == what
            assert answer.text == render(d.views[member], ascii_only=ascii_only)
            german = render(d.views[member], ascii_only=ascii_only, lang=lang("de"))
            assert answer.text.render(lang("de")) == german != answer.text  # in the reader's words
            assert done.recipients == {id(member)}
    hands = [text.render_hand(d.views[member], ascii_only=False) for member in (ann, bob)]
    assert hands[0] != hands[1]  # each is shown their own


def test_chat_reaches_everyone_in_the_room_under_the_speakers_name() -> None:
    """A spectator's ``say`` reaches every member, the speaker too, as the speaker's; it is acked."""
    d = Driver()
    ann, bob = d.seat("ann", "bob")
    zoe = d.enter("zoe")
    done = d.feed(zoe, m.Say(text="hello all"))
    for member in (ann, bob, zoe):
        assert done.of(member, m.Chat) == [m.Chat(room="cafe", name="zoe", text="hello all")]
    assert "ack" in done.types(zoe)


def test_resync_sends_a_member_its_whole_view_again_and_refuses_others() -> None:
    """``resync`` gives a member a fresh snapshot of its view; someone not in the room is refused."""
    d = Driver()
    ann, _ = d.start("ann", "bob")
    before = d.views[ann]
    [snapshot] = d.feed(ann, m.Resync()).of(ann, m.Snapshot)
    assert snapshot.view == before
    stranger = FakeMember("kim")
    done = d.feed(stranger, m.Resync())
    assert done.codes(stranger) == ["not_in_room"] and done.of(stranger, m.Snapshot) == []


def test_the_clock_warning_goes_to_the_player_to_move_alone_and_only_for_this_turn() -> None:
    """Near the end of a turn's clock the player to move is told the seconds left; nobody else is,
    and a warning of an earlier turn, or for a player away, says nothing."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    zoe = d.enter("zoe")
    mover, other = (ann, bob) if d.to_move == "ann" else (bob, ann)
    done = d.fire("warn")
    [notice] = done.of(mover, m.Notice)
    assert notice.text == f"10 seconds left to move, {mover.name}." and notice.room == "cafe"
    assert done.of(other, m.Notice) == [] and done.of(zoe, m.Notice) == []
    d.move([ann, bob])
    assert d.to_move == other.name
    assert d.feed(None, ClockWarning(0, CLOCK_WARNING)).effects == []
    d.feed(other, Leave(disconnected=True))
    assert d.fire("warn").effects == []


#: the players behind the seats of ann, the bot and bob: two accounts
ACCOUNTS = ("account:ann", None, "account:bob")


def _stored_with_a_bot_to_move(identities: tuple[str | None, ...] = ACCOUNTS) -> StoredGame:
    """A game in the log, its first move played: the server's bot is to move."""
    players = ("ann", "greedy-bot1", "bob")
    first = legal_move_texts(GameRecord(players=players, seed=SEED).start())[0]
    record = GameRecord(players=players, seed=SEED, moves=(first,))
    kinds = ("person", "bot:greedy", "person")
    return StoredGame("g0", "cafe", record, kinds, 0.0, None, None, identities=identities)


def _restored_with_a_bot_to_move(identities: tuple[str | None, ...] = ACCOUNTS) -> Driver:
    """A room after a restart: the server's bot is to move and nobody is there."""
    d = Driver()
    d.finish(d.core.restore(_stored_with_a_bot_to_move(identities), 0.0))
    assert d.to_move == "greedy-bot1" and d.core.suspended
    return d


def test_a_game_nobody_attends_leaves_memory_only_while_nobody_comes() -> None:
    """A game whose bot waits with nobody in the room leaves memory when the window passes with no
    move since; a window of an earlier move, or someone in the room, keeps it."""
    d = _restored_with_a_bot_to_move()
    d.feed(None, Unattended(0))
    assert not d.core.unloaded
    d.fire(IDLE)
    assert d.core.unloaded and d.core.game is not None and d.core.game.outcome is None
    d = _restored_with_a_bot_to_move()
    d.enter("zoe")
    d.feed(None, Unattended(1))
    assert not d.core.unloaded


def test_a_game_no_account_may_come_back_to_ends_when_the_window_passes_with_nobody() -> None:
    """The same game with no seat an account's (two guests, or a game logged before identities
    were kept): when the window passes with nobody in the room, nobody who could come back later
    holds a seat, and the game ends (``closed``) rather than leaving memory to wait a week; one
    account among the seats keeps it waiting."""
    for identities in ((None, None, None), ("guest:1", None, "guest:2")):
        d = _restored_with_a_bot_to_move(identities)
        d.fire(IDLE)
        assert not d.core.unloaded and d.core.game is not None
        assert d.core.game.outcome is not None and d.core.game.outcome.reason == "closed"
    d = _restored_with_a_bot_to_move(("guest:1", None, "account:bob"))
    d.fire(IDLE)
    assert d.core.unloaded and d.core.game is not None and d.core.game.outcome is None


def test_a_game_with_nobody_in_its_room_makes_way_at_once_with_its_timers() -> None:
    """Asked to make way (the server holds as many rooms as it may), a running game with nobody in
    its room leaves memory at once, its turn's timers cancelled; one with someone in the room, or
    one that is over, stays."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    zoe = d.enter("zoe")
    for member in (ann, bob):
        d.feed(member, Leave(disconnected=True))
    assert d.feed(None, MakeWay()).effects == [] and not d.core.unloaded  # (zoe watches)
    d.feed(zoe, Leave(disconnected=False))
    assert not d.core.members
    done = d.feed(None, MakeWay())
    assert d.core.unloaded and "turn" in done.cancels and "warn" in done.cancels
    ended = Driver()
    cid, dan = ended.start("cid", "dan", options=[("absent", "drop")])
    ended.feed(dan, m.LeaveGame())  # (the last player left: the game is over)
    ended.feed(cid, Leave(disconnected=True))
    ended.feed(None, MakeWay())
    assert not ended.core.unloaded


def _at_the_bots_turn() -> tuple[Driver, FakeMember]:
    """ann against the server's bot, the game started and played on until the bot is to move."""
    d = Driver()
    ann = d.enter("ann", join=True)
    d.feed(ann, m.AddBot())
    d.feed(ann, m.Start())
    while d.to_move == "ann":
        d.move([ann])
    return d, ann


def test_a_refused_bot_move_is_tried_again_for_its_own_turn_only() -> None:
    """When the log refused a bot's move the turn starts again; a retry of another turn, or after
    the game ended, starts nothing."""
    d, ann = _at_the_bots_turn()
    assert d.think(log=False).written is False
    retry = d.due("turn")
    assert isinstance(retry, TurnRetry) and d.core.game is not None
    assert d.feed(None, TurnRetry(retry.move_number + 1)).effects == []
    again = d.feed(None, retry)
    assert [t.name for t in again.thinks] == [d.to_move]
    while d.core.state == "playing":
        d.move([ann]) if d.to_move == "ann" else d.think()
    assert d.feed(None, TurnRetry(d.core.game.moves)).effects == []


def test_the_room_list_counts_seats_connections_guests_and_spectators() -> None:
    """The summary and the listing say who sits (connected or not, a guest or an account's player)
    and how many only watch."""
    d = Driver()
    ann = d.enter("ann", join=True)
    reg = FakeMember("reg")
    reg.identity = ACCOUNT + "reg"
    d.feed(reg, Enter(join=True))
    d.feed(ann, m.AddBot())
    d.feed(ann, m.Start())
    d.enter("zoe")
    d.enter("max")
    d.feed(reg, Leave(disconnected=True))
    summary = d.core.summary()
    assert [(s.name, s.kind, s.connected, s.guest) for s in summary.seats] == [
        ("ann", "person", True, True),
        ("reg", "person", False, False),
        (d.core.seats[2].name, "bot", True, False),
    ]
    assert summary.spectators == 2
    state, seats, spectators, options = d.core.listing()
    assert (state, spectators, options) == ("playing", 2, d.core.options)
    assert seats == tuple((s.name, s.kind, s.connected, s.identity) for s in d.core.seats)
    assert d.core.summary() is summary  # (made again only when the listing changes)
    d.enter("eve")
    assert d.core.summary().spectators == 3


def test_game_over_carries_the_ratings_the_log_gave_as_it_wrote_the_end() -> None:
    """``game_over`` carries the rating shifts the log answered as it wrote the game's end, and
    none when it answered none."""
    shift = {"ann": m.RatingShift(before=1500, after=1510, provisional=True)}
    for answers, expected in ((Answers(shift), shift), (Answers(), None)):
        d = Driver(seed=None)
        players = d.start("ann", "bob")
        zoe = d.enter("zoe")
        while not d.ends_game():
            d.move(players)
        [over] = d.move(players, answers=answers).of(zoe, m.GameOver)
        assert over.ratings == expected


def test_a_bot_asked_to_think_gets_its_own_seat_position_and_turn() -> None:
    """The server's bot to move is asked to think with its name, strategy, position and turn."""
    d, _ = _at_the_bots_turn()
    think = d.timers["turn"]
    assert isinstance(think, Think) and d.core.game is not None
    assert (think.name, think.position, think.move_number) == (d.to_move, d.position, d.core.game.moves)


def test_a_hint_is_the_same_each_time_it_is_asked_at_the_same_position() -> None:
    """The hint is the greedy move drawn the same way every time: asked twice at each of ten
    turns (where several moves are often equally good), it is the same move, the clock's move."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    greedy = get_strategy("greedy")
    for _ in range(10):
        mover = ann if d.to_move == "ann" else bob
        hints = [d.feed(mover, m.GetHint()).of(mover, m.Hint)[0].move for _ in range(2)]
        expected = greedy.choose(bot_view(d.position, d.position.to_move), random.Random(0))
        assert hints == [expected, expected]
        d.move([ann, bob])


def test_only_board_hand_and_score_are_shown_by_a_room() -> None:
    """Asked to show anything else, the room answers ``bad_arguments``."""
    d = Driver()
    ann, _ = d.start("ann", "bob")
    assert d.feed(ann, ShowRequest("top")).codes(ann) == ["bad_arguments"]


def test_unloading_and_restoring_are_noted_with_the_game_and_its_moves() -> None:
    """The log says which game was taken up from the log and which left memory, with its moves."""
    d = _restored_with_a_bot_to_move()
    done = d.fire(IDLE)
    assert [(n.event, n.fields) for n in done.effects if isinstance(n, Note)] == [
        ("unloaded", {"game": "g0", "moves": 1})
    ]
    step = Driver().core.restore(_stored_with_a_bot_to_move(), 0.0)
    assert [(n.event, n.fields) for n in step.effects if isinstance(n, Note)] == [
        ("restored", {"game": "g0", "moves": 1})
    ]


def test_a_message_the_room_does_not_handle_is_unknown_there() -> None:
    """A lobby message that reached a room is ``unknown_type``, naming the message, answering its id."""
    d = Driver()
    ann = d.enter("ann")
    [refused] = d.feed(ann, m.ListRooms()).replies(ann)
    assert refused.code == "unknown_type" and "ListRooms" in refused.text


def test_a_bots_turn_is_asked_with_its_key_seed_and_budget_and_someone_coming_wakes_it() -> None:
    """A bot thinks under the turn's key, seeded by the game and move, within the server's budget;
    with nobody in the room it waits for the window (from now), and someone entering cancels the
    wait and asks it to think."""
    d = _restored_with_a_bot_to_move()
    assert d.timers[IDLE] == Arm(IDLE, 0.0 + RoomSettings().resume_window, Unattended(1))
    zoe = FakeMember("zoe")
    done = d.feed(zoe, Enter())
    assert IDLE in done.cancels
    [think] = done.thinks
    assert (think.key, think.seed, think.budget) == ("turn", "g0:1", RoomSettings().bot_budget)


def test_a_clock_as_short_as_the_warning_has_no_warning_and_none_comes_after_the_end() -> None:
    """A turn clock no longer than the warning gives no warning; a warning armed for a turn that
    ended the game says nothing."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", CLOCK_WARNING)])
    assert "turn" in d.timers and "warn" not in d.timers
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    while not d.ends_game():
        d.move([ann, bob])
    assert d.core.game is not None
    number = d.core.game.moves
    d.move([ann, bob])
    assert d.feed(None, ClockWarning(number + 1, CLOCK_WARNING)).effects == []


def test_a_player_back_on_their_turn_sees_the_same_deadline_and_after_the_end_no_turn_starts() -> None:
    """A player who comes back on their own turn finds its clock where it was, and every view
    shows the turn's deadline; after the end, coming back starts no turn."""
    settings = RoomSettings(wall_time=lambda now: 1000.0 + now)
    d = Driver(settings)
    ann, bob = d.start("ann", "bob", options=[("clock", 30)])
    assert d.to_move == "ann"
    d.feed(ann, Leave(disconnected=True))
    d.now = 12.0
    again = FakeMember("ann")
    d.feed(again, Returned())
    assert d.views[bob]["game"]["deadline"] == d.views[again]["game"]["deadline"] == 1000.0 + 30
    while d.core.state == "playing":
        d.move([again, bob])
    for gone in (again, bob):  # whoever was to move at the end among them
        d.feed(gone, Leave(disconnected=True))
        back = FakeMember(gone.name or "")
        done = d.feed(back, Returned())
        assert done.arms == [] and done.thinks == []


def test_a_game_the_room_ended_shows_its_end_in_every_view() -> None:
    """When the last other player leaves a game (absent ``drop``), the room ends it, and the views
    say it is over, for the reason the room gave."""
    d = Driver()
    ann, bob = d.start("ann", "bob", options=[("absent", "drop")])
    zoe = d.enter("zoe")
    done = d.feed(bob, m.LeaveGame())
    [over] = done.of(zoe, m.GameOver)
    assert d.views[zoe]["game"]["over"] == over.reason and d.views[ann]["game"]["over"] == over.reason


def test_each_move_is_noted_and_its_events_hold_no_game_over() -> None:
    """Each move is noted with player, move, points and number; the last move's ``played`` lists
    the rules' events without the game's end, which ``game_over`` tells."""
    d = Driver()
    ann, bob = d.start("ann", "bob")
    while True:
        mover, last = d.to_move, d.ends_game()
        number = d.core.game.moves + 1 if d.core.game else 0
        done = d.move([ann, bob])
        [note] = [e for e in done.effects if isinstance(e, Note) and e.event == "move"]
        [played] = done.of(ann, m.Played)
        fields = {"player": mover, "move": played.move, "points": played.points, "number": number}
        assert note.fields == fields
        assert all(event["type"] != "game_over" for event in played.events)
        if last:
            break
