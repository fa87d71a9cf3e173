"""Moves and their notation (docs/rules.md section 11): parse any case, print the canonical form.

>>> from engine.board import get_board
>>> str(parse_move("frf@es1n esm@ES1E", get_board("classic")))
'FRf@FR1s ESm@ES1e'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final

from engine.board import Board
from engine.cards import NATIONS, Card, Guest, find_card, joker_guest, natural_guest
from engine.errors import IllegalMoveError


@dataclass(frozen=True, slots=True)
class Placement:
    """One card on one chair; a joker's guest carries its declared nation."""

    guest: Guest
    chair: int
    text: str

    @property
    def card(self) -> Card:
        return self.guest.card


class SeatMove:
    """Action A (and the ``stammtisch`` move): cards onto chairs, in the order given.
    Build it with ``seat_move``, which fills in the text.

    Two seat moves are equal when their text is: it names each card and chair, in order. (A plain
    class, not a dataclass: ``legal_moves`` makes dozens a call, and compiled, a plain class's
    constructor is native code where a dataclass's runs as Python.)"""

    __slots__ = ("placements", "text")

    placements: Final[tuple[Placement, ...]]
    text: Final[str]

    def __init__(self, placements: tuple[Placement, ...], text: str) -> None:
        self.placements = placements
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatMove) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"SeatMove({self.text!r})"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class BarMove:
    """Action B: one card to the next bar place."""

    card: Card

    @property
    def text(self) -> str:
        return f"{self.card.text}@bar"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class SwapMove:
    """Action C: a natural card from the hand replaces the joker on a chair."""

    card: Card
    chair: int
    chair_name: str

    @property
    def text(self) -> str:
        return f"swap {self.card.text}@{self.chair_name}"

    def __str__(self) -> str:
        return self.text


Move = SeatMove | BarMove | SwapMove

#: the first word of a game record's entry for a player who left a running game (``leave ann``);
#: no move of section 11 starts with it, so such an entry is never read as a card move
LEAVE = "leave"


def leave_text(name: str) -> str:
    """The record entry for ``name`` leaving the game: ``leave NAME``."""
    return f"{LEAVE} {name}"


def parse_leave(text: str) -> str | None:
    """The name in a record entry ``leave NAME`` (the word in any case), or ``None`` for any other
    text. The name is everything after the first space, as written."""
    word, space, name = text.partition(" ")
    if not space or word.lower() != LEAVE or not name:
        return None
    return name


def seat_move(placements: tuple[Placement, ...]) -> SeatMove:
    return SeatMove(placements, " ".join(p.text for p in placements))


@cache
def placement(board: Board, guest: Guest, chair: int) -> Placement:
    """A placement with its canonical text (a joker on a one-nation chair in the plain form)."""
    c = board.chairs[chair]
    card = guest.card
    if card.is_joker and not (len(c.nations) == 1 and guest.nation == c.nations[0]):
        return Placement(guest, chair, f"{card.text}={guest.nation}@{c.name}")
    return Placement(guest, chair, f"{card.text}@{c.name}")


def _bad(text: str, why: str, reason: str, **params: str) -> IllegalMoveError:
    return IllegalMoveError(
        "bad_notation",
        f"{text!r} is not a move: {why}. Write e.g. FRf@FR1s, FRf@FR1s ESm@ES1e, "
        "Jf=FR@FR1s, FRf@bar or swap FRf@FR1s.",
        reason=reason,
        params={"text": text, **params},
    )


def _card_part(token: str, part: str) -> tuple[Card, str | None]:
    card_text, eq, nation = part.partition("=")
    card = find_card(card_text)
    if card is None:
        why = f"{card_text!r} is not a card (a nation code and m or f, or Jm/Jf)"
        raise _bad(token, why, "not_a_card", card=card_text)
    if not eq:
        return card, None
    if not card.is_joker:
        raise _bad(token, f"only a joker declares a nation, not {card.text}", "not_a_joker", card=card.text)
    nation = nation.upper()
    if nation not in NATIONS:
        raise _bad(token, f"{nation!r} is not a nation code", "not_a_nation", nation=nation)
    return card, nation


def _chair(board: Board, name: str) -> int:
    index = board.chair_index(name)
    if index is None:
        raise IllegalMoveError(
            "unknown_chair", f"There is no chair {name!r} on this board.", params={"chair": name}
        )
    return index


def parse_move(text: str, board: Board) -> Move:
    """Parse a move in any case; raises ``IllegalMoveError`` with ``bad_notation``,
    ``unknown_chair`` or ``joker_nation``. Chairs may be given by either of their names."""
    tokens = text.split()
    if not tokens:
        raise _bad(text, "it is empty", "empty")
    if tokens[0].lower() == LEAVE:
        raise IllegalMoveError(
            "bad_notation",
            f"{text!r} is not a move: leaving the game is none of the three actions "
            "(a game record's 'leave NAME' entry is applied with engine.leave).",
            reason="leave",
            params={"text": text},
        )
    if tokens[0].lower() == "swap":
        if len(tokens) != 2:
            raise _bad(text, "swap takes one card and one chair", "swap_arguments")
        card_part, at, chair_name = tokens[1].partition("@")
        if not at or not chair_name:
            raise _bad(text, "a swap is written swap CARD@CHAIR", "swap_form")
        card, nation = _card_part(tokens[1], card_part)
        if nation is not None:
            raise _bad(text, "the card that replaces a joker is a natural card", "swap_joker")
        chair = _chair(board, chair_name)
        return SwapMove(card, chair, board.chairs[chair].name)
    parsed: list[tuple[Card, str | None, str]] = []
    for token in tokens:
        card_part, at, where = token.partition("@")
        if not at or not where or not card_part:
            raise _bad(text, f"{token!r} is not CARD@CHAIR", "not_card_at_chair", token=token)
        card, nation = _card_part(token, card_part)
        parsed.append((card, nation, where))
    if any(where.lower() == "bar" for _, _, where in parsed):
        if len(parsed) != 1:
            raise _bad(text, "a bar move puts exactly one card at the bar", "bar_cards")
        card, nation, _ = parsed[0]
        if nation is not None:
            raise _bad(text, "a joker at the bar declares no nation", "bar_nation")
        return BarMove(card)
    # every chair name is checked before any joker's nation: unknown_chair comes first (section 13)
    chairs = [_chair(board, where) for _, _, where in parsed]
    placements = [
        _placement(board, card, nation, chair)
        for (card, nation, _), chair in zip(parsed, chairs, strict=True)
    ]
    return seat_move(tuple(placements))


def _placement(board: Board, card: Card, nation: str | None, chair: int) -> Placement:
    c = board.chairs[chair]
    if card.is_joker:
        if nation is None:
            if len(c.nations) != 1:
                raise IllegalMoveError(
                    "joker_nation",
                    f"A joker on {c.name} sits between {' and '.join(c.nations)}: "
                    f"say which, e.g. {card.text}={c.nations[0]}@{c.name}.",
                    params={"chair": c.name, "nations": c.nations, "card": card.text},
                )
            nation = c.nations[0]
        return placement(board, joker_guest(card, nation), chair)
    return placement(board, natural_guest(card), chair)
