"""The line endpoint for telnet-like clients: UTF-8 lines in, text out.

Telnet negotiation bytes are stripped; CRLF, LF and CR NUL all end a line. The server asks for a
name (``NAME`` or ``NAME TOKEN`` to resume), then every line is a chat command.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog

from protocol import messages as m
from protocol import text
from protocol.diff import apply_patch
from protocol.errors import ProtocolError
from server.lobby import Lobby
from server.session import Outgoing, Session
from server.ws import turned_away

log = structlog.get_logger("cafe.line")

IAC, SB, SE = 255, 250, 240
WILL, WONT, DO, DONT = 251, 252, 253, 254
PROMPT = "Your name (or NAME TOKEN to come back): "


def strip_telnet(data: bytes) -> bytes:
    """Remove telnet commands and negotiations (IAC ...) from a line's bytes."""
    if IAC not in data:
        return data
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b != IAC:
            out.append(b)
            i += 1
            continue
        cmd = data[i + 1] if i + 1 < n else None
        if cmd == IAC:
            out.append(IAC)
            i += 2
        elif cmd in (WILL, WONT, DO, DONT):
            i += 3
        elif cmd == SB:
            end = data.find(bytes([IAC, SE]), i + 2)
            i = n if end < 0 else end + 2
        else:
            i += 2
    return bytes(out)


def pack(items: list[str], separator: str, width: int) -> list[str]:
    """Lines of at most ``width`` columns holding whole items (a two-card move is never split)."""
    lines: list[str] = []
    line = ""
    for item in items:
        candidate = f"{line}{separator}{item}" if line else item
        if line and len(candidate) > width:
            lines.append(line + separator.rstrip())
            line = item
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


class LineSession(Session):
    """A line client: server messages are rendered as text for people."""

    transport = "line"

    def __init__(
        self, writer: asyncio.StreamWriter, *, outbox: int, slow_strikes: int, ascii_only: bool
    ) -> None:
        peer = writer.get_extra_info("peername")
        super().__init__(
            outbox=outbox, slow_strikes=slow_strikes, peer=f"{peer[0]}:{peer[1]}" if peer else ""
        )
        self.writer = writer
        self.view: dict[str, Any] | None = None
        self.ascii_only = ascii_only

    def _write_now(self, batch: list[tuple[Outgoing, int]]) -> bool:
        # the text of everything queued goes out in one write: a move's patch, line and board
        lines = [line for out, _ in batch for line in self.render(out.message)]
        if lines:
            self.writer.write(("\r\n".join(lines) + "\r\n").encode())
        return self.writer.transport.get_write_buffer_size() > 0

    async def _writable(self) -> None:
        await self.writer.drain()

    async def say(self, line: str) -> None:
        """Write a line directly (before the session has a name)."""
        self.writer.write(line.encode())
        await self.writer.drain()

    async def _close(self, code: int, reason: str) -> None:
        if reason:
            self.writer.write(f"* {reason}\r\n".encode())
        try:
            await asyncio.wait_for(self.writer.drain(), 1.0)
        except (TimeoutError, ConnectionError, OSError):
            self.writer.transport.abort()  # a peer that reads nothing is cut off, not waited for
            return
        self.writer.close()

    def render(self, msg: m._ServerMessage) -> list[str]:
        """The text a person reads for one server message."""
        if isinstance(msg, m.Snapshot):
            self.view = msg.view
            return self._room_lines()
        if isinstance(msg, m.Patch):
            if self.view is not None:
                self.view = apply_patch(self.view, msg.ops)
            return []
        if isinstance(msg, m.Welcome):
            return [
                f"Hello {msg.name}! To come back after a lost connection, answer the name prompt with:",
                f"  {msg.name} {msg.token}",
                "/rooms lists rooms, /join NAME enters one and takes a seat, /help lists every command.",
            ]
        if isinstance(msg, m.Error):
            return [f"! {msg.message} [{msg.code}]"]
        if isinstance(msg, m.Ack | m.Pong):
            return []
        if isinstance(msg, m.Chat):
            return [f"<{msg.name}> {msg.text}"]
        if isinstance(msg, m.Presence):
            words = {
                "entered": "enters the room",
                "left": "leaves the room",
                "joined": "takes a seat",
                "unseated": "gives up the seat",
                "back": "is back",
                "away": "lost the connection",
                "replaced_by_bot": "is played by a bot for now",
                "renamed": "changed name",
            }
            detail = f" ({msg.detail})" if msg.detail else ""
            return [f"* {msg.name} {words[msg.event]}{detail}"]
        if isinstance(msg, m.Notice):
            return [f"* {msg.text}"]
        if isinstance(msg, m.Text):
            return msg.text.splitlines()
        if isinstance(msg, m.Rooms):
            if not msg.rooms:
                return ["No rooms yet. /join NAME opens one."]
            return [
                f"{r.name:<24} {r.state:<8} seats: {', '.join(s.name for s in r.seats) or '-'}"
                f"  watching: {r.spectators}"
                for r in msg.rooms
            ]
        if isinstance(msg, m.WhoList):
            return [f"{p.name:<16} {p.kind:<6} {p.room or '(lobby)'}" for p in msg.people]
        if isinstance(msg, m.GameStarted):
            return [
                f"* The game starts: {', '.join(msg.players)}. {msg.start_player} begins.",
                f"* Shuffle fingerprint sha256(seed) = {msg.seed_hash}",
                *self._turn_lines(),
            ]
        if isinstance(msg, m.Played):
            return [text.render_played(msg.player, msg.move, msg.points, msg.events), *self._turn_lines()]
        if isinstance(msg, m.Eliminated):
            return []  # the played line already says so
        if isinstance(msg, m.GameOver):
            ranking = ", ".join(f"{n} {msg.final_scores[n]}" for n in msg.ranking)
            return [
                f"* Game over ({msg.reason}): {ranking}.",
                f"* The seed was {msg.seed}. /start plays again.",
            ]
        if isinstance(msg, m.LegalMoves):
            if not msg.moves:
                return ["No legal moves."]
            return [f"{len(msg.moves)} legal moves:", *pack(msg.moves, ", ", 78)]
        if isinstance(msg, m.Hint):
            return [f"Hint: {msg.move} ({msg.points:+d})"]
        if isinstance(msg, m.Bye):
            return [f"* {msg.reason}"]
        return []

    def _room_lines(self) -> list[str]:
        view = self.view
        if view is None:
            return []
        lines = [f"* You are in room {view['room']} ({view['state']})."]
        if view["game"] is not None:
            lines.extend(text.render_board(view, ascii_only=self.ascii_only).splitlines())
        else:
            seats = ", ".join(s["name"] for s in view["seats"]) or "nobody"
            lines.append(f"* Seated: {seats}. /join takes a seat, /addbot adds a bot, /start begins.")
        return lines

    def _turn_lines(self) -> list[str]:
        view = self.view
        if view is None or view["game"] is None or view["state"] != "playing" or view["game"]["over"]:
            return []
        if view["game"]["to_move"] == self.name:
            board = text.render_board(view, ascii_only=self.ascii_only).splitlines()
            return [*board, "* /moves lists your legal moves, /hint suggests one."]
        return []


async def serve_line_client(lobby: Lobby, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Run one line client until it goes."""
    if not lobby.can_accept():
        error = turned_away(lobby)
        writer.write(f"! {error.message} [{error.code}]\r\n".encode())
        with contextlib.suppress(Exception):
            await writer.drain()
        writer.close()
        return
    session = LineSession(
        writer, outbox=lobby.config.outbox, slow_strikes=lobby.config.slow_strikes, ascii_only=False
    )
    lobby.attach(session)
    session.start()
    try:
        await session.say("Welcome to Café International!\r\n" + PROMPT)
        while not session.closed:
            try:
                raw = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError:
                break
            except asyncio.LimitOverrunError:
                lobby.error(session, "too_large", f"Lines are at most {lobby.config.max_line} bytes.")
                await session.drain(1.0)
                await session.close(1008, "line too long")
                break
            line = strip_telnet(raw).replace(b"\x00", b"").decode("utf-8", "replace").strip()
            if session.name is None:
                await _ask_name(lobby, session, line)
            elif not await lobby.receive_line(session, line):
                await session.drain(1.0)
                await session.close(1000, "Goodbye!")
                break
    except (ConnectionError, OSError):
        pass
    finally:
        lobby.detach(session)
        session.closed = True
        await session.wait_closed()
        with contextlib.suppress(Exception):
            writer.close()


async def _ask_name(lobby: Lobby, session: LineSession, line: str) -> None:
    if not line:
        await session.say(PROMPT)
        return
    parts = line.split()
    token = parts[1] if len(parts) > 1 else None
    try:
        await lobby.handle(session, m.Hello(name=parts[0][:64], token=token[:64] if token else None))
    except ProtocolError as e:
        await session.say(f"! {e.message}\r\n{PROMPT}")
