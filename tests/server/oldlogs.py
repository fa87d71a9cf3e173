"""Logs as an older version of the server wrote them, made from a new one."""

from __future__ import annotations

import re
import sqlite3

from server.log.sqlite.schema import STEPS

_CREATED = re.compile(r"CREATE\s+(TABLE|INDEX|TRIGGER)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)
_ADDED = re.compile(r"ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)", re.IGNORECASE)


def without_steps(db: sqlite3.Connection) -> None:
    """Take out of a new log what the numbered schema steps made (their tables, indexes,
    triggers and columns, the last step first), as a file from before version 5 lacks them.

    >>> db = sqlite3.connect(":memory:")
    >>> from server.log.sqlite.schema import upgrade
    >>> upgrade(db); without_steps(db)
    >>> db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'modlog'").fetchone()
    (0,)
    """
    for step in reversed(STEPS):
        # (what a step made first: an index of a column it added goes before the column)
        for kind, name in reversed(_CREATED.findall(step.sql)):
            db.execute(f"DROP {kind.upper()} IF EXISTS {name}")
        for table, column in _ADDED.findall(step.sql):
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
