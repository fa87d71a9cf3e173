"""One line of text for a move or an engine event, as line clients read them.

>>> render_event({"type": "bar", "player": "bob", "card": "ITm", "place": 3, "points": 3})
'bob sends ITm to the bar (place 3): +3'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.text._common import NAME_COLUMN, REASONS, Glyphs, clean, glyphs, name_text, signed
from protocol.text.board import winners

__all__ = ["render_event", "render_played"]


def _who(event: Mapping[str, Any], g: Glyphs, ascii_only: bool) -> str:
    return name_text(str(event.get("player", "?")), NAME_COLUMN, g, ascii_only)


def _cards_word(count: int) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def _game_over_line(event: Mapping[str, Any], g: Glyphs, ascii_only: bool) -> str:
    reason = REASONS.get(str(event.get("reason")), clean(str(event.get("reason")), ascii_only))
    scores = ", ".join(
        f"{name_text(n, NAME_COLUMN, g, ascii_only)} {event['final_scores'][n]}" for n in event["ranking"]
    )
    return f"game over ({reason}): {scores}{g.dash}{winners(event, g, ascii_only)}"


def render_event(event: Mapping[str, Any], *, ascii_only: bool = False) -> str:
    """One short line for an engine event (``seat``, ``stammtisch``, ``bar``, ``swap``,
    ``hand_limit``, ``draw``, ``eliminated``, ``left``, ``game_over``) or a ``played`` message.

    Extra fields (a message's ``room``, ``seq``) are ignored; an unknown ``type`` raises
    ``ValueError``.

    >>> render_event({"type": "seat", "player": "ann", "card": "FRf", "chair": "FR1s", "points": 4})
    'ann seats FRf at FR1s: +4'
    """
    g = glyphs(ascii_only)
    kind = event.get("type")
    who = _who(event, g, ascii_only)
    if kind == "seat":
        return f"{who} seats {event['card']} at {event['chair']}: {signed(event['points'])}"
    if kind == "stammtisch":
        what = "men (Stammtisch)" if event["gender"] == "m" else "women (Kaffeekränzchen)"
        return f"{who} fills {event['table']} with four {clean(what, ascii_only)}: {signed(event['points'])}"
    if kind == "bar":
        return f"{who} sends {event['card']} to the bar (place {event['place']}): {signed(event['points'])}"
    if kind == "swap":
        return f"{who} swaps {event['card']} for the joker at {event['chair']}"
    if kind == "hand_limit":
        return f"{who}'s hand limit drops to {event['hand_limit']}"
    if kind == "draw":
        count = int(event["count"])
        return f"{who} draws {_cards_word(count)}" if count else f"{who} draws no card"
    if kind == "eliminated":
        line = f"{who} is eliminated at bar place {event['place']}"
        if "cost" in event and "score" in event:
            line += f" (it costs {event['cost']}, {who} has {event['score']})"
        return line
    if kind == "left":
        return f"{who} leaves the game"
    if kind == "game_over":
        return _game_over_line(event, g, ascii_only)
    if kind == "played":
        line = render_played(
            str(event["player"]),
            str(event["move"]),
            int(event["points"]),
            event.get("events", []),
            ascii_only=ascii_only,
        )
        # a player taken out of the game made no move, so nothing was played for them
        if event.get("clock"):
            return line + " (the clock ran out)"
        absent = event.get("auto") and not any(e.get("type") == "left" for e in event.get("events", []))
        return line + " (played for an absent player)" if absent else line
    raise ValueError(f"no text for an event of type {kind!r}")


def render_played(
    player: str,
    move: str,
    points: int,
    events: Sequence[Mapping[str, Any]],
    *,
    ascii_only: bool = False,
) -> str:
    """One line for a whole move, from its events: what went where and the move's points.

    A ``game_over`` among ``events`` is left out: it has a line of its own (``render_event``).

    >>> render_played("ann", "FRf@FR1s ESm@ES1e", 7, [
    ...     {"type": "seat", "player": "ann", "card": "FRf", "chair": "FR1s", "points": 3},
    ...     {"type": "seat", "player": "ann", "card": "ESm", "chair": "ES1e", "points": 4}])
    'ann seats FRf at FR1s, ESm at ES1e: +7'
    """
    g = glyphs(ascii_only)
    who = name_text(player, NAME_COLUMN, g, ascii_only)
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for event in events:
        by_type.setdefault(str(event.get("type")), []).append(event)
    seats = by_type.get("seat", [])
    if "stammtisch" in by_type:
        filled = by_type["stammtisch"][0]
        name = "Stammtisch" if filled["gender"] == "m" else clean("Kaffeekränzchen", ascii_only)
        placed = ", ".join(f"{e['card']} at {e['chair']}" for e in seats)
        line = f"{who} seats {placed} ({name} at {filled['table']}): {signed(points)}"
    elif seats:
        placed = ", ".join(f"{e['card']} at {e['chair']}" for e in seats)
        line = f"{who} seats {placed}: {signed(points)}"
    elif "bar" in by_type:
        bar = by_type["bar"][0]
        line = f"{who} sends {bar['card']} to the bar (place {bar['place']})"
        line += " and is eliminated" if "eliminated" in by_type else f": {signed(points)}"
    elif "swap" in by_type:
        swap = by_type["swap"][0]
        line = f"{who} swaps {swap['card']} for the joker at {swap['chair']}"
    elif "left" in by_type:
        line = f"{who} leaves the game"
    else:
        line = f"{who} plays {move}: {signed(points)}"
    if "hand_limit" in by_type:
        line += f"; hand limit now {by_type['hand_limit'][-1]['hand_limit']}"
    return line
