"""The moderation half of the storage contract, said once for the stores whose moderation part is
an object of its own with ``async`` methods (Redis' and PostgreSQL's).

:class:`ModerationFront` answers every method of :class:`~server.log.contract.ModerationStore` by
handing it to the store's ``_staff`` (an :class:`AsyncModeration`), filling in the time where the
caller gave none. A store takes it as its one base and sets ``_staff`` in its constructor; nothing
here calls ``super()``. SQLite's moderation part runs on its writer's connection without
``await``, so its store says its own one-line forwards.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Protocol

from server.log.contract import ModEntry, Report, Role, Sanction, SanctionKind


class AsyncModeration(Protocol):
    """A store's moderation part: the contract's methods, with ``address``, ``duration`` and
    ``now`` given by position and always."""

    async def role(self, name: str) -> Role | None: ...

    async def staff(self) -> dict[str, Role]: ...

    async def role_set(self, name: str, role: Role | None, by: str, reason: str) -> bool: ...

    async def sanction_added(
        self,
        kind: SanctionKind,
        name: str,
        by: str,
        until: float | None,
        reason: str,
        address: str | None,
        duration: str,
    ) -> Sanction: ...

    async def sanction_lifted(self, kind: SanctionKind, name: str, by: str, reason: str) -> int: ...

    async def sanctions(self, name: str | None, address: str | None, now: float) -> list[Sanction]: ...

    async def report_added(
        self, reporter: str, name: str, reason: str, excerpt: Sequence[str], key: str | None
    ) -> Report: ...

    async def reports(self, everything: bool, limit: int, hiding: str | None) -> list[Report]: ...

    async def reports_open(self, hiding: Collection[str] = ()) -> int: ...

    async def reports_since(self, key: str, since: float) -> int: ...

    async def report_resolved(self, report_id: int, by: str, note: str) -> Report | None: ...

    async def modlog_appended(
        self, by: str, action: str, target: str, reason: str, duration: str
    ) -> ModEntry: ...

    async def modlog(self, name: str | None, limit: int) -> list[ModEntry]: ...


class ModerationFront:
    """:class:`~server.log.contract.ModerationStore` on a store's ``_staff``."""

    _staff: AsyncModeration

    async def role(self, name: str) -> Role | None:
        return await self._staff.role(name)

    async def staff(self) -> dict[str, Role]:
        return await self._staff.staff()

    async def role_set(self, name: str, role: Role | None, by: str, reason: str = "") -> bool:
        return await self._staff.role_set(name, role, by, reason)

    async def sanction_added(
        self,
        kind: SanctionKind,
        name: str,
        by: str,
        until: float | None,
        reason: str = "",
        *,
        address: str | None = None,
        duration: str = "",
    ) -> Sanction:
        return await self._staff.sanction_added(kind, name, by, until, reason, address, duration)

    async def sanction_lifted(self, kind: SanctionKind, name: str, by: str, reason: str = "") -> int:
        return await self._staff.sanction_lifted(kind, name, by, reason)

    async def sanctions(
        self, name: str | None, address: str | None = None, now: float | None = None
    ) -> list[Sanction]:
        return await self._staff.sanctions(name, address, time.time() if now is None else now)

    async def report_added(
        self, reporter: str, name: str, reason: str, excerpt: Sequence[str], key: str | None = None
    ) -> Report:
        return await self._staff.report_added(reporter, name, reason, excerpt, key)

    async def reports(
        self, everything: bool = False, limit: int = 50, hiding: str | None = None
    ) -> list[Report]:
        return await self._staff.reports(everything, limit, hiding)

    async def reports_open(self, hiding: Collection[str] = ()) -> int:
        return await self._staff.reports_open(hiding)

    async def reports_since(self, key: str, since: float) -> int:
        return await self._staff.reports_since(key, since)

    async def report_resolved(self, report_id: int, by: str, note: str = "") -> Report | None:
        return await self._staff.report_resolved(report_id, by, note)

    async def modlog_appended(
        self, by: str, action: str, target: str, reason: str = "", duration: str = ""
    ) -> ModEntry:
        return await self._staff.modlog_appended(by, action, target, reason, duration)

    async def modlog(self, name: str | None = None, limit: int = 50) -> list[ModEntry]:
        return await self._staff.modlog(name, limit)
