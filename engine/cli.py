"""``cafe-engine``: the rules on the command line, for tools, bots in other languages and tests.

Exit status: 0 done, 1 move refused, 2 unusable input (141, as for a process SIGPIPE ended, when
the reader of the output went away: ``cafe-engine moves x.json | head``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.errors import IllegalMoveError, InvalidPositionError
from engine.game import dump_record, load_record, random_game, replay, verify
from engine.position import (
    Options,
    Position,
    dump_position,
    load_position,
    new_position,
    position_to_dict,
)
from engine.rules import is_over, legal_move_texts, play

EXIT_OK, EXIT_REFUSED, EXIT_UNUSABLE = 0, 1, 2
#: the reader of the output went away: what a shell reports for a process SIGPIPE ended (128 + 13)
EXIT_PIPE = 141


class _Unusable(Exception):
    pass


def _read(path: str) -> str:
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise _Unusable(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise _Unusable(f"{path}: not UTF-8 text") from None


def _position(path: str) -> Position:
    try:
        return load_position(_read(path))
    except InvalidPositionError as e:
        raise _Unusable(f"{path}: {e}") from None


def _print(data: Any) -> None:
    print(json.dumps(data, sort_keys=True, ensure_ascii=False))


def cmd_new(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.players.split(",")]
    try:
        position = new_position(
            names, args.seed, options=Options(stammtisch=args.stammtisch), start_player=args.start_player
        )
    except InvalidPositionError as e:
        raise _Unusable(str(e)) from None
    print(dump_position(position, indent=args.indent))
    return EXIT_OK


def cmd_moves(args: argparse.Namespace) -> int:
    for move in legal_move_texts(_position(args.position)):
        print(move)
    return EXIT_OK


def cmd_play(args: argparse.Namespace) -> int:
    position = _position(args.position)
    try:
        result = play(position, args.move)
    except IllegalMoveError as e:
        _print({"ok": False, "error": e.code, "message": e.message})
        return EXIT_REFUSED
    game_over = None
    if result.outcome is not None:
        game_over = {
            "final_scores": dict(result.outcome.final_scores),
            "ranking": list(result.outcome.ranking),
            "places": dict(result.outcome.places),
            "reason": result.outcome.reason,
        }
    _print(
        {
            "ok": True,
            "move": result.move,
            "points": result.points,
            "events": list(result.events),
            "drawn": [c.text for c in result.drawn],
            "position": position_to_dict(result.position),
            "game_over": game_over,
        }
    )
    return EXIT_OK


def cmd_random_game(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 4:
        raise _Unusable("--players must be 2, 3 or 4")
    names = ["ann", "bob", "cem", "dora"][: args.players]
    record = random_game(names, args.seed, options=Options(stammtisch=args.stammtisch))
    print(dump_record(record, indent=args.indent))
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        result = replay(load_record(_read(args.record)))
    except InvalidPositionError as e:
        raise _Unusable(f"{args.record}: {e}") from None
    print(dump_position(result.position, indent=args.indent))
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a published game record: the seed against its hash, the moves against the result."""
    try:
        data = json.loads(_read(args.record))
        report = verify(data, args.seed_hash)
    except RecursionError as e:  # (nested past Python's limit)
        raise _Unusable(f"{args.record}: not JSON: {e}") from None
    except (ValueError, InvalidPositionError) as e:
        raise _Unusable(f"{args.record}: {e}") from None
    _print(report)
    return EXIT_OK if report["ok"] else EXIT_REFUSED


def cmd_demo(args: argparse.Namespace) -> int:
    """Play a short random game and narrate it."""
    record = random_game(["ann", "bob"], args.seed)
    position = record.start()
    for move in record.moves:
        player = position.players[position.to_move].name
        result = play(position, move)
        print(f"{player:>4}: {result.move:<24} {result.points:+d}")
        position = result.position
    assert is_over(position) and result.outcome is not None
    print("game over:", ", ".join(f"{n} {s}" for n, s in result.outcome.final_scores.items()))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cafe-engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("new", help="print the starting position of a new game")
    p.add_argument("--players", required=True, help="comma-separated names, 2 to 4")
    p.add_argument("--seed", type=int, required=True, help="seed of the shuffle and start player")
    p.add_argument("--stammtisch", action="store_true", help="play with the stammtisch option")
    p.add_argument("--start-player", type=int, default=None, help="seat that starts (default: drawn)")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("moves", help="print every legal move of a position, one per line")
    p.add_argument("position", help="position JSON file, or - for standard input")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("play", help="play one move and print the result as JSON")
    p.add_argument("position", help="position JSON file, or - for standard input")
    p.add_argument("move", help='a move in the notation, e.g. "FRf@FR1s ESm@ES1e"')
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("random-game", help="play a random legal game and print its record")
    p.add_argument("--players", type=int, default=2, help="number of players, 2 to 4")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--stammtisch", action="store_true")
    p.set_defaults(func=cmd_random_game)

    p = sub.add_parser("replay", help="replay a game record and print the final position")
    p.add_argument("record", help="record JSON file, or - for standard input")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "verify", help="check a record's seed against its seed_hash and its moves against its result"
    )
    p.add_argument("record", help="record JSON file (as GET /games/ID returns it), or - for standard input")
    p.add_argument(
        "--seed-hash",
        default=None,
        help="the fingerprint game_started gave you (default: the record's own, the server's word)",
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("demo", help="narrate a random two-player game")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=cmd_demo)

    for name in ("new", "random-game", "replay"):
        sub.choices[name].add_argument("--indent", type=int, default=None, help="pretty-print JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except _Unusable as e:
        print(f"cafe-engine: {e}", file=sys.stderr)
        return EXIT_UNUSABLE
    except BrokenPipeError:
        # the reader went away (``cafe-engine moves x.json | head``): say nothing more, and let
        # the interpreter's last flush find nowhere to fail (the standard library's recipe)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
