"""``cafe-admin`` as operators run it: a process of its own on the data of a server process that
runs meanwhile (a real SQLite file; a real redis-server for a cluster). Each command prints what
it did and exits 0, or one ``cafe-admin: error:`` line and a status that is not 0; every change is
on the moderation log, by the operator, and holds in the running server at once."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NamedTuple

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed

from server.admin.cli import build_parser, settings
from server.log.contract import OPERATOR
from server.log.postgres import schema as records_schema
from server.log.postgres.schema import SCHEMA_VERSION as RECORDS_VERSION
from server.log.sqlite.schema import SCHEMA_VERSION, STEPS, upgrade
from server.log.sqlite.store import Store
from tests.cluster.conftest import RedisServer
from tests.cluster.postgres import running_postgres
from tests.server.clients import WsClient
from tests.server.forkserver import ForkServer, forking, main_path
from tests.server.process import ServerProcess

PASSWORD = "correct-horse"
ROOT = Path(__file__).resolve().parents[2]
#: argon2id with 1 MiB: the same code as the default's 64 MiB, a quicker hash
QUICK_HASH = ("--hash-memory", "1024")


class Done(NamedTuple):
    status: int
    out: str
    err: str


async def admin(*args: str, env: dict[str, str] | None = None) -> Done:
    """Run ``cafe-admin ARGS`` (the console script's function, as a process of its own: forked
    from the tests' fork server, as ``python -m server.admin`` with ``CAFE_TEST_FORK=0``)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    environ = {**clean, "CAFE_HASH_MEMORY": "1024", **(env or {})}
    if not forking():
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.admin",
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environ,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode is not None
        return Done(proc.returncode, out.decode(), err.decode())
    forked = await ForkServer.get().start(
        [main_path("server.admin"), *args], environ, main="server.admin.cli:main", stdout=True
    )
    assert forked.stdout is not None
    out, err = await asyncio.wait_for(asyncio.gather(forked.stdout.read(), forked.stderr.read()), 60)
    return Done(await forked.wait(), out.decode(), err.decode())


def failed(done: Done, words: str) -> None:
    """``done`` failed with one error line saying ``words``."""
    assert done.status == 1, done
    assert done.err.startswith("cafe-admin: error: ") and words in done.err, done.err
    assert done.err.count("\n") == 1 and "Traceback" not in done.err


async def registered(port: int, name: str) -> WsClient:
    client = await WsClient.connect(port, name)
    answer = await client.request({"type": "register", "password": PASSWORD})
    assert answer["type"] == "welcome" and answer["registered"], answer
    return client


async def hello(port: int, name: str, **more: Any) -> dict[str, Any]:
    """The answer to ``hello`` as ``name`` on a new connection."""
    client = await WsClient.connect(port)
    return await client.request({"type": "hello", "name": name, **more})


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[tuple[ServerProcess, Path]]:
    """A server process on a SQLite file, and the file."""
    data = tmp_path / "cafe.db"
    server = await ServerProcess.start(data, *QUICK_HASH, "--bot-workers", "0")
    yield server, data
    if server.proc.returncode is None:
        server.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(server.proc.wait(), 20)


def test_cafe_admin_is_a_console_script_of_the_package() -> None:
    """pyproject.toml installs ``cafe-admin``, running ``server.admin:main``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["cafe-admin"] == "server.admin:main"


# --- one node: SQLite ------------------------------------------------------------------------------


async def test_a_ban_keeps_a_logged_in_person_out_of_the_running_server(
    running: tuple[ServerProcess, Path],
) -> None:
    """cafe-admin bans a logged-in person: they cannot log in again, with the password or their
    resume token; unban lets them in again. Both are on the moderation log, by the operator."""
    server, data = running
    troll = await registered(server.port, "troll")
    token = troll.token
    done = await admin("--data", str(data), "ban", "troll", "2h", "--reason", "insults in the lobby")
    assert done.status == 0, done
    assert done.out.startswith("troll is banned until ") and "insults in the lobby" in done.out
    await troll.close()
    refused = await hello(server.port, "troll", password=PASSWORD)
    assert (refused["type"], refused["code"]) == ("error", "banned")
    assert "insults in the lobby" in refused["message"]
    assert (await hello(server.port, "troll", token=token))["type"] == "error"

    done = await admin("--data", str(data), "unban", "troll")
    assert (done.status, done.out) == (0, "troll may come back (1 ban lifted)\n")
    assert (await hello(server.port, "troll", password=PASSWORD))["type"] == "welcome"
    failed(await admin("--data", str(data), "unban", "troll"), "troll is neither banned nor kicked")

    done = await admin("--data", str(data), "modlog")
    lines = done.out.splitlines()
    assert [line.split("  ")[2:5] for line in lines] == [
        [OPERATOR, "unban", "troll"],
        [OPERATOR, "ban", "troll"],
    ]
    assert lines[1].endswith("  2h  insults in the lobby")
    done = await admin("--data", str(data), "modlog", "bob")
    assert (done.status, done.out) == (0, "The moderation log has no entries of bob.\n")


async def test_a_look_alike_is_the_account_and_a_shorter_ban_says_the_end_that_holds(
    running: tuple[ServerProcess, Path],
) -> None:
    """As the server's staff commands read a name, a look-alike (``TR0LL`` for ``troll``) is the
    account: cafe-admin bans, unbans and gives a role to it. A ban shorter than one that holds
    shortens nothing, and says the end that holds."""
    server, data = running
    await (await registered(server.port, "troll")).close()
    done = await admin("--data", str(data), "ban", "TR0LL", "perm", "--reason", "for good")
    assert done.out.startswith("troll is banned for good (ban #"), done.out
    done = await admin("--data", str(data), "ban", "troll", "30m", "--reason", "shorter")
    assert done.out.startswith("troll is banned for good (ban #"), done.out
    refused = await hello(server.port, "troll", password=PASSWORD)
    assert (refused["code"], "for good" in refused["message"]) == ("banned", True), refused
    done = await admin("--data", str(data), "unban", "tro1l")
    assert (done.status, done.out) == (0, "troll may come back (2 bans lifted)\n")
    assert (await hello(server.port, "troll", password=PASSWORD))["type"] == "welcome"
    done = await admin("--data", str(data), "role", "TROLL", "moderator")
    assert (done.status, done.out) == (0, "troll is now moderator, was no role\n")


async def test_unban_on_the_command_line_lifts_a_kick_as_the_servers_unban_does(
    running: tuple[ServerProcess, Path],
) -> None:
    """A person a moderator kicked cannot come back for 10 minutes; cafe-admin unban lifts the
    kick (logged as ``unkick``, by the operator) and they may log in at once."""
    server, data = running
    assert (await admin("--data", str(data), "role", "mia", "moderator")).status == 1
    mod = await registered(server.port, "mia")
    assert (await admin("--data", str(data), "role", "mia", "moderator")).status == 0
    troll = await registered(server.port, "troll")
    await mod.command("/kick troll flooding")
    await mod.barrier()
    refused = await hello(server.port, "troll", password=PASSWORD)
    assert (refused["type"], refused.get("code")) == ("error", "kicked"), refused
    done = await admin("--data", str(data), "unban", "troll", "--reason", "a mistake")
    assert (done.status, done.out) == (0, "troll may come back (1 kick lifted)\n")
    assert (await hello(server.port, "troll", password=PASSWORD))["type"] == "welcome"
    done = await admin("--data", str(data), "modlog", "--limit", "1")
    assert f"{OPERATOR}  unkick  troll  a mistake" in done.out, done.out
    await troll.close()
    await mod.close()


async def test_a_role_given_on_the_command_line_holds_in_the_running_server(
    running: tuple[ServerProcess, Path],
) -> None:
    """cafe-admin role: the account may use the staff's commands at once; ``none`` takes it back;
    a name without an account is refused and nothing is logged."""
    server, data = running
    ann = await registered(server.port, "ann")
    assert (await ann.command("/modlog"))["code"] == "not_staff"
    done = await admin("--data", str(data), "role", "ann", "admin")
    assert (done.status, done.out) == (0, "ann is now admin, was no role\n")
    assert (await ann.command("/modlog"))["type"] == "modlog"
    assert (await ann.command("/role zed moderator"))["code"] != "not_staff"
    done = await admin("--data", str(data), "role", "ANN", "none", "--reason", "stepped down")
    assert (done.status, done.out) == (0, "ann holds no role now, was admin\n")
    assert (await ann.command("/modlog"))["code"] == "not_staff"
    failed(await admin("--data", str(data), "role", "zed", "moderator"), "zed is not a registered account")
    done = await admin("--data", str(data), "modlog", "--limit", "1")
    assert done.out.count("\n") == 1 and f"{OPERATOR}  role:none  ann  stepped down" in done.out


async def test_a_new_password_is_shown_once_and_the_old_tokens_are_revoked(
    running: tuple[ServerProcess, Path],
) -> None:
    """cafe-admin password: the printed password logs in to the running server, the old one and
    the name's resume token no longer do, and the change is on the log (without the password)."""
    server, data = running
    ann = await registered(server.port, "ann")
    token = ann.token
    await ann.close()
    done = await admin("--data", str(data), "password", "ann")
    assert done.status == 0, done
    first = done.out.splitlines()[0]
    assert first.startswith("New password of ann: ")
    password = first.rsplit(" ", 1)[1]
    assert len(password) >= 16
    assert (await hello(server.port, "ann", token=token))["code"] == "bad_token"
    assert (await hello(server.port, "ann", password=PASSWORD))["code"] == "bad_password"
    assert (await hello(server.port, "ann", password=password))["type"] == "welcome"
    log = (await admin("--data", str(data), "modlog")).out
    assert f"{OPERATOR}  password  ann" in log and password not in log
    failed(await admin("--data", str(data), "password", "nobody"), "nobody is not a registered account")


async def test_reports_are_listed_newest_first_with_their_excerpt(tmp_path: Path) -> None:
    """cafe-admin reports: the open reports with ids, reasons and chat; --all the resolved too."""
    data = tmp_path / "cafe.db"
    store = Store(str(data))
    first = await store.report_added("bob", "troll", "spam", ["troll: buy gold", "bob: stop"])
    second = await store.report_added("eve", "troll", "insults", ["troll: you fool"])
    await store.report_resolved(first.id, by="ann", note="warned")
    store.close()
    done = await admin("--data", str(data), "reports")
    assert done.status == 0
    head, excerpt = done.out.splitlines()
    number, _made, rest = head.split("  ", 2)
    assert (number, rest) == (f"#{second.id}", "eve reports troll: insults  [open]")
    assert excerpt == "    | troll: you fool"
    everything = (await admin("--data", str(data), "reports", "--all")).out.splitlines()
    assert len(everything) == 6 and "resolved by ann" in everything[2] and everything[3] == "    note: warned"


async def test_backup_copies_the_live_file_and_check_replays_its_games(
    running: tuple[ServerProcess, Path], tmp_path: Path
) -> None:
    """While a game runs: backup writes a copy that passes SQLite's integrity check and holds the
    game; check says the schema version and that the game replays; a move that does not replay
    fails the check, naming the game."""
    server, data = running
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join cafe")
    await ann.command("/addbot greedy")
    await ann.command("/start")
    await ann.next("game_started")
    copy = tmp_path / "backup.db"
    done = await admin("--data", str(data), "backup", str(copy))
    assert done.status == 0, done
    assert f"Backed up {data} to {copy}:" in done.out
    assert f"schema version {SCHEMA_VERSION}, 1 game, 0 accounts, in " in done.out, done.out
    saved = Store(str(copy))
    (game,) = await saved.unfinished_games()
    saved.close()
    assert game.room == "cafe"
    failed(await admin("--data", str(data), "backup", str(copy)), "is there already")

    done = await admin("--data", str(data), "check")
    assert done.status == 0, done
    assert done.out.splitlines() == [
        f"{data}: schema version {SCHEMA_VERSION}, this server's.",
        "SQLite's integrity check: ok.",
        "1 unfinished game: every one replays.",
    ]
    with sqlite3.connect(copy) as db:
        db.execute("INSERT INTO journal (game_id, number, move) VALUES (?, 999, 'XXm@XX9n')", (game.game_id,))
    db.close()
    done = await admin("--data", str(copy), "check")
    failed(done, "1 of 1 unfinished games do not replay")
    assert f"game {game.game_id} in room cafe: does not replay" in done.out


async def test_a_game_that_does_not_replay_is_logged_and_keeps_no_other_from_being_played(
    running: tuple[ServerProcess, Path], tmp_path: Path
) -> None:
    """Of two unfinished games, one's log edited so that it no longer replays: the server starts
    all the same (a supervisor's restarts would only fail again), takes up the other, and logs
    the one it cannot (``game_unrestorable``, naming the game, its room and why); the log keeps it
    as it was, for ``check`` and the operator."""
    server, data = running
    for name, room in (("ann", "cafe"), ("cy", "bar")):
        player = await WsClient.connect(server.port, name)
        assert (await player.command(f"/join {room}"))["type"] == "ack"
        assert (await player.command("/addbot greedy"))["type"] == "ack"
        assert (await player.command("/start"))["type"] == "ack"
        await player.next("game_started")
    copy = tmp_path / "edited.db"
    assert (await admin("--data", str(data), "backup", str(copy))).status == 0
    saved = Store(str(copy))
    broken = next(game for game in await saved.unfinished_games() if game.room == "cafe")
    saved.close()
    with sqlite3.connect(copy) as db:
        db.execute(
            "INSERT INTO journal (game_id, number, move) VALUES (?, 999, 'XXm@XX9n')", (broken.game_id,)
        )
    db.close()
    edited = await ServerProcess.start(copy)
    bob = await WsClient.connect(edited.port, "bob")
    rooms = {room["name"]: room for room in (await bob.request({"type": "list_rooms"}))["rooms"]}
    assert set(rooms) == {"bar"} and rooms["bar"]["state"] == "playing"
    edited.proc.send_signal(signal.SIGTERM)
    lines = await edited.logs()
    (event,) = [line for line in lines if line.get("event") == "game_unrestorable"]
    assert (event["game"], event["room"], event["level"]) == (broken.game_id, "cafe", "error")
    assert "'XXm@XX9n' is refused" in event["error"], event
    failed(await admin("--data", str(copy), "check"), "1 of 2 unfinished games do not replay")


async def test_check_leaves_an_older_file_as_it_is_and_refuses_a_newer_one(tmp_path: Path) -> None:
    """check on a file of an older schema says the server will bring it up, and changes nothing;
    on a file of a newer schema it fails (the server would not start on it)."""
    data = tmp_path / "cafe.db"
    with sqlite3.connect(data, isolation_level=None) as db:
        upgrade(db, STEPS[:-1])  # as the version before the last step wrote it
    db.close()
    done = await admin("--data", str(data), "check")
    assert done.status == 0, done
    assert f"schema version {SCHEMA_VERSION - 1}; the server takes it to {SCHEMA_VERSION}" in done.out
    with sqlite3.connect(data) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION - 1,)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    failed(await admin("--data", str(data), "check"), "written by a newer server")


async def test_bad_commands_and_settings_are_one_clear_line(tmp_path: Path) -> None:
    """A missing file, :memory:, a bad name, a ban with a blank reason: one line each, status 1;
    a command line cafe-admin cannot take (a bad duration, a missing --reason, --limit 0):
    argparse's usage and error, status 2; a bad setting: one line, status 2; nothing written."""
    data = tmp_path / "cafe.db"
    failed(await admin("--data", str(data), "modlog"), "no such file")
    assert not data.exists()
    failed(await admin("--data", ":memory:", "reports"), "keeps nothing")
    Store(str(data)).close()
    done = await admin("--data", str(data), "ban", "troll", "2w", "--reason", "x")
    assert done.status == 2 and done.err.startswith("usage: cafe-admin ban "), done
    assert "cafe-admin ban: error: argument DURATION: '2w' is not a duration: 1 to 9999" in done.err
    failed(await admin("--data", str(data), "ban", "no name!", "2h", "--reason", "x"), "is not a name")
    failed(await admin("--data", str(data), "ban", "troll", "2h", "--reason", " "), "a ban needs a reason")
    done = await admin("--data", str(data), "ban", "troll", "2h")
    assert done.status == 2 and "--reason" in done.err
    done = await admin("--data", str(data), "modlog", "--limit", "0")
    assert done.status == 2 and done.err.startswith("usage: cafe-admin modlog "), done
    assert "cafe-admin modlog: error: argument --limit: '0' is not an integer from 1 to 100000" in done.err
    done = await admin("--data", str(data), "backup", str(tmp_path / "a.db"), "b")  # (one too many)
    assert done.status == 2 and done.err.startswith("usage: cafe-admin backup "), done
    assert "cafe-admin backup: error: unrecognized arguments: b" in done.err
    assert not (tmp_path / "a.db").exists()
    done = await admin("--data", str(data), "modlog", env={"CAFE_HASH_MEMORY": "1"})
    assert (done.status, done.err) == (
        2,
        "cafe-admin: error: CAFE_HASH_MEMORY: '1' is not an integer of 8 or more\n",
    )
    done = await admin("--data", str(data), "--database", "postgresql://cafe@127.0.0.1/cafe", "modlog")
    assert (done.status, done.err) == (
        2,
        "cafe-admin: error: --database (CAFE_DATABASE) needs --redis (CAFE_REDIS): only a cluster uses it\n",
    )
    done = await admin("--redis", "notaurl", "modlog")
    assert done.status == 2 and done.err.startswith("cafe-admin: error: --redis: 'notaurl' is not a URL"), (
        done
    )
    done = await admin("--data", str(data), "modlog")
    assert (done.status, done.out) == (0, "The moderation log has no entries.\n")


async def test_the_server_environment_names_the_data(running: tuple[ServerProcess, Path]) -> None:
    """Without flags cafe-admin reads CAFE_DATA, as the server does."""
    server, data = running
    await registered(server.port, "ann")
    done = await admin("role", "ann", "moderator", env={"CAFE_DATA": str(data)})
    assert (done.status, done.out) == (0, "ann is now moderator, was no role\n")


# --- a cluster: Redis ------------------------------------------------------------------------------


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[tuple[ServerProcess, str]]:
    """A cluster node on a real redis-server, and the Redis URL."""
    redis = RedisServer(tmp_path)
    redis.start()
    await redis.wait_ready()
    node = await ServerProcess.start(
        tmp_path / "unused.db", "--redis", redis.url, "--node-id", "a", *QUICK_HASH, "--bot-workers", "0"
    )
    yield node, redis.url
    if node.proc.returncode is None:
        node.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(node.proc.wait(), 20)
    redis.stop()


async def test_a_ban_and_a_role_set_on_a_clusters_redis_hold_on_its_node(
    cluster: tuple[ServerProcess, str],
) -> None:
    """cafe-admin --redis: a role given holds on the running node at once; a logged-in person
    banned is closed by the node and cannot log in again; a new password logs in; all three are
    on the log."""
    node, url = cluster
    ann = await registered(node.port, "ann")
    troll = await registered(node.port, "troll")
    done = await admin("--redis", url, "role", "ann", "moderator")
    assert (done.status, done.out) == (0, "ann is now moderator, was no role\n")
    assert (await ann.command("/modlog"))["type"] == "modlog"

    done = await admin("--redis", url, "ban", "troll", "perm", "--reason", "spam")
    assert done.status == 0 and done.out.startswith("troll is banned for good"), done
    assert "their connections on every node are closed" in done.out
    with pytest.raises(ConnectionClosed):  # the node closes the banned connection at once
        await troll.next("never", timeout=10)
    refused = await hello(node.port, "troll", password=PASSWORD)
    assert (refused["type"], refused["code"]) == ("error", "banned")

    done = await admin("password", "ann", env={"CAFE_REDIS": url})
    password = done.out.splitlines()[0].rsplit(" ", 1)[1]
    await ann.close()
    assert (await hello(node.port, "ann", password=password))["type"] == "welcome"
    log = (await admin("--redis", url, "modlog")).out.splitlines()
    assert [line.split("  ")[3] for line in log] == ["password", "ban", "role:moderator"]


async def test_a_clusters_backup_says_what_to_copy_and_check_replays_from_redis(
    cluster: tuple[ServerProcess, str], tmp_path: Path
) -> None:
    """backup on a cluster writes nothing and says how to back up Redis (exit 1); check replays
    the running games from Redis."""
    node, url = cluster
    done = await admin("--redis", url, "backup", str(tmp_path / "x.db"))
    failed(done, "was not written")
    assert "BGSAVE" in done.out and "appendonlydir" in done.out
    assert not (tmp_path / "x.db").exists()
    ann = await WsClient.connect(node.port, "ann")
    await ann.command("/join cafe")
    await ann.command("/addbot greedy")
    await ann.command("/start")
    await ann.next("game_started")
    done = await admin("--redis", url, "check")
    assert done.status == 0, done
    assert done.out.splitlines()[-1] == "1 unfinished game: every one replays."


async def test_redis_out_of_reach_is_one_line(tmp_path: Path) -> None:
    """A Redis nobody answers at: one error line, status 1."""
    redis = RedisServer(tmp_path)  # a free port, not started
    failed(await admin("--redis", redis.url, "modlog"), "the data cannot be reached")


async def test_with_records_in_postgresql_a_role_and_a_ban_hold_and_check_says_its_version(
    tmp_path: Path,
) -> None:
    """cafe-admin --redis --database: a role and a ban kept in PostgreSQL hold on the running node;
    check names the records' schema version; backup says to use pg_dump. A database of an older
    schema is left as it is: a command refuses it, check says a node upgrades it."""
    redis = RedisServer(tmp_path)
    redis.start()
    await redis.wait_ready()
    with running_postgres() as postgres:
        where = ("--redis", redis.url, "--database", postgres.url)
        node = await ServerProcess.start(tmp_path / "unused.db", *where, *QUICK_HASH, "--bot-workers", "0")
        try:
            ann = await registered(node.port, "ann")
            troll = await registered(node.port, "troll")
            done = await admin(*where, "role", "ann", "admin")
            assert (done.status, done.out) == (0, "ann is now admin, was no role\n")
            assert (await ann.command("/modlog"))["type"] == "modlog"
            assert (await admin(*where, "ban", "troll", "30m", "--reason", "spam")).status == 0
            await troll.close()
            assert (await hello(node.port, "troll", password=PASSWORD))["code"] == "banned"
            done = await admin(*where, "check")
            assert done.status == 0, done
            assert (
                done.out.splitlines()[0]
                == f"PostgreSQL records: schema version {RECORDS_VERSION}, this server's."
            )
            done = await admin(*where, "backup", str(tmp_path / "x.db"))
            failed(done, "was not written")
            assert "pg_dump" in done.out
            # a database of an older schema (nodes of an older version still run on it): left as
            # it is, as a SQLite file of another version is; check says who upgrades it
            older = postgres.create_database("older")
            async with await psycopg.AsyncConnection.connect(older, autocommit=True) as conn:
                await records_schema.upgrade(conn, records_schema.STEPS[:1])
            old = ("--redis", redis.url, "--database", older)
            failed(await admin(*old, "modlog"), "schema version 1, written by an older version")
            done = await admin(*old, "check")
            assert done.status == 0 and done.out.splitlines()[0] == (
                f"PostgreSQL records: schema version 1; a node of this version takes it to {RECORDS_VERSION}"
                " as it starts (cafe-admin leaves it as it is)."
            ), done
            assert "every one replays" in done.out.splitlines()[1]  # (the running games, in Redis)
            async with await psycopg.AsyncConnection.connect(older, autocommit=True) as conn:
                kept = await (await conn.execute(b"SELECT version FROM schema_version")).fetchall()
            assert kept == [(1,)]
        finally:
            node.proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(node.proc.wait(), 20)
            redis.stop()


async def test_a_file_of_another_schema_version_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    """A command that changes data refuses a file of an older schema (it would upgrade it under
    the older server that runs on it) or of a newer one, with one clear line and a status not 0;
    the file keeps its version; a backup copies an older file as it is, without upgrading it."""
    data = tmp_path / "cafe.db"
    with sqlite3.connect(data, isolation_level=None) as db:
        upgrade(db, STEPS[:-1])  # as the version before the last step wrote it
    db.close()
    for args in (("role", "ann", "admin"), ("unban", "ann"), ("modlog",), ("reports",)):
        failed(await admin("--data", str(data), *args), "written by an older server")
    copy = tmp_path / "copy.db"
    done = await admin("--data", str(data), "backup", str(copy))
    assert done.status == 0, done
    for file in (data, copy):
        with sqlite3.connect(file) as db:
            assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION - 1,)
        db.close()
    with sqlite3.connect(data) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    failed(await admin("--data", str(data), "role", "ann", "admin"), "written by a newer server")
    with sqlite3.connect(data) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION + 1,)
    db.close()


def test_a_data_flag_is_the_file_used_whatever_cluster_the_environment_names() -> None:
    """``cafe-admin --data FILE`` works on that file even where the shell holds a cluster's
    CAFE_REDIS and CAFE_DATABASE (a ban must not land in another deployment)."""
    env = {"CAFE_REDIS": "redis://127.0.0.1:1/0", "CAFE_DATABASE": "postgresql://x/y"}
    config = settings(build_parser().parse_args(["--data", "a.db", "modlog"]), env)
    assert (config.data, config.redis, config.database) == ("a.db", None, None)
    config = settings(build_parser().parse_args(["modlog"]), env)
    assert (config.redis, config.database) == ("redis://127.0.0.1:1/0", "postgresql://x/y")


async def test_a_reason_is_kept_on_one_line_without_controls(tmp_path: Path) -> None:
    """A reason typed to cafe-admin is taken as the server takes one from its staff: a line break
    becomes a space and a terminal's escape goes, so the log keeps an entry a line; one over 200
    characters is argparse's error, nothing written."""
    data = tmp_path / "cafe.db"
    Store(str(data)).close()
    done = await admin("--data", str(data), "ban", "troll", "2h", "--reason", "line1\nline2\x1b[31mred")
    assert done.status == 0, done
    log = await admin("--data", str(data), "modlog")
    assert "\x1b" not in log.out and "troll  2h  line1 line2[31mred\n" in log.out, repr(log.out)
    assert len(log.out.strip().splitlines()) == 1, log.out
    done = await admin("--data", str(data), "unban", "troll", "--reason", "x" * 201)
    assert done.status == 2 and "a reason is at most 200 characters" in done.err, done
    assert len((await admin("--data", str(data), "modlog")).out.strip().splitlines()) == 1


def test_a_backup_that_cannot_be_written_names_the_copy_and_leaves_no_file(tmp_path: Path) -> None:
    """A backup whose copy cannot be written (here: files limited to 64 KiB, as a full disk
    would) says so of the copy, not of the live file, and leaves no part of a copy behind,
    which would pass for a backup and stop the next try."""
    data = tmp_path / "cafe.db"
    Store(str(data)).close()  # (its tables alone are 176 KiB)
    target = tmp_path / "copy.db"

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # (a write past it fails, rather than kill)

    clean = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    done = subprocess.run(
        [sys.executable, "-m", "server.admin", "--data", str(data), "backup", str(target)],
        capture_output=True, text=True, env=clean, timeout=60, preexec_fn=small_files, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done
    assert done.stderr.startswith(f"cafe-admin: error: {target}: SQLite: "), done.stderr
    assert "the copy was not made" in done.stderr
    assert not target.exists() and not list(tmp_path.glob("copy.db*"))
