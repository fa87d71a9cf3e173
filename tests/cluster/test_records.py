"""A cluster's records in PostgreSQL (``--database``), Redis keeping only what is live: two nodes
on a real redis-server and a real PostgreSQL server. A finished game moves to PostgreSQL once,
whatever instant a node dies at; PostgreSQL stopped for 10 s stops no game and loses no record."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis.asyncio as aioredis

from engine import GameRecord, Options, Outcome, new_position
from server.log.postgres.records import Records
from server.log.postgres.store import ARCHIVE, PostgresStore
from server.log.redis.keys import PREFIX, lease_key
from tests.cluster.conftest import QUICK_HASH, two_nodes
from tests.cluster.postgres import PostgresServer, postgres_server, wait_accepting
from tests.cluster.test_cluster import Game, _play
from tests.server.clients import WsClient, http_get
from tests.server.process import ServerProcess

__all__ = ["postgres_server"]  # the fixture, used by name

PASSWORD = "correct horse battery"
FENCE = "n:1"


async def _rows(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        return await (await conn.execute(sql.encode(), args)).fetchall()


@pytest.fixture
async def records_nodes(
    redis_url: str, postgres_server: PostgresServer, tmp_path: Path
) -> AsyncIterator[list[ServerProcess]]:
    """Two nodes with their records in the test's PostgreSQL; lost players are dropped from their
    games after half a second."""
    args = ("--database", postgres_server.url, "--resume-window", "0.5", *QUICK_HASH, "--bot-workers", "0")
    async with two_nodes(redis_url, tmp_path, *args) as started:
        yield started


async def _rated_game(a: ServerProcess, b: ServerProcess, room: str) -> tuple[WsClient, WsClient]:
    """ann (through a) and bob (through b), both registered, seated in ``room`` and started: the game
    ends as soon as one of them leaves (``absent drop``)."""
    ann = await WsClient.connect(a.port, "ann", password=PASSWORD)
    bob = await WsClient.connect(b.port, "bob", password=PASSWORD)
    assert (await ann.command(f"/join {room}"))["type"] == "ack"
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    assert (await bob.command(f"/join {room}"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    return ann, bob


async def _register(port: int, *names: str) -> None:
    for name in names:
        client = await WsClient.connect(port, name)
        assert (await client.request({"type": "register", "password": PASSWORD}))["registered"] is True
        await client.close()


async def test_the_records_live_in_postgres_and_a_finished_game_leaves_redis(
    records_nodes: list[ServerProcess], postgres_server: PostgresServer, redis_url: str
) -> None:
    """Accounts made through one node log in through the other; a rated game's end gives its
    ratings, and its record, players and rating changes are in PostgreSQL while Redis keeps
    nothing of it (no account, no game, nothing waiting); both nodes read the game back."""
    a, b = records_nodes
    await _register(a.port, "ann", "bob")
    ann, bob = await _rated_game(a, b, "rated")
    await bob.close()
    over = await ann.next("game_over", timeout=30)
    assert set(over["ratings"]) == {"ann", "bob"}
    url = postgres_server.url
    (game_id,) = [row[0] for row in await _rows(url, "SELECT id FROM games")]
    seats = await _rows(
        url, "SELECT seat, name, identity FROM players WHERE game_id = %s ORDER BY seat", game_id
    )
    assert [(name, identity) for _, name, identity in seats] == [
        ("ann", "account:ann"),
        ("bob", "account:bob"),
    ]
    changes = await _rows(
        url, "SELECT key, games FROM rating_history WHERE game_id = %s ORDER BY key", game_id
    )
    assert changes == [("account:ann", 1), ("account:bob", 1)]
    assert {row[0] for row in await _rows(url, "SELECT key FROM accounts")} == {"ann", "bob"}
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        assert await client.exists(f"{PREFIX}game:{game_id}", f"{PREFIX}game:{game_id}:moves") == 0
        assert await client.zcard(ARCHIVE) == 0
        assert [k async for k in client.scan_iter(match=f"{PREFIX}account:*")] == []
        assert [k async for k in client.scan_iter(match=f"{PREFIX}rating:*")] == []
    finally:
        await client.aclose()
    for node in (a, b):
        status, _, body = await http_get(node.port, f"/api/games/{game_id}")
        assert status == 200 and json.loads(body)["players"] == ["ann", "bob"]
        status, _, body = await http_get(node.port, "/api/players/ann")
        assert status == 200 and json.loads(body)["rating"] == over["ratings"]["ann"]["after"]
    again = await WsClient.connect(b.port, "ann", password=PASSWORD)
    history = await again.command("/history")
    assert game_id in json.dumps(history)


async def test_a_node_without_a_database_warns_what_records_in_redis_cost(
    redis_url: str, tmp_path: Path
) -> None:
    """A cluster without ``--database`` still starts, with a warning that says what it costs."""
    node = await ServerProcess.start(tmp_path / "a.db", "--redis", redis_url, "--bot-workers", "0")
    node.proc.send_signal(signal.SIGTERM)
    await asyncio.wait_for(node.proc.wait(), 60)
    (warning,) = [line for line in await node.logs() if line.get("event") == "records_in_redis"]
    assert warning["level"] == "warning" and "Redis' memory for ever" in warning["cost"]


# --- the move to PostgreSQL, cut short at each instant (a store in this process, as a node's) -----


@pytest.fixture
async def store(redis_url: str, postgres_server: PostgresServer) -> AsyncIterator[PostgresStore]:
    """A node's store, owning room ``r``."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    await client.set(lease_key("r"), FENCE)
    records = Records(postgres_server.url)
    await records.open()
    yield PostgresStore(client, lambda room: FENCE, records)
    await records.close()
    await client.aclose()


async def _started(store: PostgresStore, game_id: str) -> Outcome:
    """A rated game of ann and bob, registered, started in room ``r``; the outcome it ends with."""
    for name in ("ann", "bob"):
        await store.account_created(name, "hash", None)
    record = GameRecord(("ann", "bob"), seed=3, options=Options())
    await store.game_started(game_id, "r", record, ["person", "person"], {}, ["account:ann", "account:bob"])
    await store.move_played(game_id, 1, "BAR")  # (the log checks no rule)
    return Outcome("end", {"ann": 7, "bob": 3}, {}, ("ann", "bob"), {"ann": 1, "bob": 2})


async def _rated_once(store: PostgresStore, url: str, game_id: str) -> None:
    """The game's record is in PostgreSQL once, with its move, and rated once; Redis let it go."""
    assert await _rows(url, "SELECT moves FROM games WHERE id = %s", game_id) == [(["BAR"],)]
    assert await _rows(url, "SELECT count(*) FROM rating_history WHERE game_id = %s", game_id) == [(2,)]
    for name in ("ann", "bob"):
        standing = await store.standing(f"account:{name}")
        assert standing is not None and standing.skill.games == 1
    assert await store.redis.exists(f"{PREFIX}game:{game_id}") == 0
    assert await store.waiting() == 0
    stored = await store.game(game_id)
    assert stored is not None and stored.record.moves == ("BAR",) and stored.finished is not None


async def _ended_before_postgres(store: PostgresStore, monkeypatch: pytest.MonkeyPatch, game_id: str) -> None:
    """A game started and ended on a node that dies after Redis took its end and before
    PostgreSQL did: its record waits in Redis."""
    outcome = await _started(store, game_id)

    async def dies(*args: object) -> list[object]:
        raise SystemExit("the node dies here")

    monkeypatch.setattr(store.records, "archive", dies)
    with pytest.raises(SystemExit):
        await store.game_finished(game_id, outcome)
    monkeypatch.undo()


async def test_a_crash_after_redis_before_postgres_loses_nothing(
    store: PostgresStore, postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The node dies after Redis took the game's end and before PostgreSQL did: the game waits,
    readable, and is no longer running; another node writes its record and rates it, once."""
    await _ended_before_postgres(store, monkeypatch, "g1")
    assert await store.waiting() == 1
    assert await store.unfinished_games() == []
    waiting = await store.game("g1")
    assert waiting is not None and waiting.result is not None
    assert await _rows(postgres_server.url, "SELECT id FROM games") == []
    other = PostgresStore(store.redis, lambda room: None, store.records)  # another node: no lease
    assert await other.archive_due(time.time() + 10) == 1
    await _rated_once(store, postgres_server.url, "g1")


async def test_two_nodes_writing_the_waiting_records_at_once_count_each_once(
    store: PostgresStore, postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two nodes look for the waiting records at the same moment: one writes the game, the other
    finds it kept; their ``records_written`` counts add up to the games written (each counted
    one the other wrote, and the log said twice as many as there were)."""
    await _ended_before_postgres(store, monkeypatch, "g1")
    a, b = (PostgresStore(store.redis, lambda room: None, store.records) for _ in range(2))
    counts = await asyncio.gather(a.archive_due(time.time() + 10), b.archive_due(time.time() + 10))
    assert sorted(counts) == [0, 1]
    await _rated_once(store, postgres_server.url, "g1")


async def test_a_crash_after_postgres_before_redis_lets_go_rates_once(
    store: PostgresStore, postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The node dies after PostgreSQL kept the game and before Redis dropped it: writing it again
    (another node, or the game finished again after a restart) changes no record and no rating,
    and gives the same rating changes back."""
    outcome = await _started(store, "g1")

    async def dies(*args: object) -> None:
        raise SystemExit("the node dies here")

    monkeypatch.setattr(store, "_drop", dies)
    with pytest.raises(SystemExit):
        await store.game_finished("g1", outcome)
    monkeypatch.undo()
    first = await store.game_ratings("g1")
    assert [c.key for c in first] == ["account:ann", "account:bob"]
    assert await store.waiting() == 1
    again = PostgresStore(store.redis, lambda room: FENCE, store.records)  # the node, restarted
    again.adopt("g1", "r", GameRecord(("ann", "bob"), seed=3, options=Options()), ["person", "person"])
    assert await again.game_finished("g1", outcome) == first
    await _rated_once(store, postgres_server.url, "g1")
    assert await again.archive_due(time.time() + 10) == 0


async def _node_stops(redis_url: str, url: str) -> tuple[int | None, str]:
    """A node started on Redis and the PostgreSQL database ``url``, which stops by itself: its
    exit status and what it wrote to stderr (JSON log lines)."""
    node = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", "0", "--line-port", "-1", "--redis", redis_url,
        "--database", url, "--log-format", "json", stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(node.communicate(), 60)
    return node.returncode, err.decode()


async def test_an_old_database_upgrades_and_a_newer_one_is_refused(
    redis_url: str, postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """A database at an older schema version takes the steps it lacks at start, its records kept;
    one of a newer version stops the node (exit 2, ``records_too_new``) and is left as it was."""
    from server.log.postgres import schema

    url = postgres_server.url
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await schema.upgrade(conn, schema.STEPS[:1])
        await conn.execute(
            b"INSERT INTO accounts (key, name, hash, created, form) VALUES ('x', 'x', 'h', 0, 'x')"
        )
        await schema.upgrade(conn)  # every step this code has
        assert await (await conn.execute(b"SELECT version FROM schema_version")).fetchall() == [
            (schema.SCHEMA_VERSION,)
        ]
        assert await (await conn.execute(b"SELECT name FROM accounts")).fetchall() == [("x",)]
        await conn.execute(b"UPDATE schema_version SET version = version + 1")
    status, err = await _node_stops(redis_url, url)
    assert status == 2
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert any(e.get("event") == "records_too_new" for e in events), events
    assert await _rows(url, "SELECT version FROM schema_version") == [(schema.SCHEMA_VERSION + 1,)]


# --- PostgreSQL stopped for 10 s while games run and end ------------------------------------------

OUTAGE = 10.0


@pytest.mark.timeout(240)
async def test_postgres_stopped_for_ten_seconds_stops_no_game_and_loses_no_record(
    records_nodes: list[ServerProcess], postgres_server: PostgresServer, redis_url: str
) -> None:
    """PostgreSQL stops for 10 s. Meanwhile a rated game ends (its players hear the end, without
    ratings) and a guests' game is played through to its end; a login and ``/top`` get
    ``unavailable`` (the records over HTTP 503), every message is answered, and the nodes stay
    ready (``/readyz`` 200). When it is back,
    both records are written, the rating once, and nothing waits in Redis; the players log in
    again."""
    a, b = records_nodes
    await _register(a.port, "ann", "bob")
    ann, bob = await _rated_game(a, b, "rated")
    cid = await WsClient.connect(a.port, "cid")
    dee = await WsClient.connect(b.port, "dee")
    assert (await cid.command("/join free"))["type"] == "ack"
    assert (await cid.command("/option seed 11"))["type"] == "ack"
    assert (await cid.command("/option host off"))["type"] == "ack"
    assert (await dee.command("/join free"))["type"] == "ack"
    assert (await dee.command("/start"))["type"] == "ack"
    stopped = time.monotonic()
    await asyncio.to_thread(postgres_server.stop)
    try:
        await bob.close()  # the rated game ends as bob is dropped
        over = await ann.next("game_over", timeout=30)
        assert not over.get("ratings")
        game = await _play([cid, dee], Game(new_position(["cid", "dee"], 11)), random.Random(4), None, dee)
        assert game.moves > 0
        assert (await cid.next("game_over", timeout=30))["ranking"]
        late = await WsClient.connect(b.port)
        answer = await late.request({"type": "hello", "name": "bob", "password": PASSWORD}, timeout=10)
        assert answer["type"] == "error" and answer["code"] == "unavailable", answer
        top = await cid.command("/top")
        assert top["type"] == "error" and top["code"] == "unavailable", top
        for path in ("/api/leaderboard?limit=3", "/api/players/ann"):  # the records over HTTP: 503
            page = await http_get(b.port, path)
            assert (page.status, page.json()) == (503, {"error": "unavailable"}), path
        ready = await http_get(b.port, "/readyz")  # its games go on: the balancer keeps it
        assert (ready.status, ready.json()["status"]) == (200, "ok")
        ping = await cid.request({"type": "ping"}, timeout=10)
        assert ping["type"] == "pong"
        waiting = aioredis.from_url(redis_url, decode_responses=True)
        try:
            assert await waiting.zcard(ARCHIVE) == 2
        finally:
            await waiting.aclose()
        await asyncio.sleep(max(0.0, OUTAGE - (time.monotonic() - stopped)))
    finally:
        await asyncio.to_thread(postgres_server.start)
    await wait_accepting(postgres_server)
    url = postgres_server.url

    async def written() -> bool:
        return len(await _rows(url, "SELECT id FROM games")) == 2

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not await written():
        assert loop.time() < deadline, "the records waiting were never written"
        await asyncio.sleep(0.5)
    rated = await _rows(url, "SELECT g.room, count(h.key) FROM games g LEFT JOIN rating_history h"
                        " ON h.game_id = g.id GROUP BY g.room ORDER BY g.room")  # fmt: skip
    assert rated == [("free", 0), ("rated", 2)]
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        assert await client.zcard(ARCHIVE) == 0
        assert [k async for k in client.scan_iter(match=f"{PREFIX}game:*")] == []
    finally:
        await client.aclose()
    back = await WsClient.connect(b.port, "bob", password=PASSWORD)
    assert back.name == "bob"


async def test_a_database_without_redis_is_refused_at_start() -> None:
    """``--database`` alone (PostgreSQL keeps a cluster's records, beside Redis) stops the server
    at once with one line and exit status 2."""
    node = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", "0", "--line-port", "-1", "--data", ":memory:",
        "--database", "postgresql://cafe@127.0.0.1:1/cafe", stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(node.communicate(), 60)
    assert node.returncode == 2
    assert err.decode().strip() == (
        "cafe-server: error: --database (CAFE_DATABASE) needs --redis (CAFE_REDIS): only a cluster uses it"
    )


async def test_an_analysis_is_kept_once_in_postgres(store: PostgresStore) -> None:
    """A finished game's analysis is kept once (a second one for the game is refused and changes
    nothing), also while the game's record still waits in Redis, and read back as it was kept."""
    assert await store.analyses.analysis("g1") is None
    assert await store.analyses.analysis_saved("g1", {"version": 1, "moves": [{"cost": 2}]})
    assert not await store.analyses.analysis_saved("g1", {"version": 2, "moves": []})
    assert await store.analyses.analysis("g1") == {"version": 1, "moves": [{"cost": 2}]}


async def test_a_role_goes_with_its_account_and_the_log_only_grows(
    store: PostgresStore, postgres_server: PostgresServer
) -> None:
    """A role needs an account and goes when the account is deleted; the moderation log keeps
    every entry, and PostgreSQL refuses to change or delete one."""
    assert not await store.role_set("ann", "moderator", by="(operator)")
    assert await store.account_created("Ann", "hash", None)
    assert await store.role_set("ann", "moderator", by="(operator)")
    assert await store.staff() == {"Ann": "moderator"}
    await store.account_deleted("ann")
    assert await store.role("ann") is None and await store.staff() == {}
    assert [e.action for e in await store.modlog("ann")] == ["role:moderator"]
    for statement in ("UPDATE modlog SET reason = 'x'", "DELETE FROM modlog", "TRUNCATE modlog"):
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            await _rows(postgres_server.url, statement)


async def test_a_pg_dump_restored_into_an_empty_database_brings_the_records_back(
    store: PostgresStore, postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """The README's backup: ``pg_dump -Fc`` while the records are in use, then ``pg_restore`` into
    an empty database; a node opening it finds the accounts, ratings and finished games as they
    were (its schema already the code's)."""
    outcome = await _started(store, "g1")
    changes = await store.game_finished("g1", outcome)
    dump = tmp_path / "cafe-records.dump"
    tools = postgres_server.bin
    done = await asyncio.create_subprocess_exec(
        str(tools / "pg_dump"), "-Fc", "-f", str(dump), postgres_server.url
    )
    assert await done.wait() == 0
    url = postgres_server.create_database("restored")
    done = await asyncio.create_subprocess_exec(str(tools / "pg_restore"), "--no-owner", "-d", url, str(dump))
    assert await done.wait() == 0
    records = Records(url)
    await records.open()
    try:
        again = PostgresStore(store.redis, lambda room: FENCE, records)
        account = await again.account("ANN")
        assert account is not None and account.name == "ann"
        assert await again.game_ratings("g1") == changes
        kept = await again.game("g1")
        assert kept is not None and kept.record.moves == ("BAR",)
    finally:
        await records.close()


async def test_a_node_whose_schema_step_fails_stops_with_one_event(
    redis_url: str, postgres_server: PostgresServer
) -> None:
    """A database that says it is older than its tables are (changed by hand): the first step it
    takes again fails, and the node stops with one error event (``records_unreadable``) and exit
    status 2, the database left as it was."""
    from server.log.postgres import schema

    url = postgres_server.url
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await schema.upgrade(conn)
        await conn.execute(b"UPDATE schema_version SET version = 5")
    status, err = await _node_stops(redis_url, url)
    assert status == 2, err[-2000:]
    lines = err.splitlines()
    assert all(line.startswith("{") for line in lines), lines  # (no traceback)
    [failed] = [e for e in map(json.loads, lines) if e.get("level") == "error"]
    assert failed["event"] == "records_unreadable" and "reporter_key" in failed["reason"], failed
    assert await _rows(url, "SELECT version FROM schema_version") == [(5,)]


async def test_a_failing_schema_step_leaves_the_database_as_it_was(postgres_server: PostgresServer) -> None:
    """The steps a start takes run in one transaction: one that fails undoes those before it, and
    the database keeps its version, its tables and its rows."""
    from server.log.migrations import Step
    from server.log.postgres import schema

    steps = (
        Step(1, "001_a.sql", "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);"),
        Step(2, "002_b.sql", "CREATE TABLE b (x INTEGER);"),
        Step(3, "003_c.sql", "CREATE TABLE c (x INTEGER); INSERT INTO nowhere VALUES (1);"),
    )
    async with await psycopg.AsyncConnection.connect(postgres_server.url, autocommit=True) as conn:
        await schema.upgrade(conn, steps[:1])
        with pytest.raises(psycopg.errors.UndefinedTable):
            await schema.upgrade(conn, steps)
        assert await (await conn.execute(b"SELECT version FROM schema_version")).fetchall() == [(1,)]
        tables = await (
            await conn.execute(b"SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        ).fetchall()
        assert tables == [("a",), ("schema_version",)]
        assert await (await conn.execute(b"SELECT x FROM a")).fetchall() == [(1,)]


async def test_a_token_of_an_account_the_restored_records_lack_is_refused(
    records_nodes: list[ServerProcess], postgres_server: PostgresServer
) -> None:
    """Resume tokens live in Redis, accounts in PostgreSQL: after a restore from a backup older
    than an account, its player's token (still in Redis) is ``bad_token`` and revoked, rather than
    a login to an account that is not there; once the name's hold ends, a guest may take it."""
    a, b = records_nodes
    await _register(a.port, "ann")
    ann = await WsClient.connect(a.port, "ann", password=PASSWORD)
    token = ann.token
    await ann.close()
    # what a restore of a dump taken before ann registered leaves: no account, her token in Redis
    await _rows(postgres_server.url, "DELETE FROM accounts WHERE key = 'ann' RETURNING key")
    again = await WsClient.connect(b.port)
    refused = await again.request({"type": "hello", "name": "ann", "token": token})
    assert (refused["type"], refused["code"]) == ("error", "bad_token")
    refused = await again.request({"type": "hello", "name": "ann", "token": token})
    assert (refused["type"], refused["code"]) == ("error", "bad_token")
    for _ in range(50):  # once node a's hold of the name ends (the resume window is 0.5 s here)
        welcome = await again.request({"type": "hello", "name": "ann"})
        if welcome.get("code") != "name_taken":
            break
        await asyncio.sleep(0.1)
    assert welcome["type"] == "welcome" and welcome["registered"] is False, welcome
    await again.close()
