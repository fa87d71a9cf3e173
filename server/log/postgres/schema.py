"""PostgreSQL's schema, brought up to this code's at start: numbered files, one a step, in
:mod:`server.log.postgres.migrations` (read by :mod:`server.log.migrations`, as SQLite's are).

A database keeps the number of the last step it took in ``schema_version``. :func:`upgrade` takes
the steps it lacks in one transaction (an old database upgrades in place; a failing step leaves it
as it was), under a lock, so that nodes starting together take each step once; a database of a
newer version than this code's is refused (:class:`RecordsTooNew`) and left as it is.
"""

from __future__ import annotations

from importlib.resources import files

import psycopg
from psycopg.rows import TupleRow

from server.log.contract import RecordsTooNew
from server.log.migrations import Step, steps, version

#: the steps, from the first
STEPS: tuple[Step, ...] = steps(files("server.log.postgres.migrations"))

#: the version this code writes
SCHEMA_VERSION = version(STEPS, base=0)

#: the advisory lock nodes take while one of them upgrades the schema
_LOCK = 0x6361_6665  # "cafe"


async def version_of(conn: psycopg.AsyncConnection[TupleRow]) -> int:
    """The schema version of the database, read without changing it (0 for an empty one)."""
    table = await (await conn.execute("SELECT to_regclass('schema_version')")).fetchone()
    if table is None or table[0] is None:
        return 0
    row = await (await conn.execute("SELECT version FROM schema_version")).fetchone()
    return 0 if row is None else int(row[0])


async def upgrade(conn: psycopg.AsyncConnection[TupleRow], all_steps: tuple[Step, ...] = STEPS) -> None:
    """Take the steps of ``all_steps`` the database lacks, in one transaction; :class:`RecordsTooNew`
    for a newer database, which is left untouched."""
    newest = version(all_steps, base=0)
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = await (await conn.execute("SELECT version FROM schema_version")).fetchone()
        at = 0 if row is None else int(row[0])
        if at > newest:
            raise RecordsTooNew(at, newest)
        for step in all_steps:
            if step.number > at:
                await conn.execute(step.sql.encode())
        if row is None:
            await conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (newest,))
        else:
            await conn.execute("UPDATE schema_version SET version = %s", (newest,))
