"""The line endpoint for telnet-like clients: UTF-8 lines in, text out.

Telnet negotiation bytes are stripped; CR LF, LF, CR NUL and a bare CR all end a line. A line that
is not UTF-8 is answered with ``bad_utf8`` and ignored; control characters typed are dropped. The
server asks for a name (``NAME`` or ``NAME TOKEN`` to resume), then every line is a chat command.
``/ascii on|off`` is answered here, at the prompt too: it sets whether the connection's text is
plain ASCII (after the name, a registered player's account keeps it); ``/lang de|en`` at the
prompt chooses the language before the name is given. What the text says is ``protocol.text``'s;
this module only moves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Final

import structlog

from protocol import messages as m
from protocol.commands import AskSecret, parse_command, parse_terminal_command
from protocol.errors import UNAVAILABLE, Close, ProtocolError
from protocol.i18n import _, lang, number
from protocol.names import FIELD_MAX, is_name
from protocol.sanitize import sanitize_line
from protocol.text import to_ascii
from protocol.text.lines import (
    GREETING,
    LANGUAGE_SET,
    PROMPT,
    LineText,
    ascii_set,
    closing,
    fold,
    name_refused,
)
from server.limits import Limits, hello_deadline, security_event
from server.lobby.account_commands import check_secret_asked
from server.lobby.accounts import MAX_PASSWORD
from server.lobby.choices import ascii_chosen
from server.lobby.lobby import MAX_STRIKES, SLOW_DOWN, Lobby
from server.log.contract import StoreUnavailable
from server.net.ws import turned_away
from server.peers import address_key, peer_text, proxy_v1
from server.session import Outgoing, Session

log = structlog.get_logger("cafe.line")

IAC, SB, SE = 255, 250, 240
WILL, WONT, DO, DONT = 251, 252, 253, 254


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


class LineSplitter:
    """Bytes in, lines out: CR LF, LF, CR NUL and a bare CR each end one line (a CR followed by
    LF or NUL in the next read still ends just one).

    >>> splitter = LineSplitter(80)
    >>> splitter.feed(b"a\\r"), splitter.feed(b"\\nb\\rc\\n\\nd")
    ([b'a'], [b'b', b'c', b''])
    >>> splitter.pending
    1
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._after_cr = False  # the last line ended with CR: a LF or NUL right after belongs to it

    @property
    def pending(self) -> int:
        """Bytes received of a line not yet ended."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """The lines ``data`` completes. Raises ``ValueError`` when a line grows past ``limit``."""
        lines: list[bytes] = []
        start = 0
        if self._after_cr and data[:1] in (b"\n", b"\x00"):
            start = 1
        self._after_cr = False
        n = len(data)
        i = start
        while i < n:
            b = data[i]
            if b == 10 or b == 13:
                self._buffer += data[start:i]
                if len(self._buffer) > self.limit:
                    raise ValueError("line too long")
                lines.append(bytes(self._buffer))
                self._buffer.clear()
                i += 1
                if b == 13:
                    if i == n:
                        self._after_cr = True
                    elif data[i] in (10, 0):
                        i += 1
                start = i
            else:
                i += 1
        self._buffer += data[start:]
        if len(self._buffer) > self.limit:
            raise ValueError("line too long")
        return lines


class LineSession(Session):
    """A line client: server messages are rendered as text for people."""

    transport = "line"

    def __init__(
        self,
        writer: asyncio.StreamWriter,
        *,
        peer: str,
        outbox: int,
        slow_strikes: int,
        ascii_only: bool,
    ) -> None:
        super().__init__(outbox=outbox, slow_strikes=slow_strikes, peer=peer)
        self.writer = writer
        self.text = LineText()
        self.ascii_only = ascii_only
        #: a password being asked for, echo off: what is asked, the prompts from the one waiting for
        #: its answer on, the answers so far
        self.secret: tuple[str, list[str], list[str]] | None = None

    def _write_now(self, batch: list[Outgoing], first: int) -> bool:
        # the text of everything queued goes out in one write: a move's line and board
        lines: list[str] = []
        for out in batch:
            if out.views is not None:  # a patch of a room here: no text, the view comes from the room
                self.text.follow(out.views, self.name)
            else:
                lines += self.render(out.message)
        if lines:
            self.writer.write(("\r\n".join(lines) + "\r\n").encode())
        return self.writer.transport.get_write_buffer_size() > 0

    async def _writable(self) -> None:
        await self.writer.drain()

    async def say(self, line: str) -> None:
        """Write a line directly (before the session has a name)."""
        line = self.lang(line)
        self.writer.write((to_ascii(line) if self.ascii_only else line).encode())
        await self.writer.drain()

    async def _close(self, code: int, reason: str) -> None:
        if reason:
            line = closing(reason, self.lang)
            lines = fold([to_ascii(line) if self.ascii_only else line])
            self.writer.write(("\r\n".join(lines) + "\r\n").encode())
        try:
            await asyncio.wait_for(self.writer.drain(), 1.0)
        except (TimeoutError, ConnectionError, OSError):
            self.writer.transport.abort()  # a peer that reads nothing is cut off, not waited for
            return
        self.writer.close()

    def render(self, msg: m._ServerMessage) -> list[str]:
        """The text a person reads for one server message."""
        return self.text.render(msg, reader=self.name, ascii_only=self.ascii_only, lang=self.lang)


async def serve_line_client(
    lobby: Lobby, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limits: Limits
) -> None:
    """Run one line client until it goes."""
    try:
        peer = await _client(reader, writer, limits)
    except ConnectionError:  # closed before a byte came (a balancer's plain TCP check, say)
        writer.transport.abort()
        return
    if peer is None:
        security_event(lobby.metrics, "proxy_header_refused", peer=_peer(writer))
        writer.transport.abort()
        return
    if not lobby.can_accept():
        error = turned_away(lobby)
        await _refuse(writer, f"! {error.message} [{error.code}]\r\n".encode())
        return
    address = address_key(peer)  # (an IPv6 address counts by its /64)
    if not limits.per_address.acquire(address):
        security_event(lobby.metrics, "per_ip_cap", transport="line", address=address)
        await _refuse(writer, b"* Too many connections from your address; try again later.\r\n")
        return
    try:
        await _serve(lobby, reader, writer, limits, peer)
    finally:
        limits.per_address.release(address)


def _peer(writer: asyncio.StreamWriter) -> str:
    """``HOST:PORT`` of the connection's other end."""
    return peer_text(writer.get_extra_info("peername"))


async def _client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limits: Limits) -> str | None:
    """The client (``HOST:PORT``) of a line connection: the connection's other end, or, when that
    is a trusted proxy, the client its PROXY protocol v1 header names (``None`` when the header
    does not come within the hello timeout, or is not one; ``ConnectionError`` when the connection
    closed before it sent anything)."""
    peer = _peer(writer)
    if not limits.proxies.trusts(peer.rpartition(":")[0]):
        return peer
    try:
        async with asyncio.timeout(limits.hello_timeout):
            header = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial:
            raise ConnectionError("closed before a byte") from None
        return None
    except (TimeoutError, asyncio.LimitOverrunError):
        return None
    client = proxy_v1(header)
    return peer if client == "" else client


async def _refuse(writer: asyncio.StreamWriter, line: bytes) -> None:
    writer.write(line)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer.drain(), 1.0)
    writer.close()


async def _serve(
    lobby: Lobby, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limits: Limits, peer: str
) -> None:
    session = LineSession(
        writer,
        peer=peer,
        outbox=lobby.config.outbox,
        slow_strikes=lobby.config.slow_strikes,
        ascii_only=False,
    )
    lobby.attach(session)
    session.start()

    #: the hello deadline, and a second one for a registered name's password prompt (once)
    deadlines: list[asyncio.TimerHandle] = []

    def named() -> bool:
        return session.name is not None

    async def too_late() -> None:
        if session.closed:  # (it ended while this was on its way: its timers are cancelled)
            return
        logging_in = session.secret is not None and session.secret[0].startswith("login:")
        if logging_in and len(deadlines) == 1:
            deadlines.append(hello_deadline(limits.hello_timeout, named, too_late))
            return
        security_event(lobby.metrics, "hello_timeout", transport="line", peer=session.peer)
        seconds = number(limits.hello_timeout)
        if logging_in:
            session.writer.write(ECHO_ON)  # (the prompt had turned the terminal's echo off)
            goodbye = _("No password given within {seconds} seconds; goodbye.", seconds=seconds)
        else:
            goodbye = _("No name given within {seconds} seconds; goodbye.", seconds=seconds)
        session.writer.write(b"\r\n")  # (the prompt ends no line: the goodbye starts one of its own)
        await session.close(Close.POLICY, goodbye)

    deadlines.append(hello_deadline(limits.hello_timeout, named, too_late))
    splitter = LineSplitter(lobby.config.max_line)
    try:
        await session.say(f"{GREETING}\r\n{session.lang(PROMPT)}")
        while not session.closed:
            data = await reader.read(4096)
            if not data:
                break
            try:
                lines = splitter.feed(data)
            except ValueError:
                lobby.error(session, "too_large", _("Lines are at most {n} bytes.", n=lobby.config.max_line))
                await session.drain(1.0)
                await session.close(Close.POLICY, _("line too long"))
                break
            for raw in lines:
                if session.closed or not await _line(lobby, session, raw):
                    break
    except (ConnectionError, OSError):
        pass
    finally:
        for deadline in deadlines:
            deadline.cancel()
        lobby.detach(session)
        session.closed = True
        await session.wait_closed()
        with contextlib.suppress(Exception):
            writer.close()


#: what an empty line at a terminal counts as of the message rate: twenty of them one message
EMPTY_LINE: Final = 1 / 20

#: an HTTP request line (``POST / HTTP/1.1``), which no terminal sends as a name
_HTTP_REQUEST: Final = re.compile(r"[A-Z]+ \S+ HTTP/\d(\.\d)?")


async def _line(lobby: Lobby, session: LineSession, raw: bytes) -> bool:
    """Handle one line; ``False`` once the connection is to end."""
    if session.strikes >= MAX_STRIKES:  # it flooded: its last refusal is written, then it closes
        return True
    raw = strip_telnet(raw)
    if not raw.strip() and session.name is not None and session.secret is None:
        # an empty line is nothing typed: ignored, and counted as a part of a message (a paste's
        # blank lines, a CR after each LF), so that a flood of them is still one (a strike each
        # past the rate, unanswered)
        lobby.over_limit(session, EMPTY_LINE)
        return True
    if lobby.over_limit(session):  # every other line counts: at the name prompt, a password, a command
        if session.name is None:
            lobby.metrics.errors.labels(code="rate_limited").inc()
            await session.say(name_refused(SLOW_DOWN, "rate_limited", session.lang))
        else:
            lobby.error(session, "rate_limited", SLOW_DOWN)
        return True
    try:
        line = sanitize_line(raw.decode("utf-8"))
    except UnicodeDecodeError:
        security_event(lobby.metrics, "bad_utf8", player=session.name, peer=session.peer)
        message = _("That line is not valid UTF-8 text; it was ignored.")
        if session.name is None:
            lobby.metrics.errors.labels(code="bad_utf8").inc()
            await session.say(f"! {session.lang(message)} [bad_utf8]\r\n{session.lang(PROMPT)}")
        else:
            lobby.error(session, "bad_utf8", message)
        return True
    if session.secret is not None:
        await _secret_line(lobby, session, line)
        return True
    if line.startswith("/") and await _terminal_command(lobby, session, line):
        return True
    if session.name is None and line.lower().split()[:1] == ["/lang"]:
        await _prompt_language(session, line)
        return True
    if session.name is None and _HTTP_REQUEST.fullmatch(line):
        # a browser's request: a page of another site, its name pointed at this machine (DNS
        # rebinding), may post lines here; none of them is a person's
        security_event(lobby.metrics, "http_on_line", peer=session.peer)
        await session.close(Close.POLICY, "not a terminal")
        return False
    if session.name is None and line.startswith("/"):
        return await _command_at_prompt(lobby, session, line)
    if session.name is None:
        await _ask_name(lobby, session, line)
        return True
    if line.startswith("/") and await _secret_command(lobby, session, line):
        return True
    if not await lobby.receive_line(session, line, session.text.asked):
        await session.drain(1.0)
        await session.close(Close.NORMAL, _("Goodbye!"))
        return False
    return True


async def _command_at_prompt(lobby: Lobby, session: LineSession, line: str) -> bool:
    """A command at the name prompt (``/lang`` and ``/ascii`` are answered before): ``/quit``
    leaves; any other waits for a name, and says so (no name begins with ``/``)."""
    if line.split()[0].lower() == "/quit":
        await session.close(Close.NORMAL, _("Goodbye!"))
        return False
    lobby.metrics.errors.labels(code="hello_first").inc()
    hint = _("Type your name first; commands work once you have one (here: /lang, /ascii, /quit).")
    await session.say(name_refused(hint, "hello_first", session.lang))
    return True


async def _prompt_language(session: LineSession, line: str) -> None:
    """``/lang de|en`` at the name prompt: the prompt, and everything after, in that language."""
    try:
        command = parse_command(line)
    except ProtocolError as e:
        await session.say(name_refused(e.message, e.code, session.lang))
        return
    assert isinstance(command, m.SetLang)  # the line's first word is /lang
    session.lang = lang(command.lang)
    await session.say(f"* {session.lang(LANGUAGE_SET[command.lang])}\r\n{session.lang(PROMPT)}")


#: what every resume token looks like (``secrets.token_hex(16)``)
_TOKEN_SHAPE: Final = re.compile("[0-9a-f]{32}")


async def _ask_name(lobby: Lobby, session: LineSession, line: str) -> None:
    if not line:
        await session.say(session.lang(PROMPT))
        return
    parts = line.split()
    # NAME TOKEN comes back; a first word that is no name is refused as a name (``/join cafe``
    # typed at the prompt), not as a token, and so are a second word that is no token's shape
    # (``Hans Mueller``) and three words or more (``my name is ann``)
    token = parts[1] if len(parts) == 2 and is_name(parts[0]) else None
    if len(parts) > 2 or (token is not None and not _TOKEN_SHAPE.fullmatch(token)):
        parts, token = [line.strip()], None
    try:
        registered = token is None and is_name(parts[0]) and await lobby.accounts.is_registered(parts[0])
    except (StoreUnavailable, OSError, TimeoutError):  # the accounts cannot be read just now
        lobby.metrics.errors.labels(code="unavailable").inc()
        await session.say(name_refused(UNAVAILABLE, "unavailable", session.lang))
        return
    if registered:
        await _ask_secret(session, "login:" + parts[0], [_("Password: ")])
        return
    try:
        await lobby.handle(
            session,
            m.Hello(
                name=parts[0][:FIELD_MAX], token=token[:FIELD_MAX] if token else None, lang=_chosen(session)
            ),
        )
    except ProtocolError as e:
        message = e.message
        if e.code == "bad_token":  # (a WebSocket client is told to say hello without it)
            message = _("That resume token no longer holds; type your name alone.")
        await session.say(name_refused(message, e.code, session.lang))


# the terminal stops echoing what is typed while the server "will echo" (and echoes nothing)
ECHO_OFF = bytes([IAC, WILL, 1])
ECHO_ON = bytes([IAC, WONT, 1])
_SECRET_PROMPTS: dict[str, list[str]] = {
    "register": [_("Password: "), _("Password again: ")],
    "password": [_("Current password: "), _("New password: "), _("New password again: ")],
    "unregister": [_("Password: ")],
}


async def _ask_secret(session: LineSession, what: str, prompts: list[str]) -> None:
    """Ask for passwords with the terminal's echo off."""
    session.secret = (what, prompts, [])
    session.writer.write(ECHO_OFF + session.lang(prompts[0]).encode())
    await session.writer.drain()


async def _secret_line(lobby: Lobby, session: LineSession, line: str) -> None:
    """One answer to a password prompt; the last one turns the echo on and does what was asked.
    The passwords go nowhere else: not into the log, not back to the terminal."""
    assert session.secret is not None
    what, prompts, answers = session.secret
    if not line:  # Enter alone (no password is empty): asked again, no attempt made
        session.writer.write(b"\r\n" + session.lang(prompts[0]).encode())
        return
    answers.append(line)
    if prompts[1:]:
        session.secret = (what, prompts[1:], answers)
        session.writer.write(b"\r\n" + session.lang(prompts[1]).encode())
        return
    session.secret = None
    session.writer.write(ECHO_ON + b"\r\n")
    message: m.Hello | m.Register | m.ChangePassword | m.Unregister
    try:
        # a new password longer than a WebSocket field is refused as that field is; one given to
        # be checked is cut to it, as passwords set here before were stored
        new = answers[:2] if what == "register" else answers[1:] if what == "password" else []
        if any(len(answer) > MAX_PASSWORD for answer in new):
            raise ProtocolError("bad_field", _("A password has at most {n} characters.", n=MAX_PASSWORD))
        given = answers[0][:MAX_PASSWORD]
        if what.startswith("login:"):
            message = m.Hello(
                name=what.removeprefix("login:")[:FIELD_MAX], password=given, lang=_chosen(session)
            )
        elif what == "register":
            if answers[0] != answers[1]:
                raise ProtocolError("bad_arguments", _("The two passwords differ; /register again."))
            message = m.Register(password=answers[0])
        elif what == "password":
            if answers[1] != answers[2]:
                raise ProtocolError("bad_arguments", _("The two new passwords differ; /password again."))
            message = m.ChangePassword(old=given, new=answers[1])
        else:
            message = m.Unregister(password=given)
        await lobby.handle(session, message)
    except ProtocolError as e:
        if session.name is None:
            await session.say(name_refused(e.message, e.code, session.lang))
        else:
            lobby.error(session, e.code, e.message, e.id)


async def _secret_command(lobby: Lobby, session: LineSession, line: str) -> bool:
    """``/register``, ``/password`` or ``/unregister`` without arguments: ask for the passwords
    (or refuse at once what they would be asked for in vain)."""
    words = line[1:].split(maxsplit=1)
    if not words or words[0].lower() not in _SECRET_PROMPTS:
        return False  # any other command (a move, mostly) is parsed once, by the lobby
    try:
        command = parse_command(line)
    except ProtocolError:
        return False  # the lobby answers it
    if not isinstance(command, AskSecret):
        return False
    try:
        await check_secret_asked(lobby, session, command.what)
    except ProtocolError as e:
        lobby.error(session, e.code, e.message)
        return True
    await _ask_secret(session, command.what, _SECRET_PROMPTS[command.what])
    return True


async def _terminal_command(lobby: Lobby, session: LineSession, line: str) -> bool:
    """Answer ``/ascii``, which only the connection knows; ``False`` for any other line."""
    try:
        command = parse_terminal_command(line)
    except ProtocolError as e:
        if session.name is None:
            await session.say(name_refused(e.message, e.code, session.lang))
        else:
            lobby.error(session, e.code, e.message)
        return True
    if command is None:
        return False
    try:  # a registered player's account keeps the choice first
        await ascii_chosen(lobby.store, session, command.on)
    except (StoreUnavailable, OSError, TimeoutError):
        lobby.error(session, "unavailable", UNAVAILABLE)
        return True
    session.ascii_only = command.on
    if session.room is not None:
        session.room.reread(session)
    if session.name is None:
        await session.say(f"* {session.lang(ascii_set(command.on))}\r\n{session.lang(PROMPT)}")
    else:
        session.send(m.Notice(text=ascii_set(command.on)))
    return True


def _chosen(session: LineSession) -> str | None:
    """The language chosen at the prompt for ``hello``: none while English, so that a registered
    name reads the language its account keeps."""
    return None if session.lang.english else session.lang.code
