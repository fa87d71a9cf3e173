"""Moderation in the SQLite log: staff roles, sanctions, reports and the moderation log (tables of
schema step 006).

Every write that changes a role, a sanction or a report appends its log entry in the same
transaction; the ``modlog`` table refuses updates and deletes (triggers), so the log only grows.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, cast

from server.log.contract import DRAWS, ModEntry, Report, Role, Sanction, SanctionKind, drawn_id, report_key
from server.log.rows import mod_entries, sanction

_SANCTION = "SELECT id, kind, name, address, by, reason, since, until, lifted FROM sanctions"
_REPORT = "SELECT id, reporter, name, reason, excerpt, made, resolved, resolved_by, note FROM reports"
_ENTRY = "SELECT id, at, by, action, target, reason, duration FROM modlog"


class Moderation:
    """The moderation tables; every call is one committed statement or transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def _inserted(self, table: str, columns: str, values: tuple[Any, ...]) -> int:
        """Insert a row of ``values`` into ``columns`` of ``table`` under a drawn id, drawn again
        while the id is taken; the id."""
        sql = f"INSERT INTO {table} (id, {columns}) VALUES (?{', ?' * len(values)})"
        for _ in range(DRAWS):
            row_id = drawn_id()
            if self._db.execute(f"SELECT 1 FROM {table} WHERE id = ?", (row_id,)).fetchone() is None:
                self._db.execute(sql, (row_id, *values))  # (in the caller's transaction, if any)
                return row_id
        raise sqlite3.IntegrityError(f"no free id in {table} after {DRAWS} draws")

    def _logged(self, by: str, action: str, target: str, reason: str, duration: str, now: float) -> int:
        """Append an entry (inside the caller's transaction, if any); its id."""
        return self._inserted(
            "modlog", "at, by, action, target, reason, duration", (now, by, action, target, reason, duration)
        )

    # --- roles -----------------------------------------------------------------------------------

    def role(self, name: str) -> Role | None:
        row = self._db.execute("SELECT role FROM roles WHERE name = ?", (name,)).fetchone()
        return None if row is None else cast(Role, row[0])

    def staff(self) -> dict[str, Role]:
        rows = self._db.execute(
            "SELECT a.name, r.role FROM roles r JOIN accounts a ON a.name = r.name ORDER BY a.name"
        )
        return {str(name): cast(Role, role) for name, role in rows}

    def role_set(self, name: str, role: Role | None, by: str, reason: str) -> bool:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute("SELECT name FROM accounts WHERE name = ?", (name,)).fetchone()
            if row is None:
                return False
            self._logged(by, f"role:{role or 'none'}", str(row[0]), reason, "", time.time())
            if role is None:
                self._db.execute("DELETE FROM roles WHERE name = ?", (name,))
            else:
                self._db.execute("INSERT OR REPLACE INTO roles (name, role) VALUES (?, ?)", (row[0], role))
        return True

    def account_deleted(self, name: str) -> None:
        """The account is gone: its role goes with it (the log keeps what it did and what was done)."""
        self._db.execute("DELETE FROM roles WHERE name = ?", (name,))

    # --- sanctions -------------------------------------------------------------------------------

    def sanction_added(
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
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._logged(by, kind, name, reason, duration, now)
            cursor = self._db.execute(
                "INSERT INTO sanctions (kind, name, address, by, reason, since, until)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (kind, name, address, by, reason, now, until),
            )
        return Sanction(int(cursor.lastrowid or 0), kind, name, address, by, reason, now, until)

    def sanction_lifted(self, kind: SanctionKind, name: str, by: str, reason: str) -> int:
        now = time.time()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            held = [
                s.id for s in map(sanction, self._db.execute(
                    _SANCTION + " WHERE name = ? COLLATE NOCASE AND kind = ? AND lifted IS NULL", (name, kind)
                )) if s.active(now)
            ]  # fmt: skip
            if not held:
                return 0
            self._logged(by, f"un{kind}", name, reason, "", now)
            self._db.executemany("UPDATE sanctions SET lifted = ? WHERE id = ?", [(now, i) for i in held])
        return len(held)

    def sanctions(self, name: str | None, address: str | None, now: float) -> list[Sanction]:
        rows = self._db.execute(
            _SANCTION + " WHERE (name = ? COLLATE NOCASE OR address = ?) AND lifted IS NULL"
            " AND (until IS NULL OR until > ?) ORDER BY id",
            (name, address, now),
        )
        return [sanction(row) for row in rows]

    # --- reports ---------------------------------------------------------------------------------

    def report_added(
        self, reporter: str, name: str, reason: str, excerpt: Sequence[str], key: str | None
    ) -> Report:
        now = time.time()
        lines = tuple(excerpt)
        report_id = self._inserted(
            "reports",
            "reporter, name, reason, excerpt, made, reporter_key",
            (reporter, name, reason, json.dumps(lines), now, report_key(reporter, key)),
        )
        return Report(report_id, reporter, name, reason, lines, now)

    def reports(self, everything: bool, limit: int, hiding: str | None) -> list[Report]:
        where = " WHERE name != ? COLLATE NOCASE" + ("" if everything else " AND resolved IS NULL")
        rows = self._db.execute(_REPORT + where + " ORDER BY made DESC LIMIT ?", (hiding or "", limit))
        return [_report(row) for row in rows]

    def reports_open(self, hiding: Collection[str] = ()) -> int:
        names = sorted(hiding)
        unless = f" AND name COLLATE NOCASE NOT IN ({', '.join('?' * len(names))})" if names else ""
        (count,) = self._db.execute(
            "SELECT count(*) FROM reports WHERE resolved IS NULL" + unless, names
        ).fetchone()
        return int(count)

    def reports_since(self, key: str, since: float) -> int:
        (count,) = self._db.execute(
            "SELECT count(*) FROM reports WHERE reporter_key = ? AND made >= ?", (key.casefold(), since)
        ).fetchone()
        return int(count)

    def report_resolved(self, report_id: int, by: str, note: str) -> Report | None:
        now = time.time()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute(
                _REPORT + " WHERE id = ? AND resolved IS NULL AND name != ? COLLATE NOCASE", (report_id, by)
            ).fetchone()
            if row is None:
                return None
            report = _report(row)
            self._logged(by, "resolve", report.name, f"#{report_id} {note}".rstrip(), "", now)
            self._db.execute(
                "UPDATE reports SET resolved = ?, resolved_by = ?, note = ? WHERE id = ?",
                (now, by, note, report_id),
            )
        return replace(report, resolved=now, resolved_by=by, note=note)

    # --- the log ---------------------------------------------------------------------------------

    def modlog_appended(self, by: str, action: str, target: str, reason: str, duration: str) -> ModEntry:
        now = time.time()
        entry_id = self._logged(by, action, target, reason, duration, now)
        return ModEntry(entry_id, now, by, action, target, reason, duration)

    def modlog(self, name: str | None, limit: int) -> list[ModEntry]:
        if name is None:
            rows = self._db.execute(_ENTRY + " ORDER BY at DESC LIMIT ?", (limit,))
        else:
            rows = self._db.execute(
                _ENTRY + " WHERE target = ? COLLATE NOCASE OR by = ? COLLATE NOCASE ORDER BY at DESC LIMIT ?",
                (name, name, limit),
            )
        return mod_entries(rows)


def _report(row: tuple[Any, ...]) -> Report:
    rid, reporter, name, reason, excerpt, made, resolved, resolved_by, note = row
    return Report(
        int(rid),
        str(reporter),
        str(name),
        str(reason),
        tuple(str(line) for line in json.loads(excerpt)),
        float(made),
        None if resolved is None else float(resolved),
        None if resolved_by is None else str(resolved_by),
        str(note),
    )
