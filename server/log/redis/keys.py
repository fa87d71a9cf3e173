"""The names of what the cluster keeps in Redis that more than one part reads: every key begins
with :data:`PREFIX`, so that one Redis can hold a cluster beside other data."""

from __future__ import annotations

PREFIX = "cafe:"
#: player name (casefolded) -> room of the running game they sit in
SEATS = PREFIX + "seats"
#: room (casefolded) -> game id of its running game
RUNNING = PREFIX + "running"


def lease_key(room: str) -> str:
    """The lease on ``room``: which node owns it, and until when."""
    return f"{PREFIX}lease:{room.casefold()}"


def game_key(game_id: str) -> str:
    """A game's record (a hash); its moves are the list at :func:`moves_key`."""
    return f"{PREFIX}game:{game_id}"


def moves_key(game_id: str) -> str:
    """A game's moves, in order (a list)."""
    return game_key(game_id) + ":moves"


#: how many of a player's games ``history_key`` keeps (the scripts trim it: ``LTRIM 0 49``)
HISTORY_KEPT = 50


def history_key(identity: str) -> str:
    """The ids of a player's games, newest first (with PostgreSQL for the records: the running
    ones alone), the newest ``HISTORY_KEPT``."""
    return f"{PREFIX}history:{identity}"
