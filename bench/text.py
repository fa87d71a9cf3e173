"""What the line clients' text costs: the board picture, and a line client's text a move.

Random 4-player games are replayed into a room's views, move after move, as a room makes them;
a line client's ``LineText`` follows each state as a patch leads to it and renders each ``played``
message, with the board when the reader's turn comes (a quarter of the moves). Each figure is the
best of ``--repeat`` runs, in microseconds of this process's time:

- **board**: ``render_board`` of the view the reader has after each move;
- **played line**: ``render_played``, the one line every reader gets a move;
- **a move's text**: ``LineText.render`` of the ``played`` message, board included when due.

    .venv/bin/python bench/text.py [--games 6] [--repeat 5]

It says first whether the text modules run compiled (``compiled``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import compiled

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import random_game, replay  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.text import render_board  # noqa: E402
from protocol.text.events import render_played  # noqa: E402
from protocol.text.lines import LineText  # noqa: E402
from protocol.view import LastMove, RoomViews, SeatInfo  # noqa: E402

NAMES = ("ann", "bob", "cy", "dee")


def game_states(seed: int) -> list[tuple[RoomViews, m.Played]]:
    """The room's views after each move of the game of ``seed``, with the move's message."""
    seats = [SeatInfo(name, "person", True) for name in NAMES]
    states: list[tuple[RoomViews, m.Played]] = []
    views: RoomViews | None = None
    history: list[LastMove] = []
    for number, result in enumerate(replay(random_game(list(NAMES), seed)).results, 1):
        player = NAMES[result.player]
        last = LastMove(player, result.move, result.points)
        history.append(last)
        views = RoomViews(
            room="cafe", state="playing", seats=seats, spectators=[], options={}, position=result.position,
            last_move=last, move_number=number, history=history, previous=views,
        )  # fmt: skip
        events = [e for e in result.events if e["type"] != "game_over"]
        played = m.Played(
            room="cafe", player=player, move=result.move, points=result.points, events=events, auto=False
        )
        states.append((views, played))
    return states


def per_move(
    games: Sequence[list[tuple[RoomViews, m.Played]]], work: Callable[[LineText, m.Played], object]
) -> float:
    """Microseconds a move of ``work``, for the first seat's reader following every game."""
    reader, moves = NAMES[0], 0
    start = time.process_time()
    for states in games:
        text = LineText()
        text.view = states[0][0].view(reader)
        for views, played in states:
            text.follow(views, reader)
            work(text, played)
            moves += 1
    return (time.process_time() - start) / moves * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="random games replayed (seeds 0..)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each figure; the best is printed")
    args = parser.parse_args(argv)
    games = [game_states(seed) for seed in range(args.games)]
    moves = sum(len(states) for states in games)
    say = f"{args.games} games, {moves} moves, best of {args.repeat} runs"
    print(f"compiled modules: {compiled.summary()}; {say}")
    figures: dict[str, Callable[[LineText, m.Played], object]] = {
        "board": lambda text, _played: render_board(text.view or {}),
        "played line": lambda _text, p: render_played(p.player, p.move, p.points, p.events),
        "a move's text": lambda text, p: text.render(p, reader=NAMES[0]),
    }
    for label, work in figures.items():
        best = min(per_move(games, work) for _ in range(args.repeat))
        print(f"{label:<14} {best:8.1f} us a move")
    return 0


if __name__ == "__main__":
    sys.exit(main())
