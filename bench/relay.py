"""A bare ``websockets`` relay: the transport alone, as the baseline for ``bench/load.py``.

It uses the same server library with the same settings as the game server (``serve`` with the
same compression, ``max_size`` and keep-alive, the same event loop and garbage collector
thresholds), and does nothing but relay, frame for frame as the game server answers a move: a
client's first frame names its room; for every later frame the sender gets an answer of
``--ack-size`` characters (the game server's ``ack``), and each member of the room (the sender
included) a frame of ``--size`` characters (its patch), then one of ``--event-size`` (the
``played`` message; 0 sends none). Each relayed frame starts with the number the received frame
starts with and a letter, ``a``, ``p`` or ``e``, so that clients can tell which one it is.

With ``--line-port``, line clients (plain TCP, as the game server's telnet-like endpoint) meet in
the same rooms: their first line names the room, each later line is a move, and for every move a
line member gets one line of ``--line-size`` bytes (the text a line client of the game server
reads a move: its ``played`` line, and the board when its turn comes), in one write, starting
with the move's number and ``l``. A line member's move gets no answer, as a line client's ``ack``
has no text.

    python bench/relay.py --port 0 [--size 350] [--ack-size 30] [--event-size 150]
                          [--line-port 0 --line-size 400]
                          [--compression none|deflate] [--event-loop uvloop|asyncio]

It prints one JSON line ``{"event": "listening", "port": ...}`` on stderr and runs until SIGTERM
or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import resource
import signal
import sys
from collections.abc import Sequence

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

#: the game server's settings (server/app.py, server/config.py)
MAX_FRAME = 16384
PING = 20


Member = ServerConnection | asyncio.StreamWriter


class Relay:
    """Rooms of connections; each frame goes to every member of the sender's room."""

    def __init__(self, size: int, ack_size: int, event_size: int, line_size: int = 0) -> None:
        self.size = size
        self.ack_size = ack_size
        self.event_size = event_size
        self.line_size = line_size
        self.rooms: dict[str, list[Member]] = {}

    async def handle(self, connection: ServerConnection) -> None:
        members: list[Member] | None = None
        try:
            async for frame in connection:
                text = frame if isinstance(frame, str) else frame.decode()
                if members is None:
                    members = self.rooms.setdefault(text, [])
                    members.append(connection)
                    await connection.send("joined")
                    continue
                head = text[: text.index("|") + 1]
                if self.ack_size:
                    await connection.send((head + "a").ljust(self.ack_size, "x"))
                await self.relay(members, head)
        except ConnectionClosed:
            pass
        finally:
            if members is not None:
                members.remove(connection)

    async def handle_line(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        members: list[Member] | None = None
        try:
            while line := await reader.readline():
                text = line.decode().rstrip("\r\n")
                if members is None:
                    members = self.rooms.setdefault(text, [])
                    members.append(writer)
                    writer.write(b"joined\r\n")
                    continue
                await self.relay(members, text[: text.index("|") + 1])
        except (ConnectionError, ConnectionClosed):
            pass
        finally:
            if members is not None:
                members.remove(writer)
            writer.close()

    async def relay(self, members: list[Member], head: str) -> None:
        patch = (head + "p").ljust(self.size, "x")
        event = (head + "e").ljust(self.event_size, "x") if self.event_size else None
        for member in members:
            if isinstance(member, asyncio.StreamWriter):
                member.write(((head + "l").ljust(self.line_size - 2, "x") + "\r\n").encode())
                continue
            await member.send(patch)
            if event is not None:
                await member.send(event)


async def run(args: argparse.Namespace) -> None:
    relay = Relay(args.size, args.ack_size, args.event_size, args.line_size)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    def young_pass() -> None:  # as the game server's (server.app.YoungPasses)
        gc.collect(0)
        loop.call_later(1.0, young_pass)

    loop.call_later(1.0, young_pass)
    if args.line_port is not None:  # listening before the WebSocket port says the relay is ready
        await asyncio.start_server(relay.handle_line, args.host, args.line_port, limit=MAX_FRAME)
    async with serve(
        relay.handle,
        args.host,
        args.port,
        max_size=MAX_FRAME,
        compression=None if args.compression == "none" else "deflate",
        ping_interval=PING,
        ping_timeout=PING,
    ) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        print(json.dumps({"event": "listening", "port": bound}), file=sys.stderr, flush=True)
        await stop.wait()


def raise_open_files() -> None:
    """As many open files as the hard limit allows: one per connection."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to listen on")
    parser.add_argument("--port", type=int, default=0, help="port (0 picks a free one)")
    parser.add_argument("--size", type=int, default=350, help="characters of the frame each member gets")
    parser.add_argument("--ack-size", type=int, default=0, help="characters of the sender's answer; 0: none")
    parser.add_argument("--event-size", type=int, default=0, help="characters of a second frame; 0: none")
    parser.add_argument("--line-port", type=int, help="port for line clients (none: no line clients)")
    parser.add_argument("--line-size", type=int, default=400, help="bytes of a line member's text a move")
    parser.add_argument(
        "--event-loop", choices=("uvloop", "asyncio"), default="uvloop", help="as the server's"
    )
    parser.add_argument("--compression", choices=("none", "deflate"), default="none", help="as the server's")
    args = parser.parse_args(argv)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("the relay listens on loopback only")
    raise_open_files()
    gc.freeze()  # the garbage collector as the game server sets it (server.app.collect_garbage_seldom)
    gc.set_threshold(100_000, 250, 100)
    # the game server's choice (server.app.loop_factory), without importing the server
    factory = None
    if args.event_loop == "uvloop":
        with contextlib.suppress(ImportError):
            import uvloop

            factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
