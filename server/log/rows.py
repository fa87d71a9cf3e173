"""The moderation log's rows as an SQL database returns them (SQLite's and PostgreSQL's, which
keep the same columns), read into the contract's values in one way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from server.log.contract import ModEntry, Sanction, SanctionKind


def sanction(row: tuple[Any, ...]) -> Sanction:
    """A row of ``sanctions``: id, kind, name, address, by, reason, since, until, lifted."""
    sid, kind, name, address, by, reason, since, until, lifted = row
    return Sanction(
        int(sid),
        cast(SanctionKind, kind),
        str(name),
        None if address is None else str(address),
        str(by),
        str(reason),
        float(since),
        None if until is None else float(until),
        None if lifted is None else float(lifted),
    )


def mod_entries(rows: Iterable[tuple[Any, ...]]) -> list[ModEntry]:
    """Rows of ``modlog``: id, at, by, action, target, reason, duration."""
    return [
        ModEntry(int(i), float(at), str(b), str(a), str(t), str(r), str(d)) for i, at, b, a, t, r, d in rows
    ]
