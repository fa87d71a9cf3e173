"""What one round of quick pairing costs the event loop (``server.lobby.pairing.pair``, run every
half second where a node leads): the best of five rounds over ``--seekers`` seekers, waiting a
second, in two shapes no table comes of: each with a clock of its own (2,000 seekers from 100
addresses, as an attacker may send them), and all of one kind and clock with ratings too far
apart for any two to sit together (the worst case: every seeker looked at by every other).

    .venv/bin/python bench/pairing.py --seekers 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.lobby.pairing import Seeker, pair

NOW = 1000.0


def best_round_ms(seekers: list[Seeker], rounds: int = 5) -> float:
    """The quickest of ``rounds`` pairing rounds over ``seekers``, in milliseconds."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        pair(seekers, NOW)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seekers", type=int, default=2000)
    n = parser.parse_args().seekers
    clocks = [Seeker(f"c{i}", 1000.0, NOW - 1, size=2, clock=5 + i) for i in range(n)]
    apart = [Seeker(f"r{i}", 1000.0 + 400 * i, NOW - 1, size=2, rated=True) for i in range(n)]
    print(f"{n} seekers, one pairing round (best of 5):")
    print(f"  each of its own clock              {best_round_ms(clocks):8.1f} ms")
    print(f"  one clock, none compatible (worst) {best_round_ms(apart):8.1f} ms")


if __name__ == "__main__":
    main()
