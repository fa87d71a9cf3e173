"""The generator's side of the wire: a TCP connection handed to a client as bytes arrive, the
WebSocket client (RFC 6455) and the line client (telnet-like)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import zlib
from typing import Any, Protocol

from websockets.frames import apply_mask

from bench.loadgen.tally import Tally
from protocol.text.lines import PROMPT


class Client(Protocol):
    """What a connection hands what it reads to: a client of ``bench.loadgen.clients``."""

    name: str
    worker: Tally

    def on_text(self, text: str) -> None: ...
    def on_line(self, line: str) -> None: ...
    def lost(self, why: str) -> None: ...


WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
_PROMPT = PROMPT.encode()


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


# Why not websockets' sans-I/O ``ClientProtocol``: the generator shares the machine's cores with the
# server it measures, so every microsecond it spends is taken from the server. This client does only
# what the benchmark needs, in the protocol callback. bench/wsframes.py measures both on a move's
# frames: sending a move takes 0.74 us of CPU here against 1.45 us, receiving a frame 0.64 us here
# against 2.5 us (best of 3, Python 3.11, websockets 17.4, shared 2-core x86_64). At the 18,000
# frames a second of a full-speed run that is about 0.035 core less for the generator to take.
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
            end = buffer.find(_PROMPT)
            if end < 0:
                return
            del buffer[: end + len(_PROMPT)]
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


class BareLines(Lines):
    """A line connection to the bare relay, which greets nobody: ready once connected."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.ready.set_result(None)
