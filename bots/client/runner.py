"""What every ``cafe-bot`` shares, whatever its endpoint: the settings, the results, the errors, the
strategies it can play, and the run of connections (reconnecting with a growing pause, and
sending no faster than the server allows)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

import structlog
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bots.strategy import BotView, Strategy, get_strategy
from engine import RULE_ERROR_CODES, legal_moves

__all__ = [
    "LINE_STRATEGIES",
    "MOVE_FAULTS",
    "STRATEGIES",
    "Bot",
    "BotError",
    "BotSettings",
    "ConnectionLost",
    "FirstStrategy",
    "GameResult",
    "Pacer",
    "ServerUnreachable",
    "make_strategy",
]

log = structlog.get_logger("cafe.bot")

#: the error codes that mean the bot's move itself was wrong (not the moment it was sent at)
MOVE_FAULTS = frozenset(RULE_ERROR_CODES) - {"game_over", "not_your_turn"}
#: the error codes that refuse a message only for the moment: it is sent again after a pause
TRY_AGAIN = ("rate_limited", "unavailable")

#: the strategies ``cafe-bot`` knows
STRATEGIES = ("first", "random", "greedy", "strong")
#: the strategies that can play over the line endpoint, which shows only the list of legal moves
LINE_STRATEGIES = ("first", "random")


class BotError(Exception):
    """The bot cannot go on: a name or room refused, a strategy that cannot play over the chosen
    endpoint, or a server that stayed unreachable through every retry."""


class ServerUnreachable(BotError):
    """Every attempt to (re)connect failed."""


class ConnectionLost(Exception):
    """The connection ended while the bot still had games to play."""


# --- strategies ----------------------------------------------------------------------------------


class FirstStrategy:
    """The first legal move in the engine's order (the order of ``legal_moves`` on the wire)."""

    name = "first"

    def choose(self, view: BotView, rng: random.Random) -> str:
        moves = legal_moves(view.determinize())
        if not moves:
            raise ValueError("there is no legal move: the game is over")
        return moves[0].text


def make_strategy(name: str, budget: float = 1.0) -> Strategy:
    """The strategy called ``name`` (one of ``STRATEGIES``); ``budget`` is the strong strategy's
    thinking time per move, in seconds."""
    if name == "first":
        return FirstStrategy()
    if name == "strong":
        return get_strategy("strong", budget=budget)
    return get_strategy(name)


# --- settings and results -----------------------------------------------------------------------


@dataclass(frozen=True)
class BotSettings:
    """What ``cafe-bot`` was asked to do (its command-line flags)."""

    name: str
    room: str
    strategy: str = "greedy"
    #: WebSocket address, e.g. ``ws://127.0.0.1:8765/ws`` (or ``line`` is set)
    url: str | None = None
    #: line endpoint as ``HOST:PORT``
    line: str | None = None
    #: start the game once this many seats are taken (``None``: never start)
    start: int | None = None
    #: games to play before leaving; 0 plays on until stopped
    games: int = 1
    #: seconds the strong strategy thinks per move
    budget: float = 1.0
    #: seed of the bot's own chance (random choices, the strong strategy's samples)
    seed: int | None = None
    #: connection attempts in a row before giving up
    retries: int = 8
    #: the first pause before reconnecting, in seconds; it doubles with each failed attempt
    backoff: float = 0.5
    #: the longest pause between two attempts, in seconds
    max_backoff: float = 15.0
    #: messages a second the bot sends at most, on average (half the server's default limit)
    rate: float = 10.0


@dataclass(frozen=True)
class GameResult:
    """How a game the bot played ended: why, the ranking (best first) and the final scores."""

    reason: str
    ranking: tuple[str, ...]
    final_scores: Mapping[str, int]


# --- the common part: a run of connections ---------------------------------------------------


class Pacer:
    """A token bucket on the bot's side: against bots that answer at once, a bot could otherwise
    send faster than the server's rate limit allows and have messages refused."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.burst = max(1.0, rate)
        self.tokens = self.burst
        self.stamp = time.monotonic()

    async def wait(self) -> None:
        """Return when one more message may go."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / self.rate)
            self.tokens = 1.0
            self.stamp = time.monotonic()
        self.tokens -= 1

    def slow_down(self) -> None:
        """The server refused a message as too fast (its limit is lower than this pace): half the
        pace from now on, one a second at the least."""
        self.rate = max(1.0, self.rate / 2)
        self.burst = max(1.0, self.rate)
        self.tokens = min(self.tokens, self.burst)


#: what a lost or refused connection raises: the bot tries again
_DROPPED = (
    OSError,
    TimeoutError,
    ConnectionClosed,
    InvalidHandshake,
    asyncio.IncompleteReadError,
    ConnectionLost,
)


class Bot:
    """A bot's run: connections one after the other until its games are played. An endpoint's bot
    gives ``_connection``, which plays over one connection until it is lost or the games are over."""

    transport = "?"

    def __init__(self, settings: BotSettings) -> None:
        self.settings = settings
        self.name = settings.name
        self.token: str | None = None
        self.rng = random.Random(settings.seed)
        self.results: list[GameResult] = []
        self.moves_sent = 0
        self.reconnects = 0
        self._welcomed = False
        self._jitter = random.Random(settings.seed)
        self._pacer = Pacer(settings.rate)

    @property
    def done(self) -> bool:
        games = self.settings.games
        return games > 0 and len(self.results) >= games

    async def run(self) -> list[GameResult]:
        """Play until ``games`` games are over; returns their results."""
        failures = 0
        while True:
            self._welcomed = False
            try:
                await self._connection()
            except _DROPPED as e:
                if self.done:
                    break
                failures = 1 if self._welcomed else failures + 1
                if failures > self.settings.retries:
                    raise ServerUnreachable(
                        f"the server stayed out of reach after {self.settings.retries} retries"
                    ) from e
                pause = min(self.settings.max_backoff, self.settings.backoff * 2 ** (failures - 1))
                pause *= self._jitter.uniform(0.5, 1.0)  # bots dropped together do not return together
                log.warning("connection_lost", transport=self.transport, error=repr(e), retry=round(pause, 2))
                await asyncio.sleep(pause)
                self.reconnects += 1
                continue
            if self.done:
                break
        return self.results

    async def _connection(self) -> None:
        raise NotImplementedError

    def _game_over(self, result: GameResult) -> None:
        self.results.append(result)
        place = result.ranking.index(self.name) + 1 if self.name in result.ranking else None
        log.info(
            "game_over",
            room=self.settings.room,
            reason=result.reason,
            place=place,
            score=result.final_scores.get(self.name),
            games=len(self.results),
        )
