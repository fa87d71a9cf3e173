"""Sanctions as one node enforces them: who may log in, who may chat, and what a staff action does
to the connections of this node.

A ban, kick or silence is kept in the store (:class:`server.log.contract.ModerationStore`): the
node a person connects to reads it at ``hello`` (so it holds on every node and after a restart),
and a silence is kept on the connection from then on (``Session.silenced``). An action taken
anywhere reaches the connections it concerns as an :class:`Action`, applied by every node to its
own (:meth:`Enforcer.apply`): one node alone, or each node of a cluster through Redis.

A guest's sanction holds for its address too, for the guests who say ``hello`` from it later:
registered players from the address log in as themselves, and those connected already (who may
share the address) stay as they are.
"""

from __future__ import annotations

import asyncio
import collections
import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final, Literal

import structlog

from protocol import messages as m
from protocol.errors import Close, ProtocolError
from protocol.i18n import Msg, _
from protocol.outgoing import Outgoing
from protocol.text.moderation import utc, when_text
from server.log.contract import Sanction
from server.session import Session

log = structlog.get_logger("cafe.moderation")

#: how long a kicked name (and a kicked guest's address) cannot come back
KICK_SECONDS: Final = 600.0
#: the public chat lines a report keeps
EXCERPT_LINES: Final = 50
#: the messages a silenced person may not send (a new name would shed the silence in /who, and
#: leave the staff without the name they silenced; a new room or tournament is a name all read;
#: ``register``, which would shed a guest's address's silence, is refused where the terminal's
#: password prompt is refused too: ``account_commands.check_secret_asked``)
HUSHED: Final = frozenset({m.Say, m.Tell, m.TellReply, m.Invite, m.Nick})

_UNITS: Final = {"m": 60, "h": 3600, "d": 86400}

#: what a kicked or banned connection reads last, by the kind and whether a reason was given
_GOODBYES: Final[dict[tuple[str, bool], Msg]] = {
    ("kick", True): _("You are kicked by {by} for 10 minutes, {when}: {reason}"),
    ("kick", False): _("You are kicked by {by} for 10 minutes, {when}."),
    ("ban", True): _("You are banned by {by}, {when}: {reason}"),
    ("ban", False): _("You are banned by {by}, {when}."),
}


def end_that_holds(sanctions: Iterable[Sanction], kind: str, until: float | None) -> float | None:
    """When a sanction of ``kind`` just given until ``until`` ends, among those that hold
    (``sanctions``, it included or not): a later one is not shortened by it (``None``: for good).

    >>> ban = Sanction(1, "ban", "bob", None, by="mia", reason="spam", since=0.0, until=500.0)
    >>> end_that_holds([ban], "ban", 300.0), end_that_holds([ban], "silence", 300.0)
    (500.0, 300.0)
    >>> end_that_holds([ban], "ban", None)
    """
    held = [s.until for s in sanctions if s.kind == kind]
    return None if until is None or None in held else max([until, *(u for u in held if u is not None)])


def duration_seconds(text: str) -> float | None:
    """The seconds a duration stands for; ``None`` for ``perm`` (for good).

    >>> duration_seconds("30m"), duration_seconds("2h"), duration_seconds("7d"), duration_seconds("perm")
    (1800, 7200, 604800, None)
    """
    if text == "perm":
        return None
    found = re.fullmatch(m.DURATION_PATTERN, text)
    if found is None:
        raise ValueError(f"not a duration: {text!r}")
    return int(text[:-1]) * _UNITS[text[-1]]


ActionKind = Literal["kick", "ban", "silence", "unsilence", "announce", "close", "report", "role"]


@dataclass(frozen=True, slots=True)
class Action:
    """What a staff action does to connections, on every node: ``kick``/``ban`` close the
    connections of ``name`` (``address``: a guest's, for the record), ``silence``/``unsilence`` change
    whether they may chat, ``announce`` tells everyone ``text``, ``close`` ends ``room``,
    ``report`` tells the staff of a new report (``text`` its summary), ``role`` tells ``name`` of
    the role given (``text``: ``moderator``) or taken (``none``)."""

    kind: ActionKind
    name: str = ""
    address: str | None = None
    until: float | None = None
    reason: str = ""
    by: str = ""
    text: str = ""
    room: str = ""


def banned_text(s: Sanction, name: str) -> Msg:
    """What ``name``, barred by ``s``, reads at ``hello``: why, and until when. A guest held by
    another guest's sanction on its address reads neither that guest's name nor the reason (an
    address may be a whole household's or school's)."""
    if s.name.casefold() != name.casefold():
        if s.kind == "kick":
            return _(
                "A guest from your address was kicked by the staff: guests from it may come back after"
                " {when} UTC. A registered player logs in as themselves.",
                when=utc(s.until or time.time()),
            )
        if s.until is None:
            return _(
                "Guests from your address are banned for good. A registered player logs in as themselves."
            )
        return _(
            "Guests from your address are banned until {when} UTC. A registered player logs in as"
            " themselves.",
            when=utc(s.until),
        )
    if s.kind == "kick":
        return _(
            "{name} was kicked by the staff; come back after {when} UTC.",
            name=s.name,
            when=utc(s.until or time.time()),
        )
    if s.until is None:
        if not s.reason:
            return _("{name} is banned for good.", name=s.name)
        return _("{name} is banned for good: {reason}", name=s.name, reason=s.reason)
    if not s.reason:
        return _("{name} is banned until {when} UTC.", name=s.name, when=utc(s.until))
    return _("{name} is banned until {when} UTC: {reason}", name=s.name, when=utc(s.until), reason=s.reason)


def silenced_text(until: float) -> Msg:
    """What a silenced person reads when they try to chat."""
    if math.isinf(until):
        return _(
            "You are silenced for good: you may play, but not chat, tell, invite, change your name,"
            " or open a new room or a tournament."
        )
    return _(
        "You are silenced until {when} UTC: you may play, but not chat, tell, invite, change your"
        " name, or open a new room or a tournament.",
        when=utc(until),
    )


class Enforcer:
    """The sanctions on this node's connections. ``sessions`` gives them all; ``leave`` takes one
    out of its room to the lobby (the lobby's way); ``close_room`` ends a room this node owns."""

    def __init__(
        self,
        sessions: Callable[[], Iterable[Session]],
        leave: Callable[[Session], None],
        close_room: Callable[[str, str], bool],
    ) -> None:
        self._sessions = sessions
        self._leave = leave
        self._close_room = close_room
        self._closing: set[asyncio.Task[None]] = set()
        #: who reads reports as they come: this node's staff (casefolded names), kept by the lobby
        self.staff: set[str] = set()

    # --- at hello and for every chat message ---------------------------------------------------

    @staticmethod
    def barring(found: list[Sanction], name: str, registered: bool) -> Sanction | None:
        """The ban or kick of ``found`` that keeps ``name`` out (its own; its address's too for a
        guest): of several, the one that ends last, as it is the one that holds (a ban before a
        kick that ends with it)."""
        key = name.casefold()
        barring = [
            s for s in found if s.kind in ("ban", "kick") and (not registered or s.name.casefold() == key)
        ]
        return max(barring, key=_lasting, default=None)

    @staticmethod
    def silences(found: list[Sanction], name: str, registered: bool) -> dict[str, float]:
        """The silences of ``found`` that hold ``name`` (its own; its address's too for a guest),
        by the name each silenced: until when (``inf``: for good)."""
        key = name.casefold()
        held: dict[str, float] = {}
        for s in found:
            by = s.name.casefold()
            if s.kind == "silence" and (by == key or not registered):
                held[by] = max(held.get(by, 0.0), _end(s))
        return held

    @staticmethod
    def hushed(session: Session, msg_id: m.ClientId) -> None:
        """Refuse chat, a tell, an invitation, a new name, room or tournament from a silenced
        person (``silenced``)."""
        until = session.silenced
        if until and time.time() < until:
            raise ProtocolError("silenced", silenced_text(until), msg_id)

    # --- staff actions, applied to this node's connections --------------------------------------

    def _concerned(self, action: Action) -> list[Session]:
        """This node's connections of ``action.name``. (A guest's address is held at ``hello``:
        others from the address who are connected already, who may share it, stay as they are.)"""
        key = action.name.casefold()
        return [
            s for s in self._sessions() if s.name is not None and not s.closed and s.name.casefold() == key
        ]

    def _silenced_by(self, action: Action) -> list[Session]:
        """This node's connections that a silence of ``action.name`` holds: its own, and guests
        who came later from its address."""
        key = action.name.casefold()
        return [s for s in self._sessions() if s.name is not None and not s.closed and key in s.silences]

    def apply(self, action: Action) -> int:
        """Do ``action`` to this node's connections; how many it reached."""
        if action.kind in ("kick", "ban"):
            return self._close(action)
        if action.kind == "silence":
            until = math.inf if action.until is None else action.until
            concerned = self._concerned(action)
            key = action.name.casefold()
            for s in concerned:
                hold(s, {key: until})
                s.send(m.Notice(text=silenced_text(s.silenced)))  # (the end that holds)
            return len(concerned)
        if action.kind == "unsilence":
            concerned = self._silenced_by(action)
            free = _("You may chat, tell, invite, change your name and open rooms and tournaments again.")
            for s in concerned:
                release(s, action.name.casefold())
                if s.silenced <= time.time():  # (another silence may still hold: a guest's address's)
                    s.send(m.Notice(text=free))
            return len(concerned)
        if action.kind == "announce":
            notice = Outgoing(
                m.Notice(text=_("Announcement from {name}: {text}", name=action.by, text=action.text))
            )
            sessions = [s for s in self._sessions() if s.name is not None]
            for s in sessions:
                s.send(notice)
            return len(sessions)
        if action.kind == "close":
            return self._room_closed(action)
        if action.kind == "role":
            return self._role_changed(action)
        return self._reported(action)

    def _close(self, action: Action) -> int:
        concerned = self._concerned(action)
        goodbye = _GOODBYES[action.kind, bool(action.reason)]
        for s in concerned:
            params = {"by": action.by, "when": when_text(action.until, s.lang), "reason": action.reason}
            s.send(m.Bye(reason=Msg(goodbye.msgid, params)))
            task = asyncio.get_running_loop().create_task(self._close_after(s, action.kind))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        return len(concerned)

    @staticmethod
    async def _close_after(session: Session, kind: str) -> None:
        """Close ``session`` once its goodbye is written (or a second has passed)."""
        await session.drain(1.0)
        await session.close(Close.POLICY, "" if session.transport == "line" else kind)

    def _room_closed(self, action: Action) -> int:
        """Close the room if it is this node's; everyone here in it goes to the lobby, told why."""
        self._close_room(action.room, action.reason)
        key = action.room.casefold()
        notice = m.Notice(
            text=_(
                "The room {room} was closed by {by}: {reason}",
                room=action.room,
                by=action.by,
                reason=action.reason,
            )
            if action.reason
            else _("The room {room} was closed by {by}.", room=action.room, by=action.by)
        )
        inside = [s for s in self._sessions() if s.room is not None and s.room.name.casefold() == key]
        for s in inside:  # (each reads room_closed from the room, after what it answered before)
            self._leave(s)
            s.send(notice)
        return len(inside)

    def _role_changed(self, action: Action) -> int:
        """Tell ``name``, connected here, of the role given or taken."""
        concerned = self._concerned(action)
        notice = m.Notice(
            text=_("You are a moderator now: /help lists the staff's commands.")
            if action.text == "moderator"
            else _("You are no longer a moderator.")
        )
        for s in concerned:
            s.send(notice)
        return len(concerned)

    def _reported(self, action: Action) -> int:
        """Tell this node's staff of a new report, but the staff member it reports."""
        reported = action.name.casefold()
        told = [
            s
            for s in self._sessions()
            if s.name is not None and s.name.casefold() in self.staff and s.name.casefold() != reported
        ]
        notice = m.Notice(text=_("New report: {summary} (/reports)", summary=action.text))
        for s in told:
            s.send(notice)
        return len(told)


def excerpt(
    heard: collections.deque[tuple[float, Outgoing]] | None, name: str, where: str | None
) -> list[str]:
    """The public chat lines a reporter read (``heard``: when, and the chat, oldest first) in the
    places where ``name`` spoke among them, or where ``name`` is now (``where``: a room, or ``""``
    for the lobby); the last :data:`EXCERPT_LINES` of them, each ``HH:MM [room] <name> text``."""
    if not heard:
        return []
    lines = [(when, out.message) for when, out in heard]
    chats = [(when, c) for when, c in lines if isinstance(c, m.Chat)]
    key = name.casefold()
    places = {c.room or "" for _when, c in chats if c.name.casefold() == key}
    if where is not None:
        places.add(where)
    kept = [(when, c) for when, c in chats if (c.room or "") in places][-EXCERPT_LINES:]
    return [
        f"{time.strftime('%H:%M', time.gmtime(when))} [{c.room or 'lobby'}] <{c.name}> {c.text}"
        for when, c in kept
    ]


def hold(session: Session, silences: dict[str, float]) -> None:
    """``session`` is held by ``silences`` too (by the name each silenced, until when)."""
    for key, until in silences.items():
        session.silences[key] = max(session.silences.get(key, 0.0), until)
    _recount(session)


def release(session: Session, key: str) -> None:
    """The silence of the name ``key`` (casefolded) no longer holds ``session``."""
    session.silences.pop(key, None)
    _recount(session)


def _recount(session: Session) -> None:
    # (``silenced``, read at every message, is the latest end of the silences kept)
    session.silenced = max(session.silences.values(), default=0.0)


def _end(s: Sanction) -> float:
    """When ``s`` ends (``inf``: for good)."""
    return math.inf if s.until is None else s.until


def _lasting(s: Sanction) -> tuple[float, bool]:
    """How long ``s`` holds: its end, a ban before a kick."""
    return (_end(s), s.kind == "ban")
