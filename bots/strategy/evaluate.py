"""Move evaluation: the greedy strategy's measure, which the search also uses to pick its candidates
(and ``Playout.greedy_move`` repeats, without the exposure term, for speed).

``Tables`` holds the board as counts (men, women and nation at every table), so that a seat move's
points and the tables it completes are known in a few microseconds without playing it.
``MoveJudge`` turns a move into one number: its points plus the tie-breaks of a sensible player
(lower the hand limit, keep jokers for valuable tables, stay off the bar's negative places, do not
hand the next player big points).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from engine import BAR_VALUES, BarMove, Board, Card, Guest, Move, Placement, SeatMove, parse_card, play
from engine.position import GENDER_OK, Position
from engine.rules import MIXED, NATURAL_PENALTY

#: a value below every real move: what losing the game at once (elimination) is worth
ELIMINATED = -1000.0

TableState = tuple[int, int, str | None]


class Tables:
    """Men, women, nation (``None`` empty, ``MIXED``) and free chairs at every table."""

    __slots__ = ("board", "free", "men", "nation", "women")

    def __init__(self, board: Board, chairs: Sequence[Guest | None]) -> None:
        n = len(board.tables)
        self.board = board
        self.men = [0] * n
        self.women = [0] * n
        self.nation: list[str | None] = [None] * n
        self.free = [0] * n
        for table in board.tables:
            t = table.index
            for c in table.chairs:
                g = chairs[c]
                if g is None:
                    self.free[t] += 1
                    continue
                if g.gender == "m":
                    self.men[t] += 1
                else:
                    self.women[t] += 1
                if self.nation[t] is None:
                    self.nation[t] = g.nation
                elif self.nation[t] != g.nation:
                    self.nation[t] = MIXED

    def state(self, t: int) -> TableState:
        return self.men[t], self.women[t], self.nation[t]


@dataclass(frozen=True, slots=True)
class SeatEffect:
    """What seating cards does: points, one-nation tables completed (each lowers the hand limit by
    one), and the state of every table touched afterwards."""

    points: int
    completed: int
    after: dict[int, TableState]


def seat_effect(tables: Tables, placements: Sequence[Placement]) -> SeatEffect:
    """Points and completions of seating ``placements`` in order (one or two cards)."""
    board = tables.board
    after: dict[int, TableState] = {}
    points = 0
    completed = 0
    for p in placements:
        g = p.guest
        is_m = g.gender == "m"
        finishes = False
        for t in board.chairs[p.chair].tables:
            m, f, n = after[t] if t in after else tables.state(t)
            m += is_m
            f += not is_m
            n = g.nation if n is None or n == g.nation else MIXED
            k = m + f
            if k >= 2:
                points += k if n == MIXED else 2 * k
            if k == 4 and n != MIXED:
                finishes = True
            after[t] = (m, f, n)
        completed += finishes
    return SeatEffect(points, completed, after)


def bar_points(position: Position, card: Card) -> int:
    """What a card at the next bar place scores (a joker earns nothing on a positive place)."""
    value = BAR_VALUES[len(position.bar)]
    return 0 if card.is_joker and value > 0 else value


@dataclass(frozen=True, slots=True)
class Weights:
    """The tie-breaks of ``MoveJudge``, in points."""

    #: worth of lowering the own hand limit by one (a card less to pay for at the end)
    limit: float = 3.0
    #: worth of holding a joker rather than a natural card while the deck is full; it falls to
    #: nothing as the deck runs out, since a joker left in hand costs 10 at the end
    joker: float = 5.0
    #: deck size from which a joker keeps its full worth, and below which it is worth nothing
    joker_full_deck: int = 50
    joker_no_deck: int = 12
    #: weight of the points the next player is expected to gain on the tables a move touches
    exposure: float = 0.7
    #: cost per free chair a card sent to the bar could still have taken (up to four)
    discard: float = 0.5


class MoveJudge:
    """Values the moves of the player to move in ``position``: points plus tie-breaks.

    With ``unseen`` (the multiset of cards the player has not seen), it also estimates what the
    next player could score on the tables a move touches, from the chance that a hand of that size
    drawn from ``unseen`` holds a fitting card."""

    __slots__ = ("deck_size", "position", "reply_hand", "score", "tables", "unseen", "unseen_n", "w")

    def __init__(
        self,
        position: Position,
        weights: Weights | None = None,
        unseen: Counter[Card] | None = None,
    ) -> None:
        self.position = position
        self.w = weights or Weights()
        self.tables = Tables(position.board, position.chairs)
        player = position.players[position.to_move]
        self.score = player.score
        self.deck_size = len(position.deck)
        self.unseen = unseen
        self.unseen_n = sum(unseen.values()) if unseen is not None else 0
        self.reply_hand = _next_hand_size(position)

    def joker_worth(self) -> float:
        """What holding a joker rather than a natural card is worth now (``Weights.joker``)."""
        w = self.w
        span = w.joker_full_deck - w.joker_no_deck
        share = min(1.0, max(0.0, (self.deck_size - w.joker_no_deck) / span))
        return w.joker * share

    def value(self, move: Move) -> float:
        """The move's points plus tie-breaks (higher is better)."""
        if isinstance(move, SeatMove):
            return self.seat_value(move)
        if isinstance(move, BarMove):
            return self.bar_value(move.card)
        # an exchange scores nothing but brings a joker back to the hand
        return self.joker_worth() - (NATURAL_PENALTY if self.deck_size <= self.w.joker_no_deck else 0)

    def seat_value(self, move: SeatMove) -> float:
        """Points, lowering the hand limit, jokers spent and (with ``unseen``) the exposure."""
        placements = move.placements
        if len(placements) > 2:
            # a section 10 move (three or four cards): rare, so let the engine score it
            result = play(self.position, move)
            player = self.position.to_move
            completed = self.position.players[player].hand_limit - result.position.players[player].hand_limit
            jokers = sum(1 for p in placements if p.card.is_joker)
            return result.points + self.w.limit * completed - jokers * self.joker_worth()
        effect = seat_effect(self.tables, placements)
        value = effect.points + self.w.limit * effect.completed
        jokers = sum(1 for p in placements if p.card.is_joker)
        if jokers:
            value -= jokers * self.joker_worth()
        if self.unseen is not None and self.w.exposure:
            value -= self.w.exposure * self.exposure(effect, placements)
        return value

    def bar_value(self, card: Card) -> float:
        """The bar place's value less what the card could still have done; ``ELIMINATED`` when
        the player cannot pay."""
        points = bar_points(self.position, card)
        if points < 0 and self.score < -points:
            return ELIMINATED
        return points - self.w.discard * min(4, self.fits(card))

    def fits(self, card: Card) -> int:
        """How many free chairs ``card`` could take now (nation and gender rule)."""
        board = self.position.board
        t = self.tables
        is_m = card.gender == "m"
        n = 0
        for ci, g in enumerate(self.position.chairs):
            if g is not None:
                continue
            chair = board.chairs[ci]
            if not card.is_joker and card.nation not in chair.nations:
                continue
            if all((t.men[x] + is_m, t.women[x] + (not is_m)) in GENDER_OK for x in chair.tables):
                n += 1
        return n

    def exposure(self, effect: SeatEffect, placements: Sequence[Placement]) -> float:
        """How much more the next player is expected to score at the touched tables after the move
        than before it."""
        taken: Counter[int] = Counter()
        for p in placements:
            taken.update(self.tables.board.chairs[p.chair].tables)
        delta = 0.0
        for t, state in effect.after.items():
            before = self.reply_value(t, self.tables.state(t), self.tables.free[t])
            delta += self.reply_value(t, state, self.tables.free[t] - taken[t]) - before
        return delta

    def reply_value(self, t: int, state: TableState, free: int) -> float:
        """Expected points of the best single card the next player could add at table ``t``."""
        m, f, nation = state
        k = m + f
        if k == 0 or free <= 0 or self.unseen is None or self.unseen_n == 0:
            return 0.0
        table_nation = self.tables.board.tables[t].nation
        best = 0.0
        for gender, state_after in (("m", (m + 1, f)), ("f", (m, f + 1))):
            if state_after not in GENDER_OK:
                continue
            fitting = self.unseen[_card(table_nation, gender)] + self.unseen[_card(None, gender)]
            chance = 1.0 - (1.0 - fitting / self.unseen_n) ** self.reply_hand
            points = 2 * (k + 1) if nation in (None, table_nation) else k + 1
            best = max(best, chance * points)
        return best


def _next_hand_size(position: Position) -> int:
    n = len(position.players)
    nxt = (position.to_move + 1) % n
    while nxt in position.eliminated and nxt != position.to_move:
        nxt = (nxt + 1) % n
    return len(position.players[nxt].hand)


@cache
def _card(nation: str | None, gender: str) -> Card:
    """The card of ``nation`` and ``gender`` (a joker for ``None``)."""
    return parse_card(f"{nation or 'J'}{gender}")
