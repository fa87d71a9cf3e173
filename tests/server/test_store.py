"""The SQLite game log keeps a game's room options beside its record; a log from before they were
kept still opens, and its games come back with the default room options. Commits only append to
the WAL; a thread of the store's own copies it into the database file."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine import GameRecord, Options, legal_move_texts, play
from server.app import Server
from server.log.contract import LogTooNew
from server.log.sqlite.schema import OLD_IDENTITY, SCHEMA_VERSION
from server.log.sqlite.store import Store
from tests.server.clients import WsClient
from tests.server.conftest import ServerFactory

#: the log's tables as they were before the room options were kept
OLD_SCHEMA = """
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    players TEXT NOT NULL,
    kinds TEXT NOT NULL,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,
    board TEXT NOT NULL,
    start_player INTEGER,
    started REAL NOT NULL,
    finished REAL,
    result TEXT
);
CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    move TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE players (
    game_id TEXT NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
);
CREATE INDEX players_by_name ON players(name);
CREATE TABLE tokens (
    token TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    issued REAL NOT NULL
);
"""


def old_log(path: Path) -> GameRecord:
    """Write a log in the old layout holding one unfinished game of two moves; return its record."""
    record = GameRecord(("ann", "bob"), seed=8, options=Options(stammtisch=True))
    position = record.start()
    for _ in range(2):
        result = play(position, legal_move_texts(position)[0])
        record, position = record.with_move(result.move), result.position
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute(
            "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
            (
                "old1",
                "old",
                '["ann", "bob"]',
                '["person", "person"]',
                8,
                '{"stammtisch": true}',
                record.board,
                record.start_player,
                1.0,
            ),
        )
        db.executemany("INSERT INTO players VALUES (?, ?)", [("old1", "ann"), ("old1", "bob")])
        db.executemany(
            "INSERT INTO moves VALUES (?, ?, ?)", [("old1", i, m) for i, m in enumerate(record.moves, 1)]
        )
    db.close()
    return record


async def test_a_log_from_before_room_options_opens_and_its_games_come_back(tmp_path: Path) -> None:
    """An old log opens (twice: the column is added once); its game has its record and no room options."""
    path = tmp_path / "old.db"
    record = old_log(path)
    for _ in range(2):
        store = Store(str(path))
        (game,) = await store.unfinished_games()
        assert (game.game_id, game.record, game.room_options) == ("old1", record, {})
        # its players are known by name, as its tokens are: the games stay theirs
        assert [g.game_id for g in await store.history(f"{OLD_IDENTITY}bob")] == ["old1"]
        store.close()


async def test_room_options_are_kept_beside_the_record(tmp_path: Path) -> None:
    """The room options logged with a game come back with it; the record keeps only the engine's option."""
    store = Store(str(tmp_path / "log.db"))
    options = {"seed": None, "stammtisch": False, "clock": 30, "absent": "drop"}
    await store.game_started("g1", "room", GameRecord(("ann", "bob"), seed=1), ["person"] * 2, options)
    game = await store.game("g1")
    assert game is not None and game.room_options == options
    assert game.record.to_dict()["options"] == {"stammtisch": False}
    store.close()
    with sqlite3.connect(tmp_path / "log.db") as db:
        ((engine_options,),) = db.execute("SELECT options FROM games").fetchall()
    db.close()
    assert json.loads(engine_options) == {"stammtisch": False}


async def test_a_server_on_an_old_log_restores_its_game_with_the_default_room_options(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    """The server opens an old log and takes its game up: default room options, stammtisch from the record."""
    path = tmp_path / "old.db"
    old_log(path)
    server: Server = await make_server(data=str(path))
    zoe = await WsClient.connect(server.port, "zoe")
    await zoe.command("/room old")
    assert zoe.view is not None and zoe.view["state"] == "playing"
    assert zoe.view["options"] == {
        **{"stammtisch": True, "clock": None, "seed": None, "absent": "bot"},
        **{"host": True, "private": False, "drawseat": False, "start": None},
    }
    assert zoe.view["game"]["move_number"] == 2


async def test_commits_reach_the_database_file_through_the_stores_own_checkpoints(tmp_path: Path) -> None:
    """The committing connection never checkpoints (so a commit never waits for the file's sync);
    the store's thread copies the WAL into the database file, which then holds every move alone."""
    path = tmp_path / "cafe.db"
    store = Store(str(path), checkpoint_interval=0.05)
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    record = GameRecord(("ann", "bob"), seed=4)
    await store.game_started("g1", "room", record, ["person"] * 2, {})
    position = record.start()
    for number in range(1, 31):
        move = legal_move_texts(position)[0]
        await store.move_played("g1", number, move)
        position = play(position, move).position

    def moves_in_the_file_alone() -> int:
        # immutable=1 reads the database file and ignores the WAL
        with contextlib.closing(sqlite3.connect(f"file:{path}?immutable=1", uri=True)) as db:
            try:
                return int(db.execute("SELECT count(*) FROM journal").fetchone()[0])
            except sqlite3.DatabaseError:
                # not even the tables have been copied yet, or a checkpoint is writing the file
                # as it is read (immutable=1 takes no lock): "malformed"
                return 0

    for _ in range(100):
        if moves_in_the_file_alone() == 30:
            break
        await asyncio.sleep(0.05)
    assert moves_in_the_file_alone() == 30
    store.close()


async def test_a_seat_taken_over_is_the_new_players_in_the_log(tmp_path: Path) -> None:
    """After ``seat_taken`` the stored game seats the new player, in their history, not the old."""
    store = Store(str(tmp_path / "log.db"))
    record = GameRecord(("ann", "bob"), seed=1)
    await store.game_started("g1", "room", record, ["person"] * 2, {}, ["id-ann", "id-bob"])
    await store.seat_taken("g1", 1, "bob", "zoe", "id-zoe")
    stored = await store.game("g1")
    assert stored is not None and stored.record.players == ("ann", "zoe")
    assert [g.game_id for g in await store.history("id-zoe")] == ["g1"]
    assert await store.history("id-bob") == []
    store.close()


def _tables(path: Path) -> dict[str, set[str]]:
    """Each table and index of the file: a table's column names, an index's own name."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        names = db.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall()
        return {
            name: {row[1] for row in db.execute(f"PRAGMA table_info({name})")} if kind == "table" else {kind}
            for kind, name in names
        }


def test_an_old_log_is_upgraded_to_the_tables_of_a_new_one(tmp_path: Path) -> None:
    """A log from before room options, identities and accounts, opened, has the tables, columns,
    indexes and schema version a new log has."""
    old_log(tmp_path / "old.db")
    Store(str(tmp_path / "old.db")).close()
    Store(str(tmp_path / "new.db")).close()
    assert _tables(tmp_path / "old.db") == _tables(tmp_path / "new.db")
    for name in ("old.db", "new.db"):
        with contextlib.closing(sqlite3.connect(tmp_path / name)) as db:
            assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def _newer_log(path: Path) -> None:
    Store(str(path)).close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        db.execute("CREATE TABLE later (x)")  # what a newer version might have made


def test_a_log_of_a_newer_version_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    """A file written by a newer version of the server is not opened: the error names both
    versions, and the file keeps its version and tables."""
    path = tmp_path / "cafe.db"
    _newer_log(path)
    before = _tables(path)
    with pytest.raises(LogTooNew) as refused:
        Store(str(path))
    assert refused.value.version == SCHEMA_VERSION + 1
    assert f"schema version {SCHEMA_VERSION + 1}" in str(refused.value)
    assert f"up to {SCHEMA_VERSION}" in str(refused.value)
    assert _tables(path) == before
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION + 1,)


def test_the_server_does_not_start_on_a_log_of_a_newer_version(tmp_path: Path) -> None:
    """A server process given a newer log exits with code 2 before listening, logging
    ``log_too_new`` with the file and both versions."""
    path = tmp_path / "cafe.db"
    _newer_log(path)
    script = "import sys; from server.app import main; sys.exit(main(sys.argv[1:]))"
    args = ["--port", "0", "--line-port", "-1", "--data", str(path), "--log-format", "json"]
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 2, done.stderr
    assert '"log_too_new"' in done.stderr and str(path) in done.stderr
    assert f"schema version {SCHEMA_VERSION + 1}" in done.stderr
    assert '"listening"' not in done.stderr
