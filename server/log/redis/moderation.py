"""Moderation in Redis, for cluster mode: every node reads the same roles, sanctions, reports and
moderation log, so a ban made on one node holds on all of them.

Keys (names casefolded):

- ``cafe:staff``: hash, name -> ``{"name", "role"}`` of every account that holds a role
- ``cafe:modlog``: hash, entry id -> the entry; ``cafe:modlog-order``: sorted set of the ids by
  time; ``cafe:modlog-of:NAME``: list of the ids of the entries where NAME acted or was acted on
- ``cafe:sanctions``: hash, id -> the sanction; ``cafe:sanction:next``;
  ``cafe:sanctions-of:name:NAME`` and ``cafe:sanctions-of:addr:ADDRESS``: sets of ids
- ``cafe:reports``: hash, id -> the report; ``cafe:reports-made``: sorted set of the ids by
  time; ``cafe:reports-open``: the open ones' (by time); ``cafe:reports-by:NAME``: a reporter's

Reports and log entries take ids drawn at random (``server.log.contract.DRAWN_IDS``; a script
refuses one taken, with ``ID_TAKEN``, and it is drawn again). Those written when ids were counted
(``cafe:report:next``, ``cafe:modlog:next``) are put in the sorted sets by time when first read.

Each write that changes a role, a sanction or a report is one Lua script that appends its log
entry first: the entry and the change are written together or not at all. Nothing deletes an
entry of the log.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, cast

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import ResponseError

from server.log.contract import (
    DRAWS,
    ModEntry,
    Report,
    Role,
    Sanction,
    SanctionKind,
    StoreUnavailable,
    drawn_id,
    report_key,
)
from server.log.redis.guarded import guarded
from server.log.redis.keys import PREFIX

STAFF = PREFIX + "staff"
MODLOG = PREFIX + "modlog"
MODLOG_ORDER = PREFIX + "modlog-order"
SANCTIONS = PREFIX + "sanctions"
SANCTION_NEXT = PREFIX + "sanction:next"
REPORTS = PREFIX + "reports"
REPORTS_MADE = PREFIX + "reports-made"
REPORTS_OPEN = PREFIX + "reports-open"

#: the answer of a script whose drawn id is taken (it wrote nothing)
ID_TAKEN = "ID_TAKEN"

#: appends an entry to the log: KEYS[1..4] the ids by time, the log, the lists of the one who acted
#: and of the one acted on; ARGV[1] the entry's drawn id, its time and the entry, a space between
_LOG = f"""
local entry, at, text = string.match(ARGV[1], '^(%d+) (%S+) (.*)$')
if redis.call('HSETNX', KEYS[2], entry, text) == 0 then return redis.error_reply('{ID_TAKEN}') end
redis.call('ZADD', KEYS[1], at, entry)
redis.call('RPUSH', KEYS[3], entry)
if KEYS[4] ~= KEYS[3] then redis.call('RPUSH', KEYS[4], entry) end
"""

#: KEYS[5] the account, KEYS[6] the staff; ARGV[2] the name (casefolded), ARGV[3] the staff
#: entry (empty: no role)
ROLE_SET = (
    "if redis.call('HEXISTS', KEYS[5], 'hash') == 0 then return 0 end\n"
    + _LOG
    + """
if ARGV[3] == '' then redis.call('HDEL', KEYS[6], ARGV[2])
else redis.call('HSET', KEYS[6], ARGV[2], ARGV[3]) end
return 1
"""
)

#: KEYS[5] the next sanction id, KEYS[6] the sanctions, KEYS[7..] the sets of the name (and the
#: address); ARGV[2] the sanction
SANCTION_ADDED = (
    _LOG
    + """
local id = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[6], id, ARGV[2])
for i = 7, #KEYS do redis.call('SADD', KEYS[i], id) end
return id
"""
)

#: KEYS[5] the sanctions; ARGV[2], ARGV[3], ... pairs of a sanction's id and its lifted form
SANCTIONS_LIFTED = (
    _LOG
    + """
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1]) end
return 1
"""
)

#: KEYS[5] the open reports, KEYS[6] the reports; ARGV[2] the id, ARGV[3] the report as resolved
REPORT_RESOLVED = (
    "if not redis.call('ZSCORE', KEYS[5], ARGV[2]) then return 0 end\n"
    + _LOG
    + """
redis.call('ZREM', KEYS[5], ARGV[2])
redis.call('HSET', KEYS[6], ARGV[2], ARGV[3])
return 1
"""
)

MODLOG_APPENDED = _LOG + "return entry\n"

#: KEYS[1] the reports by time, KEYS[2] the reports, KEYS[3] the open ones, KEYS[4] the
#: reporter's; ARGV[1] the report, ARGV[2] its time, ARGV[3] its drawn id
REPORT_ADDED = f"""
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[1]) == 0 then return redis.error_reply('{ID_TAKEN}') end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
return 1
"""


async def _logging(script: AsyncScript, keys: list[str], entry: str, *args: Any) -> tuple[int, Any]:
    """Run ``script``, which appends ``entry`` (its JSON) to the log under an id drawn here, drawn
    again while it is taken: the id and the script's answer."""
    at = json.loads(entry)["at"]
    for _ in range(DRAWS):
        entry_id = drawn_id()
        try:
            return entry_id, await script(keys=keys, args=[f"{entry_id} {at!r} {entry}", *args])
        except ResponseError as e:
            if str(e) != ID_TAKEN:
                raise
    raise StoreUnavailable(f"no free log entry id after {DRAWS} draws")


def _of(name: str) -> str:
    return f"{PREFIX}modlog-of:{name.casefold()}"


def _sanctions_of_name(name: str) -> str:
    return f"{PREFIX}sanctions-of:name:{name.casefold()}"


def _sanctions_of_address(address: str) -> str:
    return f"{PREFIX}sanctions-of:addr:{address}"


def _reports_by(reporter: str) -> str:
    return f"{PREFIX}reports-by:{reporter.casefold()}"


class RedisModeration:
    """The moderation part of ``RedisStore`` (see :class:`server.log.contract.ModerationStore`)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._role_set = client.register_script(ROLE_SET)
        self._sanction_added = client.register_script(SANCTION_ADDED)
        self._sanctions_lifted = client.register_script(SANCTIONS_LIFTED)
        self._report_resolved = client.register_script(REPORT_RESOLVED)
        self._appended = client.register_script(MODLOG_APPENDED)
        self._report_added = client.register_script(REPORT_ADDED)

    async def _ordered(self, items: str, by_time: str, field: str) -> None:
        """Put the items of hash ``items`` written when ids were counted into ``by_time``, by the
        time in their ``field`` (once: after that, each is put there as it is written)."""
        if await self.redis.zcard(by_time) >= await self.redis.hlen(items):
            return
        kept = await self.redis.hgetall(items)
        times = {str(i): float(json.loads(raw)[field]) for i, raw in kept.items()}
        await self.redis.zadd(by_time, times, nx=True)

    @staticmethod
    def _log_keys(by: str, target: str) -> list[str]:
        return [MODLOG_ORDER, MODLOG, _of(by), _of(target)]

    @staticmethod
    def _entry(when: float, by: str, action: str, target: str, reason: str, duration: str) -> str:
        return json.dumps(
            {"at": when, "by": by, "action": action, "target": target, "reason": reason, "duration": duration}
        )

    # --- roles -----------------------------------------------------------------------------------

    @guarded
    async def role(self, name: str) -> Role | None:
        raw = await self.redis.hget(STAFF, name.casefold())
        return None if raw is None else cast(Role, json.loads(raw)["role"])

    @guarded
    async def staff(self) -> dict[str, Role]:
        entries = [json.loads(raw) for raw in (await self.redis.hgetall(STAFF)).values()]
        return {str(e["name"]): cast(Role, e["role"]) for e in sorted(entries, key=lambda e: str(e["name"]))}

    @guarded
    async def role_set(self, name: str, role: Role | None, by: str, reason: str) -> bool:
        account = f"{PREFIX}account:{name.casefold()}"
        registered = await self.redis.hget(account, "name")
        if registered is None:
            return False
        shown = str(registered)
        entry = self._entry(time.time(), by, f"role:{role or 'none'}", shown, reason, "")
        staff = "" if role is None else json.dumps({"name": shown, "role": role})
        keys = [*self._log_keys(by, shown), account, STAFF]
        return bool((await _logging(self._role_set, keys, entry, name.casefold(), staff))[1])

    @guarded
    async def account_deleted(self, name: str) -> None:
        await self.redis.hdel(STAFF, name.casefold())

    # --- sanctions -------------------------------------------------------------------------------

    @guarded
    async def sanction_added(
        self,
        kind: SanctionKind,
        name: str,
        by: str,
        until: float | None,
        reason: str,
        address: str | None,
        duration: str,
    ) -> Sanction:
        now = time.time()
        entry = self._entry(now, by, kind, name, reason, duration)
        sanction = Sanction(0, kind, name, address, by, reason, now, until)
        sets = [_sanctions_of_name(name), *([_sanctions_of_address(address)] if address else [])]
        keys = [*self._log_keys(by, name), SANCTION_NEXT, SANCTIONS, *sets]
        _, sid = await _logging(self._sanction_added, keys, entry, _sanction_json(sanction))
        return replace(sanction, id=int(sid))

    @guarded
    async def sanction_lifted(self, kind: SanctionKind, name: str, by: str, reason: str) -> int:
        now = time.time()
        held = [
            s
            for s in await self._sanctions_in([_sanctions_of_name(name)])
            if s.kind == kind and s.name.casefold() == name.casefold() and s.active(now)
        ]
        if not held:
            return 0
        entry = self._entry(now, by, f"un{kind}", name, reason, "")
        pairs = [x for s in held for x in (s.id, _sanction_json(replace(s, lifted=now)))]
        await _logging(self._sanctions_lifted, [*self._log_keys(by, name), SANCTIONS], entry, *pairs)
        return len(held)

    @guarded
    async def sanctions(self, name: str | None, address: str | None, now: float) -> list[Sanction]:
        sets = [
            *([_sanctions_of_name(name)] if name is not None else []),
            *([_sanctions_of_address(address)] if address is not None else []),
        ]
        return [s for s in await self._sanctions_in(sets) if s.active(now)]

    async def _sanctions_in(self, sets: list[str]) -> list[Sanction]:
        if not sets:
            return []
        ids = sorted({int(i) for i in await self.redis.sunion(sets)})
        if not ids:
            return []
        raws = await self.redis.hmget(SANCTIONS, ids)
        return [_sanction(i, raw) for i, raw in zip(ids, raws, strict=True) if raw is not None]

    # --- reports ---------------------------------------------------------------------------------

    @guarded
    async def report_added(
        self, reporter: str, name: str, reason: str, excerpt: Sequence[str], key: str | None
    ) -> Report:
        now = time.time()
        report = Report(0, reporter, name, reason, tuple(excerpt), now)
        keys = [REPORTS_MADE, REPORTS, REPORTS_OPEN, _reports_by(report_key(reporter, key))]
        for _ in range(DRAWS):
            report_id = drawn_id()
            try:
                await self._report_added(keys=keys, args=[_report_json(report), now, report_id])
            except ResponseError as e:
                if str(e) != ID_TAKEN:
                    raise
                continue
            return replace(report, id=report_id)
        raise StoreUnavailable(f"no free report id after {DRAWS} draws")

    @guarded
    async def reports(self, everything: bool, limit: int, hiding: str | None) -> list[Report]:
        hidden = (hiding or "").casefold()
        found: list[Report] = []
        if everything:
            await self._ordered(REPORTS, REPORTS_MADE, "made")
        start = 0
        while len(found) < limit:  # pages of ids, newest first, until enough are shown
            ordered = REPORTS_MADE if everything else REPORTS_OPEN
            ids = [int(str(i)) for i in await self.redis.zrevrange(ordered, start, start + limit - 1)]
            if not ids:
                break
            start += limit
            raws = await self.redis.hmget(REPORTS, ids)
            shown = [_report(i, raw) for i, raw in zip(ids, raws, strict=True) if raw is not None]
            found.extend(r for r in shown if r.name.casefold() != hidden)
        return found[:limit]

    @guarded
    async def reports_open(self, hiding: Collection[str] = ()) -> int:
        if not hiding:
            return int(await self.redis.zcard(REPORTS_OPEN))
        ids = [int(str(i)) for i in await self.redis.zrange(REPORTS_OPEN, 0, -1)]
        raws = await self.redis.hmget(REPORTS, ids) if ids else []
        reports = [_report(i, raw) for i, raw in zip(ids, raws, strict=True) if raw is not None]
        return sum(1 for r in reports if r.name.casefold() not in hiding)

    @guarded
    async def reports_since(self, key: str, since: float) -> int:
        return int(await self.redis.zcount(_reports_by(key), since, "+inf"))

    @guarded
    async def report_resolved(self, report_id: int, by: str, note: str) -> Report | None:
        raw = await self.redis.hget(REPORTS, str(report_id))
        if raw is None or _report(report_id, raw).name.casefold() == by.casefold():
            return None
        now = time.time()
        report = replace(_report(report_id, raw), resolved=now, resolved_by=by, note=note)
        entry = self._entry(now, by, "resolve", report.name, f"#{report_id} {note}".rstrip(), "")
        keys = [*self._log_keys(by, report.name), REPORTS_OPEN, REPORTS]
        _, done = await _logging(self._report_resolved, keys, entry, report_id, _report_json(report))
        return report if done else None

    # --- the log ---------------------------------------------------------------------------------

    @guarded
    async def modlog_appended(
        self, by: str, action: str, target: str, reason: str, duration: str
    ) -> ModEntry:
        now = time.time()
        entry = self._entry(now, by, action, target, reason, duration)
        entry_id, _ = await _logging(self._appended, self._log_keys(by, target), entry)
        return ModEntry(entry_id, now, by, action, target, reason, duration)

    @guarded
    async def modlog(self, name: str | None, limit: int) -> list[ModEntry]:
        if name is None:
            await self._ordered(MODLOG, MODLOG_ORDER, "at")
            ids = [int(str(i)) for i in await self.redis.zrevrange(MODLOG_ORDER, 0, limit - 1)]
        else:
            ids = [int(i) for i in reversed(await self.redis.lrange(_of(name), -limit, -1))]
        if not ids:
            return []
        raws = await self.redis.hmget(MODLOG, ids)
        entries = []
        for entry_id, raw in zip(ids, raws, strict=True):
            if raw is not None:
                e = json.loads(raw)
                fields = (e["by"], e["action"], e["target"], e["reason"], e["duration"])
                entries.append(ModEntry(entry_id, float(e["at"]), *fields))
        return entries


def _sanction_json(s: Sanction) -> str:
    return json.dumps(
        {
            "kind": s.kind,
            "name": s.name,
            "address": s.address,
            "by": s.by,
            "reason": s.reason,
            "since": s.since,
            "until": s.until,
            "lifted": s.lifted,
        }
    )


def _sanction(sid: int, raw: str | bytes) -> Sanction:
    d = json.loads(raw)
    return Sanction(
        sid, d["kind"], d["name"], d["address"], d["by"], d["reason"], d["since"], d["until"], d["lifted"]
    )


def _report_json(r: Report) -> str:
    return json.dumps(
        {
            "reporter": r.reporter,
            "name": r.name,
            "reason": r.reason,
            "excerpt": list(r.excerpt),
            "made": r.made,
            "resolved": r.resolved,
            "resolved_by": r.resolved_by,
            "note": r.note,
        }
    )


def _report(rid: int, raw: str | bytes) -> Report:
    d = json.loads(raw)
    return Report(
        rid,
        d["reporter"],
        d["name"],
        d["reason"],
        tuple(d["excerpt"]),
        d["made"],
        d["resolved"],
        d["resolved_by"],
        d["note"],
    )
