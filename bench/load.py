"""How much one server process carries: rooms of four clients playing over real sockets, and the
same connections and message sizes through a bare ``websockets`` relay (``bench/relay.py``).

The game phase starts a server (or targets ``--url``), opens ``--rooms`` rooms of 4 clients over
WebSockets (``--line-share`` of them over the line endpoint), seats them, sets a seed and starts.
The client to move, known from its own view (the snapshot with every patch applied) or, on the
line endpoint, from the text it reads, plays the next move of a game drawn in advance from that
seed (``engine.random_game``), so the clients spend no time on the rules; a room that finishes
starts the next game. After ``--warmup`` seconds, it measures for ``--seconds``: moves per second,
the time from sending a move to the last client of the room receiving it (its patch; the line
clients, its line), the server's CPU and memory (``/proc``), the generator's CPU, and every error
(an ``error`` message, a ``!`` line, a gap in ``seq``, a patch that does not apply, a move never
received). The relay phase then opens the same number of connections in rooms of 4; one client of
a room sends a frame of the size of a move message, and the relay answers as the game server
answers a move, with frames of the mean sizes just seen: an ``ack`` to the sender, then a patch
and a ``played`` message to each of the 4; the next client goes on.

    python bench/load.py [--rooms 500] [--seconds 20] [--rate 0] [--line-share 0.1]
                         [--workers 2] [--url ws://127.0.0.1:8765/ws --line-port 2323 --pid PID]

``--rate`` caps the moves per second over all rooms (to measure latency at a fixed load); 0 plays
as fast as the server answers. The server is started with its per-connection rate limits raised
(``--rate``/``--burst`` 100000) and every client's address being loopback, its cap per address
raised to the connections it makes: the benchmark measures throughput, not the guards. The
clients run in ``--workers`` processes of plain asyncio beside the server, on the same machine.
Connections go to loopback only; every phase has a deadline and the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import ctypes
import gc
import hashlib
import itertools
import json
import multiprocessing as mp
import os
import re
import resource
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as PipeEnd
from pathlib import Path
from typing import Any

from websockets.frames import apply_mask

# run as a script, this file's folder comes first on the path and bench/engine.py would hide the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from engine import random_game, replay  # noqa: E402
from protocol.diff import PatchError, apply_patch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = ("127.0.0.1", "localhost", "::1")
SEATS = 4
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
PLAN_NAMES = ("a", "b", "c", "d")
#: seconds allowed for each phase's steps
CONNECT_TIMEOUT = 180.0
STEP_TIMEOUT = 60.0
DRAIN_TIMEOUT = 5.0
#: the server's flood guard, raised for the benchmark
SERVER_RATE = "100000"


# --- what the processes share ---------------------------------------------------------------


@dataclass(frozen=True)
class GamePlan:
    """A game decided in advance: the seed, every move, and the seat that plays each one."""

    seed: int
    moves: tuple[str, ...]
    movers: tuple[int, ...]


@dataclass(frozen=True)
class RoomSpec:
    index: int
    name: str
    line_seats: tuple[bool, ...]


@dataclass(frozen=True)
class WorkerSpec:
    index: int
    mode: str  # "game" or "relay"
    ws_port: int
    ws_path: str
    line_port: int | None
    rooms: tuple[RoomSpec, ...]
    plans: tuple[GamePlan, ...]
    rate: float  # moves per second for this worker; 0 plays as fast as the server answers
    move_size: int  # relay: characters of a move frame
    connect_concurrency: int


def plan_games(count: int, first_seed: int) -> tuple[GamePlan, ...]:
    """``count`` random 4-player games; the deal depends on the seed only, not on the names."""
    plans = []
    for seed in range(first_seed, first_seed + count):
        record = random_game(PLAN_NAMES, seed)
        movers = tuple(r.player for r in replay(record).results)
        plans.append(GamePlan(seed, record.moves, movers))
    return tuple(plans)


def raise_open_files() -> None:
    """As many open files as the hard limit allows (a socket each); children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --- the clients (in the worker processes) --------------------------------------------------
#
# Clients are asyncio protocols whose callbacks do all the work as bytes arrive: no task and no
# await per message, so that the generator spends little of the CPU it shares with the server.


class Room:
    """The clients of one room and the moves in flight, keyed by (game, move number)."""

    def __init__(self, worker: Worker, spec: RoomSpec) -> None:
        self.worker = worker
        self.spec = spec
        self.clients: list[Client] = []
        self.game_no = 0
        self.games_started = 0
        self.plan = worker.spec.plans[0] if worker.spec.plans else GamePlan(0, (), ())
        self.sent = 0  # moves sent in the current game (relay: rounds sent)
        self.moves_sent = 0  # in all games
        self.pending: dict[tuple[int, int], list[float]] = {}
        names = "|".join(re.escape(c) for c in self.names())
        self.played_line = re.compile(rf"^(?:{names})\s+(?:seats|sends|swaps|plays) ")

    def names(self) -> list[str]:
        kinds = self.spec.line_seats
        return [f"{'l' if kinds[s] else 'w'}{self.spec.index}x{s}" for s in range(SEATS)]

    def claim(self, game_no: int, played: int) -> bool:
        """Whether the client that saw ``played`` moves may send the next one (once per move)."""
        if not self.worker.moving or game_no != self.game_no or played != self.sent:
            return False
        if self.worker.spec.mode == "game" and played >= len(self.plan.moves):
            return False
        self.sent = played + 1
        return True

    def sending(self, number: int) -> None:
        t0 = time.monotonic()
        self.pending[(self.game_no, number)] = [t0, float(len(self.clients))]
        self.moves_sent += 1
        self.worker.count_sent(t0)

    def received(self, game_no: int, number: int) -> None:
        entry = self.pending.get((game_no, number))
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            del self.pending[(game_no, number)]
            self.worker.completed(entry[0], time.monotonic())

    def start_game(self) -> None:
        plans = self.worker.spec.plans
        self.plan = plans[(self.spec.index * 7 + self.games_started) % len(plans)]
        self.games_started += 1
        self.game_no += 1
        self.sent = 0
        self.clients[0].restart(self.plan.seed)

    def game_over(self) -> None:
        self.worker.games += 1
        if self.worker.moving:
            self.start_game()


class Connection(asyncio.Protocol):
    """The bytes of one TCP connection, handed to a client as they come."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("closed before it was ready"))
        self.client.lost("connection closed")

    def write(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class WebSocket(Connection):
    """The client side of RFC 6455, as much as this benchmark needs: the opening handshake,
    masked text frames out, unfragmented text frames in, pings answered, closes honoured. Like a
    browser it offers permessage-deflate (RFC 7692), and inflates what comes compressed; it sends
    its own frames uncompressed, as the extension allows."""

    def __init__(self, client: Client, host: str, port: int, path: str) -> None:
        super().__init__(client)
        self.key = base64.b64encode(os.urandom(16)).decode()
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {self.key}\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
        ).encode()
        self.open = False
        self.inflate: Any = None  # a zlib decompressor, when the server took the extension

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.write(self.request)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).decode("latin-1")
            del buffer[: end + 4]
            accept = base64.b64encode(hashlib.sha1((self.key + WS_GUID).encode()).digest()).decode()
            if not head.startswith("HTTP/1.1 101") or accept not in head:
                self.ready.set_exception(ConnectionError(f"handshake refused: {head.splitlines()[0]}"))
                self.close()
                return
            self.open = True
            if "permessage-deflate" in head.lower():
                self.inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            self.ready.set_result(None)
        while len(buffer) >= 2:
            first, length = buffer[0], buffer[1] & 0x7F
            start = 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < start + length:
                return
            payload = bytes(buffer[start : start + length])
            del buffer[: start + length]
            opcode = first & 0x0F
            if opcode == 0x1 and first & 0x80:
                if first & 0x40:  # RSV1: a compressed message
                    payload = self.inflate.decompress(payload + b"\x00\x00\xff\xff")
                self.client.on_text(payload.decode())
            elif opcode == 0x9:  # ping: pong with the same payload
                self.send(0xA, payload)
            elif opcode == 0x8:  # close: answer it
                self.send(0x8, payload[:2])
                self.close()
                return
            elif opcode != 0xA:
                self.client.worker.error(f"{self.client.name}: unexpected frame, opcode {opcode}")

    def send(self, opcode: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        self.write(head + mask + apply_mask(payload, mask))

    def send_text(self, text: str) -> None:
        self.send(0x1, text.encode())

    def close(self) -> None:
        if self.open and self.transport is not None and not self.transport.is_closing():
            self.open = False
            self.send(0x8, (1000).to_bytes(2, "big"))
        super().close()


class Lines(Connection):
    """A telnet-like connection: lines of UTF-8 text."""

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.ready.done():
            end = buffer.find(b"to come back): ")
            if end < 0:
                return
            del buffer[: end + 15]
            self.ready.set_result(None)
        end = buffer.rfind(b"\n")
        if end < 0:
            return
        text = bytes(buffer[: end + 1]).decode(errors="replace")
        del buffer[: end + 1]
        for line in text.split("\n")[:-1]:
            self.client.on_line(line.rstrip("\r"))

    def send_line(self, line: str) -> None:
        self.write(f"{line}\r\n".encode())


class Client:
    """One connection: ``open`` connects and says hello, ``join`` takes the seat, then the
    connection's callbacks play."""

    def __init__(self, room: Room, seat: int, name: str) -> None:
        self.room = room
        self.worker = room.worker
        self.seat = seat
        self.name = name
        self.game_no = 0
        self.closing = False
        self.conn: Connection | None = None
        self.expect: tuple[Callable[[Any], bool], asyncio.Future[Any]] | None = None

    async def open(self) -> None:
        raise NotImplementedError

    async def join(self) -> None:
        raise NotImplementedError

    def send_move(self, played: int) -> None:
        raise NotImplementedError

    def restart(self, seed: int) -> None:
        raise NotImplementedError

    def on_text(self, text: str) -> None:
        raise NotImplementedError

    def on_line(self, line: str) -> None:
        raise NotImplementedError

    async def connect(self, conn: Connection, port: int) -> None:
        loop = asyncio.get_running_loop()
        await loop.create_connection(lambda: conn, "127.0.0.1", port)
        self.conn = conn
        await asyncio.wait_for(conn.ready, STEP_TIMEOUT)

    async def until(self, test: Callable[[Any], bool]) -> Any:
        """What ``test`` accepts first among the messages (lines) that come from now on."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.expect = (test, future)
        return await asyncio.wait_for(future, STEP_TIMEOUT)

    def expected(self, item: Any) -> None:
        if self.expect is not None and self.expect[0](item):
            future = self.expect[1]
            self.expect = None
            if not future.done():
                future.set_result(item)

    def play_next(self, played: int) -> None:
        """It is this client's turn after ``played`` moves: send the next one, or queue it."""
        if not self.room.claim(self.game_no, played):
            return
        if self.worker.spec.rate > 0:
            self.worker.ready.append((self, played))
        else:
            self.send_move(played)

    def lost(self, why: str) -> None:
        if not self.closing:
            self.worker.error(f"{self.name}: {why}")

    def close(self) -> None:
        self.closing = True
        if self.conn is not None:
            self.conn.close()


class WsClient(Client):
    """A JSON client: checks every ``seq``, applies every patch to its view, and moves when the
    view says so. It parses a frame only when it needs what is in it."""

    def __init__(self, room: Room, seat: int, name: str) -> None:
        super().__init__(room, seat, name)
        self.ws: WebSocket | None = None
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.seen = 0  # the move number of the view
        self.ids = itertools.count(1)

    async def open(self) -> None:
        spec = self.worker.spec
        self.ws = WebSocket(self, "127.0.0.1", spec.ws_port, spec.ws_path)
        await self.connect(self.ws, spec.ws_port)
        await self.request({"type": "hello", "name": self.name})

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.ws is not None
        msg_id = next(self.ids)
        self.ws.send_text(json.dumps({**message, "id": msg_id}))
        answer: dict[str, Any] = await self.until(lambda m: m.get("id") == msg_id)
        if answer["type"] == "error":
            raise RuntimeError(f"{self.name}: {answer['code']}: {answer['message']}")
        return answer

    async def join(self) -> None:
        await self.request({"type": "join", "room": self.room.spec.name})

    def send_move(self, played: int) -> None:
        assert self.ws is not None
        frame = f'{{"type":"move","id":{next(self.ids)},"move":"{self.room.plan.moves[played]}"}}'
        self.worker.move_bytes += len(frame)
        self.room.sending(played + 1)
        self.ws.send_text(frame)

    def restart(self, seed: int) -> None:
        assert self.ws is not None
        self.ws.send_text(json.dumps({"type": "option", "id": next(self.ids), "key": "seed", "value": seed}))
        self.ws.send_text(json.dumps({"type": "start", "id": next(self.ids)}))

    def on_text(self, text: str) -> None:
        worker = self.worker
        worker.frames += 1
        # every server frame starts {"seq":N, and its type follows (after the id of an answer):
        # read those two without parsing the rest
        comma = text.find(",", 7)
        seq = int(text[7:comma])
        if seq != self.seq + 1:
            worker.error(f"{self.name}: seq {seq} after {self.seq}")
        self.seq = seq
        start = text.find('"type":"', comma) + 8
        kind = text[start : text.find('"', start)]
        if kind == "played":
            worker.events += 1
            worker.event_bytes += len(text)
        elif kind == "ack":
            worker.acks += 1
            worker.ack_bytes += len(text)
        if kind in ("played", "ack", "presence", "notice") and self.expect is None:
            return
        msg = json.loads(text)
        if kind == "patch":
            worker.patch_bytes += len(text)
            worker.patches += 1
            try:
                view = self.view = apply_patch(self.view, msg["ops"])
            except PatchError as e:
                worker.error(f"{self.name}: {e}")
                return
            game = view["game"]
            if game is None:
                return
            number = game["move_number"]
            if number != self.seen:
                self.seen = number
                self.room.received(self.game_no, number)
            self.my_turn()
        elif kind == "snapshot":
            self.view = msg["view"]
        elif kind == "game_started":
            # the new game's first patch may come before this message or after it
            self.game_no += 1
            game = self.view["game"] if self.view else None
            self.seen = game["move_number"] if game else 0
            self.my_turn()
        elif kind == "game_over":
            if self.seat == 0:
                self.room.game_over()
        elif kind == "error":
            worker.error(f"{self.name}: {msg['code']}: {msg['message']}")
        self.expected(msg)

    def my_turn(self) -> None:
        view = self.view
        game = view["game"] if view else None
        if view and game and game["to_move"] == self.name and view["state"] == "playing":
            self.play_next(game["move_number"])


class LineClient(Client):
    """A telnet-like client: reads lines; moves in the order the game's plan gives."""

    def __init__(self, room: Room, seat: int, name: str) -> None:
        super().__init__(room, seat, name)
        self.lines: Lines | None = None
        self.played = 0

    async def open(self) -> None:
        spec = self.worker.spec
        assert spec.line_port is not None
        self.lines = Lines(self)
        await self.connect(self.lines, spec.line_port)
        await self.say(self.name, f"Hello {self.name}!")

    async def say(self, line: str, expect: str) -> None:
        assert self.lines is not None
        waiting = self.until(lambda text: text.startswith(expect))
        self.lines.send_line(line)
        await waiting

    async def join(self) -> None:
        await self.say(f"/join {self.room.spec.name}", "* You are in room")

    def send_move(self, played: int) -> None:
        assert self.lines is not None
        line = f"/play {self.room.plan.moves[played]}"
        self.worker.move_bytes += len(line) + 2
        self.room.sending(played + 1)
        self.lines.send_line(line)

    def restart(self, seed: int) -> None:
        assert self.lines is not None
        self.lines.send_line(f"/option seed {seed}")
        self.lines.send_line("/start")

    def on_line(self, line: str) -> None:
        self.worker.frames += 1
        self.expected(line)
        room = self.room
        if line.startswith("! "):
            self.worker.error(f"{self.name}: {line}")
        elif room.played_line.match(line):
            self.played += 1
            room.received(self.game_no, self.played)
            self.maybe_move()
        elif line.startswith("* The game starts:"):
            self.game_no += 1
            self.played = 0
            self.maybe_move()
        elif line.startswith("* Game over (") and self.seat == 0:
            room.game_over()

    def maybe_move(self) -> None:
        plan = self.room.plan
        n = self.played
        if self.game_no == self.room.game_no and n < len(plan.movers) and plan.movers[n] == self.seat:
            self.play_next(n)


class RelayClient(Client):
    """A client of the bare relay: round ``n`` is sent by seat ``(n - 1) % 4``."""

    def __init__(self, room: Room, seat: int, name: str) -> None:
        super().__init__(room, seat, name)
        self.ws: WebSocket | None = None

    async def open(self) -> None:
        spec = self.worker.spec
        self.ws = WebSocket(self, "127.0.0.1", spec.ws_port, spec.ws_path)
        await self.connect(self.ws, spec.ws_port)

    async def join(self) -> None:
        assert self.ws is not None
        waiting = self.until(lambda text: text == "joined")
        self.ws.send_text(self.room.spec.name)
        await waiting

    def send_move(self, played: int) -> None:
        assert self.ws is not None
        frame = f"{played + 1}|".ljust(self.worker.spec.move_size, "m")
        self.worker.move_bytes += len(frame)
        self.room.sending(played + 1)
        self.ws.send_text(frame)

    def restart(self, seed: int) -> None:
        self.play_next(0)

    def on_text(self, text: str) -> None:
        self.worker.frames += 1
        if text == "joined":
            self.expected(text)
            return
        bar = text.index("|")
        kind = text[bar + 1]
        if kind == "a":  # the sender's answer
            self.worker.acks += 1
            self.worker.ack_bytes += len(text)
            return
        if kind == "e":  # the move's second frame
            self.worker.events += 1
            self.worker.event_bytes += len(text)
            return
        self.worker.patch_bytes += len(text)
        self.worker.patches += 1
        number = int(text[:bar])
        self.room.received(0, number)
        if number % SEATS == self.seat:
            self.play_next(number)


class Worker:
    """One generator process: its share of the rooms, driven by the main process's commands."""

    def __init__(self, conn: PipeEnd, spec: WorkerSpec) -> None:
        self.conn = conn
        self.spec = spec
        self.moving = False
        self.ready: deque[tuple[Client, int]] = deque()
        self.window = (float("inf"), float("inf"))
        self.latencies: list[float] = []
        self.sent_in_window = 0
        self.sent_total = 0
        self.completed_total = 0
        self.errors = 0
        self.error_samples: list[str] = []
        self.frames = 0
        self.patches = 0
        self.patch_bytes = 0
        self.acks = 0
        self.ack_bytes = 0
        self.events = 0
        self.event_bytes = 0
        self.move_bytes = 0
        self.games = 0
        self.rooms = [Room(self, r) for r in spec.rooms]
        for room in self.rooms:
            for seat, name in enumerate(room.names()):
                cls: type[Client]
                if spec.mode == "relay":
                    cls = RelayClient
                else:
                    cls = LineClient if room.spec.line_seats[seat] else WsClient
                room.clients.append(cls(room, seat, name))

    def error(self, what: str, count: int = 1) -> None:
        self.errors += count
        if len(self.error_samples) < 10:
            self.error_samples.append(what)

    def count_sent(self, t0: float) -> None:
        self.sent_total += 1
        if self.window[0] <= t0 < self.window[1]:
            self.sent_in_window += 1

    def completed(self, t0: float, t1: float) -> None:
        self.completed_total += 1
        if self.window[0] <= t0 < self.window[1]:
            self.latencies.append(t1 - t0)

    def clients(self) -> list[Client]:
        return [c for room in self.rooms for c in room.clients]

    async def command(self) -> tuple[Any, ...]:
        ready = await asyncio.to_thread(self.conn.poll, CONNECT_TIMEOUT + 600)
        if not ready:
            raise TimeoutError("no command from the main process")
        command: tuple[Any, ...] = self.conn.recv()
        return command

    async def run(self) -> None:
        while True:
            command = await self.command()
            if command[0] == "connect":
                failures = await self.connect_all()
                self.conn.send(("connected", failures))
            elif command[0] == "join":
                failures = await self.join_all()
                self.conn.send(("joined", failures))
            elif command[0] == "play":
                self.conn.send(("played", await self.play(*command[1:])))
            elif command[0] == "close":
                self.close_all()
                await asyncio.sleep(0.5)  # let the closing frames go out
                self.conn.send(("closed",))
                return

    async def connect_all(self) -> int:
        gate = asyncio.Semaphore(self.spec.connect_concurrency)

        async def one(client: Client) -> bool:
            async with gate:
                try:
                    await asyncio.wait_for(client.open(), STEP_TIMEOUT)
                    return True
                except Exception as e:
                    self.error(f"{client.name}: connect: {e!r}")
                    return False

        results = await asyncio.wait_for(asyncio.gather(*(one(c) for c in self.clients())), CONNECT_TIMEOUT)
        return results.count(False)

    async def join_all(self) -> int:
        async def seat_room(room: Room) -> bool:
            try:
                for client in room.clients:  # one after the other: the seat order is the join order
                    await client.join()
                return True
            except Exception as e:
                self.error(f"{room.spec.name}: join: {e!r}")
                return False

        results = await asyncio.wait_for(asyncio.gather(*(seat_room(r) for r in self.rooms)), CONNECT_TIMEOUT)
        return results.count(False)

    async def play(self, start: float, warm_end: float, end: float) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        self.window = (warm_end, end)
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        self.moving = True
        pacer = loop.create_task(self.pace(start, end)) if self.spec.rate > 0 else None
        for room in self.rooms:
            if self.spec.mode == "game":
                room.start_game()
            else:
                room.clients[0].restart(0)
        await asyncio.sleep(max(0.0, warm_end - time.monotonic()))
        cpu0, frames0 = time.process_time(), self.frames
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        cpu1, frames1 = time.process_time(), self.frames
        self.moving = False
        self.ready.clear()
        if pacer is not None:
            pacer.cancel()
        deadline = time.monotonic() + DRAIN_TIMEOUT
        while any(r.pending for r in self.rooms) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        lost = sum(len(r.pending) for r in self.rooms)
        if lost:
            self.error(f"{lost} moves not received by every client of their room", lost)
        return {
            "latencies": self.latencies,
            "sent": self.sent_in_window,
            "sent_total": self.sent_total,
            "completed_total": self.completed_total,
            "errors": self.errors,
            "error_samples": self.error_samples,
            "frames": frames1 - frames0,
            "patches": self.patches,
            "patch_bytes": self.patch_bytes,
            "acks": self.acks,
            "ack_bytes": self.ack_bytes,
            "events": self.events,
            "event_bytes": self.event_bytes,
            "move_bytes": self.move_bytes,
            "games": self.games,
            "moves_by_room": [r.moves_sent for r in self.rooms],
            "cpu": cpu1 - cpu0,
        }

    async def pace(self, start: float, end: float) -> None:
        """Send the queued moves at ``rate`` a second (a burst of at most 50 after a lull)."""
        rate = self.spec.rate
        sent = 0
        while time.monotonic() < end:
            allowed = int((time.monotonic() - start) * rate)
            sent = max(sent, allowed - 50)
            while sent < allowed and self.ready:
                client, played = self.ready.popleft()
                client.send_move(played)
                sent += 1
            await asyncio.sleep(0.001)

    def close_all(self) -> None:
        for client in self.clients():
            client.close()


def keep_freed_memory() -> None:
    """Stop glibc from giving the heap's top back after every socket read.

    asyncio reads into a 256 KiB buffer and shrinks it to what came: with the default dynamic
    thresholds, freeing the rest trims the heap, and the next read faults the pages in again,
    which costs tens of microseconds a read on this machine. Fixed thresholds keep them.
    """
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)
        libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD: allocations below 1 MiB come from the heap
        libc.mallopt(-1, 16 << 20)  # M_TRIM_THRESHOLD: keep up to 16 MiB free at the top


def worker_main(conn: PipeEnd, spec: WorkerSpec) -> None:
    raise_open_files()
    keep_freed_memory()
    gc.freeze()  # the garbage collector as the server sets it (server.app.collect_garbage_seldom)
    gc.set_threshold(5_000, 50, 100)
    asyncio.run(Worker(conn, spec).run())


# --- the main process: the target, the workers, the figures ----------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes] | None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds the whole machine has spent busy (every core), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a process in bytes, from /proc/PID/status."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out


class Target:
    """The process under load: the game server or the relay, started here, or one given by --url."""

    def __init__(
        self,
        argv: list[str] | None,
        port: int,
        line_port: int | None,
        pid: int | None,
        profile: str | None = None,
    ) -> None:
        self.port = port
        self.line_port = line_port
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr: list[str] = []
        if argv is not None:
            if profile:  # py-spy starts the process and samples it until it exits
                spy = str(Path(sys.executable).parent / "py-spy")
                argv = [spy, "record", "--format", "raw", "--rate", "200", "--output", profile, "--", *argv]
            self.proc = subprocess.Popen(
                argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            threading.Thread(target=self._collect, daemon=True).start()
            pid = self.proc.pid
            if profile:
                pid = self._child(pid)
        self.pid = pid
        wait_listening(port, self.proc)

    @staticmethod
    def _child(pid: int) -> int:
        children = Path(f"/proc/{pid}/task/{pid}/children")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = children.read_text().split()
            if found:
                return int(found[0])
            time.sleep(0.02)
        raise TimeoutError("py-spy did not start the server")

    def _collect(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for line in self.proc.stderr:
            if len(self.stderr) < 10_000:
                self.stderr.append(line.decode(errors="replace").rstrip())

    def cpu(self) -> float | None:
        return None if self.pid is None else cpu_seconds(self.pid)

    def memory(self) -> dict[str, int]:
        return {} if self.pid is None else memory(self.pid)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.pid is not None and self.pid != self.proc.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)  # the profiled server; py-spy then writes and exits
        else:
            self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def room_specs(rooms: int, line_share: float) -> list[RoomSpec]:
    """Rooms ``load0``...; every client whose running share crosses a whole number is a line client."""
    specs = []
    for r in range(rooms):
        seats = []
        for s in range(SEATS):
            g = r * SEATS + s
            seats.append(int((g + 1) * line_share) > int(g * line_share))
        specs.append(RoomSpec(r, f"load{r}", tuple(seats)))
    return specs


class Workers:
    """The generator processes, each with a pipe for commands and replies."""

    def __init__(self, specs: list[WorkerSpec]) -> None:
        ctx = mp.get_context("spawn")
        self.pipes: list[PipeEnd] = []
        self.procs: list[Any] = []
        for spec in specs:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=worker_main, args=(child, spec), daemon=True)
            proc.start()
            self.pipes.append(parent)
            self.procs.append(proc)

    def ask(self, command: tuple[Any, ...], timeout: float) -> list[tuple[Any, ...]]:
        for pipe in self.pipes:
            pipe.send(command)
        deadline = time.monotonic() + timeout
        replies = []
        for pipe in self.pipes:
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"a worker did not answer {command[0]!r} in {timeout:.0f} s")
            replies.append(pipe.recv())
        return replies

    def stop(self) -> None:
        for proc in self.procs:
            proc.join(30)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)


@dataclass
class Phase:
    """The figures of one phase."""

    name: str
    connections: int
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, int] = field(default_factory=dict)
    server_cpu: float | None = None
    machine_cpu: float = 0.0
    failures: int = 0
    log_rows: int | None = None
    log_warnings: list[str] = field(default_factory=list)


def run_phase(
    name: str, target: Target, specs: list[WorkerSpec], args: argparse.Namespace, connections: int
) -> Phase:
    phase = Phase(name, connections, args.seconds)
    time.sleep(0.5)
    mem = phase.memory
    mem["idle"] = target.memory().get("VmRSS", 0)
    print(f"[{name}] {connections} connections, {len(specs)} worker processes", file=sys.stderr)
    workers = Workers(specs)
    try:
        replies = workers.ask(("connect",), CONNECT_TIMEOUT + 30)
        phase.failures += sum(r[1] for r in replies)
        time.sleep(0.5)
        mem["connected"] = target.memory().get("VmRSS", 0)
        print(f"[{name}] connected ({phase.failures} failed); seating", file=sys.stderr)
        replies = workers.ask(("join",), CONNECT_TIMEOUT + 30)
        phase.failures += sum(r[1] for r in replies)
        time.sleep(0.5)
        mem["seated"] = target.memory().get("VmRSS", 0)
        start = time.monotonic() + 0.5
        warm_end = start + args.warmup
        end = warm_end + args.seconds
        print(f"[{name}] playing {args.warmup:g} s + {args.seconds:g} s", file=sys.stderr)
        for pipe in workers.pipes:
            pipe.send(("play", start, warm_end, end))
        time.sleep(max(0.0, warm_end - time.monotonic()))
        cpu0, busy0 = target.cpu(), machine_busy()
        time.sleep(max(0.0, end - time.monotonic()))
        cpu1, busy1 = target.cpu(), machine_busy()
        phase.machine_cpu = (busy1 - busy0) / args.seconds
        mem.update({"playing": target.memory().get("VmRSS", 0), "peak": target.memory().get("VmHWM", 0)})
        if cpu0 is not None and cpu1 is not None:
            phase.server_cpu = (cpu1 - cpu0) / args.seconds
        replies = []
        deadline = time.monotonic() + DRAIN_TIMEOUT + STEP_TIMEOUT
        for pipe in workers.pipes:
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise TimeoutError("a worker did not report")
            replies.append(pipe.recv())
        phase.stats = merge([r[1] for r in replies])
        workers.ask(("close",), 90)
    finally:
        workers.stop()
    return phase


def merge(stats: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"latencies": [], "error_samples": [], "cpu_by_worker": [], "moves_by_room": []}
    for s in stats:
        out["latencies"].extend(s["latencies"])
        out["moves_by_room"].extend(s["moves_by_room"])
        out["error_samples"].extend(s["error_samples"])
        out["cpu_by_worker"].append(s["cpu"])
        for key in (
            "sent", "sent_total", "completed_total", "errors", "frames", "patches",
            "patch_bytes", "acks", "ack_bytes", "events", "event_bytes", "move_bytes", "games", "cpu",
        ):  # fmt: skip
            out[key] = out.get(key, 0) + s[key]
    return out


def percentile(data: list[float], p: int) -> float:
    if len(data) < 2:
        return data[0] if data else float("nan")
    return statistics.quantiles(data, n=100, method="inclusive")[p - 1]


def server_argv(args: argparse.Namespace, port: int, line_port: int, data: str, conns: int) -> list[str]:
    return [
        sys.executable, "-m", "server",
        "--host", "127.0.0.1", "--port", str(port), "--line-port", str(line_port),
        "--data", data, "--log-level", args.log_level,
        "--rate", SERVER_RATE, "--burst", SERVER_RATE,
        "--max-connections", str(conns + 100), "--max-rooms", str(args.rooms + 100),
        "--max-per-ip", str(conns + 100),
        "--compression", args.compression, "--event-loop", args.event_loop,
    ]  # fmt: skip


def worker_specs(
    args: argparse.Namespace,
    mode: str,
    url: str,
    line_port: int | None,
    plans: tuple[GamePlan, ...],
    rooms: list[RoomSpec],
    move_size: int,
) -> list[WorkerSpec]:
    n = max(1, min(args.workers, len(rooms)))
    # ws://127.0.0.1:PORT/PATH; the host is loopback (checked in main)
    port, _, path = url.split("//", 1)[1].split(":", 1)[1].partition("/")
    return [
        WorkerSpec(
            index=w,
            mode=mode,
            ws_port=int(port),
            ws_path="/" + path,
            line_port=line_port,
            rooms=tuple(rooms[w::n]),
            plans=plans,
            rate=args.rate / n,
            move_size=move_size,
            connect_concurrency=args.connect_concurrency,
        )
        for w in range(n)
    ]


def game_phase(args: argparse.Namespace, plans: tuple[GamePlan, ...]) -> Phase:
    rooms = room_specs(args.rooms, args.line_share)
    conns = args.rooms * SEATS
    data_dir = tempfile.mkdtemp(prefix="cafe-load-")
    data = args.data or str(Path(data_dir) / "load.db")
    if args.url:
        target = Target(None, int(args.url.rsplit(":", 1)[1].split("/")[0]), args.line_port, args.pid)
        url, line_port = args.url, args.line_port
    else:
        port, line_port = free_port(), free_port() if args.line_share > 0 else -1
        argv = server_argv(args, port, line_port, data, conns)
        target = Target(argv, port, line_port, None, args.profile)
        url = f"ws://127.0.0.1:{port}/ws"
    try:
        specs = worker_specs(args, "game", url, line_port, plans, rooms, 0)
        phase = run_phase("game", target, specs, args, conns)
    finally:
        target.stop()
    phase.log_warnings = [line for line in target.stderr if line.strip()]
    if not args.url:
        with contextlib.closing(sqlite3.connect(data)) as db:
            phase.log_rows = int(db.execute("SELECT count(*) FROM moves").fetchone()[0])
        if not args.data:
            for path in Path(data_dir).iterdir():
                path.unlink()
            Path(data_dir).rmdir()
    return phase


def relay_phase(args: argparse.Namespace, game: dict[str, Any]) -> Phase:
    """The relay answers each move with frames of the sizes the game server's clients received."""
    rooms = room_specs(args.rooms, 0.0)
    port = free_port()
    argv = [sys.executable, str(ROOT / "bench" / "relay.py"), "--port", str(port)]
    argv += ["--size", str(round(game["mean_patch_bytes"])), "--ack-size", str(round(game["mean_ack_bytes"]))]
    argv += ["--event-size", str(round(game["mean_event_bytes"]))]
    argv += ["--compression", args.compression, "--event-loop", args.event_loop]
    move_size = round(game["mean_move_bytes"])
    target = Target(argv, port, None, None)
    try:
        specs = worker_specs(args, "relay", f"ws://127.0.0.1:{port}/", None, (), rooms, move_size)
        return run_phase("relay", target, specs, args, args.rooms * SEATS)
    finally:
        target.stop()


# --- the report ---------------------------------------------------------------------------------


def figures(phase: Phase) -> dict[str, Any]:
    s = phase.stats
    lat = [x * 1000 for x in s["latencies"]]
    mem = phase.memory
    rooms = phase.connections // SEATS
    out: dict[str, Any] = {
        "connections": phase.connections,
        "moves_per_s": len(lat) / phase.seconds,
        "sent_per_s": s["sent"] / phase.seconds,
        "frames_in_per_s": s["frames"] / phase.seconds,
        "latency_ms": {p: percentile(lat, p) for p in (50, 95, 99)},
        "latency_max_ms": max(lat) if lat else float("nan"),
        "server_cpu": phase.server_cpu,
        "generator_cpu": s["cpu"] / phase.seconds,
        "other_cpu": phase.machine_cpu - (phase.server_cpu or 0.0) - s["cpu"] / phase.seconds,
        "server_cpu_us_per_move": (phase.server_cpu or 0.0) * 1e6 / max(1.0, len(lat) / phase.seconds),
        "generator_cpu_by_worker": [c / phase.seconds for c in s["cpu_by_worker"]],
        "rss_mb": {k: v / 2**20 for k, v in mem.items()},
        "per_connection_kb": (mem.get("connected", 0) - mem.get("idle", 0)) / phase.connections / 1024,
        "per_room_kb": (mem.get("playing", 0) - mem.get("connected", 0)) / max(1, rooms) / 1024,
        "errors": s["errors"] + phase.failures,
        "error_samples": s["error_samples"],
        "games_finished": s["games"],
        "moves_by_room": _spread(s["moves_by_room"]),
        "mean_patch_bytes": s["patch_bytes"] / max(1, s["patches"]),
        "mean_ack_bytes": s["ack_bytes"] / max(1, s["acks"]),
        "mean_event_bytes": s["event_bytes"] / max(1, s["events"]),
        "mean_move_bytes": s["move_bytes"] / max(1, s["sent_total"]),
        "moves_sent": s["sent_total"],
        "moves_received": s["completed_total"],
        "log_rows": phase.log_rows,
        "server_log_lines": len(phase.log_warnings),
    }
    return out


def _spread(values: list[int]) -> dict[str, float]:
    """The least, median and most of the moves each room sent (a fair server keeps them close)."""
    if not values:
        return {"min": 0, "median": 0, "max": 0}
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def report(args: argparse.Namespace, game: dict[str, Any], relay: dict[str, Any] | None) -> None:
    cols = [("game server", game)] + ([("bare relay", relay)] if relay else [])

    def row(label: str, fmt: Any) -> None:
        cells = []
        for _, f in cols:
            try:
                cells.append(fmt(f))
            except (TypeError, KeyError, ValueError):
                cells.append("n/a")
        print(f"{label:<34}" + "".join(f"{c:>22}" for c in cells))

    rate = "as fast as answered" if args.rate == 0 else f"capped at {args.rate:g} moves/s"
    print(
        f"\nrooms {args.rooms} x {SEATS} = {args.rooms * SEATS} connections"
        f" (line share {args.line_share:g}), {args.seconds:g} s measured after {args.warmup:g} s,"
        f" {rate}; {os.cpu_count()} cores, generator on the same machine ({args.workers} processes)"
    )
    print(f"{'':<34}" + "".join(f"{name:>22}" for name, _ in cols))
    row("moves (relayed frames) /s", lambda f: f"{f['moves_per_s']:,.0f}")
    row("frames to clients /s", lambda f: f"{f['frames_in_per_s']:,.0f}")
    row(
        "latency p50 / p95 / p99 ms",
        lambda f: "{:.1f} / {:.1f} / {:.1f}".format(*f["latency_ms"].values()),
    )
    row("latency max ms", lambda f: f"{f['latency_max_ms']:.1f}")
    row("server CPU (cores)", lambda f: f"{f['server_cpu']:.2f}")
    row("server CPU per move us", lambda f: f"{f['server_cpu_us_per_move']:.0f}")
    row("generator CPU (cores)", lambda f: f"{f['generator_cpu']:.2f}")
    row("other processes' CPU (cores)", lambda f: f"{f['other_cpu']:.2f}")
    row(
        "RSS idle / connected MB",
        lambda f: "{:.0f} / {:.0f}".format(f["rss_mb"]["idle"], f["rss_mb"]["connected"]),
    )
    row(
        "RSS seated / playing MB",
        lambda f: "{:.0f} / {:.0f}".format(f["rss_mb"]["seated"], f["rss_mb"]["playing"]),
    )
    row("peak RSS (VmHWM) MB", lambda f: f"{f['rss_mb']['peak']:.0f}")
    row("memory per connection KB", lambda f: f"{f['per_connection_kb']:.1f}")
    row("memory per room KB", lambda f: f"{f['per_room_kb']:.1f}")
    row(
        "frame bytes: move / ack, patch, played",
        lambda f: "{:.0f} / {:.0f}, {:.0f}, {:.0f}".format(
            f["mean_move_bytes"], f["mean_ack_bytes"], f["mean_patch_bytes"], f["mean_event_bytes"]
        ),
    )
    row("games finished", lambda f: f"{f['games_finished']}")
    row(
        "moves per room min / median / max",
        lambda f: "{min:.0f} / {median:.0f} / {max:.0f}".format(**f["moves_by_room"]),
    )
    row("errors", lambda f: f"{f['errors']}")
    if game["log_rows"] is not None:
        print(
            f"moves in the server's log: {game['log_rows']:,} (clients saw {game['moves_received']:,} played)"
        )
    if relay:
        ratio = game["moves_per_s"] / relay["moves_per_s"] if relay["moves_per_s"] else float("nan")
        print(f"game server / bare relay message rate: {ratio:.2f}")
    for name, f in cols:
        for sample in f["error_samples"]:
            print(f"  {name} error: {sample}")
    if game["server_log_lines"]:
        print(f"  the server logged {game['server_log_lines']} lines at warning or above")


def summarise_profile(path: str, top: int = 40) -> None:
    """The functions the server spent its samples in: inclusive and own share, from py-spy's raw
    (collapsed) stacks; a function that recurses is counted once per stack."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = [re.sub(r":\d+\)$", ")", f) for f in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + n
        own[frames[-1]] = own.get(frames[-1], 0) + n
    print(f"\nserver profile: {total} samples (busy only); inclusive % / own %")
    for frame, n in sorted(inclusive.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{100 * n / total:6.1f} {100 * own.get(frame, 0) / total:6.1f}  {frame}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=500, help="rooms of 4 clients")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds played before measuring")
    parser.add_argument("--rate", type=float, default=0.0, help="moves per second in all; 0: unlimited")
    parser.add_argument("--line-share", type=float, default=0.1, help="share of clients on the line endpoint")
    parser.add_argument("--workers", type=int, default=2, help="generator processes")
    parser.add_argument("--games", type=int, default=64, help="games planned in advance (seeds)")
    parser.add_argument("--connect-concurrency", type=int, default=50, help="handshakes at once per worker")
    parser.add_argument("--url", help="an already running server's ws://127.0.0.1:PORT/ws")
    parser.add_argument("--line-port", type=int, help="with --url: its line port")
    parser.add_argument("--pid", type=int, help="with --url: its process id, for CPU and memory")
    parser.add_argument("--data", help="the started server's SQLite file (default: a temporary one)")
    parser.add_argument("--log-level", default="warning", help="the started server's log level")
    parser.add_argument("--no-relay", action="store_true", help="skip the bare relay baseline")
    parser.add_argument(
        "--compression",
        choices=("none", "deflate"),
        default="none",
        help="the server's WebSocket compression, and so the relay's",
    )
    parser.add_argument(
        "--event-loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the server's event loop, and so the relay's",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--profile", help="run the server under py-spy; write its raw samples here")
    args = parser.parse_args(argv)
    if args.url:
        host = args.url.split("//", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
        if host not in LOOPBACK:
            parser.error("--url must point at loopback")
        if args.line_share > 0 and args.line_port is None:
            parser.error("--line-share needs --line-port with --url")
    if not 0 <= args.line_share <= 1 or args.rooms < 1 or args.seconds <= 0:
        parser.error("--line-share is 0 to 1; --rooms and --seconds are positive")
    raise_open_files()
    t = time.monotonic()
    plans = plan_games(args.games, 1000)
    print(f"planned {len(plans)} games in {time.monotonic() - t:.1f} s", file=sys.stderr)
    game = figures(game_phase(args, plans))
    relay = None
    if not args.no_relay:
        relay_phase_ = relay_phase(args, game)
        relay = figures(relay_phase_)
    report(args, game, relay)
    if args.profile:
        summarise_profile(args.profile)
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "game": game, "relay": relay}, indent=2))
    return 0 if game["errors"] == 0 and (relay is None or relay["errors"] == 0) else 1


if __name__ == "__main__":
    sys.exit(main())
