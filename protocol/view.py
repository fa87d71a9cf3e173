"""The view of a room for one recipient: what a seated player or a spectator may see, as plain JSON.

A view is built from what the engine's filtered view (``engine.view``) shows a spectator, plus the
room's own facts and the recipient's own hand, so it never holds another player's hand or the
order of the deck: every player shows only ``hand_size``, the deck only ``deck_size``, and the
recipient's own cards appear once, under ``game.hand``, and only when the recipient is a player
of that game who plays the seat now. A name the room lists among its spectators reads the room
as a spectator, no seat and no hand, even where a seat still carries that name (a bot plays it
for its player, or its player was voted out). The server sends a view whole as a snapshot and
then as JSON Patch differences (``protocol.diff``); the web page and the text renderer read it.

The shape, which clients rely on::

    {
      "room": "cafe",                      # the room's name
      "state": "playing",                  # "waiting" | "playing" | "over"
      "seats": [{"name": "ann", "kind": "person", "connected": true}, ...],   # kind: "person" | "bot"
      "spectators": ["zoe"],               # who plays no seat now, in the room's order
      "options": {"stammtisch": false},    # the room's options as given
      "rated": false,                      # the game counts for ratings: before the start, were it
                                           # to start now; during it, as seated now; after it, rated
      "you": "ann",                        # the recipient's name, or null for an anonymous view
      "seat": 0,                           # the recipient's index in "seats", or null (a spectator)
      "game": null | {
        "players": [{"name": "ann", "hand_size": 5, "score": 12, "hand_limit": 5, "eliminated": false}, ...],
        "hand": ["DEm", "FRf", "Jm"],      # ONLY for a player of this game who is no spectator
        "to_move": "bob",                  # names, not indices
        "start_player": "ann",
        "chairs": {"FR1s": "FRm", "FR1e": "Jf=FR"},   # canonical chair name -> guest text
        "bar": ["ITm", "CUf"],             # from bar place 1
        "deck_size": 62,
        "move_number": 7,                  # moves played so far, as the room counts them
        "last_move": null | {"player": "ann", "move": "FRf@FR1s", "points": 3},
        "history": [{"player": "bob", "move": "ITm@bar", "points": 1}, ...],   # every move, in order
                                              # ("auto": "clock" or "bot" when the server played it)
        "deadline": null | 1767225600.5,   # when the turn's clock runs out (Unix time, seconds)
        "over": null | "deck",             # why the game ended (docs/rules.md section 7), or null
        "practice": false,                 # dealt from a seed chosen for it: not rated
        "result": null | {"final_scores": {...}, "ranking": [...], "places": {...},
                          "penalties": {...}, "reason": "deck",
                          "ratings": null | {"ann": {"before": 1000, "after": 1012, "provisional": true}}}
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
from typing import Any, Final

import engine
from engine import Board, Card, Outcome, Position
from protocol.diff import diff

__all__ = ["LastMove", "RoomViews", "SeatInfo", "room_view"]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat of a room: who sits there, a ``"person"`` or a ``"bot"``, and whether connected."""

    name: str
    kind: str
    connected: bool


class LastMove:
    """A move played: by whom, its canonical text, the points it scored, and ``auto`` when the
    server played it for its player (``"clock"``, ``"bot"``, as the log marks it); never changed
    once made. (A plain class: compiled, its constructor is native code, where the one a
    dataclass writes runs as Python.)"""

    __slots__ = ("auto", "move", "player", "points")

    def __init__(self, player: str, move: str, points: int, auto: str | None = None) -> None:
        self.player: Final = player
        self.move: Final = move
        self.points: Final = points
        self.auto: Final = auto


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
    """The views of one state of a room for any number of recipients, built once, when first read.

    The parts every recipient sees alike are built once and shared by the views (the same
    objects); a view of its own holds only what differs: ``you``, ``seat`` and a player's
    ``hand``. Treat the views as values, as ``protocol.diff`` does: shared parts let ``changes``
    work out a change once for all recipients. The views are built when first read; given the
    ``previous`` state (built by then), the parts that did not change are that state's very
    objects, which a diff passes over at once, so that the diff of two states after a move walks
    only what the move changed.

    >>> from engine import new_position
    >>> views = RoomViews(room="cafe", state="playing", seats=[SeatInfo("ann", "person", True),
    ...     SeatInfo("bob", "bot", True)], spectators=[], options={},
    ...     position=new_position(["ann", "bob"], seed=1), last_move=None, outcome=None, move_number=0)
    >>> ann, bob = views.view("ann"), views.view("bob")
    >>> ann["game"]["chairs"] is bob["game"]["chairs"], ann["game"]["hand"] == bob["game"]["hand"]
    (True, False)
    """

    __slots__ = (
        "_anonymous",
        "_built",
        "_deadline",
        "_game",
        "_hands",
        "_head",
        "_history",
        "_last_move",
        "_move_number",
        "_moves",
        "_moves_count",
        "_onward",
        "_outcome",
        "_players",
        "_position",
        "_practice",
        "_prior",
        "_rated",
        "_ratings",
        "_readers",
        "_seat_of",
        "_sources",
        "_watchers",
    )
    _sources: tuple[tuple[SeatInfo, ...], tuple[str, ...]]
    #: each name a seat carries, and the first seat that carries it
    _seat_of: dict[str, int]
    #: the spectators, who read no seat and no hand even where a seat carries their name
    _watchers: frozenset[str]
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
        rated: bool = False,
        ratings: Mapping[str, Any] | None = None,
        practice: bool = False,
        previous: RoomViews | None = None,
    ) -> None:
        sources = (tuple(seats), tuple(spectators))
        #: room, state, seats, spectators, options (built at once: the options are copied as given)
        self._head: tuple[str, str, list[dict[str, Any]], list[str], Any]
        if previous is not None and previous._sources == sources and previous._head[4] == options:
            # seats, spectators and options as before (the room changes them rarely): the same
            # objects, neither built nor compared again
            self._sources, self._seat_of = previous._sources, previous._seat_of
            self._watchers = previous._watchers
            self._head = (room, state, *previous._head[2:])
        else:
            self._sources = sources  # pragma: no mutate - only compared, by the state after
            self._seat_of = {}
            for i, seat in enumerate(seats):
                self._seat_of.setdefault(seat.name, i)
            self._watchers = frozenset(spectators)
            seat_list = [{"name": s.name, "kind": s.kind, "connected": s.connected} for s in seats]
            spectator_list = list(spectators)
            copied = _json_copy(options)
            if previous is not None:
                # where a part equals the state before's, that very object (a diff passes over it)
                _, _, old_seats, old_spectators, old_options = previous._head
                seat_list = _same_or(old_seats, seat_list)
                spectator_list = _same_or(old_spectators, spectator_list)
                copied = _same_or(old_options, copied)
            self._head = (room, state, seat_list, spectator_list, copied)
        #: the state after this one that was diffed with it, and what they share of that diff: kept
        #: here, so that no state keeps the one before it alive
        self._onward: tuple[RoomViews, _Shared | None] | None = None
        # the facts the game's part is built from, when first read
        self._position = position
        self._players = [] if position is None else [p.name for p in position.players]
        #: each player of the game who reads a hand (no spectator), and the player's index
        self._readers: dict[str, int] = {}
        for i, name in enumerate(self._players):
            if name not in self._watchers:
                self._readers.setdefault(name, i)
        self._last_move = last_move
        # A room may end a game the rules did not end (everyone left); its outcome then speaks
        # first. Without one, a finished position still carries its result, so that no view says
        # "over" without saying how it ended.
        if outcome is None and position is not None:
            outcome = engine.outcome(position)
        self._outcome = outcome
        self._move_number = move_number
        #: the room's moves, of which the first ``_moves_count`` are this state's (a room appends to
        #: its list and never takes a move back, and a state may be built after the next move was
        #: appended)
        self._history = history
        self._moves_count = len(history)
        self._deadline = deadline
        self._rated = rated
        #: a finished game's rating changes (name -> before, after, provisional), or None
        self._ratings = ratings
        self._practice = practice
        self._built = False
        self._anonymous: dict[str, Any] | None = None
        self._game: dict[str, Any] | None = None
        self._hands = []
        #: the moves as JSON
        self._moves: list[dict[str, Any]] = []
        #: the parts of the state before, if it was built, that this one's are built on (kept
        #: until this one is built; not that state itself, which holds this one in ``_onward``)
        self._prior: _Prior | None = None
        if previous is not None and previous._built:
            self._prior = (previous._position, previous._game, previous._hands, previous._history,
                           previous._moves)  # fmt: skip

    def _build(self) -> None:
        """Build the game's part and the hands (once), on the state before's parts where it was
        built: the parts the engine kept are that state's very objects."""
        prior = self._prior
        self._prior = None
        self._built = True
        position = self._position
        players = () if position is None else position.players
        was: Position | None = None
        old_game: dict[str, Any] | None = None
        old_hands: list[list[str]] = []  # pragma: no mutate - read only beside a roster
        old_history: Sequence[LastMove] = ()
        known: list[dict[str, Any]] = []
        if prior is not None:  # pragma: no mutate
            was, old_game, old_hands, old_history, known = prior
        # a shortcut: the hands of the players the engine kept (the same objects) are the state
        # before's (without it they are equal all the same)
        roster = () if was is None else was.players  # pragma: no mutate
        self._hands = [
            old_hands[i]  # pragma: no mutate
            if i < len(roster) and roster[i] is p  # pragma: no mutate
            else _texts(p.hand)
            for i, p in enumerate(players)
        ]
        # the moves as JSON; a room appends to its history, so those of the state before are kept
        history, count = self._history, self._moves_count
        if prior is not None and old_history is history and len(known) <= count:
            moves = known + [_move(history[i]) for i in range(len(known), count)]
        else:
            moves = [_move(history[i]) for i in range(count)]
        self._moves = moves
        if position is None:
            return
        game = _game_view(
            position,
            self._last_move,
            self._outcome,
            self._move_number,
            moves,
            self._deadline,
            self._ratings,
            self._practice,
            was,  # pragma: no mutate - a shortcut (see _game_view)
            old_game,  # pragma: no mutate
        )
        self._game = game

    def changes(self, before: RoomViews, recipient: str | None) -> list[dict[str, Any]]:
        """The JSON Patch from ``before.view(recipient)`` to ``self.view(recipient)``: exactly
        ``diff`` of the two views, but what every recipient shares is worked out once for all of
        them and its operations are the same objects in each recipient's patch."""
        return [op for part in self.change_parts(before, recipient) for op in part]

    def change_parts(self, before: RoomViews, recipient: str | None) -> list[list[dict[str, Any]]]:
        """``changes`` in the parts it is made of, none of them empty: the lists of operations
        every recipient shares are the same list objects in each recipient's parts (so that what
        is made of one, such as its JSON text, is made once), the recipient's own are new ones."""
        shared = self._shared_changes(before)
        player = self._reads_hand(recipient)
        if shared is None or player != before._reads_hand(recipient):
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
            # the same list where the player's hand did not change (``_build``)
            hand = diff(before._hand(recipient), self._hand(recipient), ("game", "hand"))
            if hand:
                parts.append(hand)
        if rest:
            parts.append(rest)
        return parts

    def _hand(self, recipient: str) -> list[str]:
        """The cards of ``recipient``, a player of the game, as its view shows them."""
        if not self._built:
            self._build()
        return self._hands[self._readers[recipient]]

    def _shared_changes(self, before: RoomViews) -> _Shared | None:
        """The operations between the parts everyone sees of ``before`` and of this state (the
        diff of the two anonymous views), split where a recipient's own operations go (``/seat``,
        ``/game/hand``): worked out once for every recipient; ``None`` when the game came or went,
        which changes each recipient's view whole."""
        onward = before._onward
        if onward is not None and onward[0] is self:
            return onward[1]
        result: _Shared | None = None
        if (before._position is None) == (self._position is None):
            result = _split(diff(before._skeleton(), self._skeleton()))
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
        if not self._built:
            self._build()
        return self._game

    def to_move(self) -> str | None:
        """Who is to move in the game being played (``None``: no game, or it is over), read from
        the facts, without building the views."""
        position = self._position
        if position is None or self._head[1] != "playing" or self._outcome is not None:
            return None
        return self._players[position.to_move]

    def _skeleton(self) -> dict[str, Any]:
        """A view with what everyone sees alike: the anonymous one (``you`` and ``seat`` null, no
        hand), made once (a state is diffed with the one before it and the one after)."""
        if self._anonymous is None:
            self._anonymous = self.view(None)
        return self._anonymous

    def _seat(self, recipient: str | None) -> int | None:
        """``recipient``'s index in the seats: none for a spectator, even where a seat carries
        the name (a seat a bot plays for its player, or one its player was voted out of)."""
        if recipient is None or recipient in self._watchers:
            return None
        return self._seat_of.get(recipient)

    def plays(self, recipient: str | None) -> bool:
        """Whether ``recipient`` plays a seat here now (its view has a ``seat``)."""
        return self._seat(recipient) is not None

    def _reads_hand(self, recipient: str | None) -> bool:
        """Whether ``recipient``'s view holds a hand: a player of the game who is no spectator."""
        return recipient is not None and recipient in self._readers

    def view(self, recipient: str | None) -> dict[str, Any]:
        """The room as ``recipient`` may see it (see the module docstring for the shape)."""
        if not self._built:
            self._build()
        seat = self._seat(recipient)
        room, state, seats, spectators, options = self._head
        game = self._game
        if game is not None and self._reads_hand(recipient):
            assert recipient is not None
            # the own hand comes right after the players, as clients have always read it
            hand = self._hands[self._readers[recipient]]
            players, *rest = game.items()
            game = dict([players, ("hand", hand), *rest])
        return {
            "room": room,
            "state": state,
            "seats": seats,
            "spectators": spectators,
            "options": options,
            "rated": self._rated,
            "you": recipient,
            "seat": seat,
            "game": game,
        }


def _all_same(a: list[Any], b: list[Any]) -> bool:
    """Whether ``a`` and ``b`` hold the very same objects, in the same order."""
    return len(a) == len(b) and all(a[i] is b[i] for i in range(len(a)))


def _same_or(old: Any, new: Any) -> Any:
    """``old`` if it equals ``new``, else ``new``. The values of a view keep their JSON types from
    state to state (a count stays an int, a flag a bool), so Python's ``==`` is JSON's here."""
    # (``is`` first: a container's ``==`` walks it even when it is compared with itself)
    return old if old is new or old == new else new


#: what a state is built on of the built state before it: its position, its game, the hands, the
#: room's moves and those moves as JSON
_Prior = tuple[
    Position | None, dict[str, Any] | None, list[list[str]], Sequence[LastMove], list[dict[str, Any]]
]

#: the shared operations of a change: before ``/seat``, ``/game/players``, after ``/game/hand``
_Shared = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


def _split(ops: list[dict[str, Any]]) -> _Shared | None:
    """A diff of two anonymous views cut where a recipient's own operations go: before the game
    (``/seat`` comes last there), the game's players, the rest (``/game/hand`` comes before it);
    ``None`` where the view or the game is replaced whole."""
    paths: list[str] = [op["path"] for op in ops]
    n = len(paths)
    game = 0
    while game < n and not paths[game].startswith("/game"):
        game += 1
    # a safety net no state reaches: the skeleton's "you" and "seat" are null on both sides,
    # and two games' "players" are lists, diffed member by member, so neither the view nor
    # the game is replaced whole (and with the shortcut not taken, the whole diff in
    # ``changes`` finds the same patch)
    if paths == [""] or (game < n and paths[game] == "/game"):  # pragma: no mutate
        return None
    rest = game
    while rest < n and paths[rest].startswith("/game/players"):
        rest += 1
    return (ops[:game], ops[game:rest], ops[rest:])


def _move(move: LastMove) -> dict[str, Any]:
    if move.auto is None:  # (most moves: no field, rather than null in every one)
        return {"player": move.player, "move": move.move, "points": move.points}
    return {"player": move.player, "move": move.move, "points": move.points, "auto": move.auto}


def _texts(cards: Sequence[Card]) -> list[str]:
    """Cards as a view shows them (a hand, the bar)."""
    return [card.text for card in cards]


def _deadline_shown(deadline: float | None, outcome: Outcome | None) -> float | None:
    """The turn's deadline as a view shows it: to the millisecond, and none once the game is over."""
    return None if deadline is None or outcome is not None else round(deadline, 3)


@functools.cache
def _chair_names(board: Board) -> tuple[str, ...]:
    return tuple(chair.name for chair in board.chairs)


def _chairs(position: Position) -> dict[str, str]:
    """The taken chairs as a view shows them: each chair's name and its guest, in the board's
    order (by index: compiled, a loop over a tuple is native code, a zip goes through its
    iterator)."""
    places = _chair_names(position.board)
    return {places[i]: guest.text for i, guest in enumerate(position.chairs) if guest is not None}


def _game_view(
    position: Position,
    last_move: LastMove | None,
    outcome: Outcome | None,
    move_number: int,
    moves: list[dict[str, Any]],
    deadline: float | None,
    ratings: Mapping[str, Any] | None,
    practice: bool,
    was: Position | None,
    old: dict[str, Any] | None,
) -> dict[str, Any]:
    """The game as everyone sees it, what ``engine.view`` shows a spectator: no hand in it, only
    their sizes (``moves``: the history as JSON). Built on the state before's game ``old`` (of
    the position ``was``): where a part equals that game's, it is that very object, which a diff
    passes over at once (an identity check, not a walk); the chairs, the bar and each player's
    line are not even made again where the position holds the very same ones (the engine keeps
    what a move leaves alone)."""
    names = [p.name for p in position.players]
    eliminated = position.eliminated
    # a shortcut: the state before's line of each player the engine kept, unless eliminated since
    # (without it the lines are equal all the same)
    old_chairs: Any = None  # pragma: no mutate
    old_bar: Any = None  # pragma: no mutate
    roster: tuple[Any, ...] = ()  # pragma: no mutate
    if was is not None:  # pragma: no mutate
        old_chairs, old_bar, roster = was.chairs, was.bar, was.players  # pragma: no mutate
    old_players: list[dict[str, Any]] = [] if old is None else old["players"]
    players: list[dict[str, Any]] = []
    for i, p in enumerate(position.players):
        if (
            i < len(roster)  # pragma: no mutate
            and roster[i] is p  # pragma: no mutate
            and old_players[i]["eliminated"] == (i in eliminated)  # pragma: no mutate
        ):
            players.append(old_players[i])  # pragma: no mutate
            continue
        line = {
            "name": p.name,
            "hand_size": len(p.hand),
            "score": p.score,
            "hand_limit": p.hand_limit,
            "eliminated": i in eliminated,
        }
        # (a game of more players than the one before has lines of its own)
        players.append(_same_or(old_players[i], line) if i < len(old_players) else line)
    # a shortcut: the state before's chairs and bar, made of the very same ones (without it the
    # views are equal all the same: the older of two equal parts is kept below)
    if old is not None and old_chairs is position.chairs:  # noqa: SIM108  # pragma: no mutate
        chairs = old["chairs"]
    else:
        chairs = _chairs(position)
    if old is not None and old_bar is position.bar:  # noqa: SIM108  # pragma: no mutate
        bar = old["bar"]
    else:
        bar = _texts(position.bar)
    last = None if last_move is None else _move(last_move)
    result = None if outcome is None else {**outcome.to_dict(), "ratings": _json_copy(ratings)}
    if old is not None:
        if _all_same(players, old_players):
            players = old_players
        chairs = _same_or(old["chairs"], chairs)
        bar = _same_or(old["bar"], bar)
        last = _same_or(old["last_move"], last)
        moves = _same_or(old["history"], moves)
        result = _same_or(old["result"], result)
    return {
        "players": players,
        "to_move": names[position.to_move],
        "start_player": names[position.start_player],
        "chairs": chairs,
        "bar": bar,
        "deck_size": len(position.deck),
        "move_number": move_number,
        "last_move": last,
        "history": moves,
        "deadline": _deadline_shown(deadline, outcome),
        "over": outcome.reason if outcome is not None else None,
        "practice": practice,
        "result": result,
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
    rated: bool = False,
    ratings: Mapping[str, Any] | None = None,
    practice: bool = False,
) -> dict[str, Any]:
    """The room as ``recipient`` may see it (see the module docstring for the shape).

    ``recipient`` is a name (a seated player or a spectator) or ``None`` for an anonymous view;
    the own hand is included only when that name is a player of ``position`` and not among the
    ``spectators``. ``game`` is
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
        rated=rated,
        ratings=ratings,
        practice=practice,
    ).view(recipient)
