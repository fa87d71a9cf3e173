"""A chaos soak: rooms of bots play over real connections while the server is killed with SIGKILL
again and again, and at the end the game log is checked against everything the clients were told.

One server (``python -m server``) runs on loopback with a SQLite log in a temporary folder; in
``--cluster`` mode two nodes share a ``redis-server`` (append-only file, ``appendfsync always``),
and Redis itself is killed now and then too; with ``--database`` too, the nodes keep their records
in a PostgreSQL server of the run's own (Debian's, as the tests run it), which is killed now and
then as well (``pg_ctl stop -m immediate``: its processes end at once, as in a crash). ``--rooms``
rooms of ``--seats`` ``cafe-bot`` clients
(``bots.client``, in this process; a third of the seats over the line endpoint, the rest over
WebSocket) play game after game. Every ``--min-gap`` to ``--max-gap`` seconds (seeded by ``--seed``)
a process is killed and started again on the same data and ports; the clients come back with their
resume tokens (in a cluster, by turns through either node). After ``--kills`` kills or ``--seconds``
seconds the play goes on for ``--settle`` seconds, then the clients stop and the run checks:

- every move a client was acknowledged (WebSocket ``ack``; on the line endpoint, the line that says
  the client's move was played) is in the log at its number (must be 0 missing);
- every finished game's record, as ``GET /games/ID`` publishes it, passes ``cafe-engine verify``
  (must be 0 failing);
- every WebSocket client's view, patched message by message, equals a fresh snapshot, and every
  client is connected again at the end (must be 0 differing);
- no client gave up, no server process died other than by the soak's own kills (must be 0).

It prints the figures and exits 1 when a must-be-0 figure is not 0.

    python bench/chaos.py [--kills 80] [--seconds 600] [--rooms 6] [--seats 3] [--seed 1]
                          [--min-gap 2] [--max-gap 10] [--cluster [--database]] [--json figures.json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import io
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# run as a script, this file's folder comes first on the path and bench/engine.py would hide the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # (tests/cluster/postgres.py too)

import structlog  # noqa: E402
from websockets.asyncio.client import ClientConnection  # noqa: E402
from websockets.protocol import State  # noqa: E402

from bots.client import BotSettings, LineBot, WsBot  # noqa: E402
from bots.client.runner import TRY_AGAIN  # noqa: E402
from engine import RULE_ERROR_CODES  # noqa: E402
from engine import cli as engine_cli  # noqa: E402
from protocol import messages as m  # noqa: E402
from server.log.sqlite.journal import logged_moves  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
#: seconds a server or Redis may take to listen after being started
START_TIMEOUT = 30.0
#: seconds the end of the run waits for the clients to be back and quiet
QUIET_TIMEOUT = 30.0
#: seconds without any message that count as quiet
QUIET = 1.0


@dataclass(frozen=True)
class Ack:
    """A move the server told a client it accepted."""

    room: str
    player: str
    number: int | None  # the move's number in its game (1 is the first), None when not known
    move: str
    at: float  # time.monotonic()


@dataclass
class Record:
    """What the clients saw, shared by every client of the run."""

    acks: list[Ack] = field(default_factory=list)


# --- clients: cafe-bot, recording acks, reconnecting through every endpoint by turns ---------


class ChaosWsBot(WsBot):
    """A WebSocket ``cafe-bot`` that records its acknowledged moves and can be stopped and probed."""

    def __init__(self, settings: BotSettings, urls: Sequence[str], record: Record, think: float) -> None:
        super().__init__(settings)
        self.urls, self.record, self.think = list(urls), record, think
        self.paused = False
        self.last_received = time.monotonic()
        self._attempt = 0
        self._moves_sent: dict[int, tuple[int, str]] = {}  # message id -> (move number, move)
        self._probe: asyncio.Future[tuple[Any, Any]] | None = None

    async def _connection(self) -> None:
        self.settings = replace(self.settings, url=self.urls[self._attempt % len(self.urls)])
        self._attempt += 1
        self.connection = None
        self._moves_sent.clear()
        await super()._connection()

    async def _send(self, ws: ClientConnection, message: m._ClientMessage, what: str) -> int:
        number = self.view["game"]["move_number"] + 1 if self.view and self.view["game"] else 0
        msg_id = await super()._send(ws, message, what)
        if isinstance(message, m.PlayMove):
            self._moves_sent[msg_id] = (number, message.move)
        return msg_id

    async def _receive(self, ws: ClientConnection, raw: str | bytes) -> None:
        self.last_received = time.monotonic()
        probe = self._probe
        if probe is not None and not probe.done() and '"type":"snapshot"' in str(raw):
            before = copy.deepcopy(self.view)
            await super()._receive(ws, raw)
            probe.set_result((before, self.view))
            return
        await super()._receive(ws, raw)

    async def _answer(self, ws: ClientConnection, msg: m.Ack | m.Error | m.LegalMoves) -> None:
        sent = self._moves_sent.pop(msg.id, None) if isinstance(msg.id, int) else None
        if sent is not None and isinstance(msg, m.Ack):
            self.record.acks.append(Ack(self.settings.room, self.name, sent[0], sent[1], time.monotonic()))
        await super()._answer(ws, msg)

    async def _act(self, ws: ClientConnection) -> None:
        if not self.paused:
            await super()._act(ws)

    async def _move(self, ws: ClientConnection, view: Any) -> None:
        await asyncio.sleep(self.think)
        await super()._move(ws, view)

    async def compare_with_snapshot(self, timeout: float) -> bool:
        """Whether the view patched so far equals the snapshot a ``resync`` brings now."""
        ws = self.connection
        if ws is None or self.view is None:
            return False
        self._probe = asyncio.get_running_loop().create_future()
        try:
            await ws.send(m.Resync().model_dump_json(exclude_none=True))
            before, after = await asyncio.wait_for(self._probe, timeout)
        except (OSError, TimeoutError, asyncio.CancelledError, Exception):
            return False
        finally:
            self._probe = None
        return bool(before == after)


#: the moves played, from a board picture's header (its counts go on a second line when a long room
#: name would make the first pass 80 columns)
_HEADER_NUMBER = re.compile(r"(\d+) moves? played")


def _logged_instead(ack: Ack, games: dict[str, tuple[str, list[str], list[str], bool]]) -> str:
    """What the log holds where an acked move was looked for: in each game of its room with its
    player, the number of moves, the move at the acked number, and where the acked move is."""
    found = []
    for game_id, (room, players, moves, _) in games.items():
        if room.casefold() != ack.room.casefold() or ack.player not in players:
            continue
        at = moves[ack.number - 1] if ack.number is not None and len(moves) >= ack.number else None
        where = [i + 1 for i, move in enumerate(moves) if move == ack.move][:5]
        found.append(f"game {game_id}: {len(moves)} moves, at {ack.number}: {at!r}, this move at {where}")
    return "; ".join(found) if found else "no game of that room with that player"


#: how the line of a move the server played for its player ends (the clock, or a stand-in)
_PLAYED_FOR = (" (the clock ran out)", " (played for an absent player)")
#: what a line that says a move was played tells of the move (after the player's name)
_SEATS = re.compile(r"seats (.+?)(?: \((?:Stammtisch|Kaffeekränzchen) at \S+\))?: ")
_SEAT = re.compile(r"([^\s=,]+)(?:=\S+)? at ([^\s,]+)")
_SENDS = re.compile(r"sends (\S+) to the bar ")
_SWAPS = re.compile(r"swaps (\S+) for the joker at ([^\s;]+)")
_PLAYS = re.compile(r"plays (.+?): ")


def played_move(said: str) -> frozenset[str] | None:
    """The move a line of the room says was played (its part after the player's name), in the
    notation's terms, its actions in any order; ``None`` for a line of another kind
    (``tests/bench/test_chaos.py`` reads every kind of move's line with it)."""
    if found := _SEATS.match(said):
        # (a joker's says whose nation it stands for, which a move's text may leave out: neither
        # side keeps it)
        return frozenset(f"{card}@{chair}" for card, chair in _SEAT.findall(found.group(1)))
    if found := _SENDS.match(said):
        return frozenset({f"{found.group(1)}@bar"})
    if found := _SWAPS.match(said):
        return frozenset({f"swap {found.group(1)}@{found.group(2)}"})
    if found := _PLAYS.match(said):
        return _actions(found.group(1))
    return None


def _actions(move: str) -> frozenset[str]:
    """A move's actions as :func:`played_move` gives them."""
    if move.startswith("swap "):
        return frozenset({move})
    return frozenset(re.sub(r"=[^@]*", "", action) for action in move.split())


class ChaosLineBot(LineBot):
    """A line-endpoint ``cafe-bot`` that records the moves it saw played as its own after typing them."""

    def __init__(
        self, settings: BotSettings, endpoints: Sequence[tuple[str, int]], record: Record, think: float
    ) -> None:
        super().__init__(settings)
        self.endpoints, self.record, self.think = list(endpoints), record, think
        self.paused = False
        self.connected = False
        self.last_received = time.monotonic()
        self._attempt = 0
        self._number: int | None = None  # moves played, from the last board header read
        #: the /play lines typed and not yet seen played (a second may go before the first is seen:
        #: the answer to a /moves asked twice), each with the move's number if known
        self._typed: list[tuple[int | None, str]] = []
        self._played = re.compile(rf"{re.escape(settings.name)} (seats|sends|swaps|plays) ")

    async def _connection(self) -> None:
        self.host, self.port = self.endpoints[self._attempt % len(self.endpoints)]
        self._attempt += 1
        self._typed, self._number = [], None
        try:
            await super()._connection()
        finally:
            self.connected = False

    async def _receive(self, line: str) -> None:
        self.last_received = time.monotonic()
        self.connected = self._welcomed
        if (line.startswith("Caf") or line[:1].isdigit()) and (found := _HEADER_NUMBER.search(line)):
            self._number = int(found.group(1))
        elif self._typed and self._played.match(line) and line.endswith(_PLAYED_FOR):
            self._typed = []  # the server played for the bot: what it typed was not played
        elif self._typed and (found := self._played.match(line)):
            # the move the line says, if the bot typed it; whatever else it typed is refused (or
            # was, by an error line that does not say which command it refuses)
            played = played_move(line[found.start(1) :])
            acked = next(((n, move) for n, move in self._typed if _actions(move) == played), None)
            self._typed = []
            if acked is not None:
                self.record.acks.append(Ack(self.settings.room, self.name, *acked, time.monotonic()))
        await super()._receive(line)

    async def _refusal(self, code: str, message: str) -> None:
        if code in RULE_ERROR_CODES:
            # the /play typed was refused (or, at worst, a /moves: then an ack goes uncounted,
            # never a refused move counted): a line of the bot's later played is no ack of it
            self._typed = []
        elif code in TRY_AGAIN:
            # what was refused is not said, and a /play answered so may have been played all the
            # same: the moves played are unknown until the next board picture
            self._number = None
        await super()._refusal(code, message)

    async def _type(self, text: str) -> None:
        if text.startswith("/play "):
            number = None if self._number is None else self._number + 1
            self._typed.append((number, text.removeprefix("/play ")))
        await super()._type(text)

    async def _ask_moves(self) -> None:
        if not self.paused:
            await asyncio.sleep(self.think)
            await super()._ask_moves()


# --- processes: server nodes and Redis, killed and started again on the same data and ports --------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Node:
    """A ``python -m server`` process; the first start takes free ports, later starts reuse them."""

    def __init__(self, name: str, folder: Path, args: Sequence[str]) -> None:
        self.name, self.args = name, list(args)
        self.log_path = folder / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.port, self.line_port = 0, 0
        self.kills = 0
        self.unexpected_exits = 0

    async def start(self) -> None:
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        argv = [sys.executable, "-m", "server", "--host", HOST, "--port", str(self.port)]
        argv += ["--line-port", str(self.line_port), "--log-format", "json", *self.args]
        with self.log_path.open("ab") as log_file:
            env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
            self.proc = subprocess.Popen(argv, stderr=log_file, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            with self.log_path.open("rb") as f:
                f.seek(offset)
                for line in f.read().splitlines():
                    event = _json_line(line)
                    if event.get("event") == "listening":
                        self.port, self.line_port = int(event["port"]), int(event["line_port"])
                        return
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited before listening (see {self.log_path})")
            await asyncio.sleep(0.05)
        raise RuntimeError(f"{self.name} did not listen within {START_TIMEOUT} s")

    def check_alive(self) -> None:
        """Count a process that died by itself (not killed here) and forget it."""
        if self.proc is not None and self.proc.poll() is not None:
            self.unexpected_exits += 1
            self.proc = None

    def kill(self) -> None:
        self.check_alive()
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None
            self.kills += 1

    def log_events(self) -> list[dict[str, Any]]:
        return [_json_line(line) for line in self.log_path.read_bytes().splitlines() if line.strip()]


def _json_line(line: bytes) -> dict[str, Any]:
    try:
        event = json.loads(line)
    except ValueError:
        return {"event": "unreadable", "level": "error", "text": line.decode("utf-8", "replace")}
    return event if isinstance(event, dict) else {}


class Redis(Node):
    """``redis-server`` with its append-only file synced at every write, in the run's folder."""

    def __init__(self, folder: Path) -> None:
        super().__init__("redis", folder, [])
        binary = shutil.which("redis-server")
        if binary is None:
            raise SystemExit("--cluster needs redis-server (apt-get install -y redis-server)")
        self.binary, self.folder, self.port = binary, folder, _free_port()

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    async def start(self) -> None:
        argv = [self.binary, "--port", str(self.port), "--bind", HOST, "--dir", str(self.folder)]
        argv += ["--appendonly", "yes", "--appendfsync", "always", "--save", "", "--protected-mode", "no"]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection(HOST, self.port)
                writer.write(b"PING\r\n")
                await writer.drain()
                writer.close()
                return
            await asyncio.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def log_events(self) -> list[dict[str, Any]]:
        return []


class Postgres(Node):
    """PostgreSQL in a folder of its own (``tests/cluster/postgres.py``: Debian's, as its own user);
    killed with ``pg_ctl stop -m immediate``, started again on the same data and port. Its commits
    wait for their WAL to be written, as a server's that must keep them do: a kill would otherwise
    lose the last moment's records (the machine itself does not crash, so nothing is synced)."""

    def __init__(self, folder: Path) -> None:
        super().__init__("postgres", folder, [])
        from tests.cluster.postgres import PostgresServer

        self.server = PostgresServer(durable=True)
        self.port = self.server.port
        self.made = False

    @property
    def url(self) -> str:
        return self.server.url

    async def start(self) -> None:
        await asyncio.to_thread(self.server.start)
        if not self.made:
            await asyncio.to_thread(self.server.create_database)
            self.made = True

    def check_alive(self) -> None:
        pass  # (pg_ctl runs it in the background: a crash of its own shows as refused connections)

    def kill(self) -> None:
        self.server.stop("immediate")
        self.kills += 1

    async def finished_games(self) -> dict[str, tuple[str, list[str], list[str], bool]]:
        """The finished games in PostgreSQL: id -> (room, players, moves, finished)."""
        import psycopg

        async with await psycopg.AsyncConnection.connect(self.url) as conn:
            rows = await (await conn.execute("SELECT id, room, players, moves FROM games")).fetchall()
        return {str(i): (str(room), list(players), list(moves), True) for i, room, players, moves in rows}

    def log_events(self) -> list[dict[str, Any]]:
        return []


# --- the soak ----------------------------------------------------------------------------------


@dataclass
class Figures:
    """What a run measured; the ``missing_*``, ``failed_*``, ``*_differ``, ``clients_*`` and
    ``unexpected_exits`` figures must be 0."""

    mode: str
    seconds: float = 0.0
    kills: int = 0
    redis_kills: int = 0
    postgres_kills: int = 0
    acks: int = 0
    acks_before_first_kill: int = 0
    acks_after_last_kill: int = 0
    missing_acked_moves: int = 0
    games_started: int = 0
    games_finished: int = 0
    failed_verify: int = 0
    views_compared: int = 0
    views_differ: int = 0
    clients_not_back: int = 0
    clients_failed: int = 0
    rooms_idle_after_last_kill: int = 0
    unexpected_exits: int = 0
    server_errors_logged: int = 0
    longest_wait_after_kill: float = 0.0
    median_wait_after_kill: float = 0.0
    examples: list[str] = field(default_factory=list)

    MUST_BE_ZERO = (
        "missing_acked_moves",
        "failed_verify",
        "views_differ",
        "clients_not_back",
        "clients_failed",
        "rooms_idle_after_last_kill",
        "unexpected_exits",
    )

    def failures(self) -> list[str]:
        return [name for name in self.MUST_BE_ZERO if getattr(self, name) != 0]


class Soak:
    """One run: the processes, the clients, the kills and the checks."""

    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args, self.folder = args, folder
        self.rng = random.Random(args.seed)
        self.record = Record()
        self.kill_times: list[float] = []
        self.redis_kills = 0
        self.postgres_kills = 0
        self.redis: Redis | None = Redis(folder) if args.cluster else None
        self.postgres: Postgres | None = Postgres(folder) if args.cluster and args.database else None
        common = ["--resume-window", str(args.resume_window)]
        if self.postgres is not None:
            common += ["--database", self.postgres.url]
        if self.redis is not None:
            self.nodes = [
                Node(n, folder, [*common, "--redis", self.redis.url, "--node-id", n, "--data", ":memory:"])
                for n in ("node1", "node2")
            ]
        else:
            self.nodes = [Node("node1", folder, [*common, "--data", str(folder / "cafe.db")])]
        self.bots: list[ChaosWsBot | ChaosLineBot] = []
        self.figures = Figures(mode="cluster" if args.cluster else "single")

    def _clients(self) -> list[ChaosWsBot | ChaosLineBot]:
        urls = [f"ws://{HOST}:{n.port}/ws" for n in self.nodes]
        lines = [(HOST, n.line_port) for n in self.nodes]
        bots: list[ChaosWsBot | ChaosLineBot] = []
        for r in range(self.args.rooms):
            for s in range(self.args.seats):
                settings = BotSettings(
                    name=f"r{r}s{s}",
                    room=f"chaos{r}",
                    strategy="random",
                    start=self.args.seats,
                    games=0,
                    seed=self.args.seed * 1000 + r * 10 + s,
                    retries=40,
                    backoff=0.2,
                    max_backoff=2.0,
                )
                # clients of one room start on different nodes, and come back through the next one
                shift = (r + s) % len(urls)
                if (r + s) % 3 == 2:
                    ends = lines[shift:] + lines[:shift]
                    bots.append(ChaosLineBot(replace(settings, line=f"{HOST}:0"), ends, self.record, 0.02))
                else:
                    ws_urls = urls[shift:] + urls[:shift]
                    url_settings = replace(settings, url=ws_urls[0], strategy="greedy")
                    bots.append(ChaosWsBot(url_settings, ws_urls, self.record, 0.02))
        return bots

    async def run(self) -> Figures:
        began = time.monotonic()
        if self.redis is not None:
            await self.redis.start()
        if self.postgres is not None:
            await self.postgres.start()
        for node in self.nodes:
            await node.start()
        self.bots = self._clients()
        tasks = [asyncio.create_task(bot.run(), name=bot.name) for bot in self.bots]
        try:
            await self._kill_loop(began)
            await self._sleep_watching(self.args.settle, tasks)
            for bot in self.bots:
                bot.paused = True
            await self._check_clients()
        finally:
            for task in tasks:
                task.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
        self.figures.clients_failed = sum(
            isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError) for r in results
        )
        for bot, result in zip(self.bots, results, strict=True):
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                self.figures.examples.append(f"client {bot.name} gave up: {result!r}")
        await self._check_log()
        for node in self.nodes:
            node.check_alive()
            node.kill()
        if self.redis is not None:
            self.redis.kill()
        if self.postgres is not None:
            self.postgres.kill()
        self._count(began)
        return self.figures

    async def _sleep_watching(self, seconds: float, tasks: list[asyncio.Task[Any]]) -> None:
        """Sleep, and note every server process that died by itself meanwhile."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(0.5, left))
            for node in self.nodes:
                if node.proc is not None and node.proc.poll() is not None:
                    node.check_alive()
                    await node.start()

    async def _kill_loop(self, began: float) -> None:
        args = self.args
        deadline = began + args.seconds
        kills = 0
        while kills < args.kills and time.monotonic() < deadline:
            gap = self.rng.uniform(args.min_gap, args.max_gap)
            await self._sleep_watching(min(gap, max(0.0, deadline - time.monotonic())), [])
            if time.monotonic() >= deadline:
                break
            victim: Node = self.rng.choice(self.nodes)
            if self.redis is not None and self.rng.random() < args.redis_share:
                victim = self.redis
            elif self.postgres is not None and self.rng.random() < args.postgres_share:
                victim = self.postgres
            victim.kill()
            self.redis_kills += victim is self.redis
            self.postgres_kills += victim is self.postgres
            self.kill_times.append(time.monotonic())
            kills += 1
            # down for a moment: clients meet a refused connection, or in a cluster the other node
            await asyncio.sleep(self.rng.uniform(0.0, args.down))
            await victim.start()
            print(f"kill {kills}: {victim.name} at {time.monotonic() - began:6.1f} s", flush=True)

    # --- the checks ------------------------------------------------------------------------------

    def _is_back(self, bot: ChaosWsBot | ChaosLineBot) -> bool:
        if isinstance(bot, ChaosLineBot):
            return bot.connected
        ws = bot.connection
        return ws is not None and ws.state is State.OPEN and bot.view is not None and bot._welcomed

    async def _check_clients(self) -> None:
        """Wait until every client is back and nothing moves, then compare each view with a snapshot."""
        deadline = time.monotonic() + QUIET_TIMEOUT
        while time.monotonic() < deadline:
            now = time.monotonic()
            if all(self._is_back(b) for b in self.bots) and all(
                now - b.last_received > QUIET for b in self.bots
            ):
                break
            await asyncio.sleep(0.1)
        for bot in self.bots:
            if not self._is_back(bot):
                self.figures.clients_not_back += 1
                self.figures.examples.append(f"client {bot.name} is not connected at the end")
            elif isinstance(bot, ChaosWsBot):
                self.figures.views_compared += 1
                if not await bot.compare_with_snapshot(10.0):
                    self.figures.views_differ += 1
                    self.figures.examples.append(f"client {bot.name}: its patched view is not the snapshot")

    async def _games(self) -> dict[str, tuple[str, list[str], list[str], bool]]:
        """Every game in the log: id -> (room, players, moves, finished)."""
        games: dict[str, tuple[str, list[str], list[str], bool]] = {}
        if self.redis is None:
            db = sqlite3.connect(f"file:{self.folder / 'cafe.db'}?mode=ro", uri=True)
            try:
                moves = logged_moves(db)
                for game_id, room, players in db.execute("SELECT id, room, players FROM games"):
                    finished, listed = moves[game_id]
                    games[game_id] = (room, json.loads(players), listed, finished)
            finally:
                db.close()
            return games
        import redis.asyncio as aioredis

        client = aioredis.from_url(self.redis.url, decode_responses=True)
        try:
            async for key in client.scan_iter("cafe:game:*", count=500):
                if key.endswith(":moves"):
                    continue
                fields = await client.hgetall(key)
                listed = await client.lrange(f"{key}:moves", 0, -1)
                data = json.loads(fields["data"])
                games[key.removeprefix("cafe:game:")] = (
                    data["room"],
                    data["players"],
                    listed,
                    "result" in fields,
                )
        finally:
            await client.aclose()
        if self.postgres is not None:  # the finished games Redis let go of
            games.update(await self.postgres.finished_games())
        return games

    async def _check_log(self) -> None:
        games = await self._games()
        f = self.figures
        f.games_started = len(games)
        for ack in self.record.acks:
            found = any(
                room.casefold() == ack.room.casefold()
                and ack.player in players
                and (
                    ack.move in moves
                    if ack.number is None
                    else len(moves) >= ack.number and moves[ack.number - 1] == ack.move
                )
                for room, players, moves, _ in games.values()
            )
            if not found:
                f.missing_acked_moves += 1
                if len(f.examples) < 20:
                    f.examples.append(f"acked move not in the log: {ack}; {_logged_instead(ack, games)}")
        finished = [game_id for game_id, game in games.items() if game[3]]
        f.games_finished = len(finished)
        for game_id in finished:
            if not await asyncio.to_thread(self._verify, game_id):
                f.failed_verify += 1
                f.examples.append(f"game {game_id} fails cafe-engine verify")

    def _verify(self, game_id: str) -> bool:
        """``cafe-engine verify`` on the record a node publishes at ``GET /games/ID``."""
        url = f"http://{HOST}:{self.nodes[0].port}/games/{game_id}"
        for attempt in range(20):  # a node may be busy taking its rooms back
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    body = response.read()
                break
            except OSError:
                if attempt == 19:
                    return False
                time.sleep(0.5)
        path = self.folder / f"game-{game_id}.json"
        path.write_bytes(body)
        with contextlib.redirect_stdout(io.StringIO()):
            return engine_cli.main(["verify", str(path)]) == 0

    def _seen_by(self, rooms: Sequence[str]) -> list[str]:
        """What each WebSocket client of ``rooms`` last saw: to tell why a room stopped."""
        return [
            f"  {bot.name} sees {_describe(bot.view)}"
            for bot in self.bots
            if isinstance(bot, ChaosWsBot) and bot.settings.room in rooms
        ]

    def _count(self, began: float) -> None:
        f, acks, kills = self.figures, self.record.acks, self.kill_times
        f.seconds = round(time.monotonic() - began, 1)
        f.kills = len(kills)
        f.redis_kills = self.redis_kills
        f.postgres_kills = self.postgres_kills
        f.acks = len(acks)
        f.acks_before_first_kill = sum(a.at < kills[0] for a in acks) if kills else len(acks)
        f.acks_after_last_kill = sum(a.at > kills[-1] for a in acks) if kills else 0
        # every room plays on after the last kill (the settle time is far longer than a turn)
        playing = {a.room for a in acks if not kills or a.at > kills[-1]}
        idle = sorted({f"chaos{r}" for r in range(self.args.rooms)} - playing)
        f.rooms_idle_after_last_kill = len(idle)
        f.examples.extend(f"room {room} acked no move after the last kill" for room in idle)
        f.examples.extend(self._seen_by(idle))
        f.unexpected_exits = sum(n.unexpected_exits for n in self.nodes)
        if self.redis is not None:
            f.unexpected_exits += self.redis.unexpected_exits
        for node in self.nodes:
            errors = [e for e in node.log_events() if e.get("level") in ("error", "critical")]
            f.server_errors_logged += len(errors)
            f.examples.extend(f"{node.name} logged {e}" for e in errors[:3])
        waits = []
        by_player: dict[str, list[float]] = {}
        for ack in acks:
            by_player.setdefault(ack.player, []).append(ack.at)
        for at in kills:
            for times in by_player.values():
                after = [t for t in times if t > at]
                if after:
                    waits.append(after[0] - at)
        if waits:
            f.longest_wait_after_kill = round(max(waits), 2)
            f.median_wait_after_kill = round(statistics.median(waits), 2)


def _describe(view: Any) -> str:
    """One line of a client's view of its room: state, seats, whose turn, its own seat."""
    if not isinstance(view, dict):
        return "no view"
    game = view.get("game") or {}
    seats = ", ".join(s["name"] + ("" if s.get("connected", True) else " (gone)") for s in view["seats"])
    return (
        f"state={view['state']} seats=[{seats}] to_move={game.get('to_move')} "
        f"move={game.get('move_number')} own_seat={view.get('seat')}"
    )


def _print(figures: Figures) -> None:
    rows = {k: v for k, v in vars(figures).items() if k != "examples"}
    width = max(map(len, rows))
    for name, value in rows.items():
        mark = "  (must be 0)" if name in Figures.MUST_BE_ZERO else ""
        print(f"{name:<{width}}  {value}{mark}")
    for example in figures.examples[:20]:
        print("  " + example)
    failures = figures.failures()
    print("FAILED: " + ", ".join(failures) if failures else "OK: every must-be-0 figure is 0")


def _configure_logging(level: str) -> None:
    import logging

    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.dev.ConsoleRenderer(colors=False)],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=80, help="kills at most (default 80)")
    p.add_argument("--seconds", type=float, default=600, help="time for the kills at most (default 600)")
    p.add_argument(
        "--settle", type=float, default=15, help="seconds of play after the last kill (default 15)"
    )
    p.add_argument("--min-gap", type=float, default=2, help="shortest time between kills (default 2 s)")
    p.add_argument("--max-gap", type=float, default=10, help="longest time between kills (default 10 s)")
    p.add_argument("--down", type=float, default=1, help="longest time a killed process stays down (1 s)")
    p.add_argument("--rooms", type=int, default=6, help="rooms (default 6)")
    p.add_argument("--seats", type=int, choices=(2, 3, 4), default=3, help="clients a room (default 3)")
    p.add_argument("--seed", type=int, default=1, help="seed of the kills' timing and the bots (default 1)")
    p.add_argument("--cluster", action="store_true", help="two nodes and redis-server, Redis killed too")
    p.add_argument("--redis-share", type=float, default=0.25, help="cluster: share of kills that hit Redis")
    p.add_argument(
        "--database", action="store_true", help="cluster: the records in PostgreSQL, which is killed too"
    )
    p.add_argument(
        "--postgres-share", type=float, default=0.25, help="--database: share of the other kills that hit it"
    )
    p.add_argument("--resume-window", type=float, default=300, help="the servers' --resume-window")
    p.add_argument("--json", type=Path, help="write the figures to this file too")
    p.add_argument("--keep", action="store_true", help="keep the folder with the data and server logs")
    p.add_argument("--log-level", default="error", choices=("debug", "info", "warning", "error"))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _configure_logging(args.log_level)
    folder = Path(tempfile.mkdtemp(prefix="cafe-chaos-"))
    try:
        soak = Soak(args, folder)
        try:
            figures = asyncio.run(soak.run())
        finally:
            for process in [*soak.nodes, *([soak.redis] if soak.redis else [])]:
                if process.proc is not None and process.proc.poll() is None:
                    process.proc.kill()
                    process.proc.wait(10)
            if soak.postgres is not None:
                soak.postgres.server.remove()
    finally:
        if args.keep:
            print(f"data and logs kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    _print(figures)
    if args.json is not None:
        args.json.write_text(json.dumps(vars(figures), indent=2) + "\n")
    return 1 if figures.failures() else 0


if __name__ == "__main__":
    raise SystemExit(main())
