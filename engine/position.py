"""Positions (docs/rules.md section 12): immutable values, loaded with validation, dumped canonically.

>>> p = new_position(["ann", "bob"], seed=1)
>>> load_position(dump_position(p)) == p
True
>>> import pickle
>>> pickle.loads(pickle.dumps(p)) == p
True
"""

from __future__ import annotations

import copyreg
import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from engine.board import BAR_PLACES, Board, get_board
from engine.cards import Card, Guest, copies_in_set, full_set, parse_card, parse_guest
from engine.errors import InvalidPositionError

HAND_SIZE = 5
MIN_PLAYERS = 2
MAX_PLAYERS = 4

#: (men, women) at one table that the gender rule allows (a single guest only as the rules say).
GENDER_OK = frozenset({(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (2, 2)})
#: what a table may also hold once, with the ``stammtisch`` option, four of one gender sat down.
STAMMTISCH_OK = frozenset({(4, 0), (0, 4)})


@dataclass(frozen=True, slots=True)
class Options:
    """Room options that change the rules."""

    stammtisch: bool = False


@dataclass(frozen=True, slots=True)
class Player:
    """One seat: a name, the hand (kept sorted), the score and the hand limit."""

    name: str
    hand: tuple[Card, ...]
    score: int = 0
    hand_limit: int = HAND_SIZE

    # Written out, as Position's and PlayResult's are: compiled, this is native code, where the
    # constructor dataclasses writes runs as Python (18,000 instructions for a position against
    # 1,700, and a move makes three; without the written ones, a move in the server takes about
    # 14 % more instructions).
    def __init__(
        self, name: str, hand: tuple[Card, ...], score: int = 0, hand_limit: int = HAND_SIZE
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "hand_limit", hand_limit)


@dataclass(frozen=True, slots=True)
class Position:
    """Everything the rules need. ``chairs`` is indexed in board order, ``None`` for a free chair;
    ``eliminated`` holds player indices in the order they left; ``deck`` starts with the next card."""

    board: Board
    options: Options
    players: tuple[Player, ...]
    eliminated: tuple[int, ...]
    to_move: int
    start_player: int
    chairs: tuple[Guest | None, ...]
    bar: tuple[Card, ...]
    deck: tuple[Card, ...]

    # written out: see Player's
    def __init__(
        self,
        board: Board,
        options: Options,
        players: tuple[Player, ...],
        eliminated: tuple[int, ...],
        to_move: int,
        start_player: int,
        chairs: tuple[Guest | None, ...],
        bar: tuple[Card, ...],
        deck: tuple[Card, ...],
    ) -> None:
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "eliminated", eliminated)
        object.__setattr__(self, "to_move", to_move)
        object.__setattr__(self, "start_player", start_player)
        object.__setattr__(self, "chairs", chairs)
        object.__setattr__(self, "bar", bar)
        object.__setattr__(self, "deck", deck)

    def player_index(self, name: str) -> int:
        for i, p in enumerate(self.players):
            if p.name == name:
                return i
        raise KeyError(name)

    @property
    def is_opening(self) -> bool:
        """Whether the start player may still seat one card alone: every chair free, their turn."""
        return self.to_move == self.start_player and all(g is None for g in self.chairs)

    def remaining(self) -> list[int]:
        """Indices of the players not eliminated, in seating order."""
        return [i for i in range(len(self.players)) if i not in self.eliminated]


def sorted_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: c.text))


def new_position(
    names: Sequence[str],
    seed: int,
    *,
    options: Options | None = None,
    board: str = "classic",
    start_player: int | None = None,
) -> Position:
    """A new game: the 100 cards shuffled by ``random.Random(seed)``, five dealt to each player in
    turn, and the start player drawn by the same generator unless given."""
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise InvalidPositionError(f"a game has 2 to 4 players, not {len(names)}")
    if len(set(names)) != len(names) or not all(names):
        raise InvalidPositionError("player names must be distinct and not empty")
    rng = random.Random(seed)
    deck = full_set()
    rng.shuffle(deck)
    n = len(names)
    hands = [deck[i : n * HAND_SIZE : n] for i in range(n)]
    if start_player is None:
        start_player = rng.randrange(n)
    elif not 0 <= start_player < n:
        raise InvalidPositionError(f"start player {start_player} is not a seat")
    b = get_board(board)
    return Position(
        board=b,
        options=options or Options(),
        players=tuple(Player(name, sorted_hand(h)) for name, h in zip(names, hands, strict=True)),
        eliminated=(),
        to_move=start_player,
        start_player=start_player,
        chairs=(None,) * len(b.chairs),
        bar=(),
        deck=tuple(deck[n * HAND_SIZE :]),
    )


def position_to_dict(position: Position) -> dict[str, Any]:
    """The JSON-ready form of section 12, canonical: chairs in board order, hands sorted."""
    board = position.board
    return {
        "board": board.name,
        "options": {"stammtisch": position.options.stammtisch},
        "players": [
            {"name": p.name, "hand": [c.text for c in p.hand], "score": p.score, "hand_limit": p.hand_limit}
            for p in position.players
        ],
        "eliminated": [position.players[i].name for i in position.eliminated],
        "to_move": position.to_move,
        "start_player": position.start_player,
        "chairs": {board.chairs[i].name: g.text for i, g in enumerate(position.chairs) if g is not None},
        "bar": [c.text for c in position.bar],
        "deck": [c.text for c in position.deck],
    }


def dump_position(position: Position, *, indent: int | None = None) -> str:
    """Canonical JSON text: sorted keys, the same bytes for equal positions."""
    return json.dumps(position_to_dict(position), sort_keys=True, indent=indent, ensure_ascii=False)


def _need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise InvalidPositionError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidPositionError(f"{where}: field {key!r} has the wrong type ({value!r})")
    return value


def _cards(values: Any, where: str) -> list[Card]:
    if not isinstance(values, list):
        raise InvalidPositionError(f"{where} must be a list of cards")
    try:
        return [parse_card(v) for v in values]
    except InvalidPositionError as e:
        raise InvalidPositionError(f"{where}: {e}") from None


def position_from_dict(data: Mapping[str, Any]) -> Position:
    """Load and validate a position; ``InvalidPositionError`` says precisely what is wrong."""
    if not isinstance(data, Mapping):
        raise InvalidPositionError("a position is a JSON object")
    known = {"board", "options", "players", "eliminated", "to_move", "start_player", "chairs", "bar", "deck"}
    extra = sorted(set(data) - known)
    if extra:
        raise InvalidPositionError(f"position: unknown field(s) {', '.join(extra)}")
    board_name = data.get("board", "classic")
    if not isinstance(board_name, str):
        raise InvalidPositionError(f"board: a board's name, not {board_name!r}")
    board = get_board(board_name)
    raw_options = data.get("options", {})
    if not isinstance(raw_options, Mapping) or set(raw_options) - {"stammtisch"}:
        raise InvalidPositionError("options: only 'stammtisch' (true/false) is known")
    stammtisch = raw_options.get("stammtisch", False)
    if not isinstance(stammtisch, bool):
        raise InvalidPositionError("options: stammtisch must be true or false")
    options = Options(stammtisch=stammtisch)

    raw_players = _need(data, "players", list, "position")
    if not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
        raise InvalidPositionError(f"players: a game has 2 to 4 players, not {len(raw_players)}")
    players = []
    for i, rp in enumerate(raw_players):
        where = f"players[{i}]"
        if not isinstance(rp, Mapping):
            raise InvalidPositionError(f"{where} must be an object")
        extra = sorted(set(rp) - {"name", "hand", "score", "hand_limit"})
        if extra:
            raise InvalidPositionError(f"{where}: unknown field(s) {', '.join(extra)}")
        name = _need(rp, "name", str, where)
        if not name:
            raise InvalidPositionError(f"{where}: the name is empty")
        hand = _cards(_need(rp, "hand", list, where), f"{where}.hand")
        if len(hand) > HAND_SIZE:
            raise InvalidPositionError(f"{where}.hand holds {len(hand)} cards, at most {HAND_SIZE}")
        score = rp.get("score", 0)
        if not isinstance(score, int) or isinstance(score, bool) or score < 0:
            raise InvalidPositionError(f"{where}.score must be a whole number >= 0, not {score!r}")
        limit = rp.get("hand_limit", HAND_SIZE)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 0 <= limit <= HAND_SIZE:
            raise InvalidPositionError(f"{where}.hand_limit must be 0..{HAND_SIZE}, not {limit!r}")
        players.append(Player(name, sorted_hand(hand), score, limit))
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise InvalidPositionError("players: two players have the same name")

    raw_elim = data.get("eliminated", [])
    if not isinstance(raw_elim, list) or not all(isinstance(n, str) for n in raw_elim):
        raise InvalidPositionError("eliminated must be a list of player names")
    eliminated = []
    for n in raw_elim:
        if n not in names:
            raise InvalidPositionError(f"eliminated: {n!r} is not a player")
        if names.index(n) in eliminated:
            raise InvalidPositionError(f"eliminated: {n!r} is listed twice")
        eliminated.append(names.index(n))
    if len(eliminated) >= len(players):
        raise InvalidPositionError("eliminated: at least one player must remain")

    to_move = _need(data, "to_move", int, "position")
    start = data.get("start_player", to_move)
    for key, value in (("to_move", to_move), ("start_player", start)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(players):
            raise InvalidPositionError(f"{key} must be a seat number 0..{len(players) - 1}")
    if to_move in eliminated:
        raise InvalidPositionError(f"to_move: {names[to_move]!r} is eliminated")

    raw_chairs = data.get("chairs", {})
    if not isinstance(raw_chairs, Mapping):
        raise InvalidPositionError("chairs must map chair names to guests")
    chairs: list[Guest | None] = [None] * len(board.chairs)
    for chair_name, guest_text in raw_chairs.items():
        index = board.chair_index(chair_name)
        if index is None:
            raise InvalidPositionError(f"chairs: there is no chair {chair_name!r}")
        chair = board.chairs[index]
        if chairs[index] is not None:
            raise InvalidPositionError(f"chairs: {chair.name} is given twice ({'/'.join(chair.names)})")
        try:
            guest = parse_guest(guest_text)
        except InvalidPositionError as e:
            raise InvalidPositionError(f"chairs: {chair.name}: {e}") from None
        if guest.nation not in chair.nations:
            raise InvalidPositionError(
                f"chairs: {guest.text} cannot sit on {chair.name}, a chair of {' and '.join(chair.nations)}"
            )
        chairs[index] = guest

    bar = _cards(data.get("bar", []), "bar")
    if len(bar) > BAR_PLACES:
        raise InvalidPositionError(f"bar: {len(bar)} cards, but the bar has {BAR_PLACES} places")
    deck = _cards(_need(data, "deck", list, "position"), "deck")

    counts = Counter([g.card for g in chairs if g is not None])
    counts.update(bar)
    counts.update(deck)
    for p in players:
        counts.update(p.hand)
    for card, n in sorted(counts.items(), key=lambda kv: kv[0].index):
        if n > copies_in_set(card):
            raise InvalidPositionError(
                f"card {card.text} appears {n} times; the set holds it {copies_in_set(card)} times"
            )

    allowed = GENDER_OK | STAMMTISCH_OK if options.stammtisch else GENDER_OK
    for table in board.tables:
        seated = [g for g in (chairs[c] for c in table.chairs) if g is not None]
        men = sum(1 for g in seated if g.gender == "m")
        women = len(seated) - men
        if (men, women) not in allowed:
            raise InvalidPositionError(
                f"table {table.name} breaks the gender rule with {men} {'man' if men == 1 else 'men'} and "
                f"{women} {'woman' if women == 1 else 'women'}"
            )

    return Position(
        board=board,
        options=options,
        players=tuple(players),
        eliminated=tuple(eliminated),
        to_move=to_move,
        start_player=start,
        chairs=tuple(chairs),
        bar=tuple(bar),
        deck=tuple(deck),
    )


def load_position(text: str | bytes) -> Position:
    """Load a position from JSON text."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:  # (nested past Python's limit: RecursionError)
        raise InvalidPositionError(f"not JSON: {e}") from None
    return position_from_dict(data)


def _by_fields(value: Any) -> tuple[type, tuple[Any, ...]]:
    """How a frozen value of this module pickles: its class and its fields, which its constructor
    takes in this order. (Pickle's own way sets the fields of a bare object one by one, which a
    frozen class refuses once compiled.)"""
    return type(value), tuple(getattr(value, f.name) for f in fields(value))


# positions, their players and options go to the bots' worker processes
copyreg.pickle(Options, _by_fields)
copyreg.pickle(Player, _by_fields)
copyreg.pickle(Position, _by_fields)
