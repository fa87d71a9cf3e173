"""Bounds of what a person keeps, shared by the server that enforces them and the catalogue of
errors that names them."""

from __future__ import annotations

from typing import Final

#: how many names each of a person's lists (friends, mutes) may hold
LIST_MAX: Final = 200
#: how many tournaments one person may have upcoming or running at once, and the server in all
TOURNAMENTS_PER_PERSON: Final = 3
TOURNAMENTS_LIVE: Final = 50
#: how many minutes ahead a tournament may be set to start (``start +MINUTESm``; ``HH:MM`` is within a day)
TOURNAMENT_AHEAD_MINUTES: Final = 1440
#: how many players one tournament takes (those still in)
TOURNAMENT_ENTRANTS_MAX: Final = 128
#: how many tournament joins one address may make in an hour (on one node)
TOURNAMENT_JOINS_PER_HOUR: Final = 60
#: how many tournaments one address may make in an hour (on one node), closed ones included
TOURNAMENTS_MADE_PER_HOUR: Final = 10

#: how many people may seek a game at once (quick pairing), on one node or across a cluster
SEEKERS_MAX: Final = 2000

__all__ = [
    "LIST_MAX",
    "SEEKERS_MAX",
    "TOURNAMENTS_LIVE",
    "TOURNAMENTS_MADE_PER_HOUR",
    "TOURNAMENTS_PER_PERSON",
    "TOURNAMENT_AHEAD_MINUTES",
    "TOURNAMENT_ENTRANTS_MAX",
    "TOURNAMENT_JOINS_PER_HOUR",
]
