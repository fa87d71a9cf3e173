"""The view of a room for one recipient: what a seated player or a spectator may see, as plain JSON.

A view is built from what the engine's filtered view (``engine.view``) shows a spectator, plus the
room's own facts and the recipient's own hand, so it never holds another player's hand or the
order of the deck: every player shows only ``hand_size``, the deck only ``deck_size``, and the
recipient's own cards appear once, under ``game.hand``, and only when the recipient is a player
of that game. The server sends a view whole as a snapshot and then as JSON Patch differences
(``protocol.diff``); the web page and the text renderer read it.

The shape, which clients rely on::

    {
      "room": "cafe",                      # the room's name
      "state": "playing",                  # "waiting" | "playing" | "over"
      "seats": [{"name": "ann", "kind": "person", "connected": true}, ...],   # kind: "person" | "bot"
      "spectators": ["zoe"],               # names, in the room's order
      "options": {"stammtisch": false},    # the room's options as given
      "you": "ann",                        # the recipient's name, or null for an anonymous view
      "seat": 0,                           # the recipient's index in "seats", or null
      "game": null | {
        "players": [{"name": "ann", "hand_size": 5, "score": 12, "hand_limit": 5, "eliminated": false}, ...],
        "hand": ["DEm", "FRf", "Jm"],      # ONLY for a player of this game; absent for everyone else
        "to_move": "bob",                  # names, not indices
        "start_player": "ann",
        "chairs": {"FR1s": "FRm", "FR1e": "Jf=FR"},   # canonical chair name -> guest text
        "bar": ["ITm", "CUf"],             # from bar place 1
        "deck_size": 62,
        "move_number": 7,                  # moves played so far, as the room counts them
        "last_move": null | {"player": "ann", "move": "FRf@FR1s", "points": 3},
        "history": [{"player": "bob", "move": "ITm@bar", "points": 1}, ...],   # every move, in order
        "deadline": null | 1767225600.5,   # when the turn's clock runs out (Unix time, seconds)
        "over": null | "deck",             # why the game ended (docs/rules.md section 7), or null
        "result": null | {"final_scores": {...}, "ranking": [...], "places": {...},
                          "penalties": {...}, "reason": "deck"}
      }
    }

>>> from engine import new_position
>>> seats = [SeatInfo("ann", "person", True), SeatInfo("bob", "bot", True)]
>>> position = new_position(["ann", "bob"], seed=1)
>>> v = room_view(room="cafe", state="playing", seats=seats, spectators=["zoe"], options={},
...               position=position, recipient="zoe", last_move=None, outcome=None, move_number=0)
>>> "hand" in v["game"], v["seat"], [p["hand_size"] for p in v["game"]["players"]]
(False, None, [5, 5])
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from engine import Board, Outcome, Position
from protocol.diff import diff

__all__ = ["LastMove", "RoomViews", "SeatInfo", "room_view"]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat of a room: who sits there, a ``"person"`` or a ``"bot"``, and whether connected."""

    name: str
    kind: str
    connected: bool


@dataclass(frozen=True, slots=True)
class LastMove:
    """The move played last: by whom, its canonical text, and the points it scored."""

    player: str
    move: str
    points: int

    # written out: compiled, native code, where the one dataclasses writes runs as Python
    def __init__(self, player: str, move: str, points: int) -> None:
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "move", move)
        object.__setattr__(self, "points", points)


_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})


def _json_copy(value: Any) -> Any:
    """A copy of a JSON value, so that a view never shares containers with the room's state
    (views are compared with earlier ones; a later change in place would corrupt the diff)."""
    if type(value) in _SCALARS:  # (most values: no look-up in the abstract classes below)
        return value
    if isinstance(value, Mapping):
        return {str(k): _json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_copy(v) for v in value]
    return value


class RoomViews:
    """The views of one state of a room for any number of recipients, built once.

    The parts every recipient sees alike are built once and shared by the views (the same
    objects); a view of its own holds only what differs: ``you``, ``seat`` and a player's
    ``hand``. Treat the views as values, as ``protocol.diff`` does: shared parts let ``changes``
    work out a change once for all recipients. Given the ``previous``
    state, the parts that did not change are that state's very objects, which a diff passes over
    at once.

    >>> from engine import new_position
    >>> views = RoomViews(room="cafe", state="playing", seats=[SeatInfo("ann", "person", True),
    ...     SeatInfo("bob", "bot", True)], spectators=[], options={},
    ...     position=new_position(["ann", "bob"], seed=1), last_move=None, outcome=None, move_number=0)
    >>> ann, bob = views.view("ann"), views.view("bob")
    >>> ann["game"]["chairs"] is bob["game"]["chairs"], ann["game"]["hand"] == bob["game"]["hand"]
    (True, False)
    """

    __slots__ = (
        "_board",
        "_game",
        "_hands",
        "_head",
        "_history",
        "_onward",
        "_players",
        "_seat_names",
        "_sources",
    )
    _sources: tuple[tuple[SeatInfo, ...], tuple[str, ...]]
    _seat_names: list[str]
    _hands: list[list[str]]

    def __init__(
        self,
        *,
        room: str,
        state: str,
        seats: Sequence[SeatInfo],
        spectators: Sequence[str],
        options: Mapping[str, Any],
        position: Position | None,
        last_move: LastMove | None,
        outcome: Outcome | None = None,
        move_number: int,
        history: Sequence[LastMove] = (),
        deadline: float | None = None,
        previous: RoomViews | None = None,
    ) -> None:
        sources = (tuple(seats), tuple(spectators))
        #: room, state, seats, spectators, options
        self._head: tuple[str, str, list[dict[str, Any]], list[str], Any]
        if previous is not None and previous._sources == sources and previous._head[4] == options:
            # seats, spectators and options as before (the room changes them rarely): the same
            # objects, neither built nor compared again
            self._sources, self._seat_names = previous._sources, previous._seat_names
            self._head = (room, state, *previous._head[2:])
        else:
            self._sources = sources  # pragma: no mutate - only compared, by the state after
            self._seat_names = [s.name for s in seats]
            self._head = (
                room,
                state,
                [{"name": s.name, "kind": s.kind, "connected": s.connected} for s in seats],
                list(spectators),
                _json_copy(options),
            )
        #: the state after this one that was diffed with it, and what they share of that diff: kept
        #: here, so that no state keeps the one before it alive
        self._onward: tuple[RoomViews, _Shared | None] | None = None
        players = () if position is None else position.players
        self._players = [p.name for p in players]
        # a shortcut: the hands of the players the engine kept (the same objects) are the state
        # before's (without it they are equal all the same)
        roster: tuple[Any, ...] = ()
        old_hands: list[list[str]] = []  # pragma: no mutate - read only beside a roster
        if previous is not None:  # pragma: no mutate
            roster, old_hands = previous._board[2], previous._hands  # pragma: no mutate
        self._hands = [
            old_hands[i]  # pragma: no mutate
            if i < len(roster) and roster[i] is p  # pragma: no mutate
            else [c.text for c in p.hand]
            for i, p in enumerate(players)
        ]
        # the moves as JSON; a room appends to its history, so those of the state before are kept
        moves: list[dict[str, Any]] | None = None
        if previous is not None and previous._history[0] is history:
            known = previous._history[1]
            if len(known) <= len(history):
                moves = known + [_move(h) for h in history[len(known) :]]
        if moves is None:
            moves = [_move(h) for h in history]
        self._history: tuple[Sequence[LastMove], list[dict[str, Any]]] = (history, moves)
        self._game = (
            None
            if position is None
            else _game_view(
                position,
                last_move,
                outcome,
                move_number,
                moves,
                deadline,
                previous,  # pragma: no mutate - a shortcut (see _game_view)
            )
        )
        #: the position's chairs, bar and players the game's were made from (for the state after)
        self._board: tuple[Any, Any, tuple[Any, ...]] = (
            (None, None, ())  # pragma: no mutate
            if position is None
            else (position.chairs, position.bar, position.players)  # pragma: no mutate
        )
        if previous is not None:
            self._keep_unchanged(previous)

    def _keep_unchanged(self, previous: RoomViews) -> None:
        """Where a part equals the ``previous`` state's, hold that very object instead, so that a
        diff between the two passes over it at once (an identity check, not a walk)."""
        room, state, seats, spectators, options = self._head
        _, _, old_seats, old_spectators, old_options = previous._head
        self._head = (room, state, _same_or(old_seats, seats), _same_or(old_spectators, spectators),
                      _same_or(old_options, options))  # fmt: skip
        game, old = self._game, previous._game
        if game is None or old is None:
            return
        # (a game of more players than the one before keeps the rest: strict is off, None or False)
        pairs = zip(old["players"], game["players"], strict=False)  # pragma: no mutate
        players = [_same_or(a, b) for a, b in pairs]
        players += game["players"][len(players) :]
        game["players"] = _same_or(old["players"], players)
        for key in ("chairs", "bar", "last_move", "result", "history"):
            game[key] = _same_or(old[key], game[key])

    def changes(self, before: RoomViews, recipient: str | None) -> list[dict[str, Any]]:
        """The JSON Patch from ``before.view(recipient)`` to ``self.view(recipient)``: exactly
        ``diff`` of the two views, but what every recipient shares is diffed once for all of them
        and its operations are the same objects in each recipient's patch."""
        return [op for part in self.change_parts(before, recipient) for op in part]

    def change_parts(self, before: RoomViews, recipient: str | None) -> list[list[dict[str, Any]]]:
        """``changes`` in the parts it is made of, none of them empty: the lists of operations
        every recipient shares are the same list objects in each recipient's parts (so that what
        is made of one, such as its JSON text, is made once), the recipient's own are new ones."""
        shared = self._shared_changes(before)
        player = recipient is not None and recipient in self._players
        if shared is None or player != (recipient is not None and recipient in before._players):
            whole = diff(before.view(recipient), self.view(recipient))
            return [whole] if whole else []
        head, players, rest = shared
        parts = [head] if head else []
        seat = self._seat(recipient)
        if seat != before._seat(recipient):
            parts.append([{"op": "replace", "path": "/seat", "value": seat}])
        if players:
            parts.append(players)
        if player:
            assert recipient is not None
            old = before._hands[before._players.index(recipient)]
            new = self._hands[self._players.index(recipient)]
            if old != new:
                parts.append([{**op, "path": "/game/hand" + op["path"]} for op in diff(old, new)])
        if rest:
            parts.append(rest)
        return parts

    def _shared_changes(self, before: RoomViews) -> _Shared | None:
        """The operations between the parts everyone sees of ``before`` and of this state, split
        where a recipient's own operations go (``/seat``, ``/game/hand``); ``None`` when the game
        came or went, which changes each recipient's view whole."""
        onward = before._onward
        if onward is not None and onward[0] is self:
            return onward[1]
        result: _Shared | None = None
        if (before._game is None) == (self._game is None):
            ops = diff(before._skeleton(), self._skeleton())
            paths = [op["path"] for op in ops]
            # a safety net no state reaches: the skeleton's "you" and "seat" are null on both
            # sides, and two games' "players" are lists, diffed member by member, so neither the
            # view nor the game is replaced whole (and with the shortcut not taken, the whole
            # diff in ``changes`` finds the same patch)
            if "" not in paths and "/game" not in paths:  # pragma: no mutate
                game = rest = len(ops)
                for i, path in enumerate(paths):
                    if path.startswith("/game/"):
                        game = i
                        break
                for i in range(game, len(ops)):
                    if not _under(paths[i], "/game/players"):
                        rest = i
                        break
                result = (ops[:game], ops[game:rest], ops[rest:])
        before._onward = (self, result)
        return result

    @property
    def state(self) -> str:
        """The room's state: ``"waiting"``, ``"playing"`` or ``"over"``."""
        return self._head[1]

    @property
    def game(self) -> dict[str, Any] | None:
        """The game as every recipient sees it alike (no hand in it); ``None`` without one. Shared
        by the views: read it, never change it."""
        return self._game

    def _skeleton(self) -> dict[str, Any]:
        """A view with what everyone sees alike: the anonymous one (``you`` and ``seat`` null, no
        hand)."""
        return self.view(None)

    def _seat(self, recipient: str | None) -> int | None:
        names = self._seat_names
        return names.index(recipient) if recipient is not None and recipient in names else None

    def view(self, recipient: str | None) -> dict[str, Any]:
        """The room as ``recipient`` may see it (see the module docstring for the shape)."""
        seat = self._seat(recipient)
        room, state, seats, spectators, options = self._head
        game = self._game
        if game is not None and recipient is not None and recipient in self._players:
            # the own hand comes right after the players, as clients have always read it
            hand = self._hands[self._players.index(recipient)]
            players, *rest = game.items()
            game = dict([players, ("hand", hand), *rest])
        return {
            "room": room,
            "state": state,
            "seats": seats,
            "spectators": spectators,
            "options": options,
            "you": recipient,
            "seat": seat,
            "game": game,
        }


def _same_or(old: Any, new: Any) -> Any:
    """``old`` if it equals ``new``, else ``new``. The values of a view keep their JSON types from
    state to state (a count stays an int, a flag a bool), so Python's ``==`` is JSON's here."""
    # (``is`` first: a container's ``==`` walks it even when it is compared with itself)
    return old if old is new or old == new else new


#: the shared operations of a change: before ``/seat``, ``/game/players``, after ``/game/hand``
_Shared = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def _move(move: LastMove) -> dict[str, Any]:
    return {"player": move.player, "move": move.move, "points": move.points}


@functools.cache
def _chair_names(board: Board) -> tuple[str, ...]:
    return tuple(chair.name for chair in board.chairs)


def _game_view(
    position: Position,
    last_move: LastMove | None,
    outcome: Outcome | None,
    move_number: int,
    moves: list[dict[str, Any]],
    deadline: float | None,
    previous: RoomViews | None,
) -> dict[str, Any]:
    """The game as everyone sees it, what ``engine.view`` shows a spectator: no hand in it, only
    their sizes (``moves``: the history as JSON). The chairs and the bar of the ``previous``
    state are taken over where the position holds the very same ones (the engine keeps what a
    move leaves alone)."""
    names = [p.name for p in position.players]
    eliminated = position.eliminated
    # a shortcut: the state before's line of each player the engine kept, unless eliminated since
    # (without it the lines are equal all the same)
    old = previous._game if previous is not None else None  # pragma: no mutate
    board = previous._board if previous is not None else (None, None, ())  # pragma: no mutate
    old_chairs, old_bar, roster = board  # pragma: no mutate
    old_players = old["players"] if old is not None else ()  # pragma: no mutate
    players = [
        old_players[i]  # pragma: no mutate
        if i < len(roster)  # pragma: no mutate
        and roster[i] is p  # pragma: no mutate
        and old_players[i]["eliminated"] == (i in eliminated)  # pragma: no mutate
        else {
            "name": p.name,
            "hand_size": len(p.hand),
            "score": p.score,
            "hand_limit": p.hand_limit,
            "eliminated": i in eliminated,
        }
        for i, p in enumerate(position.players)
    ]
    # A room may end a game the rules did not end (everyone left); its outcome then speaks first.
    # Without one, a finished position still carries its result, so that no view says "over"
    # without saying how it ended.
    if outcome is None:
        outcome = engine.outcome(position)
    # a shortcut: the state before's chairs and bar, made of the very same ones (without it the
    # views are equal all the same, and ``_keep_unchanged`` keeps the older of two equal parts)
    if old is not None and old_chairs is position.chairs:  # pragma: no mutate
        chairs = old["chairs"]
    else:
        # (by index: compiled, a loop over a tuple is native code, a zip goes through its iterator)
        places = _chair_names(position.board)
        chairs = {places[i]: guest.text for i, guest in enumerate(position.chairs) if guest is not None}
    if old is not None and old_bar is position.bar:  # noqa: SIM108  # pragma: no mutate
        bar = old["bar"]
    else:
        bar = [card.text for card in position.bar]
    return {
        "players": players,
        "to_move": names[position.to_move],
        "start_player": names[position.start_player],
        "chairs": chairs,
        "bar": bar,
        "deck_size": len(position.deck),
        "move_number": move_number,
        "last_move": (
            None
            if last_move is None
            else {"player": last_move.player, "move": last_move.move, "points": last_move.points}
        ),
        "history": moves,
        "deadline": None if deadline is None or outcome is not None else round(deadline, 3),
        "over": outcome.reason if outcome is not None else None,
        "result": outcome.to_dict() if outcome is not None else None,
    }


def room_view(
    *,
    room: str,
    state: str,
    seats: Sequence[SeatInfo],
    spectators: Sequence[str],
    options: Mapping[str, Any],
    position: Position | None,
    recipient: str | None,
    last_move: LastMove | None,
    outcome: Outcome | None,
    move_number: int,
    history: Sequence[LastMove] = (),
    deadline: float | None = None,
) -> dict[str, Any]:
    """The room as ``recipient`` may see it (see the module docstring for the shape).

    ``recipient`` is a name (a seated player or a spectator) or ``None`` for an anonymous view;
    the own hand is included only when that name is a player of ``position``. ``game`` is
    ``None`` without a position. ``outcome``, when given, is the result shown; otherwise a
    finished position shows the rules' outcome. The result is a fresh dict: the caller may keep
    it to diff against the next one. ``RoomViews`` builds the views of many recipients at once.
    """
    return RoomViews(
        room=room,
        state=state,
        seats=seats,
        spectators=spectators,
        options=options,
        position=position,
        last_move=last_move,
        outcome=outcome,
        move_number=move_number,
        history=history,
        deadline=deadline,
    ).view(recipient)
