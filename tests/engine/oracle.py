"""A brute-force oracle of the legal moves, independent of the engine's move generator.

``oracle_moves(position)`` writes out every move text a player could type and keeps the canonical
text of each one ``engine.play`` (which validates) accepts. It never calls ``legal_moves``: it tries
every card of the hand (a joker plain and with each of the twelve nations declared) on every chair
under each of its names, alone and in ordered pairs; every card to the bar; every card as an
exchange on every chair; and, with the ``stammtisch`` option, every 3 or 4 cards of the hand on the
chairs of each table, in every assignment.

Two prunings keep it quick, each justified by docs/rules.md section 13 (faults are reported card by card
in the order given) and by the fact that a first card only fills its own chair:

* a pair whose first card is refused on its own for anything but ``alone`` is refused as well
  (the first card is checked against the same board either way);
* a card refused on its own with ``chair_taken``, ``wrong_nation``, ``joker_nation``,
  ``unknown_chair`` or ``game_over`` is refused in any pair or group as well: those faults depend
  on the card, its declaration and its chair only (a card before it can only take the chair).

Golden files (``tests/engine/golden/*.json``) hold positions with their legal-move counts as this
oracle finds them. ``python -m tests.engine.oracle`` recomputes and compares them; ``--write``
rewrites the counts and move lists from the oracle (never from ``legal_moves``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations, permutations, product
from pathlib import Path
from typing import Any

from engine import NATIONS, IllegalMoveError, Position, play, position_from_dict, position_to_dict
from engine.cards import Card

GOLDEN_DIR = Path(__file__).parent / "golden"
#: golden files list every move when there are at most this many
FULL_LIST_MAX = 150
#: faults that depend on the card, its declaration and its chair alone
STATIC_FAULTS = frozenset({"chair_taken", "wrong_nation", "joker_nation", "unknown_chair", "game_over"})


def _try(position: Position, text: str) -> str | None:
    """The canonical text of ``text`` if ``play`` accepts it, else ``None``."""
    try:
        return play(position, text).move
    except IllegalMoveError:
        return None


def _fault(position: Position, text: str) -> tuple[str | None, str | None]:
    """(canonical text, None) when accepted, (None, error code) when refused."""
    try:
        return play(position, text).move, None
    except IllegalMoveError as e:
        return None, e.code


def placement_texts(position: Position, card: Card) -> list[str]:
    """Every way to write ``card`` on a chair: each chair name, and for a joker no nation or any."""
    names = [name for chair in position.board.chairs for name in chair.names]
    if not card.is_joker:
        return [f"{card.text}@{name}" for name in names]
    return [f"{card.text}{decl}@{name}" for name in names for decl in ["", *(f"={n}" for n in NATIONS)]]


def _chair_of(position: Position, text: str) -> int:
    index = position.board.chair_index(text.rpartition("@")[2])
    assert index is not None
    return index


def oracle_moves(position: Position) -> set[str]:
    """The canonical text of every move ``play`` accepts for the player to move."""
    hand = position.players[position.to_move].hand
    distinct = sorted(set(hand), key=lambda c: c.text)
    found: set[str] = set()

    # single cards; remember which texts can start a pair and which can follow
    starters: dict[Card, list[str]] = {}
    followers: dict[Card, list[str]] = {}
    for card in distinct:
        starters[card], followers[card] = [], []
        for text in placement_texts(position, card):
            move, code = _fault(position, text)
            if move is not None:
                found.add(move)
            if move is not None or code == "alone":
                starters[card].append(text)
            if code not in STATIC_FAULTS:
                followers[card].append(text)

    # ordered pairs of two cards of the hand (a card twice only when held twice)
    held = Counter(hand)
    for first in distinct:
        for second in distinct:
            if first is second and held[first] < 2:
                continue
            for t1 in starters[first]:
                for t2 in followers[second]:
                    move = _try(position, f"{t1} {t2}")
                    if move is not None:
                        found.add(move)

    for card in distinct:
        move = _try(position, f"{card.text}@bar")
        if move is not None:
            found.add(move)
        for chair in position.board.chairs:
            for name in chair.names:
                move = _try(position, f"swap {card.text}@{name}")
                if move is not None:
                    found.add(move)

    if position.options.stammtisch:
        found |= _stammtisch(position, hand, followers)
    return found


def _stammtisch(position: Position, hand: Sequence[Card], followers: dict[Card, list[str]]) -> set[str]:
    """Every 3 or 4 cards of the hand on 3 or 4 chairs of one table, in every assignment."""
    found: set[str] = set()
    # the texts of each card on each chair (statically possible ones only)
    on_chair: dict[tuple[Card, int], list[str]] = defaultdict(list)
    for card, texts in followers.items():
        for text in texts:
            on_chair[card, _chair_of(position, text)].append(text)
    for table in position.board.tables:
        for size in (3, 4):
            for chairs in combinations(table.chairs, size):
                seen: set[tuple[Card, ...]] = set()
                for cards in permutations(hand, size):
                    if cards in seen:
                        continue
                    seen.add(cards)
                    choices = [on_chair.get((c, ci), []) for c, ci in zip(cards, chairs, strict=True)]
                    for group in product(*choices):
                        move = _try(position, " ".join(group))
                        if move is not None:
                            found.add(move)
    return found


def _first_card(move: str) -> str:
    """The group a move belongs to in a breakdown: its first card, or the kind of move."""
    if move.startswith("swap "):
        return "swap " + move.split()[1].partition("@")[0]
    return move.split()[0].partition("@")[0].partition("=")[0] + ("@bar" if move.endswith("@bar") else "")


def divide(engine_moves: Iterable[str], oracle: Iterable[str]) -> str:
    """A perft-style breakdown of two move lists: counts per first card, and every difference."""
    eng, ora = set(engine_moves), set(oracle)
    groups: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for m in eng:
        groups[_first_card(m)][0].append(m)
    for m in ora:
        groups[_first_card(m)][1].append(m)
    lines = [f"{'first card':<12} {'engine':>7} {'oracle':>7}"]
    for key in sorted(groups):
        e, o = groups[key]
        mark = "" if set(e) == set(o) else "   <-- differs"
        lines.append(f"{key:<12} {len(e):>7} {len(o):>7}{mark}")
        lines.extend(f"    only in legal_moves: {m}" for m in sorted(set(e) - set(o)))
        lines.extend(f"    only in oracle:      {m}" for m in sorted(set(o) - set(e)))
    lines.append(f"{'total':<12} {len(eng):>7} {len(ora):>7}")
    return "\n".join(lines)


# --- golden files --------------------------------------------------------------------------


def golden_files() -> list[Path]:
    return sorted(GOLDEN_DIR.glob("*.json"))


def load_golden(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def golden_entry(about: str, position: Position) -> dict[str, Any]:
    """A golden file's content: the position with its oracle move count (and moves, when few)."""
    moves = sorted(oracle_moves(position))
    entry: dict[str, Any] = {"about": about, "position": position_to_dict(position), "count": len(moves)}
    if len(moves) <= FULL_LIST_MAX:
        entry["moves"] = moves
    return entry


def write_golden(path: Path, entry: dict[str, Any]) -> None:
    path.write_text(json.dumps(entry, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Check the golden files against the oracle; ``--write`` rewrites their counts and moves."""
    parser = argparse.ArgumentParser(prog="python -m tests.engine.oracle", description=main.__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite count and moves from the oracle")
    parser.add_argument("names", nargs="*", help="golden file names (default: all)")
    args = parser.parse_args(argv)
    paths = [p for p in golden_files() if not args.names or p.stem in args.names]
    status = 0
    for path in paths:
        data = load_golden(path)
        fresh = golden_entry(data["about"], position_from_dict(data["position"]))
        same = fresh["count"] == data.get("count") and fresh.get("moves") == data.get("moves")
        print(f"{path.stem:<24} {fresh['count']:>6} {'ok' if same else 'CHANGED'}")
        if not same:
            if args.write:
                write_golden(path, fresh)
            else:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
