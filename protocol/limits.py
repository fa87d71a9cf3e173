"""Bounds of what a person keeps, shared by the server that enforces them and the catalogue of
errors that names them."""

from __future__ import annotations

from typing import Final

#: how many names each of a person's lists (friends, mutes) may hold
LIST_MAX: Final = 200
#: how many tournaments one person may have upcoming or running at once, and the server in all
TOURNAMENTS_PER_PERSON: Final = 3
TOURNAMENTS_LIVE: Final = 50

#: how many people may seek a game at once (quick pairing), on one node or across a cluster
SEEKERS_MAX: Final = 2000

__all__ = ["LIST_MAX", "SEEKERS_MAX", "TOURNAMENTS_LIVE", "TOURNAMENTS_PER_PERSON"]
