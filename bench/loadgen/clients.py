"""The clients of the load generator, in the worker processes: a room's four clients and the moves
in flight, and one client per connection (JSON over WebSocket, text over the line endpoint, or
frames of the bare relay).

Clients are asyncio protocols whose callbacks do all the work as bytes arrive: no task and no
await per message, so that the generator spends little of the CPU it shares with the server."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from bench.loadgen.plan import SEATS, STEP_TIMEOUT, GamePlan, RoomSpec
from bench.loadgen.tally import Tally
from bench.loadgen.wire import BareLines, Connection, Lines, WebSocket
from protocol.diff import PatchError, apply_patch
from protocol.text import read

#: a seat asked for at most this many times, this many seconds apart, while the answer is
#: ``unavailable`` (a cluster's node, asked to take up hundreds of rooms at once, may answer so)
JOIN_TRIES = 20
JOIN_PAUSE = 0.5


def _unavailable(line: str) -> bool:
    error = read.read_error(line)
    return error is not None and error.code == "unavailable"


class Room:
    """The clients of one room and the moves in flight, keyed by (game, move number)."""

    def __init__(self, worker: Tally, spec: RoomSpec) -> None:
        self.worker = worker
        self.spec = spec
        self.clients: list[Client] = []
        self.game_no = 0
        self.games_started = 0
        self.plan = worker.spec.plans[0] if worker.spec.plans else GamePlan(0, (), ())
        self.sent = 0  # moves sent in the current game (relay: rounds sent)
        self.moves_sent = 0  # in all games
        self.pending: dict[tuple[int, int], list[float]] = {}
        self.played_line = read.played_line(self.names())
        #: while the room plays the head of its first game (``RoomSpec.head``): done when it has
        self.heading: asyncio.Future[None] | None = None
        #: the client whose turn came after the head: it moves on when the clock starts
        self.resume: Client | None = None

    def names(self) -> list[str]:
        kinds = self.spec.line_seats
        return [f"{'l' if kinds[s] else 'w'}{self.spec.index}x{s}" for s in range(SEATS)]

    def head_moves(self) -> int:
        return int(self.spec.head * len(self.plan.moves))

    def play_head(self) -> asyncio.Future[None]:
        """Start the first game and play its head as fast as the server answers; done at its end."""
        self.heading = asyncio.get_running_loop().create_future()
        self.start_game()
        return self.heading

    def head(self, client: Client, game_no: int, played: int) -> bool:
        """While the head is played: send ``client``'s move now, or stop at the head's end (and
        say so); whether the head took the turn."""
        if self.heading is None:
            return False
        if game_no == self.game_no and played == self.sent:
            if played < self.head_moves():
                self.sent = played + 1
                client.send_move(played)
            else:
                self.resume = client
                if not self.heading.done():
                    self.heading.set_result(None)
        return True

    def go_on(self) -> None:
        """The clock started: the game goes on after its head, or the first game starts."""
        self.heading, client, self.resume = None, self.resume, None
        if client is not None:
            client.play_next(self.sent)
        else:
            self.start_game()

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
        self.joining = False  # an ``unavailable`` now is asked again, not counted as an error

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
        if self.room.head(self, self.game_no, played) or not self.room.claim(self.game_no, played):
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
        port, _ = spec.ports(self.room.spec.index, self.seat)
        self.ws = WebSocket(self, "127.0.0.1", port, spec.ws_path)
        await self.connect(self.ws, port)
        await self.request({"type": "hello", "name": self.name})

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message``; its answer, an error too."""
        assert self.ws is not None
        msg_id = next(self.ids)
        self.ws.send_text(json.dumps({**message, "id": msg_id}))
        answer: dict[str, Any] = await self.until(lambda m: m.get("id") == msg_id)
        return answer

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = await self.answer(message)
        if answer["type"] == "error":
            raise RuntimeError(f"{self.name}: {answer['code']}: {answer['message']}")
        return answer

    async def join(self) -> None:
        self.joining = True
        try:
            for _ in range(JOIN_TRIES - 1):
                answer = await self.answer({"type": "join", "room": self.room.spec.name})
                if answer["type"] != "error" or answer["code"] != "unavailable":
                    break
                self.worker.join_retries += 1
                await asyncio.sleep(JOIN_PAUSE)
        finally:
            self.joining = False
        if answer["type"] == "error":
            raise RuntimeError(f"{self.name}: {answer['code']}: {answer['message']}")

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
        elif kind == "error" and not (self.joining and msg["code"] == "unavailable"):
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
        _, port = self.worker.spec.ports(self.room.spec.index, self.seat)
        assert port is not None
        self.lines = Lines(self)
        await self.connect(self.lines, port)
        await self.say(self.name, lambda text: read.read_hello(text) == self.name)

    async def say(self, line: str, expect: Callable[[str], bool]) -> None:
        assert self.lines is not None
        waiting = self.until(expect)
        self.lines.send_line(line)
        await waiting

    async def join(self) -> None:
        def answered(text: str) -> bool:
            return read.read_entered(text) is not None or _unavailable(text)

        self.joining = True
        try:
            for _ in range(JOIN_TRIES - 1):
                waiting = self.until(answered)
                assert self.lines is not None
                self.lines.send_line(f"/join {self.room.spec.name}")
                if not _unavailable(await waiting):
                    return
                self.worker.join_retries += 1
                await asyncio.sleep(JOIN_PAUSE)
        finally:
            self.joining = False
        await self.say(f"/join {self.room.spec.name}", lambda text: read.read_entered(text) is not None)

    def send_move(self, played: int) -> None:
        assert self.lines is not None
        line = f"/play {self.room.plan.moves[played]}"
        self.worker.line_moves_out += 1
        self.worker.line_move_bytes += len(line) + 2
        self.room.sending(played + 1)
        self.lines.send_line(line)

    def restart(self, seed: int) -> None:
        assert self.lines is not None
        self.lines.send_line(f"/option seed {seed}")
        self.lines.send_line("/start")

    def on_line(self, line: str) -> None:
        self.worker.frames += 1
        self.worker.line_bytes += len(line) + 2
        self.expected(line)
        room = self.room
        if read.read_refusal(line) is not None and not (self.joining and _unavailable(line)):
            self.worker.error(f"{self.name}: {line}")
        elif room.played_line.match(line):
            self.worker.line_moves += 1
            self.played += 1
            room.received(self.game_no, self.played)
            self.maybe_move()
        elif read.read_game_started(line) is not None:
            self.game_no += 1
            self.played = 0
            self.maybe_move()
        elif self.seat == 0 and read.read_game_over(line) is not None:
            room.game_over()

    def maybe_move(self) -> None:
        plan = self.room.plan
        n = self.played
        if self.game_no == self.room.game_no and n < len(plan.movers) and plan.movers[n] == self.seat:
            self.play_next(n)


class _RelayMember(Client):
    """What the bare relay's clients share: round ``n`` is sent by seat ``(n - 1) % 4``, and a room
    is joined by naming it."""

    def _send(self, text: str) -> None:
        raise NotImplementedError

    async def join(self) -> None:
        waiting = self.until(lambda text: text == "joined")
        self._send(self.room.spec.name)
        await waiting

    def restart(self, seed: int) -> None:
        self.play_next(0)

    def _relayed(self, number: int) -> None:
        """Move ``number`` reached this client: the next one is its own, or another's."""
        self.room.received(0, number)
        if number % SEATS == self.seat:
            self.play_next(number)


class RelayClient(_RelayMember):
    """A WebSocket client of the bare relay."""

    def __init__(self, room: Room, seat: int, name: str) -> None:
        super().__init__(room, seat, name)
        self.ws: WebSocket | None = None

    async def open(self) -> None:
        spec = self.worker.spec
        self.ws = WebSocket(self, "127.0.0.1", spec.ws_port, spec.ws_path)
        await self.connect(self.ws, spec.ws_port)

    def _send(self, text: str) -> None:
        assert self.ws is not None
        self.ws.send_text(text)

    def send_move(self, played: int) -> None:
        frame = f"{played + 1}|".ljust(self.worker.spec.move_size, "m")
        self.worker.move_bytes += len(frame)
        self.room.sending(played + 1)
        self._send(frame)

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
        self._relayed(int(text[:bar]))


class RelayLineClient(_RelayMember):
    """A line client of the bare relay: sends a move as a line, and reads one line a move, of the
    size of the text a line client of the game server reads a move."""

    def __init__(self, room: Room, seat: int, name: str) -> None:
        super().__init__(room, seat, name)
        self.lines: Lines | None = None

    async def open(self) -> None:
        spec = self.worker.spec
        assert spec.line_port is not None
        self.lines = BareLines(self)
        await self.connect(self.lines, spec.line_port)

    def _send(self, text: str) -> None:
        assert self.lines is not None
        self.lines.send_line(text)

    def send_move(self, played: int) -> None:
        line = f"{played + 1}|".ljust(self.worker.spec.line_move_size - 2, "m")
        self.worker.line_moves_out += 1
        self.worker.line_move_bytes += len(line) + 2
        self.room.sending(played + 1)
        self._send(line)

    def on_line(self, line: str) -> None:
        self.worker.frames += 1
        if line == "joined":
            self.expected(line)
            return
        self.worker.line_bytes += len(line) + 2
        self.worker.line_moves += 1
        self._relayed(int(line[: line.index("|")]))
