"""Placing points and standings: pure arithmetic on a tournament's finished games.

A game gives each player a point for every player at the table they placed ahead of and half a
point for every one they tied with, scaled to the tournament's table size: in a tournament of
4, a table of four gives 3, 2, 1, 0, and a table of three 3, 1.5, 0. A bye (a player alone at a
table, size 2 only) counts as a win. The standings order by points, then by game points (the sum
of the player's final scores in the tournament's games), then by the opponents' points (the
points of every opponent met, once for each game against them), then by the rating the player
joined with.

>>> placing_points({"ann": 1, "bob": 2, "cy": 2, "dee": 4}, 4)
{'ann': 3.0, 'bob': 1.5, 'cy': 1.5, 'dee': 0.0}
>>> placing_points({"ann": 1, "bob": 2, "cy": 3}, 4)
{'ann': 3.0, 'bob': 1.5, 'cy': 0.0}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


def placing_points(places: Mapping[str, int], size: int) -> dict[str, float]:
    """Each player's points for one game whose places (1 is first, ties share) are ``places``."""
    n = len(places)
    if n < 2:
        return {name: float(size - 1) for name in places}  # a bye
    scale = (size - 1) / (n - 1)
    return {
        name: round(
            scale * sum(1.0 if place < other else 0.5 if place == other else 0.0 for other in rest), 4
        )
        for name, place in places.items()
        for rest in ([p for q, p in places.items() if q != name],)
    }


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of a tournament, as the standings read it."""

    places: Mapping[str, int]
    scores: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Line:
    """One player's line in the standings."""

    rank: int
    name: str
    points: float
    game_points: int
    opponents: float
    rating: int
    games: int
    active: bool


def standings(
    players: Mapping[str, tuple[int, bool]], results: Iterable[GameResult], size: int
) -> list[Line]:
    """The standings of ``players`` (name -> the rating they joined with and whether they are
    still in), after ``results``. Equal lines share a rank; the rating joined with is the last
    tie-break, so only an equal rating makes lines equal.

    >>> game = GameResult({"ann": 1, "bob": 2}, {"ann": 60, "bob": 40})
    >>> [(l.rank, l.name, l.points) for l in standings({"ann": (1000, True), "bob": (1100, True)}, [game], 2)]
    [(1, 'ann', 1.0), (2, 'bob', 0.0)]
    >>> joined = {"ann": (1000, True), "bob": (1100, True), "cid": (1000, True)}
    >>> [(l.rank, l.name) for l in standings(joined, [], 2)]
    [(1, 'bob'), (2, 'ann'), (2, 'cid')]
    """
    key = {name.casefold(): name for name in players}
    points = dict.fromkeys(key, 0.0)
    game_points = dict.fromkeys(key, 0)
    games = dict.fromkeys(key, 0)
    met: dict[str, list[str]] = {k: [] for k in key}
    finished = list(results)
    for result in finished:
        for name, gained in placing_points(result.places, size).items():
            k = name.casefold()
            if k not in points:
                continue
            points[k] += gained
            game_points[k] += result.scores.get(name, 0)
            games[k] += 1
            met[k].extend(other.casefold() for other in result.places if other.casefold() != k)
    opponents = {k: sum(points.get(o, 0.0) for o in met[k]) for k in key}
    ordered = sorted(
        key,
        key=lambda k: (-points[k], -game_points[k], -opponents[k], -players[key[k]][0], k),
    )
    lines: list[Line] = []
    for i, k in enumerate(ordered):
        last = lines[-1] if lines else None
        same = last is not None and (last.points, last.game_points, last.opponents, last.rating) == (
            round(points[k], 4),
            game_points[k],
            round(opponents[k], 4),
            players[key[k]][0],
        )
        rank = last.rank if same and last is not None else i + 1
        rating, active = players[key[k]]
        lines.append(
            Line(
                rank,
                key[k],
                round(points[k], 4),
                game_points[k],
                round(opponents[k], 4),
                rating,
                games[k],
                active,
            )
        )
    return lines


def shown_points(points: float) -> str:
    """Points as people read them: ``3``, ``1.5``, ``2.25``.

    >>> shown_points(4.5), shown_points(3.0), shown_points(2.25)
    ('4.5', '3', '2.25')
    """
    return f"{points:.2f}".rstrip("0").rstrip(".")
