"""The leaf model: what a playout cut short still holds for each player, learned from play.

A playout of the strong search stops a few plies after the candidate (``SearchSettings.depth``)
and is judged on each player's expected final score. The model says how many points a player is
expected still to gain from such a position, as a weighted sum of ``Playout.features``: the cards
in hand (natural, joker, dead: no free chair takes it now), where the natural cards could go, the
hand limit and the turns until the player's own, each also scaled by the share of the deck and of
the chairs left. A natural card held early is a card that will score; held at the end it costs 5.

The weights are a least-squares fit (``fit``) of the points each player went on to gain, final
score less score, over positions of games that the playout policy plays against itself (``play``),
one set of weights per number of players. ``python -m bots.strategy.leaf`` makes them again from
its seeds and prints them as ``MODELS`` is written below.

>>> len(MODELS[2]) == len(FEATURES)
True
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator, Sequence

from bots.strategy.evaluate import Weights
from bots.strategy.playout import Playout
from engine import new_position

#: the names of ``Playout.features``, in its order
FEATURES = (
    "bias",
    "naturals",
    "jokers",
    "dead",
    "fits",
    "limit",
    "wait",
    "naturals*deck",
    "naturals*free",
    "jokers*deck",
    "jokers*free",
    "dead*bar",
    "dead*free",
    "fits*free",
    "limit*deck",
    "limit*free",
    "wait*free",
    "deck",
    "free",
)

#: games played, and the seed of their deals and chances, for each number of players
TRAINING = {2: (20_000, 2), 3: (12_000, 3), 4: (9_000, 4)}
#: the share of positions taken from a game (the rest are skipped, so that one game's positions,
#: which share its outcome, do not crowd the fit)
SAMPLED = 0.35
#: ridge term, relative to the number of rows: keeps the fit stable where features move together
RIDGE = 1e-3
#: the playout policy's judge (``StrongStrategy.playout_weights`` with the default weights)
POLICY = Weights(exposure=0.0)

#: by number of players, the weight of each feature (``python -m bots.strategy.leaf``)
MODELS: dict[int, tuple[float, ...]] = {
    2: (
        -43.5723,  # bias
        -9.1433,  # naturals
        4.3324,  # jokers
        -9.0951,  # dead
        -0.3471,  # fits
        -4.8109,  # limit
        0.3261,  # wait
        33.6610,  # naturals*deck
        -20.5401,  # naturals*free
        -7.9868,  # jokers*deck
        10.2461,  # jokers*free
        -11.6701,  # dead*bar
        8.0998,  # dead*free
        0.7068,  # fits*free
        25.6741,  # limit*deck
        -10.2940,  # limit*free
        -4.3056,  # wait*free
        11.7607,  # deck
        33.2147,  # free
    ),
    3: (
        -23.8862,  # bias
        -0.2810,  # naturals
        -0.5786,  # jokers
        -6.1323,  # dead
        -0.2529,  # fits
        -0.8596,  # limit
        -0.2397,  # wait
        3.9088,  # naturals*deck
        -2.6728,  # naturals*free
        3.5473,  # jokers*deck
        3.6297,  # jokers*free
        -0.3494,  # dead*bar
        4.4551,  # dead*free
        0.8009,  # fits*free
        7.4561,  # limit*deck
        0.9568,  # limit*free
        -2.4869,  # wait*free
        15.2578,  # deck
        20.2676,  # free
    ),
    4: (
        -10.0225,  # bias
        0.6895,  # naturals
        -1.8582,  # jokers
        -4.5482,  # dead
        -0.2057,  # fits
        -1.1687,  # limit
        -0.5921,  # wait
        -2.7915,  # naturals*deck
        0.7770,  # naturals*free
        6.2840,  # jokers*deck
        1.9292,  # jokers*free
        2.2020,  # dead*bar
        4.2423,  # dead*free
        0.7383,  # fits*free
        3.4925,  # limit*deck
        2.7062,  # limit*free
        -1.6117,  # wait*free
        14.9459,  # deck
        18.3159,  # free
    ),
}


def positions(games: int, players: int, seed: int) -> Iterator[tuple[tuple[float, ...], float]]:
    """For ``games`` games of the playout policy against itself, a sample of their positions: each
    player's features there and the points they went on to gain (final score less score)."""
    rng = random.Random(seed)
    for _ in range(games):
        game = Playout(new_position([f"p{k}" for k in range(players)], rng.getrandbits(32)))
        kept: list[Playout] = []
        plies = 0
        while not game.is_over():
            if plies >= 2 and rng.random() < SAMPLED:
                kept.append(game.copy())
            game.play(game.greedy_move(POLICY, rng))
            plies += 1
        finals = game.final_scores()
        for position in kept:
            for i in range(players):
                if i not in position.eliminated:
                    yield position.features(i), float(finals[i] - position.scores[i])


def fit(rows: Iterator[tuple[tuple[float, ...], float]], ridge: float = RIDGE) -> tuple[float, ...]:
    """The least-squares weights of ``rows`` (features, target), with a ridge term of ``ridge``
    times the number of rows on every weight.

    >>> rows = [((1.0, float(x)), 3.0 + 2.0 * x) for x in range(10)]
    >>> [round(w, 3) for w in fit(iter(rows), ridge=0.0)]
    [3.0, 2.0]
    """
    k = 0
    gram: list[list[float]] = []
    moment: list[float] = []
    n = 0
    for x, y in rows:
        if not gram:
            k = len(x)
            gram = [[0.0] * k for _ in range(k)]
            moment = [0.0] * k
        n += 1
        for a in range(k):
            xa = x[a]
            moment[a] += xa * y
            row = gram[a]
            for b in range(k):
                row[b] += xa * x[b]
    for a in range(k):
        gram[a][a] += ridge * n
    return _solve(gram, moment)


def _solve(matrix: list[list[float]], vector: list[float]) -> tuple[float, ...]:
    """``matrix⁻¹ · vector`` by Gauss-Jordan elimination with partial pivoting."""
    k = len(vector)
    m = [[*row, vector[a]] for a, row in enumerate(matrix)]
    for c in range(k):
        pivot = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(k):
            if r != c and m[r][c]:
                f = m[r][c] / m[c][c]
                for j in range(c, k + 1):
                    m[r][j] -= f * m[c][j]
    return tuple(m[a][k] / m[a][a] for a in range(k))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bots.strategy.leaf",
        description="Fit the leaf model from self-play and print it as bots/strategy/leaf.py keeps it.",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="share of the training games to play")
    args = parser.parse_args(argv)
    print("MODELS: dict[int, tuple[float, ...]] = {")
    for players, (games, seed) in TRAINING.items():
        weights = fit(positions(max(1, round(games * args.scale)), players, seed))
        print(f"    {players}: (")
        for name, w in zip(FEATURES, weights, strict=True):
            print(f"        {w:.4f},  # {name}")
        print("    ),")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
