"""The ``cafe-bot`` command: its flags, its logging, and the bot they ask for."""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
from collections.abc import Sequence

import structlog
from websockets.exceptions import InvalidURI

from bots.client.line import LineBot
from bots.client.runner import STRATEGIES, BotError, BotSettings, GameResult, ServerUnreachable
from bots.client.ws import WsBot

__all__ = ["main", "run_bot"]


def _bot(settings: BotSettings) -> WsBot | LineBot:
    if (settings.url is None) == (settings.line is None):
        raise BotError("give either --url or --line")
    if settings.strategy not in STRATEGIES:
        raise BotError(f"unknown strategy {settings.strategy!r} (known: {', '.join(STRATEGIES)})")
    return WsBot(settings) if settings.url is not None else LineBot(settings)


async def run_bot(settings: BotSettings) -> list[GameResult]:
    """Play as ``settings`` say until the games are over; returns how each ended."""
    return await _bot(settings).run()


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cafe-bot",
        description="A Café International bot that plays on a server like a person, over WebSocket or the "
        "line endpoint.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="WebSocket address, e.g. ws://127.0.0.1:8765/ws")
    where.add_argument("--line", metavar="HOST:PORT", help="line endpoint, e.g. 127.0.0.1:2323")
    parser.add_argument("--room", required=True, help="the room to play in (opened if new)")
    parser.add_argument("--name", help="the bot's name (default: the strategy and a number)")
    parser.add_argument("--strategy", choices=STRATEGIES, default="greedy", help="how to choose moves")
    parser.add_argument(
        "--budget", type=_positive, default=1.0, help="strong: mean seconds a move (default 1)"
    )
    parser.add_argument(
        "--start",
        type=_seats,
        nargs="?",
        const=2,
        metavar="N",
        help="start the game once N seats are taken (default N: 2); as the room's host the bot "
        "turns the option host off, so that any player may start",
    )
    parser.add_argument("--games", type=_count, default=1, help="games to play, then leave; 0: no end")
    parser.add_argument("--seed", type=int, help="seed of the bot's own chance")
    parser.add_argument(
        "--retries", type=_count, default=8, help="reconnection attempts in a row (default 8)"
    )
    parser.add_argument(
        "--rate", type=_positive, default=10.0, help="messages a second the bot sends at most (default 10)"
    )
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    parser.add_argument("--log-format", choices=("console", "json"), default="console")
    return parser


def _seats(text: str) -> int:
    """``--start``'s N: a game starts with 2 to 4 players."""
    if text not in ("2", "3", "4"):
        raise argparse.ArgumentTypeError(f"{text!r} is not 2, 3 or 4 (the players a game starts with)")
    return int(text)


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 0 or more")
    return int(text)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number greater than 0")
    return value


def _configure_logging(level: str, fmt: str) -> None:
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The ``cafe-bot`` command: 0 when its games are played, 1 when the server stayed out of
    reach, 2 for a refused name, room or strategy."""
    args = _build_parser().parse_args(argv)
    _configure_logging(args.log_level, args.log_format)
    name = args.name or f"{args.strategy}{random.randrange(1000, 10000)}"
    settings = BotSettings(
        name=name,
        room=args.room,
        strategy=args.strategy,
        url=args.url,
        line=args.line,
        start=args.start,
        games=max(0, args.games),
        budget=args.budget,
        seed=args.seed,
        retries=max(0, args.retries),
        rate=max(0.1, args.rate),
    )
    try:
        bot = _bot(settings)
    except BotError as e:
        print(f"cafe-bot: {e}", file=sys.stderr)
        return 2
    try:
        asyncio.run(bot.run())
    except ServerUnreachable as e:
        print(f"cafe-bot: {e}", file=sys.stderr)
        return 1
    except (BotError, InvalidURI) as e:
        print(f"cafe-bot: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
