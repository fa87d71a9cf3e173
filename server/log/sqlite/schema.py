"""The SQLite log's tables, and a file written by an earlier version brought up to them.

A file's version is its ``PRAGMA user_version``. :func:`upgrade` makes the tables of a new file,
brings an older file up to :data:`SCHEMA_VERSION` in place (its games, accounts and lists stay as
they were), and refuses a file of a newer version (:class:`LogTooNew`), which this code might
misread: all in one transaction, so that another process opening the file at the same time waits,
then finds it done.

Versions 0 to 4 gained tables and columns without always saying so (the running games' journal,
the accounts' look-alike forms and the players voted out came while the files said 4), so a file
from before version 5 is brought up by what it holds. Each version after 5 is one numbered file in
:mod:`server.log.sqlite.migrations`, applied in turn (:mod:`server.log.migrations`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from importlib.resources import files

from server.log.contract import LogTooNew
from server.log.migrations import Step, steps, version

#: the version the tables below make; 0 and 1 are logs from before accounts, 2 before accounts had
#: a language, 3 before they kept the ASCII choice and people kept lists, 4 before the version said
#: that accounts have look-alike forms and that players voted out are kept
BASE_VERSION = 5

#: the numbered steps after :data:`BASE_VERSION`
STEPS: tuple[Step, ...] = steps(files("server.log.sqlite.migrations"), after=BASE_VERSION)

#: the version this code writes
SCHEMA_VERSION = version(STEPS, base=BASE_VERSION)

#: the identity given to the players and tokens of a log written before identities were kept
OLD_IDENTITY = "name:"

#: the tables as this version has them (an older file lacks some, or some of their columns)
TABLES = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    players TEXT NOT NULL,       -- JSON list of names, in seating order
    kinds TEXT NOT NULL,         -- JSON list: "person" or "bot:STRATEGY"
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,       -- JSON object
    board TEXT NOT NULL,
    start_player INTEGER,
    started REAL NOT NULL,
    finished REAL,
    result TEXT,                 -- JSON outcome once finished
    room_options TEXT,           -- JSON object: the room's options at the start (clock, absent, ...)
    moves TEXT                   -- JSON list of a finished game's moves (a running game's: journal)
);
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,     -- in the order the moves were logged
    game_id TEXT NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,     -- the game's moves are numbered 1, 2, ...
    move TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    game_id TEXT NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,
    identity TEXT,               -- who played under the name (see tokens); NULL for bots
    PRIMARY KEY (game_id, name)
);
CREATE TABLE IF NOT EXISTS voted_out (
    game_id TEXT NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,          -- voted out of the game, or their seat taken over: they watch it
    PRIMARY KEY (game_id, name)
);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    issued REAL NOT NULL,
    identity TEXT,               -- the same for every token of one player: kept across resumes
    expires REAL                 -- NULL while its connection is open
);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    hash TEXT NOT NULL,          -- argon2id, as argon2-cffi encodes it
    created REAL NOT NULL,
    last_seen REAL,
    lang TEXT,                   -- the language chosen with /lang (en, de), or NULL
    ascii INTEGER,               -- 1: /ascii on was chosen at a terminal; 0 or NULL: not
    form TEXT                    -- the name's look-alike form (protocol.names.alike)
);
CREATE TABLE IF NOT EXISTS name_forms (
    version TEXT NOT NULL        -- the look-alike forms' version the accounts' forms were made with
);
CREATE TABLE IF NOT EXISTS ratings (
    key TEXT PRIMARY KEY,        -- account:NAME (casefolded) or bot:STRATEGY
    name TEXT NOT NULL,          -- as shown
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_history (
    game_id TEXT NOT NULL REFERENCES games(id),
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    won INTEGER NOT NULL,        -- 1 if this game added to wins
    PRIMARY KEY (game_id, key)
);
CREATE TABLE IF NOT EXISTS lists (
    identity TEXT NOT NULL,      -- whose list: account:NAME, or a guest's identity (see tokens)
    list TEXT NOT NULL,          -- mute or friend
    key TEXT NOT NULL,           -- the name listed, casefolded
    name TEXT NOT NULL,          -- the name as it was typed
    PRIMARY KEY (identity, list, key)
) WITHOUT ROWID;
"""

#: the indexes, made once an older file has every column they are on
INDEXES = """
CREATE INDEX IF NOT EXISTS players_by_name ON players(name);
CREATE INDEX IF NOT EXISTS players_by_identity ON players(identity);
CREATE INDEX IF NOT EXISTS tokens_by_name ON tokens(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS accounts_by_form ON accounts(form);
CREATE INDEX IF NOT EXISTS rating_history_by_key ON rating_history(key);
"""

#: the columns a file from before version 5 may lack, in the order they came
_LATER_COLUMNS = (
    ("games", "room_options", "TEXT"),
    ("games", "moves", "TEXT"),
    ("players", "identity", "TEXT"),
    ("tokens", "identity", "TEXT"),
    ("tokens", "expires", "REAL"),
    ("accounts", "lang", "TEXT"),
    ("accounts", "ascii", "INTEGER"),
    ("accounts", "form", "TEXT"),
)


def upgrade(db: sqlite3.Connection, all_steps: tuple[Step, ...] = STEPS) -> None:
    """Make the log's tables, or bring an older file's up to the last of ``all_steps``, in one
    transaction; :class:`LogTooNew` for a newer file, which is left untouched."""
    newest = version(all_steps, base=BASE_VERSION)
    with db:
        db.execute("BEGIN IMMEDIATE")
        (at,) = db.execute("PRAGMA user_version").fetchone()
        if at > newest:
            raise LogTooNew(at, newest)
        if at == newest:
            return
        if at < BASE_VERSION:
            _to_5(db)
        for step in all_steps:
            if step.number > at:
                _run(db, step.sql)
        db.execute(f"PRAGMA user_version = {newest}")


def _to_5(db: sqlite3.Connection) -> None:
    """A new file, or one from before version 5, brought up by what it holds."""
    _run(db, TABLES)
    for table, column, kind in _LATER_COLUMNS:
        if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            if column == "identity":
                # a log from before identities knew players by name: its games stay with whoever
                # comes back with one of its tokens
                db.execute(f"UPDATE {table} SET identity = {OLD_IDENTITY!r} || name")
            elif column == "form":  # the accounts' forms are made as the log opens (accounts.py)
                db.execute("DELETE FROM name_forms")
    _moves_to_journal(db)
    _run(db, INDEXES)


def _moves_to_journal(db: sqlite3.Connection) -> None:
    """A log from before the journal kept every move in a table ``moves``, indexed by game: the
    running games' moves go to the journal, each finished game's into its row."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'moves'").fetchone():
        db.execute(
            "INSERT INTO journal (game_id, number, move) SELECT m.game_id, m.number, m.move"
            " FROM moves m JOIN games g ON g.id = m.game_id WHERE g.finished IS NULL"
            " ORDER BY g.started, m.game_id, m.number"
        )
        finished = db.execute(
            "SELECT m.game_id, m.move FROM moves m JOIN games g ON g.id = m.game_id"
            " WHERE g.finished IS NOT NULL ORDER BY m.game_id, m.number"
        )
        games: dict[str, list[str]] = {}
        for game_id, move in finished:
            games.setdefault(game_id, []).append(move)
        rows = [(json.dumps(moves), game_id) for game_id, moves in games.items()]
        db.executemany("UPDATE games SET moves = ? WHERE id = ?", rows)
        db.execute("DROP TABLE moves")
    db.execute("UPDATE games SET moves = '[]' WHERE finished IS NOT NULL AND moves IS NULL")


def _run(db: sqlite3.Connection, script: str) -> None:
    """Each statement of ``script``, inside the caller's transaction (``executescript`` would
    commit it first)."""
    for statement in _statements(script):
        db.execute(statement)


def _statements(script: str) -> Iterator[str]:
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""
