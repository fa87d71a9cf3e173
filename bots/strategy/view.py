"""What a bot may know of a game, and positions made up from it for search (determinizations).

A bot decides from ``BotView`` alone: its own hand, the open board and bar, every player's score,
hand limit and hand size, and the deck's size. The other hands and the order of the deck are
hidden; ``BotView.determinize`` fills them with a sample of the cards the bot has not seen, so that
the engine can be asked for legal moves and can play games forward.

>>> from engine import new_position
>>> position = new_position(["ann", "bob"], seed=1)
>>> v = bot_view(position, 0)
>>> len(v.unseen) == 100 - len(v.hand)
True
>>> v.determinize().players[0].hand == position.players[0].hand
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import Board, Card, Guest, Options, Player, Position, get_board, parse_card, parse_guest
from engine.cards import full_set


@dataclass(frozen=True, slots=True)
class BotView:
    """A position as the player in ``seat`` sees it. ``unseen`` is the multiset of cards that are
    neither in the bot's hand nor on a chair nor at the bar, sorted by card index: the other hands
    and the deck are drawn from it."""

    seat: int
    hand: tuple[Card, ...]
    board: Board
    options: Options
    names: tuple[str, ...]
    chairs: tuple[Guest | None, ...]
    bar: tuple[Card, ...]
    scores: tuple[int, ...]
    hand_limits: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    eliminated: tuple[int, ...]
    to_move: int
    start_player: int
    deck_size: int
    unseen: tuple[Card, ...]

    @property
    def seen(self) -> Counter[Card]:
        """The cards the bot has seen: its hand, the seated guests and the bar (with multiplicity)."""
        seen: Counter[Card] = Counter(self.hand)
        seen.update(g.card for g in self.chairs if g is not None)
        seen.update(self.bar)
        return seen

    @property
    def hidden_count(self) -> int:
        """How many cards the other hands and the deck hold together."""
        others = sum(n for i, n in enumerate(self.hand_sizes) if i != self.seat)
        return others + self.deck_size

    def determinize(self, rng: random.Random | None = None) -> Position:
        """A full position that agrees with everything the bot sees: its own hand is real; the
        other hands and the deck are a sample of ``unseen`` drawn with ``rng`` (without ``rng``,
        the first unseen cards in index order, which is enough to list the bot's legal moves)."""
        hands, deck = self.deal(rng)
        facts = zip(self.names, hands, self.scores, self.hand_limits, strict=True)
        return Position(
            board=self.board,
            options=self.options,
            players=tuple(Player(name, hand, score, limit) for name, hand, score, limit in facts),
            eliminated=self.eliminated,
            to_move=self.to_move,
            start_player=self.start_player,
            chairs=self.chairs,
            bar=self.bar,
            deck=deck,
        )

    def deal(self, rng: random.Random | None = None) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
        """The hands of every player (the bot's own is real, the others sorted by text) and the
        deck (next card first) of the position ``determinize`` builds."""
        pool = list(self.unseen)
        need = self.hidden_count
        if need > len(pool):
            raise ValueError(f"the view hides {need} cards but only {len(pool)} are unseen")
        if rng is not None:
            pool = rng.sample(pool, need)
        hands = []
        at = 0
        for i, size in enumerate(self.hand_sizes):
            if i == self.seat:
                hands.append(self.hand)
            else:
                hands.append(tuple(sorted(pool[at : at + size], key=_text)))
                at += size
        return hands, tuple(pool[at : at + self.deck_size])


def _text(card: Card) -> str:
    return card.text


def _unseen(
    hand: tuple[Card, ...], chairs: tuple[Guest | None, ...], bar: tuple[Card, ...]
) -> tuple[Card, ...]:
    left = Counter(full_set())
    left.subtract(hand)
    left.subtract(g.card for g in chairs if g is not None)
    left.subtract(bar)
    return tuple(card for card in sorted(left, key=lambda c: c.index) for _ in range(max(0, left[card])))


def bot_view(position: Position, seat: int) -> BotView:
    """What the player in ``seat`` may know of ``position``."""
    hand = position.players[seat].hand
    return BotView(
        seat=seat,
        hand=hand,
        board=position.board,
        options=position.options,
        names=tuple(p.name for p in position.players),
        chairs=position.chairs,
        bar=position.bar,
        scores=tuple(p.score for p in position.players),
        hand_limits=tuple(p.hand_limit for p in position.players),
        hand_sizes=tuple(len(p.hand) for p in position.players),
        eliminated=position.eliminated,
        to_move=position.to_move,
        start_player=position.start_player,
        deck_size=len(position.deck),
        unseen=_unseen(hand, position.chairs, position.bar),
    )


def view_from_dict(data: Mapping[str, Any]) -> BotView:
    """A ``BotView`` from the filtered view a player receives (``engine.view(position, seat)``),
    so that a bot playing over the protocol decides exactly as one playing on the engine."""
    board = get_board(data["board"])
    seat = data["you"]
    if not isinstance(seat, int):
        raise ValueError("the view is a spectator's: it has no seat")
    players = data["players"]
    names = tuple(p["name"] for p in players)
    hand = tuple(sorted((parse_card(c) for c in players[seat]["hand"]), key=_text))
    chairs: list[Guest | None] = [None] * len(board.chairs)
    for name, text in data["chairs"].items():
        index = board.chair_index(name)
        if index is None:
            raise ValueError(f"unknown chair {name!r}")
        chairs[index] = parse_guest(text)
    bar = tuple(parse_card(c) for c in data["bar"])
    return BotView(
        seat=seat,
        hand=hand,
        board=board,
        options=Options(stammtisch=bool(data["options"].get("stammtisch", False))),
        names=names,
        chairs=tuple(chairs),
        bar=bar,
        scores=tuple(p["score"] for p in players),
        hand_limits=tuple(p["hand_limit"] for p in players),
        hand_sizes=tuple(p["hand_size"] for p in players),
        eliminated=tuple(names.index(n) for n in data["eliminated"]),
        to_move=data["to_move"],
        start_player=data["start_player"],
        deck_size=data["deck_size"],
        unseen=_unseen(hand, tuple(chairs), bar),
    )
