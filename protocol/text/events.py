"""One line of text for a move or an engine event, as line clients read them.

>>> render_event({"type": "bar", "player": "bob", "card": "ITm", "place": 3, "points": 3})
'bob sends ITm to the bar (place 3): +3'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.i18n import DEFAULT, Lang, _, _n, lang
from protocol.text._common import NAME_COLUMN, REASONS, Glyphs, clean, glyphs, name_text, signed
from protocol.text.board import winners

_EN = lang(DEFAULT)

__all__ = ["render_event", "render_played"]


def _who(event: Mapping[str, Any], g: Glyphs, ascii_only: bool) -> str:
    return name_text(str(event.get("player", "?")), NAME_COLUMN, g, ascii_only)


def _game_over_line(event: Mapping[str, Any], g: Glyphs, ascii_only: bool, say: Lang) -> str:
    known = REASONS.get(str(event.get("reason")))
    reason = say(known) if known is not None else clean(str(event.get("reason")), ascii_only)
    scores = ", ".join(
        f"{name_text(n, NAME_COLUMN, g, ascii_only)} {event['final_scores'][n]}" for n in event["ranking"]
    )
    line = say(_("game over ({reason}): {scores}", reason=reason, scores=scores))
    return f"{line}{g.dash}{winners(event, g, ascii_only, say)}"


def render_event(event: Mapping[str, Any], *, ascii_only: bool = False, lang: Lang = _EN) -> str:
    """One short line for an engine event (``seat``, ``stammtisch``, ``bar``, ``swap``,
    ``hand_limit``, ``draw``, ``eliminated``, ``left``, ``game_over``) or a ``played`` message.

    Extra fields (a message's ``room``, ``seq``) are ignored; an unknown ``type`` raises
    ``ValueError``.

    >>> render_event({"type": "seat", "player": "ann", "card": "FRf", "chair": "FR1s", "points": 4})
    'ann seats FRf at FR1s: +4'
    """
    say = lang
    g = glyphs(ascii_only)
    kind = event.get("type")
    who = _who(event, g, ascii_only)
    if kind == "seat":
        return say(_("{who} seats {card} at {chair}", who=who, card=event["card"], chair=event["chair"])) + (
            f": {signed(event['points'])}"
        )
    if kind == "stammtisch":
        table, points = event["table"], signed(event["points"])
        if event["gender"] == "m":
            text = _(
                "{who} fills {table} with four men (Stammtisch): {points}",
                who=who,
                table=table,
                points=points,
            )
        else:
            text = _(
                "{who} fills {table} with four women (Kaffeekränzchen): {points}",
                who=who,
                table=table,
                points=points,
            )
        return clean(say(text), ascii_only)
    if kind == "bar":
        text = _(
            "{who} sends {card} to the bar (place {place})", who=who, card=event["card"], place=event["place"]
        )
        return f"{say(text)}: {signed(event['points'])}"
    if kind == "swap":
        return say(
            _(
                "{who} swaps {card} for the joker at {chair}",
                who=who,
                card=event["card"],
                chair=event["chair"],
            )
        )
    if kind == "hand_limit":
        return say(_("{who}'s hand limit drops to {limit}", who=who, limit=event["hand_limit"]))
    if kind == "draw":
        count = int(event["count"])
        if not count:
            return say(_("{who} draws no card", who=who))
        return say(_n("{who} draws {n} card", "{who} draws {n} cards", count, who=who))
    if kind == "eliminated":
        if "cost" in event and "score" in event:
            return say(
                _(
                    "{who} is eliminated at bar place {place} (it costs {cost}, {who} has {score})",
                    who=who,
                    place=event["place"],
                    cost=event["cost"],
                    score=event["score"],
                )
            )
        return say(_("{who} is eliminated at bar place {place}", who=who, place=event["place"]))
    if kind == "left":
        return say(_("{who} leaves the game", who=who))
    if kind == "game_over":
        return _game_over_line(event, g, ascii_only, say)
    if kind == "played":
        line = render_played(
            str(event["player"]),
            str(event["move"]),
            int(event["points"]),
            event.get("events", []),
            ascii_only=ascii_only,
            lang=say,
        )
        # a player taken out of the game made no move, so nothing was played for them
        if event.get("clock"):
            return line + say(_(" (the clock ran out)"))
        absent = event.get("auto") and not any(e.get("type") == "left" for e in event.get("events", []))
        return line + say(_(" (played for an absent player)")) if absent else line
    raise ValueError(f"no text for an event of type {kind!r}")


def render_played(
    player: str,
    move: str,
    points: int,
    events: Sequence[Mapping[str, Any]],
    *,
    ascii_only: bool = False,
    lang: Lang = _EN,
) -> str:
    """One line for a whole move, from its events: what went where and the move's points.

    A ``game_over`` among ``events`` is left out: it has a line of its own (``render_event``).

    >>> render_played("ann", "FRf@FR1s ESm@ES1e", 7, [
    ...     {"type": "seat", "player": "ann", "card": "FRf", "chair": "FR1s", "points": 3},
    ...     {"type": "seat", "player": "ann", "card": "ESm", "chair": "ES1e", "points": 4}])
    'ann seats FRf at FR1s, ESm at ES1e: +7'
    """
    say = lang
    g = glyphs(ascii_only)
    who = name_text(player, NAME_COLUMN, g, ascii_only)
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for event in events:
        by_type.setdefault(str(event.get("type")), []).append(event)
    seats = by_type.get("seat", [])
    placed = ", ".join(say(_("{card} at {chair}", card=e["card"], chair=e["chair"])) for e in seats)
    if "stammtisch" in by_type:
        filled = by_type["stammtisch"][0]
        table = filled["table"]
        if filled["gender"] == "m":
            text = _("{who} seats {placed} (Stammtisch at {table})", who=who, placed=placed, table=table)
        else:
            text = _("{who} seats {placed} (Kaffeekränzchen at {table})", who=who, placed=placed, table=table)
        line = f"{clean(say(text), ascii_only)}: {signed(points)}"
    elif seats:
        line = say(_("{who} seats {placed}", who=who, placed=placed)) + f": {signed(points)}"
    elif "bar" in by_type:
        bar = by_type["bar"][0]
        line = say(
            _("{who} sends {card} to the bar (place {place})", who=who, card=bar["card"], place=bar["place"])
        )
        line += say(_(" and is eliminated")) if "eliminated" in by_type else f": {signed(points)}"
    elif "swap" in by_type:
        swap = by_type["swap"][0]
        line = say(
            _("{who} swaps {card} for the joker at {chair}", who=who, card=swap["card"], chair=swap["chair"])
        )
    elif "left" in by_type:
        line = say(_("{who} leaves the game", who=who))
    else:
        line = say(_("{who} plays {move}", who=who, move=move)) + f": {signed(points)}"
    if "hand_limit" in by_type:
        line += say(_("; hand limit now {limit}", limit=by_type["hand_limit"][-1]["hand_limit"]))
    return line
