"""Sessions: one per connection, each with a bounded outbox.

A room never waits for a client: ``send`` only queues. What is queued in one turn of the event
loop is written at its end, in one write to the socket; a connection whose socket cannot take
more gets a task that waits until it can, while its outbox fills. When a client falls behind and
its outbox fills, the queue is emptied, every further message but a snapshot is dropped, and the
room is asked for a fresh snapshot; after ``slow_strikes`` such resyncs the connection is closed.
In the lobby, where there is no view to send afresh, the queue is emptied with a notice that says
so, and what comes after goes as ever.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import secrets
import time
import weakref
from collections.abc import Callable
from typing import Any, Literal, Protocol

import structlog
from mypy_extensions import mypyc_attr
from websockets.exceptions import ConnectionClosed

from protocol.errors import Close
from protocol.i18n import DEFAULT, Lang, _, lang
from protocol.messages import ClientId, GameStarted, Notice, Resync, Snapshot, _ServerMessage
from protocol.names import alike
from protocol.outgoing import Outgoing, answer_start
from server.peers import address_key
from server.ratelimit import TokenBucket
from server.ratings import ACCOUNT

__all__ = ["Kind", "Outgoing", "RoomRef", "Session"]


class RoomRef(Protocol):
    """Where a session's room commands go: a room actor here, or a room owned by another node."""

    @property
    def name(self) -> str: ...

    def post(self, session: Session | None, message: Any) -> None: ...

    def reread(self, session: Session) -> None:
        """``session`` reads differently now (``/lang``, ``/ascii``): a room that keeps its own copy
        of the member learns it at once, not with the member's next message."""


log = structlog.get_logger("cafe.session")

#: closes in the background, kept until done (the loop holds tasks only weakly)
_closing: set[asyncio.Task[None]] = set()

#: how the text of a ``game_started`` begins
_GAME_STARTED = '{"seq":0,"type":"game_started",'

#: the characters of JSON a connection may have queued, unsent, besides its ``--outbox`` of
#: messages: a client that stops reading while it asks for long answers (``who`` of thousands)
#: falls behind at this, not at hundreds of them held (a message alone is queued at any size)
OUTBOX_BYTES = 1 << 20

Kind = Literal["person", "bot"]


class _Flushes:
    """The sessions with messages queued in this turn of an event loop, flushed in one callback
    at its end (one callback a turn, not one for each session a move reaches)."""

    __slots__ = ("_due",)

    def __init__(self) -> None:
        # (not the loop itself: it is this object's key in ``_flushes``, held weakly)
        self._due: list[Session] = []

    def add(self, session: Session) -> None:
        if not self._due:
            session._loop.call_soon(self._run)
        self._due.append(session)

    def _run(self) -> None:
        due, self._due = self._due, []
        for session in due:
            session._flush()


_flushes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Flushes] = weakref.WeakKeyDictionary()


def _flushes_of(loop: asyncio.AbstractEventLoop) -> _Flushes:
    flushes = _flushes.get(loop)
    if flushes is None:
        flushes = _flushes[loop] = _Flushes()
    return flushes


#: the messages a reader's mutes hold back, by the start of their JSON text
_MUTABLE = tuple(f'"type":"{t}"' for t in ("chat", "tell", "invited"))


def _from_muted(out: Outgoing, muted: dict[str, str]) -> bool:
    """Whether ``out`` is chat, a tell or an invitation by someone in ``muted`` (by the names'
    look-alike forms: muting a name mutes whoever has a name that looks like it)."""
    head = out.json[:40]
    if not any(t in head for t in _MUTABLE):
        return False
    name = getattr(out.message, "name", None)
    return isinstance(name, str) and alike(name) in muted


# compiled (compiled/__init__.py), and derived from by the transports, which stay Python
@mypyc_attr(allow_interpreted_subclasses=True)
class Session:
    """A connected client. Transports subclass it with ``_write`` and ``_close``."""

    transport = "?"

    def __init__(self, *, outbox: int = 256, slow_strikes: int = 3, peer: str = "") -> None:
        self.name: str | None = None
        #: a cluster-wide id of this connection
        self.sid = secrets.token_hex(8)
        self.kind: Kind = "person"
        self.token: str | None = None
        #: the player behind the connection, the same across resumes (their games are theirs)
        self.identity: str | None = None
        self.room: RoomRef | None = None
        #: waiting for a table (``/seek``)
        self.seeking = False
        #: a seat asked for (``join``) while seeking, whose answer ends the seek if it is an
        #: ``ack`` (a refused one changes nothing): the start of that answer's text, and what
        #: ends the seek
        self.join_asked: tuple[str, Callable[[], None]] | None = None
        #: while seeking, what ends the seek once a game starts in which this connection plays (a
        #: seat taken in a room before its start): nobody plays two games at once
        self.seek_ends: Callable[[], None] | None = None
        self.peer = peer
        self.seq = 0
        self.closed = False
        #: text in plain ASCII only (a line client's ``/ascii on``); other transports send no text
        self.ascii_only = False
        #: the language of the texts for people this connection reads (``hello``'s ``lang``, ``/lang``)
        self.lang: Lang = lang(DEFAULT)
        self._limit = outbox
        # a list, not a deque: an empty deque takes a 600-byte block, and the outbox is taken whole
        self._queue: list[Outgoing] = []
        #: the characters of the messages queued (of their JSON)
        self._queued = 0
        self._flushing = False  # a write is scheduled, or a writer waits for the socket
        self._dropping = False
        self._strikes_left = slow_strikes
        self._loop: asyncio.AbstractEventLoop  # set by start()
        self._flushes: _Flushes  # set by start()
        self._writer: asyncio.Task[None] | None = None  # while waiting for the socket
        # rate limits, set by the lobby when the connection is attached
        self.bucket = TokenBucket(1e9, 1_000_000)
        self.chat_bucket = TokenBucket(1e9, 1_000_000)
        self.comings_bucket = TokenBucket(1e9, 1_000_000)
        self.strikes = 0
        #: whose chat, tells and invitations this reader never gets: the look-alike form of each
        #: name muted, and the name in lower case
        self.muted: dict[str, str] = {}
        #: until when (Unix time; ``inf``: for good) this person may not chat, tell or invite: a
        #: silence by the staff (0: none); the latest end of ``silences``
        self.silenced = 0.0
        #: the silences that hold this person, by the casefolded name silenced: their own, and
        #: for a guest those of others from its address (each lifted with its name's /unsilence)
        self.silences: dict[str, float] = {}
        #: how many of the public chat lines this person read last to keep, with when (a report's
        #: excerpt): set by the lobby, for people (0: none)
        self.hears = 0
        #: those lines, once the first arrives (most connections never read a chat line)
        self.heard: collections.deque[tuple[float, Outgoing]] | None = None

    # --- what the rest of the server calls -------------------------------------------------

    def ask_join(self, msg_id: ClientId, taken: Callable[[], None]) -> None:
        """A ``join`` (``msg_id``) goes to a room while this connection seeks: ``taken`` once the
        room answers it with an ``ack``."""
        self.join_asked = (answer_start(msg_id), taken)

    def start(self) -> None:
        """Ready to send: call it on the event loop, before the first ``send``."""
        self._loop = asyncio.get_running_loop()
        self._flushes = _flushes_of(self._loop)

    def send(self, message: _ServerMessage | Outgoing) -> None:
        """Queue a message; never waits."""
        if self.closed:
            return
        out = message if isinstance(message, Outgoing) else Outgoing(message)
        if self.join_asked is not None and out.json.startswith(self.join_asked[0]):
            head, taken = self.join_asked
            if out.json.startswith('"type":"ack"', len(head)):
                self.join_asked = None
                taken()
            elif out.json.startswith('"type":"error"', len(head)):
                self.join_asked = None
        if self.seek_ends is not None and out.json.startswith(_GAME_STARTED) and self._plays(out):
            ends, self.seek_ends = self.seek_ends, None
            ends()
        if not self.lang.english:
            out = out.localized(self.lang)
        if self.muted and _from_muted(out, self.muted):
            return
        if self.hears and out.json.find('"type":"chat"', 0, 30) >= 0:  # (no copy of the text)
            heard = self.heard
            if heard is None:
                heard = self.heard = collections.deque(maxlen=self.hears)
            heard.append((time.time(), out))
        if self._dropping:
            # (back in the lobby before the snapshot came: nothing is to be sent afresh)
            if not isinstance(out.message, Snapshot) and self.room is not None:
                return
            self._dropping = False
        elif len(self._queue) >= self._limit or (self._queue and self._queued + len(out.json) > OUTBOX_BYTES):
            self._fall_behind()
            return
        self._queue.append(out)
        self._queued += len(out.json)
        if not self._flushing:
            self._flushing = True
            self._flushes.add(self)

    def _plays(self, out: Outgoing) -> bool:
        """Whether this connection's player is among the players of the game ``out`` starts."""
        started = out.message
        return isinstance(started, GameStarted) and self.name in started.players

    @property
    def registered(self) -> bool:
        """Whether the connection's player has an account (logged in, or registered here)."""
        return self.identity is not None and self.identity.startswith(ACCOUNT)

    @property
    def address(self) -> str:
        """The address the per-address limits and a guest's sanctions count this connection by
        (:func:`server.peers.address_key`: without its port, an IPv6 one as its /64)."""
        return address_key(self.peer)

    @property
    def pending(self) -> int:
        return len(self._queue)

    async def drain(self, timeout: float) -> None:
        """Wait (up to ``timeout``) until everything queued has been written."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._queue and not self.closed and loop.time() < deadline:
            await asyncio.sleep(0.01)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the connection (idempotent)."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):
            await self._close(code, reason)

    def close_soon(self, code: int, reason: str) -> None:
        """Send nothing more from now on, and close in the background (a newer connection of the
        same player took over)."""
        if self.closed:
            return
        self.closed = True
        self._queue.clear()
        self._queued = 0
        task = asyncio.get_running_loop().create_task(self._close_quietly(code, reason))
        _closing.add(task)
        task.add_done_callback(_closing.discard)

    def close_after_drain(self, code: int, reason: str, within: float) -> None:
        """Close in the background once what is queued now and just after (this turn of the loop)
        has been written, or ``within`` seconds have passed."""
        task = asyncio.get_running_loop().create_task(self._close_drained(code, reason, within))
        _closing.add(task)
        task.add_done_callback(_closing.discard)

    async def _close_drained(self, code: int, reason: str, within: float) -> None:
        await self.drain(within)
        await self.close(code, reason)

    async def _close_quietly(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self._close(code, reason)

    async def wait_closed(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer

    # --- transport hooks -------------------------------------------------------------------

    def _write_now(self, batch: list[Outgoing], first: int) -> bool:
        """Hand messages to the socket in order, without waiting, the first of them with the
        ``seq`` ``first`` and each next one with the next; ``True`` when the socket holds bytes it
        could not send yet, so that the next write waits."""
        raise NotImplementedError

    async def _writable(self) -> None:
        """Wait until the socket can take more (flow control)."""
        raise NotImplementedError

    async def _close(self, code: int, reason: str) -> None:
        raise NotImplementedError

    # --- internals ---------------------------------------------------------------------------

    def _fall_behind(self) -> None:
        self._queue.clear()
        self._queued = 0
        self._strikes_left -= 1
        log.warning("slow_client", player=self.name, strikes_left=self._strikes_left)
        if self._strikes_left <= 0:
            # closed from now on: what it sent and is still buffered is not read any more
            self.close_soon(Close.TRY_AGAIN, _("too slow to keep up"))
            return
        room = self.room
        if room is None:  # no view to send afresh: what comes next goes, after a word on the loss
            self.send(Notice(text=_("You fell behind: what the server sent you meanwhile was dropped.")))
            return
        self._dropping = True
        room.post(self, Resync())  # the room answers with a snapshot, wherever it runs

    def _take(self) -> tuple[list[Outgoing], int]:
        """The queue, emptied, and the ``seq`` of its first message."""
        queue, self._queue = self._queue, []
        self._queued = 0
        first = self.seq + 1
        self.seq += len(queue)
        return queue, first

    def _flush(self) -> None:
        """Write everything queued: a move's patch and its message go out together."""
        try:
            if self._queue and not self.closed and self._write_now(*self._take()):
                self._writer = self._loop.create_task(self._write_when_writable())
                return
        except Exception as e:
            self._failed(e)
        self._flushing = False

    async def _write_when_writable(self) -> None:
        try:
            while not self.closed:
                await self._writable()
                if not self._queue:
                    break
                self._write_now(*self._take())
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._failed(e)
        finally:
            self._writer = None
            self._flushing = False

    def _failed(self, error: Exception) -> None:
        if isinstance(error, ConnectionError | OSError | ConnectionClosed):
            # the connection broke: the reader side notices and cleans up
            log.debug("write_failed", player=self.name, error=repr(error))
        else:
            log.error("writer_failed", player=self.name, exc_info=error)
        self.closed = True
