"""``cafe-bot``: a bot that plays on a Café International server through its public endpoints.

Over WebSocket (``--url ws://HOST:8765/ws``) the bot speaks the JSON protocol of
``protocol.messages``: ``hello`` (the server answers ``welcome`` with a resume token), ``join``
the room, then it keeps the room's view up to date from the ``snapshot`` and each ``patch`` and,
whenever the view says it is to move, decides from that view alone and sends ``move``. Every
strategy works here (``first``, ``random``, ``greedy``, ``strong``).

Over the line endpoint (``--line HOST:2323``) the server writes text for people. The bot answers
the name prompt, types ``/join ROOM``, and on its turn types ``/moves`` and plays one of the
moves listed. The text does not carry the whole game in a form a program can read back, so only
the strategies that decide from the list of legal moves work there: ``first`` and ``random``.

The bot reconnects with its resume token when the connection drops (with a bounded, growing
pause between attempts), and takes its seat back. ``--start N`` makes it start the game once N
seats are taken, ``--games N`` makes it leave after N games (0: keep playing).

    cafe-bot --url ws://127.0.0.1:8765/ws --room cafe --strategy strong --name robo --budget 0.5
    cafe-bot --line 127.0.0.1:2323 --room cafe --strategy random --name telly
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import random
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from bots.strategy import BotView, Strategy, get_strategy, view_from_dict
from engine import RULE_ERROR_CODES, legal_moves
from protocol import messages as m
from protocol.diff import PatchError, apply_patch

__all__ = [
    "LINE_STRATEGIES",
    "STRATEGIES",
    "BotError",
    "BotSettings",
    "FirstStrategy",
    "GameResult",
    "LineBot",
    "ServerUnreachable",
    "WsBot",
    "bot_view_from_room",
    "main",
    "make_strategy",
    "parse_move_list",
    "run_bot",
]

log = structlog.get_logger("cafe.bot")

#: the error codes that mean the bot's move itself was wrong (not the moment it was sent at)
_MOVE_FAULTS = frozenset(RULE_ERROR_CODES) - {"game_over", "not_your_turn"}

#: the error codes that refuse a message only for the moment: it is sent again after a pause
_TRY_AGAIN = ("rate_limited", "unavailable")

#: the strategies ``cafe-bot`` knows
STRATEGIES = ("first", "random", "greedy", "strong")
#: the strategies that can play over the line endpoint, which shows only the list of legal moves
LINE_STRATEGIES = ("first", "random")


class BotError(Exception):
    """The bot cannot go on: a name or room refused, a strategy that cannot play over the chosen
    endpoint, or a server that stayed unreachable through every retry."""


class ServerUnreachable(BotError):
    """Every attempt to (re)connect failed."""


class _ConnectionLost(Exception):
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


def bot_view_from_room(view: Mapping[str, Any]) -> BotView:
    """The ``BotView`` of the player who received the room ``view`` (``protocol.view``'s shape).

    Only what the recipient may see is read: its hand, the board, the bar, every player's score,
    hand limit and hand size, and the deck's size. A room view marks eliminated players but not
    the order they left in, so the view lists them in seating order.
    """
    game = view.get("game")
    if game is None:
        raise ValueError("the room has no game")
    players = game["players"]
    names = [p["name"] for p in players]
    me = view.get("you")
    if me not in names or "hand" not in game:
        raise ValueError("the view is not a player's: it has no hand")
    seat = names.index(me)
    entries = []
    for i, p in enumerate(players):
        entry = {k: p[k] for k in ("name", "hand_size", "score", "hand_limit")}
        if i == seat:
            entry["hand"] = game["hand"]
        entries.append(entry)
    options = view.get("options") or {}
    return view_from_dict(
        {
            "board": options.get("board") or "classic",
            "options": {"stammtisch": bool(options.get("stammtisch"))},
            "players": entries,
            "you": seat,
            "eliminated": [p["name"] for p in players if p["eliminated"]],
            "to_move": names.index(game["to_move"]),
            "start_player": names.index(game["start_player"]),
            "chairs": game["chairs"],
            "bar": game["bar"],
            "deck_size": game["deck_size"],
        }
    )


# --- reading the line endpoint's list of legal moves ---------------------------------------------

_PLACEMENT = r"(?:[A-Z]{2}[mf]|J[mf](?:=[A-Z]{2})?)@[A-Za-z0-9]+"
_MOVE = rf"(?:swap )?{_PLACEMENT}(?: {_PLACEMENT}){{0,3}}"
#: a line of a ``/moves`` answer: whole moves separated by ", ", a comma at the end when more follow
_MOVE_LINE = re.compile(rf"{_MOVE}(?:, {_MOVE})*,?")
_LIST_HEADER = re.compile(r"(\d+) legal moves:")


def parse_move_list(lines: Sequence[str]) -> list[str]:
    """The moves of a ``/moves`` answer on the line endpoint (the lines after ``N legal moves:``),
    in the listed order. The server writes whole moves separated by ``", "`` and ends a line with
    a comma when the list goes on.

    >>> parse_move_list(["CNf@CN1e, CNf@CN1e DEm@DE1n,", "DEm@DE1n, swap FRf@FR1s"])
    ['CNf@CN1e', 'CNf@CN1e DEm@DE1n', 'DEm@DE1n', 'swap FRf@FR1s']
    """
    return [item.strip() for line in lines for item in line.split(",") if item.strip()]


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


class _Pacer:
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


#: what a lost or refused connection raises: the bot tries again
_DROPPED = (
    OSError,
    TimeoutError,
    ConnectionClosed,
    InvalidHandshake,
    asyncio.IncompleteReadError,
    _ConnectionLost,
)


class _Bot:
    """A bot's run: connections one after the other until its games are played."""

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
        self._pacer = _Pacer(settings.rate)

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


# --- WebSocket ------------------------------------------------------------------------------


class WsBot(_Bot):
    """A bot on the WebSocket endpoint: it plays from the room view the server keeps it sent."""

    transport = "ws"

    def __init__(self, settings: BotSettings) -> None:
        super().__init__(settings)
        if settings.url is None:
            raise BotError("a WebSocket bot needs a url")
        self.strategy = make_strategy(settings.strategy, settings.budget)
        self.connection: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self._ids = itertools.count(1)
        self._seq = 0
        self._pending: dict[int, str] = {}  # id of a message sent -> what it was
        self._moved_at: int | None = None  # the move number the bot last moved at
        self._last_move: str | None = None
        self._in_game = False
        # the room as it was when the bot last asked for a seat or a start: asked once per change
        self._joined_for: tuple[Any, ...] | None = None
        self._started_for: tuple[Any, ...] | None = None

    async def _connection(self) -> None:
        assert self.settings.url is not None
        async with connect(self.settings.url, open_timeout=10, max_size=2**22) as ws:
            self.connection = ws
            self._seq = 0
            # what was sent on a lost connection may never have arrived: the new view tells
            self._pending.clear()
            self._moved_at = self._joined_for = self._started_for = None
            await self._hello(ws)
            await self._send(ws, m.Join(room=self.settings.room), "join")
            async for raw in ws:
                await self._receive(ws, raw)
                if self.done:
                    return
        raise _ConnectionLost("the server closed the connection")

    async def _send(self, ws: ClientConnection, message: m._ClientMessage, what: str) -> int:
        msg_id = next(self._ids)
        self._pending[msg_id] = what
        await self._pacer.wait()
        await ws.send(message.model_copy(update={"id": msg_id}).model_dump_json(exclude_none=True))
        return msg_id

    async def _hello(self, ws: ClientConnection) -> None:
        for token in (self.token, None) if self.token else (None,):
            await ws.send(m.Hello(name=self.name, token=token, kind="bot").model_dump_json(exclude_none=True))
            answer = m.parse_server_message(await ws.recv())
            self._seq = answer.seq
            if isinstance(answer, m.Welcome):
                self.name, self.token, self._welcomed = answer.name, answer.token, True
                log.info("welcome", transport=self.transport, player=self.name, resumed=answer.resumed)
                return
            if isinstance(answer, m.Error) and answer.code == "bad_token":
                log.warning("token_refused", player=self.name)
                continue
            detail = answer.message if isinstance(answer, m.Error) else answer.type
            raise BotError(f"the server refused the name {self.name!r}: {detail}")
        raise BotError(f"the server refused the name {self.name!r}")

    async def _receive(self, ws: ClientConnection, raw: str | bytes) -> None:
        msg = m.parse_server_message(raw)
        if msg.seq != self._seq + 1:
            log.warning("seq_gap", expected=self._seq + 1, got=msg.seq)
            await self._send(ws, m.Resync(), "resync")
        self._seq = msg.seq
        if isinstance(msg, m.Snapshot):
            self._set_view(msg.view)
        elif isinstance(msg, m.Patch):
            if self.view is None:
                return
            try:
                self._set_view(apply_patch(self.view, msg.ops))
            except PatchError as e:
                log.warning("patch_failed", error=str(e))
                self.view = None
                await self._send(ws, m.Resync(), "resync")
                return
        elif isinstance(msg, m.Ack | m.Error | m.LegalMoves):
            await self._answer(ws, msg)
        elif isinstance(msg, m.Bye):
            log.info("bye", reason=msg.reason)
        if not self.done:
            await self._act(ws)

    def _set_view(self, view: dict[str, Any]) -> None:
        """Take a new view; a game the bot played that it now sees over counts as played."""
        self.view = view
        game = view.get("game")
        names = [p["name"] for p in game["players"]] if game else []
        if view["state"] == "playing" and self.name in names:
            self._in_game = True
        elif view["state"] == "over" and self._in_game and game is not None:
            self._in_game = False
            result = game["result"] or {}
            self._game_over(
                GameResult(
                    reason=str(result.get("reason", game["over"])),
                    ranking=tuple(result.get("ranking", ())),
                    final_scores=dict(result.get("final_scores", {})),
                )
            )

    async def _answer(self, ws: ClientConnection, msg: m.Ack | m.Error | m.LegalMoves) -> None:
        what = self._pending.pop(msg.id, None) if isinstance(msg.id, int) else None
        if isinstance(msg, m.LegalMoves):
            if what == "legal_moves" and msg.moves:
                # the fallback after a refused move: the first move the server offers
                self._last_move = msg.moves[0]
                await self._send(ws, m.PlayMove(move=msg.moves[0]), "move")
            return
        if not isinstance(msg, m.Error):
            return
        if msg.code in _TRY_AGAIN:
            await self._retry(ws, what, msg.code)
            return
        if what == "join" and msg.code in ("room_full", "bad_room", "too_many_rooms"):
            raise BotError(f"cannot join room {self.settings.room!r}: {msg.message}")
        if what == "move":
            log.warning("move_refused", code=msg.code, message=msg.message)
            if msg.code in _MOVE_FAULTS:
                await self._send(ws, m.GetLegalMoves(), "legal_moves")
            return
        if msg.code not in ("already_seated", "game_running", "not_enough_players", "not_your_turn"):
            log.warning("refused", request=what, code=msg.code, message=msg.message)

    async def _retry(self, ws: ClientConnection, what: str | None, code: str) -> None:
        """Send again, after a pause, what the server refused for coming too fast or while its
        log (or, in a cluster, the room's node) was out of reach."""
        log.warning(code, request=what)
        await asyncio.sleep(1.0)
        if what == "move" and self._last_move is not None:
            await self._send(ws, m.PlayMove(move=self._last_move), "move")
        elif what == "legal_moves":
            await self._send(ws, m.GetLegalMoves(), "legal_moves")
        elif what == "join":
            self._joined_for = None
        elif what == "start":
            self._started_for = None

    async def _act(self, ws: ClientConnection) -> None:
        """Whatever the current view asks of the bot: take a seat, start, or move."""
        view = self.view
        if view is None:
            return
        state = view["state"]
        game = view["game"]
        waiting = set(self._pending.values())
        seats = tuple(s["name"] for s in view["seats"])
        moment = (state, seats, game["move_number"] if game else None)
        if view["seat"] is None and state != "playing":
            if "join" not in waiting and self._joined_for != moment:
                self._joined_for = moment
                await self._send(ws, m.Join(), "join")
            return
        start = self.settings.start
        if start is not None and state != "playing" and len(seats) >= start:
            if "start" not in waiting and self._started_for != moment:
                self._started_for = moment
                log.info("start", room=view["room"], players=list(seats))
                await self._send(ws, m.Start(), "start")
            return
        if (
            state == "playing"
            and game is not None
            and game["to_move"] == self.name
            and game["over"] is None
            and self._moved_at != game["move_number"]
            and "move" not in waiting
        ):
            self._moved_at = game["move_number"]
            await self._move(ws, view)

    async def _move(self, ws: ClientConnection, view: Mapping[str, Any]) -> None:
        try:
            bot_view = bot_view_from_room(view)
        except ValueError as e:  # a view the strategy cannot read: the server's list still can be
            log.warning("view_unreadable", error=str(e))
            await self._send(ws, m.GetLegalMoves(), "legal_moves")
            return
        began = time.perf_counter()
        # the strong strategy thinks for seconds: off the event loop, so the connection stays alive
        move = await asyncio.to_thread(self.strategy.choose, bot_view, self.rng)
        self.moves_sent += 1
        log.info(
            "move",
            room=view["room"],
            player=self.name,
            number=view["game"]["move_number"] + 1,
            move=move,
            strategy=self.strategy.name,
            ms=round((time.perf_counter() - began) * 1000),
        )
        self._last_move = move
        await self._send(ws, m.PlayMove(move=move), "move")


# --- the line endpoint --------------------------------------------------------------------------

_ERROR_LINE = re.compile(r"! (.*) \[([a-z_]+)\]")
_TOKEN_LINE = re.compile(r"\s+(\S+) ([0-9a-f]{16,64})")
_ROOM_LINE = re.compile(r"(\S+)\s+(waiting|playing|over)\s+seats: (.*?)  watching: \d+")
_STARTS_LINE = re.compile(r"\* The game starts: (.*)\. (\S+) begins\.")
_OVER_LINE = re.compile(r"\* Game over \((\w+)\): (.*)\.")
_SCORE = re.compile(r"(\S+) (-?\d+)")
_ENTERED_LINE = re.compile(r"\* You are in room (\S+) \((waiting|playing|over)\)\.")
_RESULT_HEAD = re.compile(r"Game over: (.*?)\. ")
_RESULT_ROW = re.compile(r"\s+\d+\.\s+(\S+)(?: \([a-z, ]+\))?\s+-?\d+\s+-?\d+\s+(-?\d+)(?:\s+eliminated)?")
_NAME_PROMPT = b"Your name"
_PROMPT_END = b": "


class _Lines:
    """Lines from the line endpoint (CRLF-terminated), and the name prompt (which has no end)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.buffer = bytearray()

    async def _more(self) -> None:
        chunk = await self.reader.read(65536)
        if not chunk:
            raise _ConnectionLost("the server closed the connection")
        self.buffer += chunk

    async def prompt(self) -> list[str]:
        """Read up to the name prompt; returns the lines before it."""
        while True:
            at = self.buffer.find(_NAME_PROMPT)
            end = self.buffer.find(_PROMPT_END, at) if at >= 0 else -1
            if end >= 0:
                before = self.buffer[:at].decode("utf-8", "replace")
                del self.buffer[: end + len(_PROMPT_END)]
                return [line.strip("\r") for line in before.split("\n") if line.strip()]
            await self._more()

    async def line(self, *, or_prompt: bool = False) -> str | None:
        """The next line; with ``or_prompt``, ``None`` when the name prompt comes instead."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                raw = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                return raw.decode("utf-8", "replace").rstrip("\r")
            if or_prompt and self.buffer.startswith(_NAME_PROMPT) and _PROMPT_END in self.buffer:
                await self.prompt()
                return None
            await self._more()


class LineBot(_Bot):
    """A bot on the line endpoint: it reads the text a person would and types commands.

    On its turn (the board picture ends with "It is your turn.", or the game starts with it) it
    types ``/moves`` and plays ``first`` or ``random`` from the list.
    """

    transport = "line"

    def __init__(self, settings: BotSettings) -> None:
        super().__init__(settings)
        if settings.strategy not in LINE_STRATEGIES:
            raise BotError(
                f"over the line endpoint the bot sees only the list of legal moves, so it plays "
                f"{' or '.join(LINE_STRATEGIES)}; {settings.strategy!r} needs the whole view: use --url"
            )
        host, _, port = (settings.line or "").rpartition(":")
        if not host or not port.isdigit():
            raise BotError(f"--line takes HOST:PORT, not {settings.line!r}")
        self.host, self.port = host, int(port)
        self.strategy_name = settings.strategy
        self.writer: asyncio.StreamWriter | None = None
        self._in_game = False
        self._asking = False  # a /moves is unanswered
        self._collecting: tuple[int, list[str]] | None = None
        self._last_move: str | None = None
        self._refused: set[str] = set()
        self._finished_picture = False  # the board picture being read shows a finished game
        # the result table of a game the bot played that ended while it was away: (reason, rows)
        self._missed: tuple[str, list[tuple[str, int]]] | None = None
        self._rooms_asked = False  # a /rooms is unanswered
        self._rooms_again = False  # the seats changed since that /rooms was typed

    async def _connection(self) -> None:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), 10)
        self.writer = writer
        self._asking, self._collecting, self._rooms_asked = False, None, False
        try:
            lines = _Lines(reader)
            await lines.prompt()
            await self._hello(lines)
            await self._type(f"/join {self.settings.room}")
            while not self.done:
                line = await lines.line()
                assert line is not None
                await self._receive(line)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _type(self, text: str) -> None:
        assert self.writer is not None
        await self._pacer.wait()
        self.writer.write(text.encode() + b"\r\n")
        await self.writer.drain()

    async def _hello(self, lines: _Lines) -> None:
        for token in (self.token, None) if self.token else (None,):
            await self._type(f"{self.name} {token}" if token else self.name)
            refused: str | None = None
            while (line := await lines.line(or_prompt=True)) is not None:
                if line.startswith("Hello "):
                    found = _TOKEN_LINE.fullmatch(await lines.line() or "")
                    if found is None:
                        raise BotError("the server's welcome carries no resume token")
                    self.name, self.token, self._welcomed = found.group(1), found.group(2), True
                    log.info("welcome", transport=self.transport, player=self.name, resumed=token is not None)
                    return
                if line.startswith("! "):
                    refused = line[2:]
            if token is not None:
                log.warning("token_refused", player=self.name, message=refused)
                continue
            raise BotError(f"the server refused the name {self.name!r}: {refused}")
        raise BotError(f"the server refused the name {self.name!r}")

    async def _receive(self, line: str) -> None:
        log.debug("line", text=line)
        if self._missed is not None and self._missed[1] and not _RESULT_ROW.fullmatch(line):
            reason, rows = self._missed
            self._missed = None
            # names as the picture shows them (a long one is shortened there)
            await self._over(
                GameResult(reason=reason, ranking=tuple(n for n, _ in rows), final_scores=dict(rows))
            )
        if self._collecting is not None:
            count, collected = self._collecting
            if _MOVE_LINE.fullmatch(line):
                collected.append(line)
                if line.endswith(","):
                    return  # the list goes on
                line = ""
            self._collecting = None
            moves = parse_move_list(collected)
            if len(moves) != count:
                log.warning("move_list_misread", listed=count, read=len(moves))
            await self._choose(moves)
        if (found := _LIST_HEADER.fullmatch(line)) and self._asking:
            self._asking = False
            self._collecting = (int(found.group(1)), [])
        elif line == "No legal moves.":
            self._asking = False
        elif found := _ERROR_LINE.fullmatch(line):
            await self._refusal(found.group(2), found.group(1))
        elif found := _STARTS_LINE.fullmatch(line):
            self._in_game = self.name in found.group(1).split(", ")
            self._refused.clear()
            if found.group(2) == self.name:
                await self._ask_moves()
        elif line == "It is your turn.":  # the last line of a board picture, on the reader's turn
            self._refused.clear()
            await self._ask_moves()
        elif line.startswith("Your hand (") and not self._finished_picture:
            self._in_game = True
        elif found := _OVER_LINE.fullmatch(line):
            scores = {n: int(s) for n, s in _SCORE.findall(found.group(2))}
            await self._over(GameResult(reason=found.group(1), ranking=tuple(scores), final_scores=scores))
        elif line.startswith("Caf") and " International " in line:  # the first line of a picture
            self._finished_picture = line.endswith("game over")
        elif (found := _ENTERED_LINE.fullmatch(line)) and found.group(2) == "over" and self._in_game:
            # Back after the game it played ended: no "Game over" line comes, the picture has the result.
            self._missed = ("over", [])
        elif self._missed is not None and (found := _RESULT_HEAD.match(line)):
            self._missed = (found.group(1), [])
        elif self._missed is not None and (found := _RESULT_ROW.fullmatch(line)):
            self._missed[1].append((found.group(1), int(found.group(2))))
        elif found := _ROOM_LINE.fullmatch(line):
            await self._room_line(found.group(1), found.group(2), found.group(3))
        elif self.settings.start is not None and (
            line.endswith(" takes a seat") or " takes a seat (" in line or line.startswith("* Seated:")
        ):
            await self._ask_rooms()

    async def _ask_moves(self) -> None:
        if self._asking or self._collecting is not None:
            return
        self._asking = True
        await self._type("/moves")

    async def _choose(self, moves: list[str]) -> None:
        moves = [mv for mv in moves if mv not in self._refused]
        if not moves:
            log.warning("no_readable_move")
            return
        move = moves[0] if self.strategy_name == "first" else self.rng.choice(moves)
        self._last_move = move
        self.moves_sent += 1
        log.info("move", room=self.settings.room, player=self.name, move=move, strategy=self.strategy_name)
        await self._type(f"/play {move}")

    async def _refusal(self, code: str, message: str) -> None:
        if code in _MOVE_FAULTS and self._last_move is not None:
            log.warning("move_refused", move=self._last_move, code=code, message=message)
            self._refused.add(self._last_move)
            self._last_move = None
            await self._ask_moves()
            return
        if code in _TRY_AGAIN:
            # which command was dropped is not said: ask again whether it is the bot's turn
            log.warning(code)
            await asyncio.sleep(1.0)
            self._asking = False
            await self._ask_moves()
        elif code in ("not_your_turn", "no_game", "game_over", "not_seated"):
            self._asking = False
        elif code in ("room_full", "bad_room", "too_many_rooms"):
            raise BotError(f"cannot join room {self.settings.room!r}: {message}")
        elif code == "game_running":
            log.info("waiting_for_game_end", room=self.settings.room)
        elif code not in ("already_seated", "not_enough_players"):
            log.warning("refused", code=code, message=message)

    async def _over(self, result: GameResult) -> None:
        if self._in_game:
            self._in_game = False
            self._game_over(result)
        if self.done:
            return
        await self._type("/join")  # a seat for the next game (refused harmlessly if it is kept)
        await self._ask_rooms()

    async def _ask_rooms(self) -> None:
        if self.settings.start is None:
            return
        if self._rooms_asked:
            self._rooms_again = True
            return
        self._rooms_asked = True
        await self._type("/rooms")

    async def _room_line(self, room: str, state: str, seats: str) -> None:
        if room.casefold() != self.settings.room.casefold():
            return
        self._rooms_asked = False
        if self._rooms_again:
            self._rooms_again = False
            await self._ask_rooms()
            return
        names = [] if seats == "-" else seats.split(", ")
        start = self.settings.start
        if start is not None and state != "playing" and self.name in names and len(names) >= start:
            log.info("start", room=room, players=names)
            await self._type("/start")


# --- running --------------------------------------------------------------------------------------


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
    parser.add_argument("--budget", type=float, default=1.0, help="strong: mean seconds a move (default 1)")
    parser.add_argument(
        "--start",
        type=int,
        nargs="?",
        const=2,
        metavar="N",
        help="start the game once N seats are taken (default N: 2)",
    )
    parser.add_argument("--games", type=int, default=1, help="games to play, then leave; 0: no end")
    parser.add_argument("--seed", type=int, help="seed of the bot's own chance")
    parser.add_argument("--retries", type=int, default=8, help="reconnection attempts in a row (default 8)")
    parser.add_argument(
        "--rate", type=float, default=10.0, help="messages a second the bot sends at most (default 10)"
    )
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    parser.add_argument("--log-format", choices=("console", "json"), default="console")
    return parser


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


if __name__ == "__main__":
    raise SystemExit(main())
