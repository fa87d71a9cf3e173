"""The view of a room for one recipient: its shape, and what it must never reveal."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import protocol.view
from engine import Guest, Outcome, Player, Position, outcome, position_from_dict, random_game, replay
from engine.position import sorted_hand
from protocol.diff import apply_patch, diff
from protocol.view import LastMove, RoomViews, SeatInfo, room_view
from tests.examples import run_examples

NAMES = ("ann", "bob", "cy", "dee")


def seats_for(names: tuple[str, ...]) -> list[SeatInfo]:
    return [SeatInfo(n, "bot" if n == "cy" else "person", n != "bob") for n in names]


def make_view(
    position: Position | None,
    recipient: str | None,
    *,
    names: tuple[str, ...] = NAMES,
    spectators: tuple[str, ...] = ("zoe",),
    last_move: LastMove | None = None,
    result: Outcome | None = None,
    move_number: int = 0,
    state: str = "playing",
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return room_view(
        room="cafe",
        state=state,
        seats=seats_for(names),
        spectators=spectators,
        options={"stammtisch": False} if options is None else options,
        position=position,
        recipient=recipient,
        last_move=last_move,
        outcome=result,
        move_number=move_number,
    )


@lru_cache(maxsize=64)
def game_positions(seed: int, players: int = 4) -> tuple[Position, ...]:
    """Every position of one random game, from the deal to the end."""
    record = random_game(NAMES[:players], seed)
    return (record.start(), *(r.position for r in replay(record).results))


def walk(value: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """Every (path, key, value) of every object member in a JSON document."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path, k, v
            yield from walk(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, f"{path}/{i}")


def hand_keys(view: dict[str, Any]) -> list[str]:
    return [f"{path}/{key}" for path, key, _ in walk(view) if key == "hand"]


def hide_differently(position: Position, viewer: int, rng: random.Random) -> Position:
    """The same position as ``viewer`` knows it: the other hands and the deck dealt anew from
    the same cards, each hand keeping its size."""
    others = [i for i in range(len(position.players)) if i != viewer]
    pool = [c for i in others for c in position.players[i].hand] + list(position.deck)
    rng.shuffle(pool)
    players = list(position.players)
    for i in others:
        size = len(players[i].hand)
        players[i] = replace(players[i], hand=sorted_hand(pool[:size]))
        pool = pool[size:]
    return replace(position, players=tuple(players), deck=tuple(pool))


def test_module_examples_run() -> None:
    """The examples in the module docstring hold."""
    found = run_examples(protocol.view)
    assert found.failed == 0 and found.attempted > 0


def test_view_has_exactly_the_documented_shape() -> None:
    """A player's view of a game in progress has the documented keys at every level, no more."""
    position = game_positions(1)[10]
    view = make_view(position, "ann", last_move=LastMove("bob", "FRf@FR1s", 3), move_number=10)
    assert set(view) == {"room", "state", "seats", "spectators", "options", "rated", "you", "seat", "game"}
    assert set(view["game"]) == {
        "players",
        "hand",
        "to_move",
        "start_player",
        "chairs",
        "bar",
        "deck_size",
        "move_number",
        "last_move",
        "history",
        "deadline",
        "over",
        "practice",
        "result",
    }
    for player in view["game"]["players"]:
        assert set(player) == {"name", "hand_size", "score", "hand_limit", "eliminated"}
    for seat in view["seats"]:
        assert set(seat) == {"name", "kind", "connected"}
    assert view["game"]["last_move"] == {"player": "bob", "move": "FRf@FR1s", "points": 3}
    assert view["game"]["move_number"] == 10


def test_view_is_plain_json() -> None:
    """A view survives a JSON round trip unchanged: only dicts, lists, strings, numbers, bools, null."""
    for position in game_positions(2)[::7]:
        for recipient in (*NAMES, "zoe", None):
            view = make_view(position, recipient)
            assert json.loads(json.dumps(view)) == view


def test_room_facts_are_reported_as_given() -> None:
    """Room name, state, seats, spectators and options appear as the room gave them."""
    view = make_view(None, "zoe", spectators=("zoe", "yan"), state="waiting", options={"seed": 7})
    assert view["room"] == "cafe"
    assert view["state"] == "waiting"
    assert view["seats"] == [
        {"name": "ann", "kind": "person", "connected": True},
        {"name": "bob", "kind": "person", "connected": False},
        {"name": "cy", "kind": "bot", "connected": True},
        {"name": "dee", "kind": "person", "connected": True},
    ]
    assert view["spectators"] == ["zoe", "yan"]
    assert view["options"] == {"seed": 7}


def test_waiting_room_has_no_game() -> None:
    """Without a position the view's game is null, for players and spectators alike."""
    for recipient in ("ann", "zoe", None):
        assert make_view(None, recipient, state="waiting")["game"] is None


def test_you_and_seat_name_the_recipient() -> None:
    """The "you" field is the recipient's name, "seat" its index among the seats (null if none)."""
    position = game_positions(3)[0]
    for i, name in enumerate(NAMES):
        view = make_view(position, name)
        assert (view["you"], view["seat"]) == (name, i)
    assert (make_view(position, "zoe")["you"], make_view(position, "zoe")["seat"]) == ("zoe", None)
    assert (make_view(position, None)["you"], make_view(position, None)["seat"]) == (None, None)


def test_spectator_view_has_no_hand_anywhere() -> None:
    """A spectator (or an anonymous reader) finds no "hand" key at any depth, in any position."""
    for seed in (4, 5):
        for position in game_positions(seed):
            assert hand_keys(make_view(position, "zoe")) == []
            assert hand_keys(make_view(position, None)) == []


def test_each_player_sees_only_the_own_hand() -> None:
    """A player's view holds one hand, at game.hand, and it is that player's own hand."""
    for position in game_positions(6)[::5]:
        for i, name in enumerate(NAMES):
            view = make_view(position, name)
            assert hand_keys(view) == ["/game/hand"]
            assert view["game"]["hand"] == [c.text for c in position.players[i].hand]


def test_seated_person_not_in_the_game_sees_no_hand() -> None:
    """Someone sitting in the room but not playing this game is shown no hand."""
    position = game_positions(7, players=2)[3]
    view = make_view(position, "cy", names=("ann", "bob", "cy"))
    assert view["seat"] == 2
    assert hand_keys(view) == []


def test_a_spectator_reads_no_seat_and_no_hand_where_a_seat_carries_the_name() -> None:
    """A name among the spectators reads no seat and no hand, even where a seat and a player of
    the game carry it (a bot plays the seat, or its player was voted out); the change between
    playing the seat and watching it, and every move while watching, is the diff of the views."""
    positions = game_positions(1)

    def state(number: int, spectators: tuple[str, ...], previous: RoomViews | None) -> RoomViews:
        return RoomViews(
            room="cafe", state="playing", seats=seats_for(NAMES), spectators=spectators,
            options={}, position=positions[number], last_move=None, move_number=number,
            previous=previous,
        )  # fmt: skip

    playing = state(3, ("zoe",), None)
    watching = state(3, ("zoe", "dee"), playing)
    moved = state(4, ("zoe", "dee"), watching)
    back = state(5, ("zoe",), moved)
    assert (playing.view("dee")["seat"], hand_keys(playing.view("dee"))) == (3, ["/game/hand"])
    for later in (watching, moved):
        dee = later.view("dee")
        assert (dee["you"], dee["seat"], hand_keys(dee)) == ("dee", None, [])
        assert not later.plays("dee") and later.plays("ann")
        assert hand_keys(later.view("ann")) == ["/game/hand"]
    assert back.view("dee")["game"]["hand"] == [c.text for c in positions[5].players[3].hand]
    for before, after in itertools.pairwise((playing, watching, moved, back)):
        for recipient in ("dee", "ann", "zoe", None):
            assert after.changes(before, recipient) == diff(before.view(recipient), after.view(recipient))


def test_view_never_names_the_deck_cards() -> None:
    """The deck appears only as its size: no "deck" key, and deck_size counts the deck."""
    for position in game_positions(8)[::9]:
        view = make_view(position, "ann")
        assert [k for _, k, _ in walk(view) if k == "deck"] == []
        assert view["game"]["deck_size"] == len(position.deck)


def without_result(view: dict[str, Any]) -> dict[str, Any]:
    """The view less the final result, which scores the cards left in hand and so may differ."""
    return {**view, "game": {**view["game"], "result": None}}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), step=st.integers(0, 200), deal=st.randoms(use_true_random=False))
def test_hidden_cards_do_not_change_the_view(seed: int, step: int, deal: random.Random) -> None:
    """Dealing the other hands and the deck anew (same sizes) leaves a player's and a spectator's
    view unchanged, but for a finished game's penalties: the view carries nothing about cards the
    reader may not see."""
    positions = game_positions(seed, players=2 + seed % 3)
    position = positions[step % len(positions)]
    for viewer, name in enumerate(p.name for p in position.players):
        other = hide_differently(position, viewer, deal)
        assert without_result(make_view(other, name)) == without_result(make_view(position, name))
    other = hide_differently(position, 0, deal)
    other = hide_differently(other, 1, deal)
    assert without_result(make_view(other, "zoe")) == without_result(make_view(position, "zoe"))


def test_running_game_view_is_blind_to_hidden_cards_at_every_move() -> None:
    """At every move of a game in progress the whole view, result included, ignores hidden cards."""
    deal = random.Random(12)
    for position in game_positions(12)[:-1]:
        assert make_view(hide_differently(position, 0, deal), "ann") == make_view(position, "ann")


def test_players_are_listed_with_public_facts_and_names() -> None:
    """Players show hand size, score, hand limit and elimination; whose turn is given by name."""
    position = position_from_dict(
        {
            "players": [
                {"name": "ann", "hand": ["FRf", "DEm"], "score": 12, "hand_limit": 4},
                {"name": "bob", "hand": ["ITm"], "score": 3, "hand_limit": 0},
                {"name": "cy", "hand": ["CNm", "GBf", "USm"], "score": 0},
            ],
            "eliminated": ["bob"],
            "to_move": 2,
            "start_player": 0,
            "chairs": {"FR1s": "FRm"},
            "bar": ["ITf"],
            "deck": ["GBm", "ESf", "ESm", "TRf", "TRm", "RUf"],
        }
    )
    game = make_view(position, "zoe", names=("ann", "bob", "cy"))["game"]
    assert game["players"] == [
        {"name": "ann", "hand_size": 2, "score": 12, "hand_limit": 4, "eliminated": False},
        {"name": "bob", "hand_size": 1, "score": 3, "hand_limit": 0, "eliminated": True},
        {"name": "cy", "hand_size": 3, "score": 0, "hand_limit": 5, "eliminated": False},
    ]
    assert (game["to_move"], game["start_player"]) == ("cy", "ann")
    assert game["chairs"] == {"FR1s": "FRm"}
    assert game["bar"] == ["ITf"]
    assert game["deck_size"] == 6
    assert (game["over"], game["result"]) == (None, None)


def test_finished_game_view_includes_the_result() -> None:
    """Every reader of a finished game sees why it ended and the final scores and ranking."""
    final = game_positions(9)[-1]
    expected = outcome(final)
    assert expected is not None
    for recipient in ("ann", "zoe", None):
        game = make_view(final, recipient, state="over", result=expected)["game"]
        assert game["over"] == expected.reason
        assert game["result"] == {**expected.to_dict(), "ratings": None}
        assert set(game["result"]) == {"final_scores", "ranking", "places", "penalties", "reason", "ratings"}


def test_finished_position_shows_its_result_without_being_given_one() -> None:
    """A position the rules have ended shows the rules' outcome even when the room passes none."""
    final = game_positions(10)[-1]
    expected = outcome(final)
    assert expected is not None
    game = make_view(final, "bob", state="over")["game"]
    assert (game["over"], game["result"]) == (expected.reason, {**expected.to_dict(), "ratings": None})


def test_outcome_given_by_the_room_is_shown() -> None:
    """An outcome the room decided (a game abandoned mid-way) is shown as given."""
    position = game_positions(11)[5]
    scores = {name: 0 for name in NAMES}
    places = {name: place for place, name in enumerate(NAMES, 1)}
    abandoned = Outcome("abandoned", scores, scores, NAMES, places)
    game = make_view(position, "ann", state="over", result=abandoned)["game"]
    assert game["over"] == "abandoned"
    assert game["result"] == {**abandoned.to_dict(), "ratings": None}


def test_view_does_not_share_the_rooms_options() -> None:
    """Changing the room's options afterwards does not change a view already built."""
    options: dict[str, Any] = {"clock": {"seconds": 60}, "seed": 1}
    view = make_view(None, "ann", options=options, state="waiting")
    options["clock"]["seconds"] = 30
    options["seed"] = 2
    assert view["options"] == {"clock": {"seconds": 60}, "seed": 1}


def test_room_views_give_each_recipient_what_room_view_gives() -> None:
    """Built once for many recipients, every view equals the one built for that recipient alone,
    key order included (it is the order of a snapshot's JSON)."""
    positions = game_positions(12)
    for number in (0, 7, len(positions) - 1):
        position = positions[number]
        facts: dict[str, Any] = {
            "room": "cafe",
            "state": "playing",
            "seats": seats_for(NAMES),
            "spectators": ("zoe",),
            "options": {"stammtisch": False},
            "position": position,
            "last_move": LastMove("ann", "FRf@FR1s", 2) if number else None,
            "outcome": None,
            "move_number": number,
        }
        views = protocol.view.RoomViews(**facts)
        for recipient in (*NAMES, "zoe", None):
            alone = room_view(**facts, recipient=recipient)
            together = views.view(recipient)
            assert together == alone
            assert json.dumps(together) == json.dumps(alone)


def test_room_views_share_what_recipients_see_alike() -> None:
    """Views built together share the parts every recipient sees alike, and only those."""
    views = protocol.view.RoomViews(
        room="cafe",
        state="playing",
        seats=seats_for(NAMES),
        spectators=("zoe",),
        options={},
        position=game_positions(13)[3],
        last_move=None,
        outcome=None,
        move_number=3,
    )
    ann, bob, zoe = views.view("ann"), views.view("bob"), views.view("zoe")
    assert ann["game"]["chairs"] is bob["game"]["chairs"] is zoe["game"]["chairs"]
    assert ann["seats"] is zoe["seats"]
    assert ann["game"]["hand"] is not bob["game"]["hand"]
    assert "hand" not in zoe["game"]


#: who may sit down in a waiting room besides the players: spectators and newcomers
SITTERS = (*NAMES, "eve", "zoe", "yan")


def _reseat(seats: list[str], rng: random.Random) -> list[str]:
    """One change of a waiting room's seats: someone sits down, stands up, or two change places."""
    free = [n for n in SITTERS if n not in seats]
    event = rng.randrange(4)
    if event == 0 and len(seats) < 4 and free:
        return [*seats, rng.choice(free)]
    if event == 1 and len(seats) > 1:
        gone = rng.choice(seats)
        return [n for n in seats if n != gone]
    if event == 2 and len(seats) > 1:
        i, j = rng.sample(range(len(seats)), 2)
        swapped = list(seats)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        return swapped
    return [*seats[1:], *seats[:1]]


def room_life(
    seed: int, rng: random.Random, *, chained: bool = False, read: bool = False
) -> list[protocol.view.RoomViews]:
    """The states of a room through two games: waiting, every move, the end; on the way people
    come and go, seats change hands, connections drop, options change, the turn's clock runs or
    stops. ``chained``: each state is made with the one before as ``previous``, as a room makes
    them; ``read``: and each state's views are read as soon as it is made (as a snapshot or a
    picture reads them), so that the next state is built on them."""
    states = []
    connected = dict.fromkeys(NAMES, True)
    watchers = ["zoe"]
    options: dict[str, Any] = {"stammtisch": False}
    deadline: float | None = None
    for game, names in ((seed, NAMES), (seed + 1, ("bob", "ann", "eve"))):
        record = random_game(names, game)
        results = replay(record).results
        positions = (record.start(), *(r.position for r in results))
        seats = list(names)
        # the game's moves: one list, appended to as the game goes on, as a room keeps it
        history: list[LastMove] = []
        # a few waiting states before the start, with people sitting down, standing up and
        # changing places between them: seats change between two states of the same kind
        waiting = rng.randint(2, 4)
        for number, position in enumerate([*[None] * waiting, *positions], start=1 - waiting):
            if position is None and number < 0:
                seats = _reseat(seats, rng)
            elif position is None:
                seats = list(names)  # the seating the game starts with
            event = rng.randrange(8)
            if event == 0:
                who = rng.choice(names)
                connected[who] = not connected.get(who, True)
            elif event == 1:
                who = rng.choice(("zoe", "yan", "xi"))
                if who in watchers:
                    watchers.remove(who)
                else:
                    watchers.append(who)
            elif event == 2:
                options = {**options, "seed": rng.randrange(3)}
            elif event == 3:  # a player watches the seat (a bot plays it, or they were voted out)
                who = rng.choice(names)
                if who in watchers:
                    watchers.remove(who)
                else:
                    watchers.append(who)
            over = position is not None and outcome(position) is not None
            last = results[number - 2] if position is not None and number >= 2 else None
            last_move = None if last is None else LastMove(names[last.player], last.move, last.points)
            if last_move is not None:
                history.append(last_move)
            clock = rng.randrange(4)
            if position is None or clock == 0:
                deadline = None
            elif clock < 3:  # (else the same deadline as before)
                deadline = 1767225600.0 + number * 7.3 + rng.random() / 100
            states.append(
                protocol.view.RoomViews(
                    room="cafe",
                    state="waiting" if position is None else "over" if over else "playing",
                    seats=[SeatInfo(n, "person", connected.get(n, True)) for n in seats],
                    spectators=tuple(watchers),
                    options=options,
                    position=position,
                    last_move=last_move,
                    outcome=outcome(position) if position is not None else None,
                    move_number=max(0, number - 1),
                    history=history if position is not None else (),
                    deadline=deadline,
                    previous=states[-1] if chained and states else None,
                )
            )
            if read:
                states[-1].view(None)
    return states


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 40), rng=st.randoms(use_true_random=False))
def test_changes_are_the_diff_of_the_two_views(seed: int, rng: random.Random) -> None:
    """For every recipient (players, spectators, anonymous), the changes between two states of
    a room are exactly the diff of the two views, operation for operation: whether the states
    were made on their own, or each on the one before as a room makes them."""
    rng_state = rng.getstate()
    for chained in (False, True):
        rng.setstate(rng_state)
        states = room_life(seed, rng, chained=chained)
        recipients = (*SITTERS, "xi", None)
        changes = [
            {r: after.changes(before, r) for r in recipients} for before, after in itertools.pairwise(states)
        ]
        for (before, after), patches in zip(itertools.pairwise(states), changes, strict=True):
            for recipient in recipients:
                assert patches[recipient] == diff(before.view(recipient), after.view(recipient))


def _changed_position(position: Position, data: st.DataObject) -> Position:
    """``position`` with changes drawn from ``data``, some of which no move makes: guests leaving
    their chairs, every guest changed, a hand limit, players out, the start player."""
    draw = data.draw
    chairs = list(position.chairs)
    taken = [i for i, g in enumerate(chairs) if g is not None]
    pool = [*position.deck, *(p for player in position.players for p in player.hand)]
    if taken and draw(st.booleans(), "every guest changed"):
        for i in taken:
            guest = chairs[i]
            assert guest is not None
            chairs[i] = Guest(
                draw(st.sampled_from([c for c in pool if c.text != guest.card.text])), guest.nation
            )
    for _ in range(draw(st.integers(0, 3), "chairs changed")):
        i = draw(st.integers(0, len(chairs) - 1))
        chairs[i] = (
            None
            if chairs[i] is not None and draw(st.booleans())
            else Guest(draw(st.sampled_from(pool)), "FR")
        )
    players = list(position.players)
    for i, player in enumerate(players):
        if draw(st.booleans(), f"player {i} changed"):
            hand = tuple(draw(st.lists(st.sampled_from(pool), max_size=6)))
            score = player.score + draw(st.integers(-2, 9))
            limit = draw(st.sampled_from([player.hand_limit, player.hand_limit + 1]))
            players[i] = Player(player.name, sorted_hand(hand), score, limit)
    count = len(players)
    return Position(
        position.board,
        position.options,
        tuple(players),
        tuple(draw(st.lists(st.integers(0, count - 1), unique=True, max_size=count - 2), "out")),
        draw(st.integers(0, count - 1), "to move"),
        draw(st.sampled_from([position.start_player, (position.start_player + 1) % count])),
        tuple(chairs),
        tuple(draw(st.lists(st.sampled_from(pool), max_size=10), "bar"))
        if draw(st.booleans())
        else position.bar,
        position.deck[: draw(st.integers(0, len(position.deck)))],
    )


#: a move as the views show it, or none
last_moves = st.none() | st.builds(LastMove, st.sampled_from(NAMES), st.sampled_from(["FRf@FR1s", "ITm@bar"]),
                                   st.integers(0, 3))  # fmt: skip
#: a turn's deadline: none, or a time (the room's are floats; an int is another JSON value)
deadlines = st.none() | st.floats(1e9, 2e9) | st.integers(10**9, 2 * 10**9) | st.just(1767225600.0)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 40), data=st.data())
def test_the_changes_of_a_game_going_on_are_the_diff_of_the_views_whatever_changed(
    seed: int, data: st.DataObject
) -> None:
    """Between two states of a game going on, the changes are exactly the diff of the two
    views, for every recipient, and also for changes
    no move makes: guests leaving their chairs, all of them changing, a hand limit, players out,
    the start player, the last move and the clock in any combination."""
    positions = game_positions(seed)
    number = data.draw(st.integers(0, len(positions) - 2), "move")
    before_position = positions[number]
    after_position = data.draw(st.sampled_from([positions[number + 1], before_position]), "next")
    after_position = _changed_position(after_position, data)
    history = [LastMove("ann", "FRf@FR1s", 1)] * data.draw(st.integers(0, 3), "moves before")
    common: dict[str, Any] = {"room": "cafe", "state": "playing", "seats": seats_for(NAMES),
                              "spectators": ("zoe",), "options": {}, "history": history}  # fmt: skip
    before = RoomViews(**common, position=before_position, last_move=data.draw(last_moves),
                       move_number=number, deadline=data.draw(deadlines))  # fmt: skip
    if data.draw(st.booleans(), "before read"):
        before.view(None)
    history.extend([LastMove("bob", "ITm@bar", 0)] * data.draw(st.integers(0, 2), "moves since"))
    after = RoomViews(**common, position=after_position, last_move=data.draw(last_moves),
                      move_number=number + data.draw(st.integers(0, 1)), deadline=data.draw(deadlines),
                      previous=before)  # fmt: skip
    for recipient in (*NAMES, "zoe", None):
        assert after.changes(before, recipient) == diff(before.view(recipient), after.view(recipient))


def test_every_guest_changed_is_one_replace_of_the_chairs_as_diff_makes_it() -> None:
    """When every taken chair holds another guest and no chair was taken or left, ``diff``
    replaces the chairs whole, and so do the changes."""
    position = game_positions(3)[10]
    chairs = list(position.chairs)
    for i, guest in enumerate(chairs):
        if guest is not None:
            chairs[i] = Guest(next(c for c in position.deck if c.text != guest.card.text), guest.nation)
    changed = replace(position, chairs=tuple(chairs))
    common: dict[str, Any] = {"room": "cafe", "state": "playing", "seats": seats_for(NAMES), "spectators": (),
                              "options": {}, "last_move": None, "move_number": 10}  # fmt: skip
    before = RoomViews(**common, position=position)
    after = RoomViews(**common, position=changed, previous=before)
    ops = after.changes(before, None)
    assert [op["path"] for op in ops] == ["/game/chairs"]
    assert ops == diff(before.view(None), after.view(None))
    assert len(ops[0]["value"]) == sum(g is not None for g in chairs) > 1


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 40), rng=st.randoms(use_true_random=False))
def test_states_built_on_the_previous_one_are_the_same_views_and_changes(
    seed: int, rng: random.Random
) -> None:
    """Built with the state before as ``previous`` (whose unchanged parts it then shares), a state
    gives every recipient the same view, and the same changes, as one built on its own."""
    rng_state = rng.getstate()
    alone = room_life(seed, rng)
    rng.setstate(rng_state)
    chained = room_life(seed, rng, chained=True, read=True)
    assert len(alone) == len(chained)
    recipients = (*SITTERS, "xi", None)
    for number, (a, c) in enumerate(zip(alone, chained, strict=True)):
        for recipient in recipients:
            assert c.view(recipient) == a.view(recipient)
            if number:
                before = chained[number - 1]
                assert c.changes(before, recipient) == diff(before.view(recipient), c.view(recipient))
    shared = sum(c._game is not None and b._game is not None and c._game["players"] is b._game["players"]
                 for b, c in itertools.pairwise(chained))  # fmt: skip
    assert shared > 0  # the parts that did not change were taken over


#: the seats of a waiting room, in order
seating = st.lists(st.sampled_from(SITTERS), unique=True, max_size=4)


@settings(max_examples=60, deadline=None)
@given(
    seatings=st.lists(seating, min_size=2, max_size=6),
    watchers=st.lists(st.sampled_from(SITTERS), unique=True),
)
def test_between_two_waiting_states_each_recipient_gets_its_new_seat(
    seatings: list[list[str]], watchers: list[str]
) -> None:
    """In a waiting room whose seats change (sitting down, standing up, changing places), each
    recipient's patch is the diff of its two views, and applied it gives the new ``seat``."""
    states: list[protocol.view.RoomViews] = []
    for seats in seatings:
        states.append(
            protocol.view.RoomViews(
                room="cafe", state="waiting", seats=[SeatInfo(n, "person", True) for n in seats],
                spectators=tuple(n for n in watchers if n not in seats), options={}, position=None,
                last_move=None, outcome=None, move_number=0, previous=states[-1] if states else None,
            )
        )  # fmt: skip
    for (before, after), seats in zip(itertools.pairwise(states), seatings[1:], strict=True):
        for recipient in (*SITTERS, None):
            ops = after.changes(before, recipient)
            assert ops == diff(before.view(recipient), after.view(recipient))
            patched = apply_patch(before.view(recipient), ops)
            assert patched == after.view(recipient)
            assert patched["seat"] == (seats.index(recipient) if recipient in seats else None)


def test_recipients_with_the_same_changes_get_the_same_operations() -> None:
    """After a move, everyone but the mover gets the same operation objects (one text serves
    them all); the mover's patch holds its own hand's changes besides."""
    positions = game_positions(14)
    seats = seats_for(NAMES)

    def state(number: int) -> protocol.view.RoomViews:
        return protocol.view.RoomViews(
            room="cafe", state="playing", seats=seats, spectators=("zoe",), options={},
            position=positions[number], last_move=None, outcome=None, move_number=number,
        )  # fmt: skip

    for number in range(1, 10):
        before, after = state(number - 1), state(number)
        mover = NAMES[positions[number - 1].to_move]
        patches = {r: after.changes(before, r) for r in (*NAMES, "zoe")}
        others = [[id(op) for op in ops] for r, ops in patches.items() if r != mover]
        assert all(ids == others[0] for ids in others)
        assert any(op["path"].startswith("/game/hand") for op in patches[mover])


def test_the_parts_of_the_changes_are_the_changes_and_the_shared_ones_are_the_same_lists() -> None:
    """``change_parts`` is ``changes`` cut where a recipient's own operations go: no part empty,
    together exactly the diff of the two views, and the parts everyone shares the very same lists
    in every recipient's parts; the mover's own hand is a part of its own."""
    positions = game_positions(15)
    seats = seats_for(NAMES)
    states: list[protocol.view.RoomViews] = []
    for number in range(10):
        states.append(
            protocol.view.RoomViews(
                room="cafe", state="playing", seats=seats, spectators=("zoe",), options={},
                position=positions[number], last_move=None, outcome=None, move_number=number,
                previous=states[-1] if states else None,
            )
        )  # fmt: skip
    for number, (before, after) in enumerate(itertools.pairwise(states), 1):
        mover = NAMES[positions[number - 1].to_move]
        parts = {r: after.change_parts(before, r) for r in (*NAMES, "zoe", None)}
        for recipient, own in parts.items():
            assert all(own)
            ops = [op for part in own for op in part]
            assert ops == after.changes(before, recipient)
            assert ops == diff(before.view(recipient), after.view(recipient))
        shared = {id(part) for part in parts[None]}
        for recipient, own in parts.items():
            mine = [part for part in own if id(part) not in shared]
            assert {id(part) for part in own} >= shared
            if recipient == mover:
                assert len(mine) == 1 and all(op["path"].startswith("/game/hand/") for op in mine[0])
            else:
                assert mine == []


def test_history_and_deadline_are_carried_as_given() -> None:
    """The game's moves (player, move, points) and the clock's deadline are in everyone's view."""
    position = game_positions(1)[2]
    history = [LastMove("ann", "FRf@FR1s", 0), LastMove("bob", "ITm@bar", 1)]
    views = RoomViews(room="cafe", state="playing", seats=[], spectators=[], options={}, position=position,
                      last_move=history[-1], outcome=None, move_number=2, history=history,
                      deadline=1767225600.25)  # fmt: skip
    for recipient in (None, position.players[0].name):
        game = views.view(recipient)["game"]
        assert game["history"] == [
            {"player": "ann", "move": "FRf@FR1s", "points": 0},
            {"player": "bob", "move": "ITm@bar", "points": 1},
        ]
        assert game["deadline"] == 1767225600.25


def test_a_new_move_is_one_add_at_the_end_of_the_history() -> None:
    """Between two states one move apart, the history changes by a single "add" of that move."""
    position = game_positions(1)[2]
    first = [LastMove("ann", "FRf@FR1s", 0)]
    common: dict[str, Any] = {"room": "cafe", "state": "playing", "seats": [], "spectators": [],
                              "options": {}, "position": position, "outcome": None}  # fmt: skip
    before = RoomViews(**common, last_move=first[0], move_number=1, history=first)
    after = RoomViews(**common, last_move=LastMove("bob", "ITm@bar", 1), move_number=2,
                      history=[*first, LastMove("bob", "ITm@bar", 1)], previous=before)  # fmt: skip
    ops = [op for op in after.changes(before, None) if op["path"].startswith("/game/history")]
    added = {"player": "bob", "move": "ITm@bar", "points": 1}
    assert ops == [{"op": "add", "path": "/game/history/1", "value": added}]


def test_rated_and_ratings_are_shown_as_the_room_gives_them() -> None:
    """``rated`` is the room's reading (false unless given); a finished game's ``result`` carries
    the rating changes the room gives, to every reader, and none when it gives none."""
    assert make_view(None, "ann", state="waiting")["rated"] is False
    rated = room_view(room="cafe", state="waiting", seats=seats_for(NAMES), spectators=(), options={},
                      position=None, recipient="zoe", last_move=None, outcome=None, move_number=0,
                      rated=True)  # fmt: skip
    assert rated["rated"] is True
    final = game_positions(9)[-1]
    shifts = {"ann": {"before": 1000, "after": 1012, "provisional": True}}
    for recipient in ("ann", "zoe", None):
        view = room_view(room="cafe", state="over", seats=seats_for(NAMES), spectators=("zoe",),
                         options={}, position=final, recipient=recipient, last_move=None,
                         outcome=None, move_number=40, rated=True, ratings=shifts)  # fmt: skip
        assert view["rated"] is True
        assert view["game"]["result"]["ratings"] == shifts
        assert view["game"]["result"]["ratings"] is not shifts  # (a copy: the view shares nothing)
