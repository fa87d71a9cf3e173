"""What the rule-by-rule tests of docs/rules.md share: positions written in the JSON format of
section 12, so that each test reads like the rule it checks. Unless a test says otherwise, the
player to move is not the start player, so the opening exception (section 4, rule 5) does not
apply."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from engine import (
    IllegalMoveError,
    PlayResult,
    Position,
    play,
    position_from_dict,
)

NATION_CODES = ("CF", "CN", "CU", "DE", "ES", "FR", "GB", "IN", "IT", "RU", "TR", "US")
#: the 100 cards of section 1: 4 men and 4 women per nation, 2 male and 2 female jokers
FULL_SET = [f"{n}{g}" for n in NATION_CODES for g in "mf" for _ in range(4)] + ["Jm", "Jm", "Jf", "Jf"]
NAMES = ("ann", "bob", "cem", "dora")
#: bar cards used to fill places before the one under test (no FR card among them)
BAR_FILLER = [f"{n}{g}" for n in ("CF", "CN", "CU", "DE", "ES", "GB", "IN", "IT", "RU", "TR") for g in "mf"]


def rest_of_set(used: Iterable[str]) -> list[str]:
    """The cards of the 100-card set that ``used`` leaves, in set order."""
    rest = list(FULL_SET)
    for card in used:
        rest.remove(card)
    return rest


def make(
    *,
    hands: Sequence[Sequence[str]],
    chairs: Mapping[str, str] | None = None,
    bar: Sequence[str] = (),
    deck: Sequence[str] | None = None,
    to_move: int = 0,
    start_player: int | None = None,
    scores: Sequence[int] | None = None,
    limits: Sequence[int] | None = None,
    eliminated: Sequence[int] = (),
    stammtisch: bool = False,
    board: str = "classic",
) -> Position:
    """A position in the section 12 format. By default the deck holds 10 unused cards and the
    start player is the next seat after the player to move (so there is no opening)."""
    chairs = dict(chairs or {})
    n = len(hands)
    if deck is None:
        used = [g.split("=")[0] for g in chairs.values()] + [c for h in hands for c in h] + list(bar)
        rest = rest_of_set(used)
        deck = rest[:: max(1, len(rest) // 10)][:10]
    data: dict[str, Any] = {
        "board": board,
        "options": {"stammtisch": stammtisch},
        "players": [
            {
                "name": NAMES[i],
                "hand": list(hand),
                "score": scores[i] if scores else 0,
                "hand_limit": limits[i] if limits else 5,
            }
            for i, hand in enumerate(hands)
        ],
        "eliminated": [NAMES[i] for i in eliminated],
        "to_move": to_move,
        "start_player": (to_move + 1) % n if start_player is None else start_player,
        "chairs": chairs,
        "bar": list(bar),
        "deck": list(deck),
    }
    return position_from_dict(data)


def refusal(position: Position, move: str) -> str:
    """The error code ``play`` refuses ``move`` with (it must refuse it, with a sentence)."""
    with pytest.raises(IllegalMoveError) as info:
        play(position, move)
    assert info.value.message
    return info.value.code


def guest_at(position: Position, chair: str) -> str | None:
    index = position.board.chair_index(chair)
    assert index is not None
    guest = position.chairs[index]
    return None if guest is None else guest.text


def hand_of(position: Position, player: int) -> list[str]:
    return [c.text for c in position.players[player].hand]


def table_points(result: PlayResult) -> list[dict[str, int]]:
    """For each card seated, the points it scored at each of its tables."""
    return [e["tables"] for e in result.events if e["type"] == "seat"]


BYSTANDER = ["ITm", "ITf"]
#: a deck of four: drawn down to it, the game is over (section 7)
OVER_DECK = ["CNm", "CUf", "TRm", "USf"]
