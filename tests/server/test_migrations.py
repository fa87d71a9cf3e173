"""Numbered schema steps: applied in order, each once, and a misnamed or missing one refused."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from server.log.migrations import steps, version
from server.log.sqlite import schema


def _folder(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, sql in files.items():
        (tmp_path / name).write_text(sql)
    return tmp_path


def test_steps_come_in_number_order(tmp_path: Path) -> None:
    """Files are read in the order of their numbers, whatever order the folder lists them in;
    other files are not steps."""
    folder = _folder(
        tmp_path,
        {"007_b.sql": "CREATE TABLE b (x);", "006_a.sql": "CREATE TABLE a (x);", "README.md": "no"},
    )
    found = steps(folder, after=5)
    assert [(s.number, s.name) for s in found] == [(6, "006_a.sql"), (7, "007_b.sql")]
    assert version(found, base=5) == 7
    assert version((), base=5) == 5


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ({"006_a.sql": "", "008_c.sql": ""}, "008_c.sql: schema step 7 was expected here"),
        ({"006_a.sql": "", "006_b.sql": ""}, "schema step 7 was expected here"),
        ({"7_a.sql": ""}, "7_a.sql: a schema step is named NNN_what.sql"),
        ({"007_a.sql": ""}, "007_a.sql: schema step 6 was expected here"),
    ],
)
def test_a_gap_a_repeat_or_a_misnamed_step_is_refused(
    tmp_path: Path, files: dict[str, str], problem: str
) -> None:
    """A step is never skipped: a gap, two files of one number or a name without three digits
    stop the server at start with the file named."""
    with pytest.raises(ValueError, match=problem):
        steps(_folder(tmp_path, files), after=5)


def test_an_old_file_takes_only_the_steps_it_lacks(tmp_path: Path) -> None:
    """A file at version 6 takes step 7 and not step 6 again; a new file takes every step; both
    end at the last step's version with the same tables."""
    (tmp_path / "steps").mkdir()
    folder = _folder(
        tmp_path / "steps",
        {"006_a.sql": "CREATE TABLE a (x);", "007_b.sql": "CREATE TABLE b (x);\nINSERT INTO a VALUES (1);"},
    )
    all_steps = steps(folder, after=schema.BASE_VERSION)
    with contextlib.closing(sqlite3.connect(tmp_path / "old.db", isolation_level=None)) as old:
        schema.upgrade(old, all_steps[:1])
        old.execute("INSERT INTO a VALUES (0)")
        assert old.execute("PRAGMA user_version").fetchone() == (6,)
        schema.upgrade(old, all_steps)
        assert old.execute("PRAGMA user_version").fetchone() == (7,)
        assert old.execute("SELECT x FROM a ORDER BY x").fetchall() == [(0,), (1,)]
        schema.upgrade(old, all_steps)  # at the last version: nothing runs again
        assert old.execute("SELECT count(*) FROM a").fetchone() == (2,)
    with contextlib.closing(sqlite3.connect(tmp_path / "new.db", isolation_level=None)) as new:
        schema.upgrade(new, all_steps)
        assert new.execute("PRAGMA user_version").fetchone() == (7,)
        assert {r[0] for r in new.execute("SELECT name FROM sqlite_master WHERE type='table'")} >= {"a", "b"}


def test_a_step_that_fails_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    """Every step of one start runs in one transaction: a failing step undoes the ones before
    it, and the file keeps its version."""
    folder = _folder(tmp_path, {"006_a.sql": "CREATE TABLE a (x);", "007_b.sql": "CREATE TABLE a (x);"})
    all_steps = steps(folder, after=schema.BASE_VERSION)
    with contextlib.closing(sqlite3.connect(tmp_path / "log.db", isolation_level=None)) as db:
        schema.upgrade(db, ())
        with pytest.raises(sqlite3.OperationalError):
            schema.upgrade(db, all_steps)
        assert db.execute("PRAGMA user_version").fetchone() == (schema.BASE_VERSION,)
        assert not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'a'").fetchone()


def test_the_shipped_steps_follow_on_from_the_base_version() -> None:
    """The steps the package ships are read at import and bring a log to :data:`SCHEMA_VERSION`."""
    assert schema.SCHEMA_VERSION == version(schema.STEPS, base=schema.BASE_VERSION) >= schema.BASE_VERSION
    assert [s.number for s in schema.STEPS] == list(range(schema.BASE_VERSION + 1, schema.SCHEMA_VERSION + 1))
