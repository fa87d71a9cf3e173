"""What one player may see of a position: the own hand, the others' hand sizes, the deck's size."""

from __future__ import annotations

from typing import Any

from engine.position import Position
from engine.rules import game_over_reason


def view(position: Position, player: int | str | None) -> dict[str, Any]:
    """The position as ``player`` (a seat, a name, or ``None`` for a spectator) may see it.

    Only the viewer's own ``hand`` is present; every player shows ``hand_size``; the deck shows
    only ``deck_size``. A spectator's view has no hand at all.
    """
    if isinstance(player, str):
        player = position.player_index(player)
    board = position.board
    players = []
    for i, p in enumerate(position.players):
        entry: dict[str, Any] = {
            "name": p.name,
            "hand_size": len(p.hand),
            "score": p.score,
            "hand_limit": p.hand_limit,
        }
        if i == player:
            entry["hand"] = [c.text for c in p.hand]
        players.append(entry)
    return {
        "board": board.name,
        "options": {"stammtisch": position.options.stammtisch},
        "players": players,
        "you": player,
        "eliminated": [position.players[i].name for i in position.eliminated],
        "to_move": position.to_move,
        "start_player": position.start_player,
        "chairs": {board.chairs[i].name: g.text for i, g in enumerate(position.chairs) if g is not None},
        "bar": [c.text for c in position.bar],
        "deck_size": len(position.deck),
        "over": game_over_reason(position),
    }
