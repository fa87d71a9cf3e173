"""The page's own logic, run in the browser against the Python code it must agree with: applying
the server's patches (patch.js) and choosing moves by pointing (moves.js)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page

from engine import Options, legal_move_texts, random_game, replay
from protocol.diff import diff
from protocol.text import render_event
from protocol.view import LastMove, SeatInfo, room_view

APPLY_ALL = """async ([first, patches]) => {
  const { applyPatch } = await import("/patch.js");
  const views = [];
  let view = first;
  for (const ops of patches) {
    view = applyPatch(view, ops);
    views.push(view);
  }
  return { views, firstUnchanged: JSON.stringify(first) };
}"""

# Every way of pointing: each next card, each chair (or the bar) it may go to, each nation a joker
# may be declared; every point where Play is offered records the move it would send.
EXPLORE = """async (texts) => {
  const { MovePlanner } = await import("/moves.js");
  const planner = new MovePlanner(texts);
  const offered = new Set();
  let dead = 0;
  const walk = () => {
    const move = planner.complete();
    if (move !== null) offered.add(move);
    const cards = planner.nextCards();
    if (move === null && cards.size === 0) dead += 1;
    for (const card of cards) {
      for (const [target, entry] of planner.targets(card)) {
        for (const nation of entry.nations) {
          if (!planner.pick(card, target, nation)) { dead += 1; continue; }
          walk();
          planner.undo();
        }
      }
    }
  };
  walk();
  return { offered: [...offered].sort(), dead };
}"""

REVERSED = """async (texts) => {
  const { MovePlanner, parseMove } = await import("/moves.js");
  const found = [];
  for (const text of texts) {
    const move = parseMove(text);
    const planner = new MovePlanner(texts);
    const ok = [...move.placements].reverse().every((p) => planner.pick(p.card, p.target, p.nation));
    found.push(ok ? planner.complete() : null);
  }
  return found;
}"""


def _views(seed: int) -> list[dict[str, Any]]:
    """The views one player receives through a whole random game, from the waiting room on."""
    record = random_game(["ann", "bob", "cy"], seed)
    game = replay(record)
    seats = [SeatInfo(n, "person", True) for n in record.players]
    common: dict[str, Any] = {"room": "cafe", "seats": seats, "spectators": ["zoe"], "options": {}}
    views = [
        room_view(
            state="waiting",
            position=None,
            recipient="bob",
            last_move=None,
            outcome=None,
            move_number=0,
            **common,
        ),
        room_view(
            state="playing",
            position=record.start(),
            recipient="bob",
            last_move=None,
            outcome=None,
            move_number=0,
            **common,
        ),
    ]
    for number, result in enumerate(game.results, 1):
        player = record.players[result.player]
        views.append(
            room_view(
                state="over" if result.outcome else "playing",
                position=result.position,
                recipient="bob",
                last_move=LastMove(player, result.move, result.points),
                outcome=result.outcome,
                move_number=number,
                **common,
            )
        )
    # the spectator leaves, the game's last player goes away: a view that loses parts
    seats_after = [dict(s, connected=s["name"] != "cy") for s in views[-1]["seats"]]
    views.append(dict(views[-1], spectators=[], seats=seats_after))
    return views


def test_patches_from_the_server_rebuild_every_view_of_a_game(open_page: Callable[..., Page]) -> None:
    """patch.js, applying protocol.diff's patches in order, rebuilds each view of a whole game and
    leaves the view it started from unchanged."""
    page = open_page()
    views = _views(seed=3)
    patches = [diff(a, b) for a, b in itertools.pairwise(views)]
    assert {op["op"] for ops in patches for op in ops} == {"add", "remove", "replace"}
    result = page.evaluate(APPLY_ALL, [views[0], patches])
    assert result["views"] == views[1:]
    assert result["firstUnchanged"] == page.evaluate("(v) => JSON.stringify(v)", views[0])


def test_patches_with_escaped_keys_moves_copies_and_tests_apply(open_page: Callable[..., Page]) -> None:
    """patch.js follows RFC 6902 beyond what the server sends: ~0 and ~1 in keys, move, copy, test,
    the '-' array index; a failed test, a missing path or an unknown op throws, a passing test not."""
    page = open_page()
    result = page.evaluate(
        """async () => {
          const { applyPatch, PatchError } = await import("/patch.js");
          const out = applyPatch({ "a/b": 1, "c~d": [1, 2], e: { f: 3 } }, [
            { op: "add", path: "/c~0d/-", value: 3 },
            { op: "move", from: "/a~1b", path: "/g" },
            { op: "copy", from: "/e", path: "/h" },
            { op: "test", path: "/h", value: { f: 3 } },
            { op: "replace", path: "/c~0d/0", value: 9 },
            { op: "remove", path: "/e/f" },
          ]);
          const fails = [
            [{ op: "test", path: "/x", value: 1 }],
            [{ op: "test", path: "/e", value: {} }],
            [{ op: "remove", path: "/nothing" }],
            [{ op: "add", path: "/c~0d/7", value: 1 }],
            [{ op: "jump", path: "/e" }],
            [{ op: "test", path: "/e", value: { f: 3 } }],
          ].map((ops) => { try { applyPatch({ e: { f: 3 }, "c~d": [] }, ops); return false; }
                           catch (e) { return e instanceof PatchError; } });
          return { out, fails };
        }"""
    )
    assert result["out"] == {"c~d": [9, 2, 3], "e": {}, "g": 1, "h": {"f": 3}}
    assert result["fails"] == [True, True, True, True, True, False]


def _positions() -> list[Any]:
    positions = []
    for seed, options in ((5, Options()), (11, Options(stammtisch=True))):
        record = random_game(["ann", "bob"], seed, options=options)
        game = replay(record)
        states = [record.start(), *(r.position for r in game.results if r.outcome is None)]
        positions.extend(states[:: max(1, len(states) // 6)])
    return positions


def test_pointing_offers_exactly_the_legal_moves(open_page: Callable[..., Page]) -> None:
    """Every way of choosing cards and chairs that moves.js allows ends in a legal move, never in a
    dead end, and every legal move can be chosen so (positions across two games, one with
    Stammtisch)."""
    page = open_page()
    checked = 0
    for position in _positions():
        texts = legal_move_texts(position)
        result = page.evaluate(EXPLORE, texts)
        assert result["dead"] == 0
        assert result["offered"] == sorted(texts)
        checked += len(texts)
    assert checked > 500


def test_cards_chosen_in_either_order_make_a_legal_move(open_page: Callable[..., Page]) -> None:
    """Choosing a legal move's cards in the reverse order still ends in a legal move with the same
    cards and chairs (the server takes two cards without a common table in either order)."""
    page = open_page()
    position = _positions()[3]
    texts = legal_move_texts(position)
    assert any(" " in t for t in texts)
    found = page.evaluate(REVERSED, texts)
    for text, got in zip(texts, found, strict=True):
        assert got in texts
        assert sorted(got.split()) == sorted(text.split())


def test_played_lines_match_the_line_clients_also_for_a_player_who_left(
    open_page: Callable[..., Page],
) -> None:
    """chat.js words a ``played`` message as protocol.text does, also the one for a player the
    server took out of the game (``leave NAME``, event ``left``), which was no move played for them."""
    page = open_page()
    left = {
        "type": "played",
        "player": "bob",
        "move": "leave bob",
        "points": 0,
        "events": [{"type": "left", "player": "bob"}],
        "auto": True,
    }
    bar = {
        **left,
        "move": "ITm@bar",
        "points": 3,
        "events": [{"type": "bar", "player": "bob", "card": "ITm", "place": 3, "points": 3}],
    }
    lines = page.evaluate(
        'async (messages) => { const { playedLine } = await import("/chat.js");'
        " return messages.map(playedLine); }",
        [left, bar],
    )
    assert lines[0] == "bob leaves the game"
    assert lines[1].endswith("(played for an absent player)")
    assert lines == [render_event(left), render_event(bar)]


def test_who_and_friends_say_a_private_room_not_the_lobby(open_page: Callable[..., Page]) -> None:
    """/who, /whereis and /friends at the page: someone in a private room (``room`` null,
    ``private`` true) is "in a private room", never "lobby"; the lobby and a room as they are."""
    page = open_page()
    lines = page.evaluate(
        """async () => {
          const { whoText, friendsText } = await import("/chat.js");
          const people = [
            { name: "olga", kind: "person", room: null, private: true },
            { name: "ann", kind: "person", room: null, private: false },
            { name: "bob", kind: "person", room: "cafe", private: false },
          ];
          const friends = people.map((p) => ({ ...p, online: true }));
          return [whoText(people), friendsText(friends)];
        }"""
    )
    for text in lines:
        assert text.split("\n") == ["olga  in a private room", "ann  lobby", "bob  cafe"]


def test_a_player_named_like_an_objects_own_function_reads_no_rating(open_page: Callable[..., Page]) -> None:
    """A guest called ``valueOf`` (or ``constructor``), left out of a rated game's ratings: the
    game-over line gives them no rating, where a plain lookup found the object's own function
    and read "undefined → undefined"."""
    page = open_page()
    line = page.evaluate(
        """async () => {
          const { overLine } = await import("/chat.js");
          return overLine({
            reason: "last_player", ranking: ["regone", "valueOf", "constructor"],
            places: { regone: 1, valueOf: 2, constructor: 3 },
            final_scores: { regone: 12, valueOf: 0, constructor: 0 },
            ratings: { regone: { before: 1000, after: 1012, provisional: true } },
          });
        }"""
    )
    assert "regone 12 (1000 → 1012?)" in line and "valueOf 0," in line and line.endswith("constructor 0")
    assert "undefined" not in line, line
