"""Every game log keeps the moderation part of the storage contract
(``server.log.contract.ModerationStore``): each test runs on the SQLite log, on Redis (a real
redis-server, one for the module, emptied for each test) and on Redis with the records in
PostgreSQL (a real PostgreSQL server, emptied for each test): roles, sanctions, reports and the
append-only moderation log."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.log.contract import DRAWN_IDS, OPERATOR, GameLog
from server.log.postgres import moderation as postgres_moderation
from server.log.redis import moderation as redis_moderation
from server.log.redis.store import RedisStore
from server.log.sqlite import moderation as sqlite_moderation
from server.log.sqlite.schema import SCHEMA_VERSION, upgrade
from server.log.sqlite.store import Store
from tests.cluster.conftest import RedisServer
from tests.server.logs import BACKENDS, fresh_log, postgres_for_module, redis_server

__all__ = ["postgres_for_module", "redis_server"]  # the fixtures, used by name


@pytest.fixture(params=BACKENDS)
async def log(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[GameLog]:
    """A fresh, empty log of each backend."""
    async with fresh_log(request, tmp_path_factory) as store:
        yield store


# --- roles ---------------------------------------------------------------------------------------


async def test_only_a_registered_account_holds_a_role(log: GameLog) -> None:
    """A role is given to an account, found in any case, listed as registered, and taken away; a
    name without an account gets none, and nothing is logged for it."""
    assert await log.account_created("Ann", "hash", None)
    assert await log.account_created("bob", "hash", None)
    assert not await log.role_set("ghost", "admin", by=OPERATOR)
    assert await log.role("ghost") is None
    assert await log.modlog() == []
    assert await log.role_set("ann", "admin", by=OPERATOR)
    assert await log.role_set("BOB", "moderator", by="Ann", reason="helps")
    assert await log.role("ANN") == "admin"
    assert await log.staff() == {"Ann": "admin", "bob": "moderator"}
    assert await log.role_set("bob", None, by="Ann")
    assert await log.role("bob") is None
    assert await log.staff() == {"Ann": "admin"}
    entries = await log.modlog()
    assert [(e.by, e.action, e.target, e.reason) for e in entries] == [
        ("Ann", "role:none", "bob", ""),
        ("Ann", "role:moderator", "bob", "helps"),
        (OPERATOR, "role:admin", "Ann", ""),
    ]


async def test_a_deleted_accounts_role_goes_and_its_log_stays(log: GameLog) -> None:
    """Deleting an account takes its role; the log keeps every entry, with the name as it was; a
    new account of the name holds no role."""
    assert await log.account_created("Mia", "hash", None)
    assert await log.role_set("mia", "moderator", by=OPERATOR)
    await log.sanction_added("silence", "troll", by="Mia", until=None, reason="spam", duration="perm")
    await log.account_deleted("mia")
    assert await log.role("mia") is None and await log.staff() == {}
    assert await log.account_created("mia", "hash", None)
    assert await log.role("mia") is None
    assert [(e.by, e.action, e.target) for e in await log.modlog("MIA")] == [
        ("Mia", "silence", "troll"),
        (OPERATOR, "role:moderator", "Mia"),
    ]


# --- sanctions -----------------------------------------------------------------------------------


async def test_a_sanction_holds_for_its_name_until_its_end(log: GameLog) -> None:
    """A sanction holds for its name in any case until its end (for good without one), and not
    for another name; each is logged with its reason and duration."""
    now = time.time()
    ban = await log.sanction_added(
        "ban", "Troll", by="Ann", until=now + 3600, reason="insults", duration="1h"
    )
    silence = await log.sanction_added("silence", "troll", by="Ann", until=None, duration="perm")
    assert ban.id != silence.id and ban.until == now + 3600 and ban.since <= time.time()
    assert [(s.kind, s.name, s.by, s.reason) for s in await log.sanctions("TROLL")] == [
        ("ban", "Troll", "Ann", "insults"),
        ("silence", "troll", "Ann", ""),
    ]
    assert [s.kind for s in await log.sanctions("troll", now=now + 7200)] == ["silence"]
    assert await log.sanctions("other") == []
    assert [(e.action, e.target, e.reason, e.duration) for e in await log.modlog()] == [
        ("silence", "troll", "", "perm"),
        ("ban", "Troll", "insults", "1h"),
    ]


async def test_a_guests_sanction_holds_for_its_address(log: GameLog) -> None:
    """A sanction given with an address holds for anyone from that address, whatever the name,
    and for the name from anywhere; other addresses are free."""
    await log.sanction_added("ban", "guest7", by="Ann", until=None, address="203.0.113.9", duration="perm")
    assert [s.name for s in await log.sanctions("newname", "203.0.113.9")] == ["guest7"]
    assert [s.address for s in await log.sanctions("guest7", "198.51.100.1")] == ["203.0.113.9"]
    assert await log.sanctions(None, "198.51.100.1") == []
    assert await log.sanctions("newname", "198.51.100.1") == []


async def test_lifting_ends_the_kinds_sanctions_and_is_logged(log: GameLog) -> None:
    """Lifting a kind ends every active sanction of that kind of the name (its address's too) and
    no other kind; lifting what does not hold changes and logs nothing."""
    await log.sanction_added("ban", "troll", by="Ann", until=None, address="203.0.113.9")
    await log.sanction_added("ban", "troll", by="Bob", until=time.time() + 60)
    await log.sanction_added("silence", "troll", by="Ann", until=None)
    assert await log.sanction_lifted("ban", "TROLL", by="Bob", reason="appeal") == 2
    assert [s.kind for s in await log.sanctions("troll", "203.0.113.9")] == ["silence"]
    entries = await log.modlog()
    assert await log.sanction_lifted("ban", "troll", by="Bob") == 0
    assert await log.sanction_lifted("kick", "troll", by="Bob") == 0
    assert await log.modlog() == entries
    assert (entries[0].action, entries[0].by, entries[0].reason) == ("unban", "Bob", "appeal")


# --- reports -------------------------------------------------------------------------------------


async def test_reports_are_listed_newest_first_and_resolved_once(log: GameLog) -> None:
    """Reports keep their excerpt; open ones are listed newest first and counted; one resolved
    leaves the open list, is logged with its note, and cannot be resolved again; ``everything``
    lists both."""
    first = await log.report_added("bob", "troll", "insults", ["<troll> you idiot", "<bob> stop"])
    second = await log.report_added("cid", "spammer", "flood", [])
    assert [r.id for r in await log.reports()] == [second.id, first.id]
    assert (await log.reports())[1].excerpt == ("<troll> you idiot", "<bob> stop")
    assert await log.reports_open() == 2
    resolved = await log.report_resolved(first.id, by="Ann", note="banned 7d")
    assert resolved is not None and (resolved.resolved_by, resolved.note) == ("Ann", "banned 7d")
    assert resolved.resolved is not None
    assert await log.report_resolved(first.id, by="Ann") is None
    assert await log.report_resolved(999, by="Ann") is None
    assert [r.id for r in await log.reports()] == [second.id]
    assert await log.reports_open() == 1
    everything = await log.reports(everything=True)
    assert [(r.id, r.resolved_by) for r in everything] == [(second.id, None), (first.id, "Ann")]
    assert [(e.action, e.target, e.reason) for e in await log.modlog()] == [
        ("resolve", "troll", f"#{first.id} banned 7d")
    ]


async def test_a_reporters_reports_are_counted_from_a_time(log: GameLog) -> None:
    """The reports a reporter made since a time are counted by who made them (the key given, else
    the name, in any case), and nobody else's; a limit bounds the reports listed."""
    before = time.time() - 1
    for n in range(3):
        await log.report_added("Bob", f"p{n}", "x", [])
    await log.report_added("cid", "p0", "x", [])
    await log.report_added("bob2", "p1", "x", [], key="guest:Bob")  # a new name, the same player
    await log.report_added("bob", "p2", "x", [], key="guest:other")  # the name, another player
    assert await log.reports_since("bob", before) == 3
    assert await log.reports_since("BOB", time.time() + 1) == 0
    assert await log.reports_since("guest:bob", before) == 1
    assert len(await log.reports(limit=2)) == 2
    assert len(await log.reports(everything=True, limit=3)) == 3


async def test_a_staff_member_reads_and_resolves_no_report_of_themselves(log: GameLog) -> None:
    """``hiding`` leaves out the reports of a name (in any case), open or all, and still lists
    up to ``limit`` others; a report of ``by`` is not theirs to resolve."""
    own = await log.report_added("bob", "Kim", "abusive mod", [])
    others = [await log.report_added("bob", f"p{n}", "x", []) for n in range(3)]
    await log.report_added("cid", "KIM", "again", [])
    for everything in (False, True):
        shown = await log.reports(everything=everything, limit=3, hiding="kim")
        assert [r.id for r in shown] == [r.id for r in reversed(others)], everything
    assert len(await log.reports(limit=10)) == 5
    assert await log.report_resolved(own.id, by="kim") is None
    assert await log.reports_open() == 5
    assert await log.reports_open(hiding={"kim"}) == 3
    assert await log.reports_open(hiding={"kim", "p0", "nobody"}) == 2
    resolved = await log.report_resolved(own.id, by="ann")
    assert resolved is not None and resolved.resolved_by == "ann"


async def test_reports_and_entries_take_drawn_ids_and_a_taken_one_is_drawn_again(
    log: GameLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Report and log entry ids are drawn among eight digits, not counted (a staff member, who
    reads all but the reports of themselves, would see a gap in a count), and read newest first
    by time; an id already taken is drawn again."""
    reports = [await log.report_added("bob", f"p{n}", "x", []) for n in range(6)]
    entries = [await log.modlog_appended("Ann", "kick", f"p{n}", "x", "") for n in range(6)]
    for made in (reports, entries):
        ids = [x.id for x in made]
        assert all(i in DRAWN_IDS for i in ids) and len(set(ids)) == 6, ids
        assert sorted(ids) != list(range(min(ids), min(ids) + 6)), ids
    assert [r.id for r in await log.reports(everything=True)] == [r.id for r in reversed(reports)]
    assert [e.id for e in await log.modlog()] == [e.id for e in reversed(entries)]
    draws = iter([reports[0].id, reports[5].id, 12_345_678])  # the first two are taken
    for module in (sqlite_moderation, redis_moderation, postgres_moderation):
        monkeypatch.setattr(module, "drawn_id", lambda: next(draws))
    again = await log.report_added("cid", "p9", "y", [])
    assert again.id == 12_345_678
    assert [r.reason for r in await log.reports(everything=True)][:2] == ["y", "x"]
    draws = iter([entries[0].id, entries[5].id, 23_456_789])
    entry = await log.modlog_appended("Ann", "close", "room1", "spam")
    assert entry.id == 23_456_789 and (await log.modlog())[0] == entry


async def test_redis_reads_in_order_the_reports_and_entries_of_counted_ids(
    redis_server: RedisServer,
) -> None:
    """Reports and entries Redis kept when their ids were counted (hashes only, no sorted set by
    time) are listed among the new ones by time, once put in order at the first read."""
    await redis_server.wait_ready()
    client = aioredis.from_url(redis_server.url, decode_responses=True)
    try:
        await client.flushall()
        store = RedisStore(client, lambda room: None)
        old = [await store.report_added("bob", f"p{n}", "x", []) for n in range(2)]
        logged = [await store.modlog_appended("Ann", "kick", f"p{n}", "x", "") for n in range(2)]
        await client.zrem(redis_moderation.REPORTS_MADE, *(r.id for r in old))  # as they were kept
        await client.zrem(redis_moderation.MODLOG_ORDER, *(e.id for e in logged))
        new = await store.report_added("cid", "p9", "y", [])
        entry = await store.modlog_appended("Ann", "close", "room1", "spam")
        listed = await store.reports(everything=True)
        assert [r.id for r in listed] == [new.id, old[1].id, old[0].id]
        assert [e.id for e in await store.modlog()] == [entry.id, logged[1].id, logged[0].id]
        assert await client.zcard(redis_moderation.REPORTS_MADE) == 3
    finally:
        await client.aclose()


# --- the log -------------------------------------------------------------------------------------


async def test_the_log_is_newest_first_limited_and_filtered_by_name(log: GameLog) -> None:
    """Entries are read newest first, at most the limit; with a name, only those where it acted or
    was acted on, in any case."""
    a = await log.modlog_appended("Ann", "kick", "troll", "flood", "")
    await log.modlog_appended("Ann", "close", "room1", "spam")
    await log.modlog_appended("Bob", "announce", "*", "restart at 5")
    assert [e.action for e in await log.modlog()] == ["announce", "close", "kick"]
    assert [e.action for e in await log.modlog(limit=2)] == ["announce", "close"]
    assert [e.action for e in await log.modlog("ann")] == ["close", "kick"]
    assert [e.action for e in await log.modlog("TROLL")] == ["kick"]
    assert (await log.modlog("troll"))[0] == a


# --- the SQLite file -----------------------------------------------------------------------------


def test_the_sqlite_log_refuses_to_change_or_delete_an_entry(tmp_path: Path) -> None:
    """The moderation log's rows cannot be updated or deleted, even by hand."""
    import asyncio

    path = str(tmp_path / "cafe.db")
    store = Store(path)
    asyncio.run(store.modlog_appended("Ann", "kick", "troll"))
    store.close()
    db = sqlite3.connect(path)
    for statement in ("UPDATE modlog SET reason = 'x'", "DELETE FROM modlog"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute(statement)
    assert db.execute("SELECT count(*) FROM modlog").fetchone() == (1,)
    db.close()


async def test_roles_and_sanctions_survive_a_restart_and_an_upgrade(tmp_path: Path) -> None:
    """A file of the version before moderation is brought up to it; roles, sanctions, reports and
    the log written then are all there after the store is opened again."""
    path = str(tmp_path / "cafe.db")
    db = sqlite3.connect(path, isolation_level=None)
    upgrade(db, ())  # the tables of version 5, the last before the numbered steps
    assert db.execute("PRAGMA user_version").fetchone() == (5,)
    db.close()
    store = Store(path)
    assert await store.account_created("ann", "hash", None)
    assert await store.role_set("ann", "admin", by=OPERATOR)
    await store.sanction_added("ban", "troll", by="ann", until=None)
    await store.report_added("bob", "troll", "insults", ["<troll> hi"])
    store.close()
    store = Store(path)
    assert await store.role("ann") == "admin"
    assert [s.kind for s in await store.sanctions("troll")] == ["ban"]
    assert [r.excerpt for r in await store.reports()] == [("<troll> hi",)]
    assert len(await store.modlog()) == 2
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    db.close()
