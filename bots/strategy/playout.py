"""A fast, mutable copy of a game for the search's playouts, with the greedy policy built in.

``engine.play`` and ``engine.legal_moves`` build immutable positions and list every move with its
text; a playout needs neither, only the best move by the greedy judge's measure and its effect. The
``Playout`` keeps the board as counts, finds that move without listing all moves, and plays it in
place, by the same rules (docs/rules.md sections 4 to 8; the three- and four-card moves of the
``stammtisch`` option are left out of the policy, never out of the rules it plays by). Tests check
it move by move against the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from bots.strategy.evaluate import ELIMINATED, Weights
from engine import BAR_PLACES, BAR_VALUES, BarMove, Board, Card, Guest, Move, Player, Position, SeatMove
from engine.cards import CARDS, NATIONS, joker_guest, natural_guest
from engine.notation import placement
from engine.position import GENDER_OK, sorted_hand
from engine.rules import DECK_END, JOKER_PENALTY, MIXED, NATURAL_PENALTY

#: the most a second card can score: a shared chair completing two tables of one nation
MAX_SECOND = 16

#: a placement in a playout: the card, the guest it becomes, the chair index
Seat = tuple[Card, Guest, int]


@dataclass(frozen=True, slots=True)
class PlayoutMove:
    """A move in a playout: ``kind`` is ``seat`` (with ``seats``), ``bar`` or ``swap`` (with
    ``card`` and, for a swap, ``chair``)."""

    kind: str
    seats: tuple[Seat, ...] = ()
    card: Card | None = None
    chair: int = -1

    def text(self, board: Board) -> str:
        """The move in the engine's notation."""
        if self.kind == "seat":
            return " ".join(placement(board, guest, chair).text for _, guest, chair in self.seats)
        assert self.card is not None
        if self.kind == "bar":
            return f"{self.card.text}@bar"
        return f"swap {self.card.text}@{board.chairs[self.chair].name}"


def playout_move(move: Move) -> PlayoutMove | None:
    """The engine's move as a playout move (``None`` for a three- or four-card move of the
    ``stammtisch`` option, which a playout does not score)."""
    if isinstance(move, SeatMove):
        if len(move.placements) > 2:
            return None
        return PlayoutMove("seat", tuple((p.card, p.guest, p.chair) for p in move.placements))
    if isinstance(move, BarMove):
        return PlayoutMove("bar", card=move.card)
    return PlayoutMove("swap", card=move.card, chair=move.chair)


@dataclass(frozen=True, slots=True)
class _BoardData:
    chair_tables: tuple[tuple[int, ...], ...]
    chair_nations: tuple[tuple[str, ...], ...]
    neighbours: tuple[tuple[int, ...], ...]
    #: for each nation, the chairs a guest of that nation may take
    nation_chairs: dict[str, tuple[int, ...]]


@cache
def _board_data(board: Board) -> _BoardData:
    nation_chairs: dict[str, list[int]] = {}
    for chair in board.chairs:
        for nation in chair.nations:
            nation_chairs.setdefault(nation, []).append(chair.index)
    return _BoardData(
        chair_tables=tuple(c.tables for c in board.chairs),
        chair_nations=tuple(c.nations for c in board.chairs),
        neighbours=tuple(tuple(sorted(n)) for n in board.neighbours),
        nation_chairs={n: tuple(cs) for n, cs in nation_chairs.items()},
    )


class Playout:
    """A game in progress, changed in place by ``play``. Built from a full position (in the search,
    a determinization)."""

    __slots__ = (
        "bar",
        "board",
        "chairs",
        "data",
        "deck",
        "eliminated",
        "free",
        "hands",
        "joker_chairs",
        "limits",
        "men",
        "nation",
        "ok_f",
        "ok_m",
        "options",
        "scores",
        "start_player",
        "to_move",
        "women",
    )

    def __init__(self, position: Position | None = None) -> None:
        if position is None:
            return  # an empty one, which ``copy`` fills in
        board = position.board
        self.board = board
        self.options = position.options
        self.data = _board_data(board)
        self.chairs: list[Guest | None] = list(position.chairs)
        n = len(board.tables)
        self.men = [0] * n
        self.women = [0] * n
        self.nation: list[str | None] = [None] * n
        for table in board.tables:
            t = table.index
            for c in table.chairs:
                g = self.chairs[c]
                if g is None:
                    continue
                if g.gender == "m":
                    self.men[t] += 1
                else:
                    self.women[t] += 1
                self.nation[t] = g.nation if self.nation[t] in (None, g.nation) else MIXED
        self.free = sum(1 for g in self.chairs if g is None)
        #: whether a man (a woman) may still join each table under the gender rule
        self.ok_m = [(m + 1, f) in GENDER_OK for m, f in zip(self.men, self.women, strict=True)]
        self.ok_f = [(m, f + 1) in GENDER_OK for m, f in zip(self.men, self.women, strict=True)]
        #: the chairs a joker sits on
        self.joker_chairs = {ci for ci, g in enumerate(self.chairs) if g is not None and g.card.is_joker}
        self.hands = [list(p.hand) for p in position.players]
        self.scores = [p.score for p in position.players]
        self.limits = [p.hand_limit for p in position.players]
        self.eliminated = list(position.eliminated)
        self.to_move = position.to_move
        self.start_player = position.start_player
        self.bar = list(position.bar)
        # the deck is consumed from the end: reversed, so that the next card is the last
        self.deck = list(reversed(position.deck))

    def copy(self) -> Playout:
        """An independent copy (the board data and the interned cards are shared)."""
        other = Playout()
        other.board = self.board
        other.options = self.options
        other.data = self.data
        other.chairs = self.chairs.copy()
        other.men = self.men.copy()
        other.women = self.women.copy()
        other.nation = self.nation.copy()
        other.free = self.free
        other.ok_m = self.ok_m.copy()
        other.ok_f = self.ok_f.copy()
        other.joker_chairs = self.joker_chairs.copy()
        other.hands = [h.copy() for h in self.hands]
        other.scores = self.scores.copy()
        other.limits = self.limits.copy()
        other.eliminated = self.eliminated.copy()
        other.to_move = self.to_move
        other.start_player = self.start_player
        other.bar = self.bar.copy()
        other.deck = self.deck.copy()
        return other

    def dealt(self, hands: Sequence[Sequence[Card]], deck: Sequence[Card]) -> Playout:
        """A copy with other cards in the hands and the deck (next card first): the same board
        with another sample of the hidden cards."""
        other = self.copy()
        other.hands = [list(h) for h in hands]
        other.deck = list(reversed(deck))
        return other

    # --- the state -----------------------------------------------------------------------

    def is_over(self) -> bool:
        """docs/rules.md section 7, read from the state alone."""
        if len(self.deck) <= DECK_END or self.free == 0 or len(self.bar) >= BAR_PLACES:
            return True
        if not self.eliminated:
            return not all(self.hands)
        remaining = [i for i in range(len(self.hands)) if i not in self.eliminated]
        return len(remaining) <= 1 or any(not self.hands[i] for i in remaining)

    def final_scores(self) -> list[int]:
        """Scores less the penalty for the cards in hand (not for eliminated players)."""
        return [
            score
            if i in self.eliminated
            else score - sum(JOKER_PENALTY if c.is_joker else NATURAL_PENALTY for c in self.hands[i])
            for i, score in enumerate(self.scores)
        ]

    def to_position(self, like: Position) -> Position:
        """The state as an engine position (names, board and options from ``like``)."""
        return Position(
            board=self.board,
            options=self.options,
            players=tuple(
                Player(p.name, sorted_hand(self.hands[i]), self.scores[i], self.limits[i])
                for i, p in enumerate(like.players)
            ),
            eliminated=tuple(self.eliminated),
            to_move=self.to_move,
            start_player=self.start_player,
            chairs=tuple(self.chairs),
            bar=tuple(self.bar),
            deck=tuple(reversed(self.deck)),
        )

    # --- playing -------------------------------------------------------------------------

    def play(self, move: PlayoutMove) -> None:
        """Play a legal move of the player to move (the policy's moves are legal)."""
        p = self.to_move
        hand = self.hands[p]
        if move.kind == "seat":
            points = 0
            completed = 0
            tables = self.data.chair_tables
            for card, guest, ci in move.seats:
                hand.remove(card)
                self.chairs[ci] = guest
                self.free -= 1
                is_m = guest.gender == "m"
                finishes = False
                if guest.card.is_joker:
                    self.joker_chairs.add(ci)
                for t in tables[ci]:
                    if is_m:
                        self.men[t] += 1
                    else:
                        self.women[t] += 1
                    m, f = self.men[t], self.women[t]
                    self.ok_m[t] = (m + 1, f) in GENDER_OK
                    self.ok_f[t] = (m, f + 1) in GENDER_OK
                    was = self.nation[t]
                    now = guest.nation if was is None or was == guest.nation else MIXED
                    self.nation[t] = now
                    k = self.men[t] + self.women[t]
                    if k >= 2:
                        points += k if now == MIXED else 2 * k
                    if k == 4 and now != MIXED:
                        finishes = True
                completed += finishes
            self.scores[p] += points
            self.limits[p] = max(0, self.limits[p] - completed)
            self._draw(p)
        elif move.kind == "bar":
            to_bar = move.card
            assert to_bar is not None
            value = BAR_VALUES[len(self.bar)]
            self.bar.append(to_bar)
            hand.remove(to_bar)
            points = 0 if to_bar.is_joker and value > 0 else value
            if points < 0 and self.scores[p] < -points:
                self.eliminated.append(p)
            else:
                self.scores[p] += points
                self._draw(p)
        else:
            natural = move.card
            seated = self.chairs[move.chair]
            assert natural is not None and seated is not None
            hand.remove(natural)
            hand.append(seated.card)
            self.chairs[move.chair] = natural_guest(natural)
            self.joker_chairs.discard(move.chair)
        n = len(self.hands)
        nxt = (p + 1) % n
        while nxt in self.eliminated and nxt != p:
            nxt = (nxt + 1) % n
        self.to_move = nxt

    def _draw(self, p: int) -> None:
        hand = self.hands[p]
        deck = self.deck
        for _ in range(min(max(0, self.limits[p] - len(hand)), len(deck))):
            hand.append(deck.pop())

    # --- the greedy policy ---------------------------------------------------------------

    def greedy_move(self, weights: Weights, rng: random.Random) -> PlayoutMove:
        """The best move of the player to move by ``MoveJudge``'s measure without the exposure
        term (points, lowering the hand limit, the worth of a joker spent, the bar's value less
        what the card sent there could still have done); equal moves are drawn with ``rng``."""
        p = self.to_move
        hand = self.hands[p]
        data = self.data
        men, women, nation, chairs = self.men, self.women, self.nation, self.chairs
        chair_tables = data.chair_tables
        chair_nations = data.chair_nations
        deck_size = len(self.deck)
        jw = _joker_worth(weights, deck_size)
        limit_w = weights.limit
        opening = self.free == len(chairs) and p == self.start_player
        # whether a man (a woman) may join each table under the gender rule
        ok_m = self.ok_m
        ok_f = self.ok_f

        # the hand's kinds of card in the order first held, and how many of each (by the card's index)
        kinds: list[Card] = []
        counts = [0] * len(CARDS)
        jokers = False
        for c in hand:
            if not counts[c.index]:
                kinds.append(c)
                jokers = jokers or c.is_joker
            counts[c.index] += 1
        free_chairs = [ci for ci, g in enumerate(chairs) if g is None] if jokers else []

        # the best moves so far, as what ``PlayoutMove`` is built from once one is drawn
        best_value = -1e18
        best: list[tuple[Seat, ...] | tuple[str, Card, int]] = []

        # first cards: every card on every free chair it may take with the gender rule kept
        firsts: list[tuple[Card, Guest, int, float]] = []
        scoring: list[tuple[float, Card, Guest, int]] = []
        for card in kinds:
            ok = ok_m if card.gender == "m" else ok_f
            joker = card.is_joker
            candidates = free_chairs if joker else data.nation_chairs[card.nation]  # type: ignore[index]
            cost = jw if joker else 0.0
            for ci in candidates:
                if chairs[ci] is not None:
                    continue
                tables = chair_tables[ci]
                if not ok[tables[0]] or (len(tables) == 2 and not ok[tables[1]]):
                    continue
                for nat in chair_nations[ci] if joker else _NATION_OF[card.index]:
                    points = 0
                    finishes = False
                    for t in tables:
                        k = men[t] + women[t] + 1
                        if k >= 2:
                            n0 = nation[t]
                            if n0 is not None and n0 != nat:
                                points += k
                            else:
                                points += 2 * k
                                finishes = finishes or k == 4
                    guest = _GUEST[card.index][nat]
                    value = points + (limit_w if finishes else 0.0) - cost
                    firsts.append((card, guest, ci, value))
                    if points or opening:
                        if points:
                            scoring.append((value, card, guest, ci))
                        if value > best_value + 1e-9:
                            best_value = value
                            best = [((card, guest, ci),)]
                        elif value >= best_value - 1e-9:
                            best.append(((card, guest, ci),))

        # a second card at a table of the first: scored after it
        bound = MAX_SECOND + limit_w
        # for each free chair, the hand's cards that may take it by nation (filled on demand)
        fitting: dict[int, list[tuple[Card, tuple[str, ...], bool, float]]] = {}
        for card1, guest1, ci1, value1 in firsts:
            if value1 + bound < best_value - 1e-9:
                continue
            tables1 = chair_tables[ci1]
            is_m1 = guest1.gender == "m"
            nat1 = guest1.nation
            single1 = counts[card1.index] < 2
            for ci2 in data.neighbours[ci1]:
                if chairs[ci2] is not None:
                    continue
                cards2 = fitting.get(ci2)
                if cards2 is None:
                    nations2 = chair_nations[ci2]
                    cards2 = [
                        (c, nations2, c.gender == "m", jw)
                        if c.is_joker
                        else (c, _NATION_OF[c.index], c.gender == "m", 0.0)
                        for c in kinds
                        if c.is_joker or c.nation in nations2
                    ]
                    fitting[ci2] = cards2
                if not cards2:
                    continue
                tables2 = chair_tables[ci2]
                for card2, nats2, is_m2, cost2 in cards2:
                    if card2 is card1 and single1:
                        continue
                    ok2 = True
                    for t in tables2:
                        if t in tables1:
                            fits = _FITS[men[t] + is_m2 + is_m1][women[t] + (not is_m2) + (not is_m1)]
                        else:
                            fits = _FITS[men[t] + is_m2][women[t] + (not is_m2)]
                        if not fits:
                            ok2 = False
                            break
                    if not ok2:
                        continue
                    base = value1 - cost2
                    for nat2 in nats2:
                        points = 0
                        finishes = False
                        for t in tables2:
                            n0 = nation[t]
                            if t in tables1:
                                k = men[t] + women[t] + 2
                                n0 = nat1 if n0 is None or n0 == nat1 else MIXED
                            else:
                                k = men[t] + women[t] + 1
                                if k < 2:
                                    continue
                            if n0 is not None and n0 != nat2:
                                points += k
                            else:
                                points += 2 * k
                                finishes = finishes or k == 4
                        value = base + points + (limit_w if finishes else 0.0)
                        if value >= best_value - 1e-9:
                            move = ((card1, guest1, ci1), (card2, _GUEST[card2.index][nat2], ci2))
                            if value > best_value + 1e-9:
                                best_value = value
                                best = [move]
                            else:
                                best.append(move)

        # two cards at tables apart: each scores on its own
        if len(scoring) > 1:
            scoring.sort(key=_first)
            top = scoring[0][0]
            for i, (v1, card1, guest1, ci1) in enumerate(scoring):
                if v1 + top < best_value - 1e-9:
                    break
                neighbours = data.neighbours[ci1]
                for v2, card2, guest2, ci2 in scoring[i + 1 :]:
                    value = v1 + v2
                    if value < best_value - 1e-9:
                        break
                    if ci2 == ci1 or ci2 in neighbours or (card2 is card1 and counts[card1.index] < 2):
                        continue
                    pair = (
                        ((card1, guest1, ci1), (card2, guest2, ci2))
                        if ci1 < ci2
                        else (
                            (card2, guest2, ci2),
                            (card1, guest1, ci1),
                        )
                    )
                    if value > best_value + 1e-9:
                        best_value = value
                        best = [pair]
                    else:
                        best.append(pair)

        seat_found = bool(best)
        naturals = [c for c in kinds if not c.is_joker]
        if len(self.bar) < BAR_PLACES and (naturals or not seat_found):
            place = BAR_VALUES[len(self.bar)]
            for card in naturals or kinds:
                points = 0 if card.is_joker and place > 0 else place
                if points < 0 and self.scores[p] < -points:
                    bar_value = ELIMINATED
                elif points < best_value - 1e-9:
                    continue  # the discard cost only lowers it further
                else:
                    bar_value = points - weights.discard * min(4, self._fits(card))
                if bar_value > best_value + 1e-9:
                    best_value = bar_value
                    best = [("bar", card, -1)]
                elif bar_value >= best_value - 1e-9:
                    best.append(("bar", card, -1))
        if naturals:
            swap_value = jw - (NATURAL_PENALTY if deck_size <= weights.joker_no_deck else 0)
            if swap_value >= best_value - 1e-9:
                for ci in sorted(self.joker_chairs):
                    g = chairs[ci]
                    assert g is not None
                    for card in naturals:
                        if card.gender == g.gender and card.nation in chair_nations[ci]:
                            if swap_value > best_value + 1e-9:
                                best_value = swap_value
                                best = [("swap", card, ci)]
                            else:
                                best.append(("swap", card, ci))
        chosen = best[0] if len(best) == 1 else rng.choice(best)
        if isinstance(chosen[0], str):
            return PlayoutMove(chosen[0], card=chosen[1], chair=chosen[2])
        return PlayoutMove("seat", chosen)

    def _fits(self, card: Card) -> int:
        """How many free chairs ``card`` could take now (nation and gender rule)."""
        is_m = card.gender == "m"
        men, women = self.men, self.women
        chair_tables = self.data.chair_tables
        if card.is_joker:
            candidates: Sequence[int] = range(len(self.chairs))
        else:
            assert card.nation is not None
            candidates = self.data.nation_chairs[card.nation]
        n = 0
        for ci in candidates:
            if self.chairs[ci] is None and all(
                (men[t] + is_m, women[t] + (not is_m)) in GENDER_OK for t in chair_tables[ci]
            ):
                n += 1
        return n


#: ``_FITS[men][women]``: whether a table may hold so many men and women (``GENDER_OK`` as a
#: table, read faster than a set of pairs; a table has four chairs, two cards add at most two)
_FITS: list[list[bool]] = [[(m, f) in GENDER_OK for f in range(7)] for m in range(7)]

# (the two tables below are read by a card's index, which is faster than by the card)
assert all(c.index == i for i, c in enumerate(CARDS))

#: by a natural card's index, its nation as the one-element tuple of nations its guest may take
_NATION_OF: list[tuple[str, ...]] = [(c.nation,) if c.nation is not None else () for c in CARDS]

#: by a card's index, the guest it becomes as a guest of each nation it may stand for
_GUEST: list[dict[str, Guest]] = [
    {n: joker_guest(c, n) if c.is_joker else natural_guest(c) for n in NATIONS if c.is_joker or c.nation == n}
    for c in CARDS
]


def _first(entry: tuple[float, Card, Guest, int]) -> float:
    return -entry[0]


def _joker_worth(w: Weights, deck_size: int) -> float:
    span = w.joker_full_deck - w.joker_no_deck
    return w.joker * min(1.0, max(0.0, (deck_size - w.joker_no_deck) / span))
