"""JSON Patch between views: diff gives RFC 6902 operations that jsonpatch applies; apply_patch agrees."""

from __future__ import annotations

import copy
import itertools
import json
import random
from functools import lru_cache
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocol.diff
from engine import Position, outcome, random_game, replay
from protocol.diff import PatchError, apply_patch, diff, escape, unescape
from protocol.view import LastMove, SeatInfo, room_view
from tests.examples import run_examples

NAMES = ("ann", "bob", "cy", "dee")
WATCHERS = ("zoe", "yan", "xi")

# Keys that need escaping, keys that look like indices, and the empty key, beside plain text.
KEYS = st.sampled_from(["a", "b", "a/b", "m~n", "~1", "~01", "/", "~", "", "0", "-"]) | st.text(max_size=3)
# Small numbers, so that 0 and 1 meet False, True, 0.0 and 1.0: equal in Python, not in JSON.
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.sampled_from([0.0, 1.0, 0.5])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=3)
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=20,
)


def tagged(value: Any) -> Any:
    """A form of a JSON value whose Python equality is JSON's: true, 1 and 1.0 stay apart."""
    if type(value) is dict:
        return ("object", frozenset((k, tagged(v)) for k, v in value.items()))
    if type(value) is list:
        return ("array", tuple(tagged(v) for v in value))
    return (type(value).__name__, value)


def check_patch(prev: Any, nxt: Any) -> list[dict[str, Any]]:
    """diff(prev, nxt), checked: jsonpatch and apply_patch both turn prev into nxt, nothing is
    changed in place, and the operations are JSON."""
    before, target = copy.deepcopy(prev), copy.deepcopy(nxt)
    ops = diff(prev, nxt)
    json.dumps(ops)
    assert tagged(jsonpatch.apply_patch(prev, ops)) == tagged(nxt)
    assert tagged(apply_patch(prev, ops)) == tagged(nxt)
    assert tagged(prev) == tagged(before)
    assert tagged(nxt) == tagged(target)
    return ops


@st.composite
def edited(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with some edits at any depth: members dropped, added, changed; arrays grown,
    shrunk or changed at one place; scalars swapped for others."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    if type(value) is dict:
        out = {}
        for k, v in value.items():
            action = draw(st.sampled_from(["keep", "edit", "drop"]))
            if action == "keep":
                out[k] = v
            elif action == "edit":
                out[k] = draw(edited(v))
        for k in draw(st.lists(KEYS, max_size=2)):
            out[k] = draw(JSON)
        return out
    if type(value) is list:
        items = list(value)
        action = draw(st.sampled_from(["each", "append", "truncate", "insert", "delete", "keep"]))
        at = draw(st.integers(0, len(items)))
        if action == "each":
            items = [draw(edited(v)) for v in items]
        elif action == "append":
            items += draw(st.lists(JSON, min_size=1, max_size=3))
        elif action == "truncate":
            items = items[:at]
        elif action == "insert":
            items[at:at] = draw(st.lists(JSON, min_size=1, max_size=3))
        elif action == "delete":
            del items[at : at + draw(st.integers(1, 3))]
        return items
    return draw(SCALARS) if draw(st.booleans()) else value


@lru_cache(maxsize=32)
def game(seed: int, players: int) -> tuple[tuple[Position, ...], tuple[LastMove, ...]]:
    """The positions of one random game and the move that led to each (after the first)."""
    record = random_game(NAMES[:players], seed)
    results = replay(record).results
    names = record.players
    moves = tuple(LastMove(names[r.player], r.move, r.points) for r in results)
    return (record.start(), *(r.position for r in results)), moves


def room_views(seed: int, players: int, recipient: str, rng: random.Random) -> list[dict[str, Any]]:
    """The views ``recipient`` gets through one room's life: waiting, every move, the end;
    on the way spectators come and go and players drop and come back."""
    positions, moves = game(seed, players)
    names = NAMES[:players]
    connected = dict.fromkeys(names, True)
    watchers = ["zoe"]
    options: dict[str, Any] = {"stammtisch": False}

    def view(state: str, position: Position | None, number: int) -> dict[str, Any]:
        last = moves[number - 1] if number else None
        return room_view(
            room="cafe",
            state=state,
            seats=[SeatInfo(n, "person", connected[n]) for n in names],
            spectators=watchers,
            options=options,
            position=position,
            recipient=recipient,
            last_move=last,
            outcome=outcome(position) if position is not None else None,
            move_number=number,
        )

    views = [view("waiting", None, 0)]
    for number, position in enumerate(positions):
        event = rng.randrange(6)
        if event == 0:
            connected[rng.choice(names)] ^= True
        elif event == 1:
            who = rng.choice(WATCHERS)
            if who in watchers:
                watchers.remove(who)
            else:
                watchers.insert(rng.randrange(len(watchers) + 1), who)
        state = "playing" if outcome(position) is None else "over"
        views.append(view(state, position, number))
    options = {"stammtisch": True, "seed": seed}
    views.append(view("waiting", None, 0))
    return views


def test_module_examples_run() -> None:
    """The examples in the module docstring hold."""
    found = run_examples(protocol.diff)
    assert found.failed == 0 and found.attempted > 0


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 30),
    players=st.integers(2, 4),
    reader=st.integers(0, 4),
    rng=st.randoms(use_true_random=False),
)
def test_patches_between_views_of_a_random_game(
    seed: int, players: int, reader: int, rng: random.Random
) -> None:
    """Between consecutive views of a room (a player's or a spectator's) the patch turns the one
    into the other, for jsonpatch and for apply_patch alike."""
    recipient = NAMES[reader] if reader < players else "zoe"
    views = room_views(seed, players, recipient, rng)
    current = views[0]
    for prev, nxt in itertools.pairwise(views):
        ops = check_patch(prev, nxt)
        current = apply_patch(current, ops)
    assert current == views[-1]


def test_patches_during_a_game_change_only_what_changed() -> None:
    """While a game goes on, a patch never replaces the game, its players or its chairs whole,
    and the bar grows by "add" at its end."""
    for seed in (1, 2):
        views = room_views(seed, 4, "ann", random.Random(seed))[2:-2]
        for prev, nxt in itertools.pairwise(views):
            ops = diff(prev, nxt)
            assert ops
            assert {op["path"] for op in ops}.isdisjoint({"", "/game", "/game/players", "/game/chairs"})
            grown = len(nxt["game"]["bar"]) - len(prev["game"]["bar"])
            bar_ops = [op for op in ops if op["path"].startswith("/game/bar")]
            assert bar_ops == [
                {"op": "add", "path": f"/game/bar/{i}", "value": nxt["game"]["bar"][i]}
                for i in range(len(prev["game"]["bar"]), len(prev["game"]["bar"]) + grown)
            ]


@settings(max_examples=300, deadline=None)
@given(prev=JSON, nxt=JSON)
def test_patch_between_any_two_documents(prev: Any, nxt: Any) -> None:
    """For any two JSON documents the patch turns the first into the second."""
    check_patch(prev, nxt)


@settings(max_examples=500, deadline=None)
@given(data=st.data(), prev=JSON)
def test_patch_between_a_document_and_an_edited_copy(data: st.DataObject, prev: Any) -> None:
    """For a document and an edit of it (at any depth) the patch turns the first into the second."""
    check_patch(prev, data.draw(edited(prev)))


@given(doc=JSON)
def test_equal_documents_give_no_operations(doc: Any) -> None:
    """A document and a copy of it differ by nothing."""
    assert diff(doc, copy.deepcopy(doc)) == []


@given(key=st.text())
def test_escape_round_trips(key: str) -> None:
    """unescape undoes escape, and an escaped key holds no "/" and no "~" but as "~0" or "~1"."""
    token = escape(key)
    assert unescape(token) == key
    assert "/" not in token
    assert token.replace("~0", "").replace("~1", "").count("~") == 0


def test_keys_needing_escape_get_escaped_paths() -> None:
    """Keys holding "/" or "~" appear in paths as "~1" and "~0"; jsonpatch reads them back."""
    prev = {"a/b": 1, "m~n": {"x": 1}, "~1": 0}
    nxt = {"a/b": 2, "m~n": {"x": 2}, "~1": 0, "c/~d": 3}
    assert check_patch(prev, nxt) == [
        {"op": "replace", "path": "/a~1b", "value": 2},
        {"op": "replace", "path": "/m~0n/x", "value": 2},
        {"op": "add", "path": "/c~1~0d", "value": 3},
    ]
    assert check_patch({"~1": 0}, {"~1": 1}) == [{"op": "replace", "path": "/~01", "value": 1}]


def test_paths_written_before_are_kept_within_a_bound_and_stay_right() -> None:
    """The text of a path met before is kept, up to a bound: the keys of 25,000 different members
    (more than the bound) each get their own path, every path met later is still its own, and what
    is kept never exceeds the bound."""
    keys = [f"k{i}/~" for i in range(25_000)]
    ops = diff({"a": {k: 0 for k in keys}}, {"a": {k: 1 for k in keys}})
    assert [op["path"] for op in ops] == ["/a"]  # every member replaced: the object is, whole
    ops = diff({"a": {k: [0, 1] for k in keys}}, {"a": {k: [0, 2] for k in keys}})
    assert [op["path"] for op in ops] == [f"/a/k{i}~1~0/1" for i in range(25_000)]
    assert _places_kept(protocol.diff._ROOT) <= protocol.diff._PLACES_MAX
    again = diff({"a": {"k7/~": [0, 1], "b": 1}}, {"a": {"k7/~": [0, 3], "b": 2}})
    assert [op["path"] for op in again] == ["/a/k7~1~0/1", "/a/b"]


def _places_kept(place: Any) -> int:
    return sum(1 + _places_kept(under) for under in place.under.values())


@pytest.mark.parametrize(
    ("prev", "nxt"),
    [(1, True), (0, False), (1, 1.0), ([1], [True]), ({"a": 0}, {"a": 0.0}), ([1, 2], [True, 2, 3])],
)
def test_a_change_of_type_is_a_change(prev: Any, nxt: Any) -> None:
    """1, 1.0 and true are different JSON values even though Python finds them equal."""
    assert check_patch(prev, nxt) != []


def test_objects_are_compared_member_by_member() -> None:
    """A removed member is removed, a new one added, a changed one replaced, nothing else."""
    ops = check_patch({"a": 1, "b": 2, "c": {"d": 3}}, {"a": 1, "c": {"d": 4}, "e": 5})
    assert ops == [
        {"op": "remove", "path": "/b"},
        {"op": "replace", "path": "/c/d", "value": 4},
        {"op": "add", "path": "/e", "value": 5},
    ]


def test_arrays_of_equal_length_are_compared_item_by_item() -> None:
    """Arrays of the same length get an operation per changed item, inside objects too."""
    prev = {"p": [{"s": 1}, {"s": 2}], "h": ["A", "B"]}
    nxt = {"p": [{"s": 1}, {"s": 5}], "h": ["A", "C"]}
    assert check_patch(prev, nxt) == [
        {"op": "replace", "path": "/p/1/s", "value": 5},
        {"op": "replace", "path": "/h/1", "value": "C"},
    ]


def test_array_grown_at_the_end_gets_added_items() -> None:
    """Items appended to an array are added at their indices, in order."""
    assert check_patch(["a"], ["a", "b", "c"]) == [
        {"op": "add", "path": "/1", "value": "b"},
        {"op": "add", "path": "/2", "value": "c"},
    ]


def test_array_shrunk_at_the_end_loses_items_from_the_last() -> None:
    """Items cut from the end of an array are removed, the last first."""
    assert check_patch(["a", "b", "c"], ["a"]) == [
        {"op": "remove", "path": "/2"},
        {"op": "remove", "path": "/1"},
    ]


def test_items_inserted_or_removed_in_the_middle() -> None:
    """An array that gained or lost a run of items at one place gets adds or removes there."""
    assert check_patch(["a", "b", "d"], ["a", "b", "c", "d"]) == [{"op": "add", "path": "/2", "value": "c"}]
    assert check_patch(["x", "a", "b", "y"], ["x", "y"]) == [
        {"op": "remove", "path": "/2"},
        {"op": "remove", "path": "/1"},
    ]


def test_array_changed_otherwise_is_replaced() -> None:
    """An array whose length and items both changed is replaced whole."""
    assert check_patch({"h": ["A", "B", "C"]}, {"h": ["A", "D"]}) == [
        {"op": "replace", "path": "/h", "value": ["A", "D"]}
    ]


def test_container_whose_every_member_was_replaced_is_replaced_whole() -> None:
    """An object or array of several members that were all replaced gets one replace of the whole;
    a single member, or members changed deeper inside, keep their own operations."""
    last = {"player": "ann", "move": "FRf@FR1s", "points": 3}
    moved = {"player": "bob", "move": "ESm@ES1e", "points": 4}
    assert check_patch({"m": last, "n": 1}, {"m": moved, "n": 1}) == [
        {"op": "replace", "path": "/m", "value": moved}
    ]
    assert check_patch({"h": ["A", "B"]}, {"h": ["C", "D"]}) == [
        {"op": "replace", "path": "/h", "value": ["C", "D"]}
    ]
    assert check_patch({"m": {"x": 1}}, {"m": {"x": 2}}) == [{"op": "replace", "path": "/m/x", "value": 2}]
    assert check_patch({"m": {"x": {"y": 1}, "z": 1}}, {"m": {"x": {"y": 2}, "z": 2}}) == [
        {"op": "replace", "path": "/m/x/y", "value": 2},
        {"op": "replace", "path": "/m/z", "value": 2},
    ]


def test_members_that_all_changed_type_are_replaced_whole_too() -> None:
    """A change of type counts as a replaced member: an object or array whose members all changed
    type is replaced whole, and one whose other members changed deeper inside is not."""
    assert check_patch({"x": {"a": 1, "b": "s"}}, {"x": {"a": "1", "b": None}}) == [
        {"op": "replace", "path": "/x", "value": {"a": "1", "b": None}}
    ]
    assert check_patch({"x": [1, "s"]}, {"x": ["1", None]}) == [
        {"op": "replace", "path": "/x", "value": ["1", None]}
    ]
    # members before the container's own: counted from where the container's operations begin
    assert check_patch({"a": 0, "x": {"a": 1, "b": 2}}, {"a": 9, "x": {"a": 3, "b": 4}}) == [
        {"op": "replace", "path": "/a", "value": 9},
        {"op": "replace", "path": "/x", "value": {"a": 3, "b": 4}},
    ]
    assert check_patch([0, [1, 2]], [9, [3, 4]]) == [
        {"op": "replace", "path": "/0", "value": 9},
        {"op": "replace", "path": "/1", "value": [3, 4]},
    ]
    # one member alone keeps its own operation
    assert check_patch([[1]], [[2]]) == [{"op": "replace", "path": "/0/0", "value": 2}]
    assert check_patch({"x": {"a": 1}}, {"x": {"a": "1"}}) == [
        {"op": "replace", "path": "/x/a", "value": "1"}
    ]


def test_an_array_that_grew_keeps_its_equal_items_by_json_equality() -> None:
    """Finding the unchanged start and end of an array that grew or shrank, items are compared as
    JSON: equal copies match (the patch adds only the new item), and 1, 1.0 and true do not."""
    # equal but distinct objects, nested values among them shared or copied
    inner = [1, {"k": "v"}]
    before = json.loads('[{"a": 1.5, "s": "text", "l": [1, 2], "d": {"x": null}}]')
    after = [*json.loads('[{"a": 1.5, "s": "text", "l": [1, 2], "d": {"x": null}}]'), 5]
    assert check_patch(before, after) == [{"op": "add", "path": "/1", "value": 5}]
    assert check_patch([{"i": inner}], [{"i": inner}, 5]) == [{"op": "add", "path": "/1", "value": 5}]
    assert check_patch([{"i": inner}, 5], [{"i": inner}]) == [{"op": "remove", "path": "/1"}]
    # ... at the end of the array as at its start
    assert check_patch(before, [5, *after[:1]]) == [{"op": "add", "path": "/0", "value": 5}]
    assert check_patch([5, *before], after[:1]) == [{"op": "remove", "path": "/0"}]
    # equal in Python, not in JSON: nothing matches, so the array is replaced
    python_equal = (([1], [True, 5]), ([1.0], [1, 5]), ([[1]], [[True], 5]), ([{"a": 0}], [{"a": False}, 5]))
    for old, new in python_equal:
        assert check_patch(old, new) == [{"op": "replace", "path": "", "value": new}], (old, new)
    # items that differ inside, or in their keys, do not match either
    for old, new in (([{"a": 1}], [{"a": 2}, 5]), ([{"a": 1}], [{"b": 1}, 5]), ([[1, 2]], [[1, 3], 5])):
        assert check_patch(old, new) == [{"op": "replace", "path": "", "value": new}], (old, new)
    assert check_patch([[1], 2], [[1, 2], 2, 3]) == [{"op": "replace", "path": "", "value": [[1, 2], 2, 3]}]


def test_whole_document_of_another_type_is_replaced_at_the_root() -> None:
    """A document that changed type is replaced at the empty path."""
    assert check_patch({"a": 1}, [1]) == [{"op": "replace", "path": "", "value": [1]}]
    assert check_patch("x", None) == [{"op": "replace", "path": "", "value": None}]


def test_apply_patch_handles_dash_and_indices() -> None:
    """ "-" appends to an array; an index inserts before the item there."""
    doc = {"a": [1, 3]}
    ops = [{"op": "add", "path": "/a/-", "value": 4}, {"op": "add", "path": "/a/1", "value": 2}]
    assert apply_patch(doc, ops) == {"a": [1, 2, 3, 4]}


def test_apply_patch_leaves_its_input_alone() -> None:
    """The document and the operations are unchanged after a patch that edits deep inside."""
    doc = {"a": {"b": [1, {"c": 2}]}, "d": [0]}
    ops: list[dict[str, Any]] = [
        {"op": "add", "path": "/e", "value": {"f": []}},
        {"op": "add", "path": "/e/f/0", "value": 1},
        {"op": "replace", "path": "/a/b/1/c", "value": 3},
        {"op": "remove", "path": "/d/0"},
    ]
    doc_before, ops_before = copy.deepcopy(doc), copy.deepcopy(ops)
    assert apply_patch(doc, ops) == {"a": {"b": [1, {"c": 3}]}, "d": [], "e": {"f": [1]}}
    assert (doc, ops) == (doc_before, ops_before)


def test_apply_patch_replaces_the_root() -> None:
    """A replace or add at the empty path gives the value itself."""
    assert apply_patch({"a": 1}, [{"op": "replace", "path": "", "value": [2]}]) == [2]
    assert apply_patch([], [{"op": "add", "path": "", "value": 3}]) == 3


@pytest.mark.parametrize(
    ("doc", "op"),
    [
        ({}, {"op": "move", "from": "/a", "path": "/b"}),
        ({}, {"op": "remove", "path": "/a"}),
        ({}, {"op": "replace", "path": "/a", "value": 1}),
        ({}, {"op": "add", "path": "a", "value": 1}),
        ({}, {"op": "add", "path": "/a"}),
        ({}, {"op": "add", "path": 3, "value": 1}),
        ({}, {"op": "remove", "path": ""}),
        ({}, {"op": "add", "path": "/a/b", "value": 1}),
        ({"a": 1}, {"op": "add", "path": "/a/b", "value": 1}),
        ({"a": 1}, {"op": "add", "path": "/a/b/c", "value": 1}),
        ([1], {"op": "add", "path": "/2", "value": 1}),
        ([1], {"op": "replace", "path": "/1", "value": 1}),
        ([1], {"op": "remove", "path": "/-"}),
        ([1, 2], {"op": "remove", "path": "/01"}),
        ([1], {"op": "replace", "path": "/x", "value": 1}),
        ([[1]], {"op": "remove", "path": "/5/0"}),
        ("text", {"op": "add", "path": "/0", "value": 1}),
        ({}, "add"),
    ],
)
def test_apply_patch_refuses_what_does_not_apply(doc: Any, op: Any) -> None:
    """An unknown operation, a malformed path or a path that leads nowhere raises PatchError,
    and so does jsonpatch (or its pointer parser) for the same operation."""
    with pytest.raises(PatchError):
        apply_patch(doc, [op])
    with pytest.raises(
        (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, AttributeError)
    ):
        jsonpatch.apply_patch(doc, [op])


@pytest.mark.parametrize(
    ("doc", "op", "says"),
    [
        ({}, "add", "an operation is an object, not 'add'"),
        ({}, {"op": "move", "path": "/a"}, "unsupported operation 'move'"),
        ({}, {"op": "add", "path": 3, "value": 1}, "a path is a string, not 3"),
        ({}, {"op": "add", "path": "a", "value": 1}, "path 'a' does not start with '/'"),
        ({}, {"op": "add", "path": "/a"}, "add at '/a' has no value"),
        ({}, {"op": "remove", "path": ""}, "the whole document cannot be removed"),
        ({}, {"op": "add", "path": "/a/b", "value": 1}, "'/a/b': no member 'a'"),
        ({"a": 1}, {"op": "add", "path": "/a/b/c", "value": 1}, "'/a/b/c' goes through a scalar"),
        ({"a": 1}, {"op": "add", "path": "/a/b", "value": 1}, "'/a/b' goes through a scalar"),
        ("text", {"op": "add", "path": "/0", "value": 1}, "'/0': '0' is inside a scalar"),
        ("text", {"op": "add", "path": "/a/b", "value": 1}, "'/a/b': 'a' is inside a scalar"),
        ({}, {"op": "remove", "path": "/a"}, "'/a': no member 'a' to remove"),
        ([1], {"op": "remove", "path": "/x"}, "'/x': 'x' is not an array index"),
        ([[1]], {"op": "remove", "path": "/x/0"}, "'/x/0': 'x' is not an array index"),
        ([[1]], {"op": "remove", "path": "/1/0"}, "'/1/0': index 1 is out of range (the array holds 1)"),
        ([[1]], {"op": "add", "path": "/-/0", "value": 1}, "'/-/0': '-' is not an array index"),
        ([[1]], {"op": "add", "path": "/0/x/1", "value": 1}, "'/0/x/1': 'x' is not an array index"),
        ([1], {"op": "add", "path": "/0/x", "value": 1}, "'/0/x' goes through a scalar"),
        ([1], {"op": "replace", "path": "/1", "value": 1}, "'/1': index 1 is out of range"),
    ],
)
def test_a_patch_error_says_what_and_where(doc: Any, op: Any, says: str) -> None:
    """The error names the path and what is wrong with it; through an array only an index of an
    item leads on (not ``-``, not the end)."""
    with pytest.raises(PatchError) as refused:
        apply_patch(doc, [op])
    assert str(refused.value).startswith(says)


def test_patch_error_is_a_value_error() -> None:
    """PatchError belongs under ValueError, like the engine's errors."""
    assert issubclass(PatchError, ValueError)
