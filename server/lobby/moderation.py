"""The staff's commands and the reports: ``report``, ``reports``, ``resolve``, ``moderate`` (kick,
silence, ban, unban, unsilence), ``close``, ``announce``, ``role``, ``modlog``.

Every right is read from the store by the node that acts, at each command (a client's word counts
for nothing): staff are registered accounts with the role ``admin`` or ``moderator``; a moderator
never acts on staff, nor an admin on another admin, nor anyone on themselves. Each action is on
the moderation log before it takes effect: the store writes the entry with the change it makes
(``sanction_added``, ``role_set``, ``report_resolved``), or first (``modlog_appended``). What an
action does to connections goes to every node (:class:`~server.lobby.sanctions.Action`).
"""

from __future__ import annotations

import collections
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol, cast

import structlog

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from protocol.names import NAME_RULE, ROOM_RULE, alike, is_name, is_room_name
from protocol.text.moderation import when_text
from server.directory import Directory
from server.lobby.accounts import Accounts
from server.lobby.background import Background
from server.lobby.sanctions import (
    EXCERPT_LINES,
    HUSHED,
    KICK_SECONDS,
    Action,
    Enforcer,
    banned_text,
    duration_seconds,
    end_that_holds,
    excerpt,
    hold,
    silenced_text,
)
from server.log.contract import GameLog, Report, Role, SanctionKind
from server.metrics import Metrics
from server.room import Leave, Room
from server.room.items import Closing
from server.session import Session

log = structlog.get_logger("cafe.moderation")

#: reports one person may make in an hour (counted in the store, on every node), and one address
#: twice as many (an IPv6 address by its /64; counted by each node)
REPORTS_AN_HOUR: Final = 5
#: entries ``/reports`` and ``/modlog`` show
SHOWN: Final = 50
#: the log's entries a staff member's ``/modlog`` reads back at most for its SHOWN (those of the
#: resolving of reports of them left out)
READ_BACK: Final = 50 * 2**5

Handler = Callable[[Session, Any], Awaitable[None]]

__all__ = ["HUSHED", "Elsewhere", "Moderation"]


class Elsewhere(Protocol):
    """The other nodes of a cluster, as moderation needs them."""

    async def broadcast(self, action: Action) -> None:
        """Have every other node apply ``action`` to its connections."""

    async def address(self, name: str) -> str | None:
        """The address of the guest ``name`` connected to another node, if any."""


class Lobby(Protocol):
    """What moderation uses of the lobby (which imports it: it knows the lobby only by this)."""

    @property
    def store(self) -> GameLog: ...
    @property
    def directory(self) -> Directory: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def accounts(self) -> Accounts: ...
    @property
    def all_sessions(self) -> set[Session]: ...


def _bad_name(name: str, msg_id: m.ClientId) -> ProtocolError:
    return ProtocolError("bad_name", _("A name is {rule}.", rule=NAME_RULE), msg_id)


def _entry(r: Report) -> m.ReportEntry:
    return m.ReportEntry(
        id=r.id,
        reporter=r.reporter,
        name=r.name,
        reason=r.reason,
        excerpt=list(r.excerpt),
        made=r.made,
        resolved=r.resolved,
        resolved_by=r.resolved_by,
        note=r.note or None,
    )


class Moderation:
    """The lobby's moderation: its commands (``handlers``), who may log in (``admit``) and chat
    (``hushed``), the staff's marks (``marked``), and the actions from other nodes (``apply``)."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.store = lobby.store
        self.metrics = lobby.metrics
        self.enforcer = Enforcer(lambda: list(lobby.all_sessions), self._to_lobby, self._close_room)
        #: the other nodes (set in a cluster)
        self.elsewhere: Elsewhere | None = None
        #: when each address made its last reports, on this node
        self._reported: dict[str, collections.deque[float]] = {}
        self._jobs = Background(log)
        self._background = self._jobs.run

    def handlers(self) -> dict[type, Handler]:
        return {
            m.ReportPlayer: self._report,
            m.ListReports: self._reports,
            m.ResolveReport: self._resolve,
            m.Moderate: self._moderate,
            m.CloseRoom: self._close,
            m.Announce: self._announce,
            m.SetRole: self._role,
            m.GetModLog: self._modlog,
        }

    async def start(self) -> None:
        """Read what ``/metrics`` and the staff's notices need (at the server's start)."""
        await self._refresh()

    async def _refresh(self) -> None:
        self.enforcer.staff = {name.casefold() for name in await self.store.staff()}
        await self._count_reports()

    async def _count_reports(self) -> None:
        """``/metrics``' open reports, those of the staff left out: anyone may read the metrics,
        and a staff member reads no report of themselves (nor, so, a count that holds one)."""
        self.metrics.reports_open.set(await self.store.reports_open(hiding=self.enforcer.staff))

    # --- enforcement -------------------------------------------------------------------------

    async def admit(
        self, session: Session, name: str, msg_id: m.ClientId, *, proven: bool = True
    ) -> Callable[[], None]:
        """Whether ``name`` may log in on ``session`` (at ``hello``, or as a new name at ``nick``):
        not while a ban or a kick holds (``banned``, ``kicked``, with the reason the staff gave).
        What it answers keeps on the session the silences that hold the name, to be called once
        the name is the session's (a refusal after this question changes nothing).

        A registered name is the account's owner's to read about: before they have shown it is
        theirs (``proven`` false: a password or a token is still to be checked) its ban is not
        told, and the caller asks again once they have."""
        found = await self.store.sanctions(name, session.address)
        key = name.casefold()
        registered = True  # (only a guest is held by its address's sanctions)
        if any(s.name.casefold() != key for s in found):
            registered = await self.lobby.accounts.is_registered(name)
        barred = Enforcer.barring(found, name, registered)
        if barred is not None:
            if not proven and barred.name.casefold() == key and await self.lobby.accounts.is_registered(name):
                return _nothing
            log.info("refused", player=name, sanction=barred.kind, peer=session.peer)
            if barred.kind == "kick":
                raise ProtocolError("kicked", banned_text(barred, name), msg_id)
            raise ProtocolError("banned", banned_text(barred, name), msg_id)
        silences = Enforcer.silences(found, name, registered)

        def held() -> None:
            if session.name is None:  # a hello: what held an earlier name of the connection goes
                session.silences = {}
            hold(session, silences)
            session.hears = 2 * EXCERPT_LINES

        return held

    @staticmethod
    def welcomed(session: Session) -> None:
        """A silence that holds someone just welcomed (their own, or a guest's address's) is told
        to them at once, not only when they try to chat."""
        if session.silenced:
            session.send(m.Notice(text=silenced_text(session.silenced)))

    @staticmethod
    def hushed(session: Session, msg_id: m.ClientId) -> None:
        """Refuse chat, a tell or an invitation from a silenced person (``silenced``)."""
        Enforcer.hushed(session, msg_id)

    async def marked(self, people: list[m.Person]) -> list[m.Person]:
        """``people`` with each staff member's role."""
        staff = {name.casefold(): role for name, role in (await self.store.staff()).items()}
        if not staff:
            return people
        return [
            p.model_copy(update={"role": staff[p.name.casefold()]})
            if p.kind == "person" and not p.guest and p.name.casefold() in staff
            else p
            for p in people
        ]

    def apply(self, action: Action) -> None:
        """An action taken on another node, for this node's connections."""
        if action.kind in ("report", "role"):  # (this node's staff, read again first)
            self._background(self._tell_staff(action))
            return
        self.enforcer.apply(action)
        if action.kind == "close":
            self._background(self._refresh())

    async def _act(self, action: Action) -> int:
        """Do ``action`` here and on every other node; how many connections it reached here."""
        reached = self.enforcer.apply(action) if action.kind != "report" else 0
        if self.elsewhere is not None:
            try:
                await self.elsewhere.broadcast(action)
            except Exception as e:  # (it is on the log and in the store: every node reads it at hello)
                log.warning("action_unsent", action=action.kind, error=repr(e))
        return reached

    async def _tell_staff(self, action: Action) -> None:
        await self._refresh()
        self.enforcer.apply(action)

    def _to_lobby(self, session: Session) -> None:
        """``session`` leaves its room for the lobby (its room was closed)."""
        room = session.room
        if room is None:
            return
        session.room = None
        room.post(session, Leave(disconnected=False, id=None, name=session.name, asked=False, closed=True))
        self.lobby.directory.moved(session)

    def _close_room(self, name: str, reason: str) -> bool:
        """End the room ``name`` if this node runs it."""
        room = self.lobby.directory.rooms.get(name.casefold())
        if not isinstance(room, Room):
            return False
        room.post(None, Closing(reason))
        return True

    # --- who may ------------------------------------------------------------------------------

    async def _staff(self, session: Session, msg_id: m.ClientId, *, admin: bool = False) -> Role:
        """The role of the person behind ``session`` as the store has it; ``not_staff`` for
        anyone else (and, with ``admin``, for a moderator)."""
        role = await self.store.role(session.name) if session.registered and session.name else None
        if role is None or (admin and role != "admin"):
            text = _("Only an admin may do that.") if admin else _("Only the staff may do that.")
            raise ProtocolError("not_staff", text, msg_id)
        return role

    async def _may_act_on(self, session: Session, role: Role, name: str, msg_id: m.ClientId) -> None:
        """``bad_name``, ``bad_target`` (oneself), ``staff_protected`` (staff a moderator names,
        or an admin an admin)."""
        if not is_name(name):
            raise _bad_name(name, msg_id)
        assert session.name is not None
        if name.casefold() == session.name.casefold():
            raise ProtocolError("bad_target", _("That is you."), msg_id)
        target = await self.store.role(name)
        if target == "admin":  # (an admin's peers are admins: the operator decides about them)
            text = _("{name} is an admin: the operator decides about them (cafe-admin).", name=name)
            raise ProtocolError("staff_protected", text, msg_id)
        if target == "moderator" and role != "admin":
            raise ProtocolError(
                "staff_protected", _("{name} is staff: an admin decides about them.", name=name), msg_id
            )

    async def _named(self, name: str) -> str:
        """Whom the staff mean by ``name``: the account whose name looks like it (``K1M`` for
        ``kim``, in any case), else the person connected under a name that looks like it, else
        the name as typed (a sanction may wait for someone not connected)."""
        if not is_name(name):
            return name
        account = await self.store.account_alike(name)
        if account is not None:
            return account
        form = alike(name)
        for p in await self.lobby.directory.people():
            if alike(p.name) == form:
                return p.name
        return name

    async def _connected(self, name: str) -> str | None:
        """The name as ``name`` is connected on any node, if it is."""
        key = name.casefold()
        for p in await self.lobby.directory.people():
            if p.name.casefold() == key:
                return p.name
        return None

    async def _guest_address(self, name: str) -> str | None:
        """The address of the guest ``name``, if connected here or on another node."""
        session = self.lobby.directory.session(name)
        if session is not None:
            return None if session.registered else session.address
        return None if self.elsewhere is None else await self.elsewhere.address(name)

    # --- commands -----------------------------------------------------------------------------

    async def _report(self, session: Session, msg: m.ReportPlayer) -> None:
        assert session.name is not None
        if not is_name(msg.name):
            raise _bad_name(msg.name, msg.id)
        # a look-alike of an account's name is that account (a staff member's report stays theirs
        # to read nowhere, and its excerpt finds their lines): the server holds them as one name
        reported = await self.store.account_alike(msg.name) or msg.name
        if alike(reported) == alike(session.name):  # (``K1M`` is kim, a guest's name as an account's)
            raise ProtocolError("bad_target", _("That is you."), msg.id)
        msg = msg.model_copy(update={"name": reported})
        now = time.time()
        # the limits are the reporter's and its address's own: many reports from others refuse
        # nobody else's (an address is entered only once a report from it is accepted)
        origin = session.address
        recent = self._reported.get(origin)
        while recent and recent[0] < now - 3600:
            recent.popleft()
        if recent is not None and not recent:
            del self._reported[origin]
            recent = None
        if recent is not None and len(recent) >= 2 * REPORTS_AN_HOUR:
            text = _("Your address made {n} reports this hour; the staff read them.", n=2 * REPORTS_AN_HOUR)
            raise ProtocolError("rate_limited", text, msg.id)
        # counted before the store is asked (other reports from the address may come meanwhile),
        # and given back if this one is not made
        counted = self._reported.setdefault(origin, collections.deque(maxlen=2 * REPORTS_AN_HOUR))
        counted.append(now)
        try:
            maker = session.identity or session.name  # (the player: a new name keeps the count)
            if await self.store.reports_since(maker, now - 3600) >= REPORTS_AN_HOUR:
                text = _("You made {n} reports this hour; the staff read them.", n=REPORTS_AN_HOUR)
                raise ProtocolError("rate_limited", text, msg.id)
            target = self.lobby.directory.session(msg.name)
            where = None if target is None else (target.room.name if target.room is not None else "")
            lines = excerpt(session.heard, msg.name, where)
            report = await self.store.report_added(session.name, msg.name, msg.reason, lines, maker)
        except BaseException:
            with contextlib.suppress(ValueError):
                counted.remove(now)
            if not counted and self._reported.get(origin) is counted:
                del self._reported[origin]
            raise
        if len(self._reported) > 4096:  # addresses not heard from for an hour are forgotten
            for stale in [a for a, times in self._reported.items() if times[-1] < now - 3600]:
                del self._reported[stale]
        if msg.name.casefold() not in self.enforcer.staff:  # (see ``_count_reports``)
            self.metrics.moderation_actions.labels(action="report").inc()
            self.metrics.reports_open.inc()
        log.info("reported", report=report.id, player=msg.name, reporter=session.name)
        # (the reason is read in ``/reports``, where a terminal marks what a long line carries on
        # with: in a notice it could be folded into a line that looks like a line of the excerpt)
        summary = f"#{report.id} {session.name} -> {msg.name}"
        await self._act(Action("report", name=msg.name, text=summary))
        await self._tell_staff(Action("report", name=msg.name, text=summary))
        session.send(m.Notice(text=_("Thank you: your report of {name} reaches the staff.", name=msg.name)))
        session.send(m.Ack(id=msg.id))

    async def _reports(self, session: Session, msg: m.ListReports) -> None:
        await self._staff(session, msg.id)
        assert session.name is not None
        found = await self.store.reports(everything=msg.all, limit=SHOWN, hiding=session.name)
        session.send(m.ReportList(id=msg.id, reports=[_entry(r) for r in found]))

    async def _resolve(self, session: Session, msg: m.ResolveReport) -> None:
        await self._staff(session, msg.id)
        assert session.name is not None
        report = await self.store.report_resolved(msg.report, session.name, msg.note)
        if report is None:
            raise ProtocolError("no_such_report", _("No open report #{id}.", id=msg.report), msg.id)
        if report.name.casefold() not in self.enforcer.staff:
            self.metrics.moderation_actions.labels(action="resolve").inc()
        await self._count_reports()
        session.send(m.Notice(text=_("Report #{id} is resolved.", id=msg.report)))
        session.send(m.Ack(id=msg.id))

    async def _moderate(self, session: Session, msg: m.Moderate) -> None:
        role = await self._staff(session, msg.id)
        msg = msg.model_copy(update={"name": await self._named(msg.name)})
        await self._may_act_on(session, role, msg.name, msg.id)
        assert session.name is not None
        by, action = session.name, msg.action
        timed = action in ("ban", "silence")
        if timed and msg.duration is None:
            needs = _("/{action} needs a duration: 30m, 2h, 7d or perm.", action=action)
            raise ProtocolError("bad_duration", needs, msg.id)
        if not timed and msg.duration is not None:
            raise ProtocolError("bad_duration", _("/{action} takes no duration.", action=action), msg.id)
        if action in ("unban", "unsilence"):
            kinds = ("ban", "kick") if action == "unban" else ("silence",)
            lifted = 0
            for kind in kinds:
                lifted += await self.store.sanction_lifted(cast(SanctionKind, kind), msg.name, by, msg.reason)
            if lifted and action == "unsilence":
                await self._act(Action("unsilence", name=msg.name, by=by))
            if lifted:  # (counted as logged: lifting nothing is no action)
                self.metrics.moderation_actions.labels(action=action).inc()
            text = (
                _("{name} is free again.", name=msg.name)
                if lifted
                else _("Nothing held {name}: nothing was changed.", name=msg.name)
            )
            session.send(m.Notice(text=text))
            session.send(m.Ack(id=msg.id))
            return
        if action == "kick":
            shown = await self._connected(msg.name)
            if shown is None:
                raise ProtocolError("not_connected", _("{name} is not connected.", name=msg.name), msg.id)
            seconds: float | None = KICK_SECONDS
        else:
            assert msg.duration is not None
            seconds = duration_seconds(msg.duration)
        until = None if seconds is None else time.time() + seconds
        address = await self._guest_address(msg.name)
        duration = msg.duration or "10m"
        kind = cast(SanctionKind, action)
        # on the log (with the sanction) before anyone is closed or silenced
        await self.store.sanction_added(
            kind, msg.name, by, until, msg.reason, address=address, duration=duration
        )
        log.info("sanction", action=kind, player=msg.name, by=by, until=until, address=address is not None)
        await self._act(Action(kind, name=msg.name, address=address, until=until, reason=msg.reason, by=by))
        self.metrics.moderation_actions.labels(action=action).inc()
        if action != "kick":  # an earlier, longer one of the kind holds on: say the end that holds
            until = end_that_holds(await self.store.sanctions(msg.name), kind, until)
        if action == "kick":
            text = _("{name} is kicked: back in 10 minutes at the earliest.", name=msg.name)
        elif action == "ban":
            text = _("{name} is banned, {when}.", name=msg.name, when=when_text(until, session.lang))
        else:
            text = _("{name} is silenced, {when}.", name=msg.name, when=when_text(until, session.lang))
        session.send(m.Notice(text=text))
        session.send(m.Ack(id=msg.id))

    async def _close(self, session: Session, msg: m.CloseRoom) -> None:
        await self._staff(session, msg.id)
        assert session.name is not None
        if not is_room_name(msg.room):
            raise ProtocolError("bad_room", _("A room name is {rule}.", rule=ROOM_RULE), msg.id)
        key = msg.room.casefold()
        rooms = [r.name for r in await self.lobby.directory.room_list() if r.name.casefold() == key]
        if not rooms and key not in self.lobby.directory.rooms:
            raise ProtocolError("no_such_room", _("No room {room}.", room=msg.room[:24]), msg.id)
        room = rooms[0] if rooms else msg.room
        await self.store.modlog_appended(session.name, "close", room, msg.reason)
        log.info("room_closed", room=room, by=session.name)
        await self._act(Action("close", room=room, reason=msg.reason, by=session.name))
        self.metrics.moderation_actions.labels(action="close").inc()
        session.send(m.Notice(text=_("The room {room} is closed.", room=room)))
        session.send(m.Ack(id=msg.id))

    async def _announce(self, session: Session, msg: m.Announce) -> None:
        await self._staff(session, msg.id, admin=True)
        assert session.name is not None
        await self.store.modlog_appended(session.name, "announce", "*", msg.text)
        await self._act(Action("announce", text=msg.text, by=session.name))
        self.metrics.moderation_actions.labels(action="announce").inc()
        session.send(m.Ack(id=msg.id))

    async def _role(self, session: Session, msg: m.SetRole) -> None:
        role = await self._staff(session, msg.id, admin=True)
        msg = msg.model_copy(update={"name": await self._named(msg.name)})
        await self._may_act_on(session, role, msg.name, msg.id)
        assert session.name is not None
        new: Role | None = None if msg.role == "none" else "moderator"
        if new is None and await self.store.role(msg.name) is None:  # (nothing to take: nothing logged)
            if await self.store.account(msg.name) is None:
                raise ProtocolError("no_such_player", _("{name} is not registered.", name=msg.name), msg.id)
            session.send(m.Notice(text=_("{name} has no role: nothing was changed.", name=msg.name)))
            session.send(m.Ack(id=msg.id))
            return
        if not await self.store.role_set(msg.name, new, session.name):
            raise ProtocolError("no_such_player", _("{name} is not registered.", name=msg.name), msg.id)
        self.metrics.moderation_actions.labels(action=f"role:{msg.role}").inc()
        await self._refresh()
        # told on whichever node they are connected to
        await self._act(Action("role", name=msg.name, text=msg.role, by=session.name))
        text = (
            _("{name} is a moderator now.", name=msg.name)
            if new
            else _("{name} is no longer a moderator.", name=msg.name)
        )
        session.send(m.Notice(text=text))
        session.send(m.Ack(id=msg.id))

    async def _modlog(self, session: Session, msg: m.GetModLog) -> None:
        await self._staff(session, msg.id)
        assert session.name is not None
        if msg.name is not None and not (is_name(msg.name) or is_room_name(msg.name)):
            raise _bad_name(msg.name, msg.id)  # (a room's name finds its closing)
        me = session.name.casefold()
        # a report of oneself is read nowhere: nor is its resolving (another of the staff's); the
        # latest SHOWN others are shown, read further back while some were left out
        limit = SHOWN
        while True:
            read = await self.store.modlog(msg.name, limit=limit)
            entries = [e for e in read if not (e.action == "resolve" and e.target.casefold() == me)]
            if len(entries) >= SHOWN or len(read) < limit or limit >= READ_BACK:
                break
            limit *= 2
        entries = entries[:SHOWN]
        session.send(
            m.ModLog(
                id=msg.id,
                entries=[
                    m.LogEntry(
                        id=e.id, when=e.when, by=e.by, action=e.action, target=e.target, reason=e.reason,
                        duration=e.duration,
                    )
                    for e in entries
                ],
            )
        )  # fmt: skip


def _nothing() -> None:
    """What an admission asked before a registered name was shown to be its caller's keeps."""
