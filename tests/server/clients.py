"""Test clients that talk to a real server over real sockets and record every byte they receive."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from websockets.asyncio.client import ClientConnection, connect

from protocol.diff import apply_patch

TIMEOUT = 10.0
#: more turns than any game takes: a game loop that reaches it fails rather than hangs
MAX_TURNS = 5000
#: every client opened by a test, closed by the fixture at its end
OPEN: list[WsClient | LineClient] = []


async def until(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Poll ``condition()`` as the event loop runs; fail naming ``what`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        await asyncio.sleep(0.01)


async def eventually(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 20.0) -> None:
    """Poll the asynchronous ``check`` (a question to Redis, say) until it holds; fail naming
    ``what`` when it never does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, f"never: {what}"
        await asyncio.sleep(0.25)


class WsClient:
    """A JSON client: tracks its view from the first snapshot and every patch, checks ``seq``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.raw: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.token: str | None = None
        self.name: str | None = None
        self._ids = itertools.count(1)
        self._unread: list[dict[str, Any]] = []  # received, not yet taken by ``next``
        OPEN.append(self)

    @classmethod
    async def connect(
        cls, port: int, name: str | None = None, *, host: str = "127.0.0.1", **hello: Any
    ) -> WsClient:
        at = f"[{host}]" if ":" in host else host
        # max_queue=None: every frame is read off the socket as it comes, read by the test or not;
        # with websockets' flow control (16 frames) a client with frames left unread stops
        # reading, never sees the server's closing handshake, and its close() waits the whole
        # close_timeout (10 s)
        client = cls(await connect(f"ws://{at}:{port}/ws", max_size=2**22, max_queue=None))
        if name is not None:
            welcome = await client.request({"type": "hello", "name": name, **hello})
            assert welcome["type"] == "welcome", welcome
            client.token = welcome["token"]
            client.name = welcome["name"]
        return client

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def _receive(self, timeout: float) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(raw, str)
        self.raw.append(raw)
        message = json.loads(raw)
        self.seq += 1
        assert message["seq"] == self.seq, f"seq {message['seq']} after {self.seq - 1}"
        if message["type"] == "snapshot":
            self.view = message["view"]
        elif message["type"] == "patch":
            assert self.view is not None, "a patch before any snapshot"
            self.view = apply_patch(self.view, message["ops"])
        self.messages.append(message)
        self._unread.append(message)
        return message

    async def next(
        self, predicate: Callable[[dict[str, Any]], bool] | str, timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        """The oldest message not taken yet that matches (a type name or a predicate); the
        messages it passes over stay for later calls."""
        test = (lambda m: m["type"] == predicate) if isinstance(predicate, str) else predicate
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for i, message in enumerate(self._unread):
                if test(message):
                    del self._unread[i]
                    return message
            await self._receive(max(0.01, deadline - loop.time()))

    def take_all(self) -> list[dict[str, Any]]:
        """Every message not taken yet, now taken."""
        taken, self._unread = self._unread, []
        return taken

    async def request(self, message: dict[str, Any], timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send with a fresh id and return the answer that echoes it."""
        msg_id = next(self._ids)
        await self.send({**message, "id": msg_id})
        return await self.next(lambda m: m.get("id") == msg_id and m["type"] != "snapshot", timeout)

    async def command(self, text: str) -> dict[str, Any]:
        return await self.request({"type": "command", "text": text})

    async def barrier(self, timeout: float = TIMEOUT) -> None:
        """Send ``ping`` and read up to its ``pong``: everything the server queued for this client
        before it answered the ping has then been received (into ``messages``)."""
        await self.request({"type": "ping"}, timeout)

    async def settle(self, quiet: float = 0.2, limit: float = TIMEOUT) -> None:
        """Read until nothing arrives for ``quiet`` seconds; fail if messages still come after
        ``limit`` seconds. (To know that nothing else was sent, ``barrier`` is the exact tool.)"""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        try:
            while loop.time() < deadline:
                await self._receive(quiet)
        except TimeoutError:
            return
        raise AssertionError(f"messages kept coming for {limit} s: {self.messages[-3:]}")

    async def close(self) -> None:
        await self.ws.close()


class LineClient:
    """A telnet-like client: lines of text, everything received kept."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.received = bytearray()
        self._pos = 0
        OPEN.append(self)

    @classmethod
    async def connect(cls, port: int, name: str | None = None) -> LineClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        client = cls(reader, writer)
        await client.expect("Your name")
        if name is not None:
            await client.line(name)
            await client.expect(f"Hello {name}!")
        return client

    async def line(self, text: str, end: bytes = b"\r\n") -> None:
        self.writer.write(text.encode() + end)
        await self.writer.drain()

    async def expect(self, needle: str, timeout: float = TIMEOUT) -> str:
        """Read until ``needle`` appears after what earlier calls consumed; return the text up to it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        target = needle.encode()
        while True:
            found = self.received.find(target, self._pos)
            if found >= 0:
                text = self.received[self._pos : found + len(target)].decode(errors="replace")
                self._pos = found + len(target)
                return text
            chunk = await asyncio.wait_for(self.reader.read(65536), max(0.01, deadline - loop.time()))
            if not chunk:
                raise ConnectionError(f"closed while waiting for {needle!r}: {self.text()[-500:]}")
            self.received += chunk

    def text(self) -> str:
        return self.received.decode(errors="replace")

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


class HttpAnswer(NamedTuple):
    """An answer over HTTP: its status, its headers (by lower-case name) and its body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


async def http_get(port: int, path: str, token: str | None = None, accept: str | None = None) -> HttpAnswer:
    """``GET path`` on a connection of its own, read until the server closes it: with ``token`` as
    the bearer (``Authorization: Bearer``) and ``accept`` as ``Accept``, when given."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    head += f"Accept: {accept}\r\n" if accept else ""
    head += f"Authorization: Bearer {token}\r\n" if token else ""
    writer.write(f"{head}Connection: close\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    answer, _, body = data.partition(b"\r\n\r\n")
    lines = answer.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return HttpAnswer(int(lines[0].split()[1]), headers, body)


async def game_result(port: int, game: str) -> dict[str, Any] | None:
    """The result of finished ``game`` as ``GET /api/games/ID`` gives it (``None`` while it runs)."""
    answer = await http_get(port, f"/api/games/{game}")
    assert answer.status == 200, answer
    result: dict[str, Any] | None = answer.json()["result"]
    return result


async def end_reason(port: int, game: str) -> str:
    """Why ``game`` ended, once it has (asked over HTTP until it has, within :func:`eventually`)."""

    async def over() -> bool:
        return await game_result(port, game) is not None

    await eventually(over, f"game {game} over")
    result = await game_result(port, game)
    assert result is not None
    return str(result["reason"])


async def bot_game(client: WsClient, room: str) -> str:
    """``client`` joins ``room``, seats a greedy bot beside them and starts: the game's id."""
    assert (await client.command(f"/join {room}"))["type"] == "ack"
    assert (await client.command("/addbot greedy"))["type"] == "ack"
    assert (await client.command("/start"))["type"] == "ack"
    return str((await client.next("game_started"))["game"])


def chat_form(move: str) -> str:
    """The chat command a person types for a move."""
    if move.endswith("@bar"):
        return "/bar " + move.removesuffix("@bar")
    if move.startswith("swap "):
        return "/swap " + move.removeprefix("swap ")
    return "/play " + move


async def raw_websocket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket opened by hand: its frames are written as bytes, and nothing is read (or
    answered: a ping from the server stays unanswered) unless the test reads it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    return reader, writer
