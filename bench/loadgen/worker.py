"""One generator process: its share of the rooms, driven by the main process's commands over a pipe."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import time
from multiprocessing.connection import Connection as PipeEnd
from typing import Any

from bench.loadgen.clients import Client, LineClient, RelayClient, RelayLineClient, Room, WsClient
from bench.loadgen.plan import CONNECT_TIMEOUT, DRAIN_TIMEOUT, STEP_TIMEOUT, WorkerSpec, raise_open_files
from bench.loadgen.tally import Tally


class Worker(Tally):
    """One generator process: its share of the rooms, driven by the main process's commands."""

    def __init__(self, conn: PipeEnd, spec: WorkerSpec) -> None:
        super().__init__(spec)
        self.conn = conn
        self.rooms = [Room(self, r) for r in spec.rooms]
        for room in self.rooms:
            for seat, name in enumerate(room.names()):
                line = room.spec.line_seats[seat]
                cls: type[Client]
                if spec.mode == "relay":
                    cls = RelayLineClient if line else RelayClient
                else:
                    cls = LineClient if line else WsClient
                room.clients.append(cls(room, seat, name))

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
            elif command[0] == "head":
                await self.play_heads()
                self.conn.send(("headed",))
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

    async def play_heads(self) -> None:
        """Each room plays the head of its first game (``RoomSpec.head``), all at once."""
        heads = [room.play_head() for room in self.rooms if self.spec.mode == "game" and room.spec.head > 0]
        if heads:
            await asyncio.wait_for(asyncio.gather(*heads), CONNECT_TIMEOUT)

    async def play(self, start: float, warm_end: float, end: float) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        self.window = (warm_end, end)
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        self.moving = True
        pacer = loop.create_task(self.pace(start, end)) if self.spec.rate > 0 else None
        for room in self.rooms:
            if self.spec.mode == "game":
                room.go_on()
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
            "line_moves_out": self.line_moves_out,
            "line_move_bytes": self.line_move_bytes,
            "line_moves": self.line_moves,
            "line_bytes": self.line_bytes,
            "games": self.games,
            "join_retries": self.join_retries,
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
    gc.freeze()  # the garbage collector's thresholds as the server set them before its young passes
    gc.set_threshold(5_000, 50, 100)
    asyncio.run(Worker(conn, spec).run())
