"""Moderation in PostgreSQL: staff roles, sanctions, reports and the moderation log (the tables of
schema step 002).

Every write that changes a role, a sanction or a report appends its log entry in the same
transaction; a trigger refuses any update, delete or truncation of ``modlog``, so the log only
grows. A role goes with its account (a foreign key that cascades).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, cast

from psycopg.types.json import Jsonb

from server.log.contract import DRAWS, ModEntry, Report, Role, Sanction, SanctionKind, drawn_id, report_key
from server.log.postgres.records import Connection, Records
from server.log.rows import mod_entries, sanction

_SANCTION = "SELECT id, kind, name, address, by, reason, since, until, lifted FROM sanctions"
_REPORT = "SELECT id, reporter, name, reason, excerpt, made, resolved, resolved_by, note FROM reports"
_ENTRY = "SELECT id, at, by, action, target, reason, duration FROM modlog"


async def _inserted(conn: Connection, table: str, columns: str, values: tuple[Any, ...]) -> int:
    """Insert a row of ``values`` into ``columns`` of ``table`` under a drawn id, drawn again
    while the id is taken (inside the caller's transaction, if any); the id."""
    sql = f"INSERT INTO {table} (id, {columns}) VALUES (%s{', %s' * len(values)}) ON CONFLICT (id) DO NOTHING"
    for _ in range(DRAWS):
        row_id = drawn_id()
        if (await conn.execute(sql.encode(), (row_id, *values))).rowcount:
            return row_id
    raise RuntimeError(f"no free id in {table} after {DRAWS} draws")


async def _logged(
    conn: Connection, by: str, action: str, target: str, reason: str, duration: str, now: float
) -> int:
    """Append an entry (inside the caller's transaction, if any); its id."""
    columns = "at, by, action, target, reason, duration"
    return await _inserted(conn, "modlog", columns, (now, by, action, target, reason, duration))


class PostgresModeration:
    """The moderation tables; PostgreSQL out of reach is ``StoreUnavailable``."""

    def __init__(self, records: Records) -> None:
        self.records = records

    # --- roles -----------------------------------------------------------------------------------

    async def role(self, name: str) -> Role | None:
        async with self.records.connection() as conn:
            row = await (
                await conn.execute("SELECT role FROM roles WHERE key = %s", (name.casefold(),))
            ).fetchone()
        return None if row is None else cast(Role, row[0])

    async def staff(self) -> dict[str, Role]:
        async with self.records.connection() as conn:
            rows = await (
                await conn.execute(
                    "SELECT a.name, r.role FROM roles r JOIN accounts a ON a.key = r.key ORDER BY a.key"
                )
            ).fetchall()
        return {str(name): cast(Role, role) for name, role in rows}

    async def role_set(self, name: str, role: Role | None, by: str, reason: str) -> bool:
        async with self.records.connection() as conn, conn.transaction():
            row = await (
                await conn.execute("SELECT name FROM accounts WHERE key = %s FOR UPDATE", (name.casefold(),))
            ).fetchone()
            if row is None:
                return False
            await _logged(conn, by, f"role:{role or 'none'}", str(row[0]), reason, "", time.time())
            if role is None:
                await conn.execute("DELETE FROM roles WHERE key = %s", (name.casefold(),))
            else:
                await conn.execute(
                    "INSERT INTO roles (key, role) VALUES (%s, %s)"
                    " ON CONFLICT (key) DO UPDATE SET role = excluded.role",
                    (name.casefold(), role),
                )
        return True

    # --- sanctions -------------------------------------------------------------------------------

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
        async with self.records.connection() as conn, conn.transaction():
            await _logged(conn, by, kind, name, reason, duration, now)
            row = await (
                await conn.execute(
                    "INSERT INTO sanctions (kind, name, address, by, reason, since, until)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
                    (kind, name, address, by, reason, now, until),
                )
            ).fetchone()
        assert row is not None
        return Sanction(int(row[0]), kind, name, address, by, reason, now, until)

    async def sanction_lifted(self, kind: SanctionKind, name: str, by: str, reason: str) -> int:
        now = time.time()
        async with self.records.connection() as conn, conn.transaction():
            rows = await (
                await conn.execute(
                    _SANCTION + " WHERE lower(name) = lower(%s) AND kind = %s AND lifted IS NULL FOR UPDATE",
                    (name, kind),
                )
            ).fetchall()
            held = [s.id for s in map(sanction, rows) if s.active(now)]
            if not held:
                return 0
            await _logged(conn, by, f"un{kind}", name, reason, "", now)
            await conn.execute("UPDATE sanctions SET lifted = %s WHERE id = ANY(%s)", (now, held))
        return len(held)

    async def sanctions(self, name: str | None, address: str | None, now: float) -> list[Sanction]:
        async with self.records.connection() as conn:
            rows = await (
                await conn.execute(
                    _SANCTION + " WHERE (lower(name) = lower(%s) OR address = %s) AND lifted IS NULL"
                    " AND (until IS NULL OR until > %s) ORDER BY id",
                    (name, address, now),
                )
            ).fetchall()
        return [sanction(row) for row in rows]

    # --- reports ---------------------------------------------------------------------------------

    async def report_added(
        self, reporter: str, name: str, reason: str, excerpt: Sequence[str], key: str | None
    ) -> Report:
        now = time.time()
        lines = tuple(excerpt)
        async with self.records.connection() as conn:
            report_id = await _inserted(
                conn,
                "reports",
                "reporter, name, reason, excerpt, made, reporter_key",
                (reporter, name, reason, Jsonb(list(lines)), now, report_key(reporter, key)),
            )
        return Report(report_id, reporter, name, reason, lines, now)

    async def reports(self, everything: bool, limit: int, hiding: str | None) -> list[Report]:
        where = " WHERE lower(name) != lower(%s)" + ("" if everything else " AND resolved IS NULL")
        async with self.records.connection() as conn:
            rows = await (
                await conn.execute(
                    (_REPORT + where + " ORDER BY made DESC LIMIT %s").encode(), (hiding or "", limit)
                )
            ).fetchall()
        return [_report(row) for row in rows]

    async def reports_open(self, hiding: Collection[str] = ()) -> int:
        async with self.records.connection() as conn:
            row = await (
                await conn.execute(
                    "SELECT count(*) FROM reports WHERE resolved IS NULL AND lower(name) <> ALL(%s)",
                    (sorted(hiding),),
                )
            ).fetchone()
        return 0 if row is None else int(row[0])

    async def reports_since(self, key: str, since: float) -> int:
        async with self.records.connection() as conn:
            row = await (
                await conn.execute(
                    "SELECT count(*) FROM reports WHERE reporter_key = %s AND made >= %s",
                    (key.casefold(), since),
                )
            ).fetchone()
        return 0 if row is None else int(row[0])

    async def report_resolved(self, report_id: int, by: str, note: str) -> Report | None:
        now = time.time()
        async with self.records.connection() as conn, conn.transaction():
            row = await (
                await conn.execute(
                    _REPORT + " WHERE id = %s AND resolved IS NULL AND lower(name) != lower(%s) FOR UPDATE",
                    (report_id, by),
                )
            ).fetchone()
            if row is None:
                return None
            report = _report(row)
            await _logged(conn, by, "resolve", report.name, f"#{report_id} {note}".rstrip(), "", now)
            await conn.execute(
                "UPDATE reports SET resolved = %s, resolved_by = %s, note = %s WHERE id = %s",
                (now, by, note, report_id),
            )
        return replace(report, resolved=now, resolved_by=by, note=note)

    # --- the log ---------------------------------------------------------------------------------

    async def modlog_appended(
        self, by: str, action: str, target: str, reason: str, duration: str
    ) -> ModEntry:
        now = time.time()
        async with self.records.connection() as conn:
            entry_id = await _logged(conn, by, action, target, reason, duration, now)
        return ModEntry(entry_id, now, by, action, target, reason, duration)

    async def modlog(self, name: str | None, limit: int) -> list[ModEntry]:
        async with self.records.connection() as conn:
            if name is None:
                cursor = await conn.execute(_ENTRY + " ORDER BY at DESC LIMIT %s", (limit,))
            else:
                cursor = await conn.execute(
                    _ENTRY
                    + " WHERE lower(target) = lower(%s) OR lower(by) = lower(%s) ORDER BY at DESC LIMIT %s",
                    (name, name, limit),
                )
            rows = await cursor.fetchall()
        return mod_entries(rows)


def _report(row: tuple[Any, ...]) -> Report:
    rid, reporter, name, reason, excerpt, made, resolved, resolved_by, note = row
    return Report(
        int(rid),
        str(reporter),
        str(name),
        str(reason),
        tuple(str(line) for line in excerpt),
        float(made),
        None if resolved is None else float(resolved),
        None if resolved_by is None else str(resolved_by),
        str(note),
    )
