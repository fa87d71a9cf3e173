"""A room's views built on the state before (``previous``, built by then): unchanged parts are that
state's very objects, a history grown in place is read on from where it was, a new game of another
size follows a finished one; and the facts a view is given are shown as given."""

from __future__ import annotations

import gc
import json
from typing import Any

from engine import Outcome, leave, new_position, outcome, random_game, replay
from protocol.diff import diff
from protocol.view import LastMove, RoomViews, SeatInfo, room_view

SEATS = [SeatInfo("ann", "person", True), SeatInfo("bob", "person", True), SeatInfo("cy", "bot", True)]


def _state(previous: RoomViews | None = None, **facts: Any) -> RoomViews:
    """A playing room of ann, bob and cy at the deal of seed 3, with ``facts`` changed, built on
    ``previous`` (whose views are read first: a state is built on the one before only if that
    one was built by then)."""
    if previous is not None:
        previous.view(None)
    given: dict[str, Any] = {
        "room": "cafe",
        "state": "playing",
        "seats": SEATS,
        "spectators": ["zoe"],
        "options": {"stammtisch": False},
        "position": new_position(["ann", "bob", "cy"], seed=3),
        "last_move": None,
        "outcome": None,
        "move_number": 0,
    }
    return RoomViews(**{**given, **facts}, previous=previous)


def test_unchanged_parts_are_the_previous_states_own_objects() -> None:
    """Seats, spectators, options and each player's entry equal to the state before's are that
    state's very objects (so that the diff passes over them at once); a changed part is not."""
    before = _state()
    watchers = ["zoe", "yan"]
    after = _state(before, spectators=watchers)
    old, new = before.view(None), after.view(None)
    assert new["seats"] is old["seats"] and new["options"] is old["options"]
    assert new["spectators"] == ["zoe", "yan"] and new["spectators"] is not old["spectators"]
    assert new["game"]["players"] is old["game"]["players"]
    changed = [*SEATS[:2], SeatInfo("cy", "bot", False)]
    again = _state(after, seats=changed, spectators=list(watchers), options={"stammtisch": True})
    newest = again.view(None)
    assert newest["spectators"] is new["spectators"]
    assert newest["seats"] is not new["seats"] and newest["options"] == {"stammtisch": True}


def test_the_games_unchanged_parts_are_the_previous_states_own_objects() -> None:
    """In a finished game watched by someone new, the chairs, the bar, the last move, the history
    and the result are the state before's very objects."""
    record = random_game(["ann", "bob", "cy"], 5)
    end = replay(record).results[-1].position
    last = LastMove("cy", "FRf@bar", 1)
    facts: dict[str, Any] = {"state": "over", "position": end, "outcome": outcome(end),
                             "last_move": last, "move_number": len(record.moves)}  # fmt: skip
    before = _state(**facts, history=[last])
    after = _state(before, **facts, history=[last], spectators=["yan"])
    old, new = before.view(None)["game"], after.view(None)["game"]
    assert old["chairs"] and old["bar"] and old["result"] is not None
    for key in ("chairs", "bar", "last_move", "history", "result"):
        assert new[key] is old[key], key


def test_each_unchanged_player_is_the_previous_states_own_entry() -> None:
    """After a move only the mover's and the next player's entries may change: every player whose
    entry is equal is the state before's very object, inside a new list of players."""
    record = random_game(["ann", "bob", "cy"], 5)
    first = replay(record).results[0]
    start = record.start()
    before = _state(position=start)
    after = _state(before, position=first.position, move_number=1)
    old, new = before.view(None)["game"]["players"], after.view(None)["game"]["players"]
    assert new is not old
    kept = [i for i in range(3) if new[i] == old[i]]
    assert kept and all(new[i] is old[i] for i in kept)
    assert all(new[i] is not old[i] for i in range(3) if i not in kept)


def test_a_history_grown_in_place_keeps_the_earlier_moves_objects() -> None:
    """A room appends each move to the one history list it passes every state: the new state shows
    every move, the earlier ones as the very objects of the states before, through a state in
    which nobody moved."""
    history = [LastMove("ann", "DEm@bar", 1)]
    first = _state(history=history, last_move=history[-1], move_number=1)
    before = _state(first, history=history, last_move=history[-1], move_number=1, spectators=[])
    history.append(LastMove("bob", "GBf@bar", 2))
    after = _state(before, history=history, last_move=history[-1], move_number=2)
    old, new = before.view(None)["game"]["history"], after.view(None)["game"]["history"]
    assert old is first.view(None)["game"]["history"]
    assert new == [
        {"player": "ann", "move": "DEm@bar", "points": 1},
        {"player": "bob", "move": "GBf@bar", "points": 2},
    ]
    assert new[0] is old[0]
    ops = [op for op in after.changes(before, "ann") if op["path"].startswith("/game/history")]
    assert ops == [{"op": "add", "path": "/game/history/1", "value": new[1]}]


def test_a_history_other_than_the_previous_states_is_read_whole() -> None:
    """Built on a state whose history is another list, a state shows its own history, all of it."""
    before = _state(history=[LastMove("ann", "DEm@bar", 1)], move_number=1)
    own = [LastMove("cy", "FRf@bar", 1), LastMove("ann", "GBf@bar", 2)]
    after = _state(before, history=own, move_number=2)
    assert [h["move"] for h in after.view(None)["game"]["history"]] == ["FRf@bar", "GBf@bar"]


def test_a_new_game_of_fewer_players_follows_a_finished_one() -> None:
    """A state whose game has fewer players than the finished game before it (a new game started
    at once) is built on that state as on nothing: the same views and the same changes."""
    record = random_game(["ann", "bob", "cy", "dee"], 8)
    end = replay(record).results[-1].position
    over = RoomViews(room="cafe", state="over", seats=[*SEATS, SeatInfo("dee", "person", True)],
                     spectators=[], options={}, position=end, last_move=None, outcome=outcome(end),
                     move_number=len(record.moves))  # fmt: skip
    new = _state(over, spectators=[])
    alone = _state(None, spectators=[])
    for recipient in ("ann", "dee", None):
        assert new.view(recipient) == alone.view(recipient)
        assert new.changes(over, recipient) == diff(over.view(recipient), alone.view(recipient))


def test_room_view_carries_the_history_and_the_deadline() -> None:
    """``room_view`` shows the history and the turn's deadline it is given, as ``RoomViews`` does."""
    history = [LastMove("ann", "FRf@bar", 1)]
    view = room_view(room="cafe", state="playing", seats=SEATS, spectators=[], options={},
                     position=new_position(["ann", "bob", "cy"], seed=3), recipient="bob",
                     last_move=history[0], outcome=None, move_number=1, history=history,
                     deadline=1767225600.1234)  # fmt: skip
    assert view["game"]["history"] == [{"player": "ann", "move": "FRf@bar", "points": 1}]
    assert view["game"]["deadline"] == 1767225600.123


def test_a_finished_position_shows_the_outcome_the_room_gives() -> None:
    """An outcome the room gives is the one shown, even for a position the rules call finished."""
    record = random_game(["ann", "bob", "cy"], 5)
    end = replay(record).results[-1].position
    scores = dict.fromkeys(("ann", "bob", "cy"), 0)
    given = Outcome("abandoned", scores, scores, ("cy", "bob", "ann"), {"cy": 1, "bob": 2, "ann": 3})
    assert outcome(end) is not None and outcome(end) != given
    game = _state(state="over", position=end, outcome=given).view("bob")["game"]
    assert game["over"] == "abandoned" and game["result"] == {**given.to_dict(), "ratings": None}


def test_options_are_copied_lists_included() -> None:
    """Options holding lists are shown as given, and changing them afterwards changes no view."""
    options: dict[str, Any] = {"bots": ["greedy", "random"], "stammtisch": False}
    views = _state(options=options)
    options["bots"].append("cautious")
    assert views.view(None)["options"] == {"bots": ["greedy", "random"], "stammtisch": False}


def test_a_new_game_of_more_players_follows_a_finished_one() -> None:
    """A state whose game has more players than the finished game before it is built on that
    state as on nothing for the players it adds: the same views and the same changes."""
    end = replay(random_game(["ann", "bob"], 8)).results[-1].position
    over = RoomViews(room="cafe", state="over", seats=SEATS[:2], spectators=["cy"], options={},
                     position=end, last_move=None, outcome=outcome(end), move_number=9)  # fmt: skip
    new = _state(over)
    alone = _state(None)
    for recipient in ("ann", "cy", None):
        assert new.view(recipient) == alone.view(recipient)
        assert new.changes(over, recipient) == diff(over.view(recipient), alone.view(recipient))


def test_views_built_on_the_state_before_are_the_views_built_afresh_at_every_move() -> None:
    """Through a whole game, each state's views built on the one before hold what views built
    from nothing hold, with their keys in the same order (a snapshot's text is the same); a move
    that seats nobody keeps the chairs' very object, one that leaves the bar keeps the bar's."""
    names = ["ann", "bob", "cy"]
    record = random_game(names, 11)
    positions = [record.start(), *(r.position for r in replay(record).results)]
    before: RoomViews | None = None
    kept = {"chairs": 0, "bar": 0}
    for number, position in enumerate(positions):
        facts: dict[str, Any] = {"position": position, "move_number": number, "outcome": outcome(position)}
        views = _state(before, **facts)
        fresh = _state(**facts)
        for who in [*names, "zoe", None]:
            assert json.dumps(views.view(who)) == json.dumps(fresh.view(who)), (number, who)
        if before is not None:
            old, new = before.view(None)["game"], views.view(None)["game"]
            for key in kept:
                if new[key] is old[key]:
                    kept[key] += 1
                else:
                    assert new[key] != old[key], (number, key)
        before = views
    assert kept["chairs"] > 0 and kept["bar"] > 0, kept


def test_a_player_who_leaves_is_shown_out_though_the_engine_kept_the_player() -> None:
    """Leaving changes no player of the position (the same objects), only who is out: the views
    built on the state before show the leaver out, as views built from nothing do, and keep the
    others' lines and hands."""
    names = ["ann", "bob", "cy"]
    record = random_game(names, 11)
    position = replay(record).results[3].position
    left = leave(position, "bob").position
    assert left.players is position.players and left.eliminated != position.eliminated
    before = _state(position=position, move_number=4)
    after = _state(before, position=left, move_number=5)
    fresh = _state(position=left, move_number=5)
    for who in [*names, None]:
        assert json.dumps(after.view(who)) == json.dumps(fresh.view(who)), who
    old, new = before.view("ann")["game"], after.view("ann")["game"]
    assert [p["eliminated"] for p in new["players"]] == [False, True, False]
    assert new["players"][0] is old["players"][0] and new["hand"] is old["hand"]


def test_the_states_a_room_went_through_are_not_kept_alive_by_their_changes() -> None:
    """What changed from one state to the next is worked out once for all recipients and kept
    with the state before, so that no state keeps the one before it alive: with the room's newest
    state held, only it stays alive."""
    record = random_game(["ann", "bob", "cy"], 7)
    positions = [r.position for r in replay(record).results]
    gc.collect()
    alive_before = _alive()
    state = _state(position=positions[0])
    for number, position in enumerate(positions[1:40], start=1):
        newer = _state(state, position=position, move_number=number)
        for recipient in ("ann", "bob", "zoe", None):
            newer.changes(state, recipient)
        state = newer
    gc.collect()
    assert _alive() - alive_before == 1


def _alive() -> int:
    return sum(isinstance(o, RoomViews) for o in gc.get_objects())
